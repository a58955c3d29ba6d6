#!/usr/bin/env bash
# The native provider's overhead against C, on the same kernel rxe devices in the same run: rdma-core's
# ibv_rc_pingpong and perftest's ib_send_lat / ib_write_bw (C) against jrdma's rc_pingpong / ib_send_lat /
# ib_write_bw on the ibverbs provider (Java through FFM), server in rxe-lab's vm1, client in vm2, the two
# implementations alternated round by round. Prints every run, each round's ratio jrdma / C and the medians.
# A benchmark, not a test: it asserts nothing. The guests are emulated (TCG): compare ratios only.
#
#   scripts/native-overhead.sh [ROUNDS] [ITERS]      # defaults 3 rounds, 20000 iterations (ib_write_bw: ITERS/10)
# Environment: RXE_LAB (the rxe-lab script), KEEP_LAB=1 (leave the VMs up), LOGS=DIR, TESTS="ib_send_lat ..." (a
# subset, by name), SETTLE=S (seconds the guests rest before each run, default 5).
set -uo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
rounds=${1:-3}
iters=${2:-20000}
tests=("rc_pingpong|-d rxe0 -g 1 -n $iters -s 64|usec/iter"
    "ib_send_lat|-d rxe0 -x 1 -n $iters -s 2|t_typical usec"
    "ib_write_bw|-d rxe0 -x 1 -n $((iters / 10)) -s 65536|MB/s")
if [[ -n ${TESTS:-} ]]; then
    kept=()
    for t in "${tests[@]}"; do [[ " $TESTS " == *" ${t%%|*} "* ]] && kept+=("$t"); done
    if ((${#kept[@]} == 0)); then
        echo "native-overhead: TESTS='$TESTS' names none of rc_pingpong ib_send_lat ib_write_bw" >&2
        exit 2
    fi
    tests=("${kept[@]}")
fi
[[ ${SETTLE:-5} =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "native-overhead: SETTLE='$SETTLE' is not seconds" >&2; exit 2; }
lab=${RXE_LAB:-}
for c in "$root/../shared/rxe-lab/rxe-lab" "$root/../../shared/rxe-lab/rxe-lab" /work/shared/rxe-lab/rxe-lab; do
    [[ -z "$lab" && -x "$c" ]] && lab=$c
done
[[ $(id -u) -eq 0 && -n "$lab" ]] || { echo "native-overhead: needs root and rxe-lab (set RXE_LAB)" >&2; exit 2; }

# shellcheck source=scripts/java-home.sh
source "$root/scripts/java-home.sh"
JAVA_HOME=$(jrdma_java_home) || exit 1
JAR=$(ls "$root"/tools/target/jrdma-tools-*.jar 2>/dev/null | grep -v -e sources -e javadoc -e tests | head -n 1)
if [[ -z "$JAR" || ! -d "$root/tools/target/lib" ]]; then
    (cd "$root" && JAVA_HOME=$JAVA_HOME ./mvnw -B -q -o -pl tools -am package -DskipTests) >&2 || exit 1
    JAR=$(ls "$root"/tools/target/jrdma-tools-*.jar | grep -v -e sources -e javadoc -e tests | head -n 1)
fi
logs=${LOGS:-$(mktemp -d /tmp/native-overhead.XXXXXX)}
mkdir -p "$logs"

if ! "$lab" exec --vm 2 --timeout 20 -n -- true >/dev/null 2>&1; then
    "$lab" down >/dev/null 2>&1
    echo "native-overhead: rxe-lab up --vms 2 ..." >&2
    timeout 400 "$lab" up --vms 2 >"$logs/up.log" 2>&1 || { echo "rxe-lab up failed: $logs/up.log" >&2; exit 1; }
fi
[[ ${KEEP_LAB:-0} == 1 ]] || trap '"$lab" down >/dev/null 2>&1' EXIT

JAVA="/host$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -jar /host$JAR"
SERVER_IP=10.77.0.11

# pair IMPL TEST ARGS: one server (vm1) + client (vm2) run; prints the client's figure (or "FAILED").
pair() {
    local impl=$1 test=$2 args=$3 cmd figure
    case "$impl:$test" in
        c:rc_pingpong) cmd="ibv_rc_pingpong $args" ;;
        c:*) cmd="$test $args" ;;
        jrdma:*) cmd="env JRDMA_PROVIDER=ibverbs $JAVA $test $args" ;;
    esac
    local tag="$impl-$test-$n"
    sleep "${SETTLE:-5}" # the last run's processes have exited; their teardown in the guests should be over too
    "$lab" exec --vm 1 --timeout 300 -n -- "$cmd" >"$logs/$tag.server" 2>&1 &
    local spid=$!
    "$lab" exec --vm 1 --timeout 160 -n -- "rxelab-wait-listen 18515 150" >/dev/null 2>&1
    "$lab" exec --vm 2 --timeout 300 -n -- "$cmd $SERVER_IP" >"$logs/$tag.client" 2>&1
    wait "$spid"
    case "$test" in
        rc_pingpong) figure=$(sed -n 's/.* = \([0-9.]*\) usec\/iter.*/\1/p' "$logs/$tag.client") ;;
        ib_send_lat) figure=$(awk '$1 == 2 && NF >= 9 { print $5 }' "$logs/$tag.client") ;;
        ib_write_bw) figure=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$logs/$tag.client") ;;
    esac
    echo "${figure:-FAILED}"
}

median() { sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
# numbers LIST: the figures of a space-separated list, one a line ("FAILED" and "-" left out)
numbers() { tr ' ' '\n' <<<"$1" | grep -E '^[0-9.]+$'; }

# cost TEST C JRDMA: jrdma's cost per operation over C's (latency as is, bandwidth inverted), or "-"
cost() {
    [[ $2 =~ ^[0-9.]+$ && $3 =~ ^[0-9.]+$ ]] || { echo "-"; return; }
    if [[ $1 == *_bw ]]; then awk -v c="$2" -v j="$3" 'BEGIN { printf "%.2f", c / j }'
    else awk -v c="$2" -v j="$3" 'BEGIN { printf "%.2f", j / c }'; fi
}

declare -A runs ratios round
for ((n = 1; n <= rounds; n++)); do
    for t in "${tests[@]}"; do
        IFS='|' read -r test args unit <<<"$t"
        # alternate which implementation goes first, so a drifting machine favours neither
        order=(c jrdma)
        ((n % 2 == 0)) && order=(jrdma c)
        for impl in "${order[@]}"; do
            f=$(pair "$impl" "$test" "$args")
            echo "round $n $test $impl: $f $unit"
            runs[$impl,$test]+="$f "
            round[$impl]=$f
        done
        r=$(cost "$test" "${round[c]}" "${round[jrdma]}")
        echo "round $n $test jrdma / C cost: $r"
        ratios[$test]+="$r "
    done
done

echo
# The rounds' own ratios, their median and their geometric mean. In a TCG guest the run that goes second in a round
# is often slower, whichever implementation it is (2026-12-01: ib_send_lat 25 % for both), so one round's ratio
# swings with the order; the rounds alternate it, and over an even number of rounds the geometric mean cancels that
# effect (it multiplies one ratio and divides the next). C's spread (its slowest run over its fastest) says how much
# one round can tell.
echo "| test | unit | C (median) | jrdma ibverbs (median) | jrdma / C cost | the rounds' ratios (median) |" \
    "geometric mean | C's spread |"
echo "|---|---|---:|---:|---:|---|---:|---:|"
for t in "${tests[@]}"; do
    IFS='|' read -r test args unit <<<"$t"
    c=$(numbers "${runs[c,$test]}" | median)
    j=$(numbers "${runs[jrdma,$test]}" | median)
    per=$(numbers "${ratios[$test]}" | median)
    spread=$(numbers "${runs[c,$test]}" | sort -g \
        | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR && lo > 0) printf "%.2f", hi / lo; else print "-" }')
    geo=$(numbers "${ratios[$test]}" \
        | awk '$1 > 0 { s += log($1); n++ } END { if (n) printf "%.2f", exp(s / n); else print "-" }')
    echo "| $test $args | $unit | ${c:--} | ${j:--} | $(cost "$test" "$c" "$j") | ${ratios[$test]}(${per:--}) |" \
        "$geo | $spread |"
done
echo "logs: $logs"
