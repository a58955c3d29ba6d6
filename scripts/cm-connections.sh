#!/usr/bin/env bash
# How long CONNS connections made by the connection manager take between two processes on this machine: jrdma
# ucmatose -c CONNS -C 1 (connect, one message each way, disconnect), server and client each a JVM of its own on a
# soft device of its own (127.0.218.1 and .2). Prints, per round and per tree, the seconds from the client's
# "cmatose: connecting" to its "test complete" (JVM start excluded). Several trees (jrdma checkouts with their tools
# jar built: ./jrdma builds it) are run alternately in each round, to compare builds in the same run.
#
#   scripts/cm-connections.sh                       # 100 connections, 3 rounds, this tree
#   scripts/cm-connections.sh 300 5 /old/tree .     # before/after in the same run
set -uo pipefail
conns=${1:-100}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
trees=("$@")
((${#trees[@]})) || trees=("$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)")
tmp=$(mktemp -d /tmp/cm-connections.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
stamp() { while IFS= read -r l; do echo "$(date +%s.%N) $l"; done; }
port=7560
for ((r = 1; r <= rounds; r++)); do
    for tree in "${trees[@]}"; do
        port=$((port + 1))
        (cd "$tree" && JRDMA_DEVICES=rxe0=127.0.218.1 ./jrdma ucmatose -b 127.0.218.1 -p "$port" -c "$conns" -C 1 \
            --timeout=120 >"$tmp/server.out" 2>&1) &
        server=$!
        sleep 3 # the server's JVM start; a client too early is rejected (reason 8) and the round fails visibly
        (cd "$tree" && JRDMA_DEVICES=rxe0=127.0.218.2 ./jrdma ucmatose -s 127.0.218.1 -p "$port" -c "$conns" -C 1 \
            --timeout=120 2>&1 | stamp >"$tmp/client.out")
        wait "$server"
        from=$(grep -m1 "cmatose: connecting" "$tmp/client.out" | cut -d' ' -f1)
        to=$(grep -m1 "test complete" "$tmp/client.out" | cut -d' ' -f1)
        status="client $(tail -1 "$tmp/client.out" | cut -d' ' -f2-), server $(tail -1 "$tmp/server.out")"
        if [[ -n "$from" && -n "$to" ]]; then
            printf 'round %d  %-40s %d connections: %.3f s  (%s)\n' "$r" "$tree" "$conns" "$(echo "$to - $from" | bc)" \
                "$status"
        else
            printf 'round %d  %-40s FAILED (%s)\n' "$r" "$tree" "$status"
        fi
    done
done
