#!/usr/bin/env bash
# The machine's latency floor, without jrdma: how often a spinning thread loses its CPU, and the p99 of a
# two-process shared-memory ping-pong whose round trip costs what jrdma's 2-byte SEND round trip costs. On a virtual
# machine the hypervisor takes a vCPU away for a few microseconds thousands of times a second; at a t_typical of
# about 1 us, one round trip in a hundred or more meets such a stall, and the p99 of any ping-pong is then about
# t_typical plus half the stall (half: a half round trip is what perftest reports). How often the stalls come
# changes from hour to hour. Run it beside (alternating with) bench/probes/tools-ab.sh to compare in one window.
#
#   bench/probes/stall-floor.sh [WORK_NS] [RUNS] [steps|deadline]
#
# WORK_NS (default 850): each side's work before it answers; 850 gives a t_typical of about 1.0 us here, as jrdma's
# default `ib_send_lat -s 2` between two processes. RUNS (default 100) of 1,000 iterations (perftest's default),
# after 200,000 round trips of warm-up. The work (StallFloor.java says more): steps (default), a fixed amount of
# arithmetic as a pass is, which a stall delays by the whole stall; deadline, a spin to a deadline, which absorbs
# part of a stall and so understates the floor (what the first version of this probe measured).
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
# shellcheck source=../../scripts/java-home.sh
source "$here/../../scripts/java-home.sh"
java="$(jrdma_java_home)/bin/java"
work=${1:-850}
runs=${2:-100}
mode=${3:-steps}
if ! [[ "$work" =~ ^[0-9]+$ && "$runs" =~ ^[1-9][0-9]*$ && "$mode" =~ ^(steps|deadline)$ ]] || (($# > 3)); then
    echo "usage: stall-floor.sh [WORK_NS] [RUNS] [steps|deadline]" >&2
    exit 2
fi
file=$(mktemp /dev/shm/jrdma-stall-floor.XXXXXX)
trap 'rm -f "$file"' EXIT
"$java" "$here/StallFloor.java" gaps 3
"$java" "$here/StallFloor.java" server "$file" "$work" 1000 "$runs" "$mode" &
server=$!
"$java" "$here/StallFloor.java" client "$file" "$work" 1000 "$runs" "$mode" | tail -n 6
wait "$server"
