#!/usr/bin/env bash
# The kernel's floor under a RoCEv2 ping-pong, against the whole Java NIO UDP ping-pong, in the same run.
#
# Alternates, ROUNDS times: the C probe (udp_pingpong_cost.c: the socket calls alone, no JVM) in three shapes, then
# PingPongCost's NIO UDP and jrdma ping-pongs (one JVM each). Each figure is the fastest of its program's rounds
# (three for the probe, five for a JVM, whose first rounds run while the JIT compiles): noise only adds time, and the
# Java baseline is then at its best. One thread drives both ends everywhere, so each figure is the CPU cost of a round
# trip with no waiting in it. Prints ns per round trip and each figure's ratio to the Java NIO UDP round trip of the
# same round, then the medians. Fewer than 200,000 round trips leave the JVMs too little time to warm up.
#
#   ./mvnw -B -q -DskipTests install          # builds bench/target/benchmarks.jar
#   bench/probes/floor.sh [ROUNDS] [ROUND_TRIPS]
#
# Needs gcc. Runs on loopback (127.0.61.x for the JVM, 127.0.70.x for the probe); inside a private network
# namespace if unshare allows it (then nothing else on the machine shares the loopback).
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
rounds=${1:-5}
trips=${2:-200000}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ && "$trips" =~ ^[1-9][0-9]*$ ]] || (($# > 2)); then
    echo "usage: floor.sh [ROUNDS] [ROUND_TRIPS]  (positive integers; default 5 200000)" >&2
    exit 2
fi

if [[ "${FLOOR_IN_NAMESPACE:-}" != 1 ]] && command -v unshare >/dev/null && command -v ip >/dev/null \
        && unshare -n true 2>/dev/null; then
    exec env FLOOR_IN_NAMESPACE=1 unshare -n bash -c 'ip link set lo up && exec "$0" "$@"' "$0" "$rounds" "$trips"
fi

# shellcheck source=../../scripts/java-home.sh
source "$root/scripts/java-home.sh"
JAVA_HOME=$(jrdma_java_home) || exit 1
jar="$root/bench/target/benchmarks.jar"
[[ -f "$jar" ]] || { echo "floor.sh: $jar is missing; run ./mvnw -B -q -DskipTests install first" >&2; exit 1; }
command -v gcc >/dev/null || { echo "floor.sh: needs gcc" >&2; exit 1; }
probe=$(mktemp -d)/udp_pingpong_cost
trap 'rm -rf "$(dirname "$probe")"' EXIT
gcc -O2 -o "$probe" "$root/bench/probes/udp_pingpong_cost.c"

# The fastest of a program's rounds; $1 is the field (counted from the end of the line) that holds the figure.
fastest() { awk -v k="$1" '/per round trip/ { v = $(NF - k); if (m == "" || v < m) m = v } END { print m }'; }
c_probe() { "$probe" "$@" "$trips" | fastest 7; }
java_cost() {
    "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$jar" io.jrdma.bench.PingPongCost "$trips" 5 "$1" \
        | fastest 4
}

names=("C: RoCE's calls today (unconnected sendmsg, GSO run of answer + ACK, recvmmsg of 1 with GRO)"
    "C: RoCE's cheapest conceivable calls (connected, one packet, no ACK)"
    "C: NIO UDP's calls (connected write and read)"
    "Java: jrdma RC SEND ping-pong (PingPongCost jrdma)")
declare -a ratios
printf 'round  %12s %12s %12s %12s %12s   (ns per round trip; ratio to Java NIO UDP)\n' \
    "C roce now" "C roce best" "C nio" "java jrdma" "java nio"
for ((r = 1; r <= rounds; r++)); do
    now=$(c_probe 0 1 3 2)
    best=$(c_probe 1 1 3 1)
    nio=$(c_probe 1 0 0 1)
    udp=$(java_cost udp)
    jr=$(java_cost jrdma)
    line=$(awk -v a="$now" -v b="$best" -v c="$nio" -v d="$jr" -v u="$udp" 'BEGIN {
        printf "%.3f %.3f %.3f %.3f", a / u, b / u, c / u, d / u }')
    ratios+=("$line")
    read -r ra rb rc rd <<<"$line"
    printf '%5d  %6s %5s %6s %5s %6s %5s %6s %5s %6s\n' "$r" "$now" "$ra" "$best" "$rb" "$nio" "$rc" "$jr" "$rd" "$udp"
done
echo
for i in 0 1 2 3; do
    med=$(printf '%s\n' "${ratios[@]}" | awk -v f=$((i + 1)) '{ print $f }' | sort -n \
        | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
    printf 'median ratio to Java NIO UDP %s: %s\n' "${names[$i]}" "$med"
done
