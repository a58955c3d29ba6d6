#!/usr/bin/env bash
# Same-window A/B of a latency tool as a user runs it: bench/probes/tools-pair.sh with each build in turn
# (A B A B ...), ROUNDS times, then per build each run's t_typical, p99 and p99.9 and how many runs had a p99 within
# 3x their t_typical (issue 21's goal for the default ib_send_lat). The p99 of a 1,000-iteration run is its tenth
# slowest iteration: one stall of a few hundred microseconds decides it, so only many runs in one window say much.
#
#   bench/probes/tools-ab.sh DIR_A DIR_B ROUNDS TOOL [ARGS...]
#   bench/probes/tools-ab.sh /tmp/before tools/target 8 ib_send_lat -s 2
#
# DIR_A, DIR_B: folders holding jrdma-tools-*.jar and its lib/ (copies of two builds' tools/target). For perftest's
# latency tools (their result row); PAIR_THREADING applies to both builds.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
[[ $# -ge 4 ]] || { echo "usage: $0 DIR_A DIR_B ROUNDS TOOL [ARGS...]" >&2; exit 2; }
a=$1 b=$2 rounds=$3
shift 3
[[ $rounds =~ ^[0-9]+$ && $rounds -gt 0 ]] || { echo "ROUNDS must be a positive number" >&2; exit 2; }
out=$(mktemp /tmp/tools-ab.XXXXXX)
for ((i = 1; i <= rounds; i++)); do
    for side in A B; do
        dir=$a
        [[ $side == B ]] && dir=$b
        row=$("$here/tools-pair.sh" "$dir" "$@" 2>/dev/null | tail -n 1) || row="failed"
        echo "$side $row" >>"$out"
    done
done
for side in A B; do
    dir=$a
    [[ $side == B ]] && dir=$b
    echo "$side ($dir):"
    awk -v s="$side" '$1 == s {
        if ($2 == "failed") { print "  failed"; failed++; next }
        typ = $6; p99 = $9; p999 = $10; n++
        if (p99 <= 3 * typ) within++
        printf "  t_typical %6.2f  p99 %8.2f  p99.9 %8.2f\n", typ, p99, p999
    } END { printf "  p99 within 3x t_typical: %d of %d runs\n", within, n + failed }' "$out"
done
rm -f "$out"
