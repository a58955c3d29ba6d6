#!/usr/bin/env bash
# One jrdma tool as a user runs it: a server and a client, two processes on this host with no JRDMA_ settings but
# their devices (rxe0 on 127.0.77.1 and 127.0.77.2), and prints the client's result line (perftest's table row, or
# rc_pingpong's usec/iter line). For comparing builds, alternate them in one window: only same-run figures count.
#
#   bench/probes/tools-pair.sh [DIR] TOOL [ARGS...]
#   bench/probes/tools-pair.sh ib_send_lat -s 2                  # the default run: 1,000 iterations
#   bench/probes/tools-pair.sh /tmp/old ib_send_lat -n 20000 -s 2   # DIR: a folder with jrdma-tools-*.jar and lib/
#   bench/probes/tools-pair.sh rc_pingpong -n 1000 -s 64 -g 1
#
# DIR defaults to tools/target. Logs: ${PAIR_LOGS:-a temp dir} (server.log, client.log). PAIR_THREADING=MODE runs
# both sides with JRDMA_THREADING=MODE (invoker, dedicated) instead of the default.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=../../scripts/java-home.sh
source "$root/scripts/java-home.sh"
java="$(jrdma_java_home)/bin/java"
dir="$root/tools/target"
if [[ $# -gt 0 && -d $1 ]]; then dir=$1; shift; fi
[[ $# -ge 1 ]] || { echo "usage: $0 [DIR] TOOL [ARGS...]" >&2; exit 2; }
jar=$(find "$dir" -maxdepth 1 -name 'jrdma-tools-*.jar' ! -name '*-sources.jar' ! -name '*-javadoc.jar' \
    ! -name '*-tests.jar' | head -n 1)
[[ -n "$jar" ]] || { echo "no jrdma-tools jar in $dir (build: ./mvnw -B -q -pl tools -am package -DskipTests)" >&2
    exit 1; }
tool=$1
shift
logs=${PAIR_LOGS:-$(mktemp -d /tmp/tools-pair.XXXXXX)}
mkdir -p "$logs"
port=${PAIR_PORT:-18601}
unset "${!JRDMA_@}"
if [[ -n ${PAIR_THREADING:-} ]]; then export JRDMA_THREADING=$PAIR_THREADING; fi

JRDMA_DEVICES=rxe0=127.0.77.1 timeout 120 "$java" -jar "$jar" "$tool" -d rxe0 -p "$port" "$@" \
    >"$logs/server.log" 2>&1 &
server=$!
# the client's first connect is its only one (as perftest's): give the server time to start and warm up
for _ in $(seq 100); do
    grep -q "Waiting for client\|local address" "$logs/server.log" 2>/dev/null && break
    sleep 0.1
done
set +e
JRDMA_DEVICES=rxe0=127.0.77.2 timeout 120 "$java" -jar "$jar" "$tool" -d rxe0 -p "$port" "$@" 127.0.0.1 \
    >"$logs/client.log" 2>&1
client_status=$?
wait "$server"
server_status=$?
set -e
if ((client_status != 0 || server_status != 0)); then
    echo "failed: server exit $server_status, client exit $client_status (logs in $logs)" >&2
    exit 1
fi
grep -E "usec/iter|^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+" "$logs/client.log" | tail -n 1
