#!/usr/bin/env bash
# Interop with the Linux kernel's Soft-RoCE (rdma_rxe): runs the real rdma-core tools in an rxe-lab VM against
# jrdma's tools on the lab's host side (10.77.0.1, device rxe0): ibv_rc_pingpong, ibv_ud_pingpong and perftest's
# ib_{send,write,read,atomic}_{bw,lat} (RC, and UC/UD where perftest runs them; -R over rdma_cm), rping, ucmatose and
# udaddy (kernel ib_cm/rdma_cm against jrdma's soft CM), each case in both directions:
#   real server (vm1) + jrdma client (namespace)   and   jrdma server (namespace) + real client (vm1).
# Prints one PASS/FAIL line per case and direction, then "N passed, M failed"; exits 1 on any failure.
# Skips (exit 0, "SKIPPED: reason") where rxe-lab cannot run at all: not root, no rxe-lab, no qemu (and no apt-get
# to install it).
#
#   scripts/interop-rxe.sh            # boots 1 VM (builds the image once, cached), runs every case, tears down
# Environment: RXE_LAB (the rxe-lab script), INTEROP_KEEP_LOGS=DIR (where the per-case logs go; default a temp dir),
# INTEROP_ONLY=cm (only the connection-manager cases: rping, ucmatose, udaddy, reject, loss, perftest -R).
set -uo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)

skip() {
    echo "SKIPPED: $*"
    exit 0
}

lab=${RXE_LAB:-}
if [[ -z "$lab" ]]; then
    for c in "$root/../shared/rxe-lab/rxe-lab" "$root/../../shared/rxe-lab/rxe-lab" /work/shared/rxe-lab/rxe-lab; do
        [[ -x "$c" ]] && { lab=$c; break; }
    done
fi
[[ $(id -u) -eq 0 ]] || skip "rxe-lab needs root (running as $(id -un))"
[[ -n "$lab" && -x "$lab" ]] || skip "rxe-lab not found (set RXE_LAB)"
if ! command -v qemu-system-x86_64 >/dev/null && ! command -v apt-get >/dev/null; then
    skip "no qemu-system-x86_64 and no apt-get to install it"
fi

# shellcheck source=scripts/java-home.sh
source "$root/scripts/java-home.sh"
JAVA_HOME=$(jrdma_java_home) || exit 1
java="$JAVA_HOME/bin/java"

jar() {
    local j
    for j in "$root"/tools/target/jrdma-tools-*.jar; do
        case "$j" in *-sources.jar | *-javadoc.jar | *-tests.jar) ;; *) [[ -f "$j" ]] && { echo "$j"; return 0; } ;; esac
    done
    return 1
}
if ! jar >/dev/null || [[ ! -d "$root/tools/target/lib" ]]; then
    echo "interop: building the tools jar (mvnw package)" >&2
    (cd "$root" && JAVA_HOME=$JAVA_HOME ./mvnw -B -q -o -pl tools -am package -DskipTests) >&2 \
        || { echo "interop: the build failed" >&2; exit 1; }
fi
JAR=$(jar) || { echo "interop: no tools jar" >&2; exit 1; }

logs=${INTEROP_KEEP_LOGS:-$(mktemp -d /tmp/interop-rxe.XXXXXX)}
mkdir -p "$logs"
VM_IP=10.77.0.11
HOST_DEV="rxe0=10.77.0.1"
TCP_PORT=18515
only=${INTEROP_ONLY:-}
# shellcheck source=scripts/interop-rxe-cm.sh
source "$root/scripts/interop-rxe-cm.sh"
# shellcheck source=scripts/failed-logs.sh
source "$root/scripts/failed-logs.sh"

cleanup() {
    "$lab" down >/dev/null 2>&1
}
trap cleanup EXIT

echo "interop: rxe-lab build (cached) ..." >&2
timeout 900 "$lab" build >"$logs/build.log" 2>&1 || { echo "interop: rxe-lab build failed, see $logs/build.log" >&2; exit 1; }

# boot NETDEV_MTU: (re)starts the lab with one VM whose netdev (and the namespace's bridge) has that MTU.
boot() {
    booted_mtu=$1
    "$lab" down >/dev/null 2>&1
    echo "interop: rxe-lab up --vms 1 --mtu $1 ..." >&2
    timeout 400 "$lab" up --vms 1 --mtu "$1" >"$logs/up-$1.log" 2>&1 \
        || { echo "interop: rxe-lab up failed, see $logs/up-$1.log" >&2; exit 1; }
}

passed=0
failed=0

# jrdma TOOL ARGS... : a jrdma tool on the host side of the lab (10.77.0.1, device rxe0).
jrdma() {
    "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" "$@"
}

# wait_host_listen SECONDS: until something listens on TCP_PORT in the namespace.
wait_host_listen() {
    local end=$((SECONDS + $1))
    while ((SECONDS < end)); do
        "$lab" ns -- ss -Hltn "sport = :$TCP_PORT" 2>/dev/null | grep -q . && return 0
        sleep 0.2
    done
    return 1
}

# check LOG ITERS: the tool's log has the result lines and no data or completion error.
check_log() {
    grep -q "^$2 iters in .* usec/iter" "$1" && grep -q " bytes in .* Mbit/sec" "$1" \
        && ! grep -q -e "invalid data" -e "Failed status" -e "error" "$1"
}

# report NAME OK SERVER_LOG CLIENT_LOG
report() {
    if [[ $2 == 0 ]]; then
        echo "PASS $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1 (logs: $3 $4)"
        failed=$((failed + 1))
        failed_log "$3" "$4"
    fi
}

# pingpong TOOL ITERS STEP_TIMEOUT ARGS...: both directions of one ibv_*_pingpong case.
pingpong() {
    local tool=$1 iters=$2 t=$3
    shift 3
    local args="-d rxe0 -g 1 -n $iters $*"
    local name="$tool ${*}"
    local tag
    tag=$(echo "$tool $*" | tr -c 'a-zA-Z0-9\n' '_')

    # real server in vm1 + jrdma client
    local s="$logs/$tag.real-server.log" c="$logs/$tag.jrdma-client.log" ok=0
    "$lab" exec --vm 1 --timeout "$t" -n -- "ibv_$tool $args" >"$s" 2>&1 &
    local spid=$!
    "$lab" exec --vm 1 --timeout 15 -n -- "rxelab-wait-listen $TCP_PORT 10" >/dev/null 2>&1 || ok=1
    timeout "$t" "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" "$tool" $args --timeout=$((t - 5)) \
        "$VM_IP" >"$c" 2>&1 || ok=1
    wait "$spid" || ok=1
    check_log "$s" "$iters" && check_log "$c" "$iters" || ok=1
    report "real-server/jrdma-client $name" "$ok" "$s" "$c"

    # jrdma server + real client in vm1
    s="$logs/$tag.jrdma-server.log" c="$logs/$tag.real-client.log" ok=0
    timeout "$t" "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" "$tool" $args --timeout=$((t - 5)) \
        >"$s" 2>&1 &
    spid=$!
    wait_host_listen 20 || ok=1
    "$lab" exec --vm 1 --timeout "$t" -n -- "ibv_$tool $args 10.77.0.1" >"$c" 2>&1 || ok=1
    wait "$spid" || ok=1
    check_log "$s" "$iters" && check_log "$c" "$iters" || ok=1
    report "jrdma-server/real-client $name" "$ok" "$s" "$c"
}

# check_perftest LOG TOOL ROLE SIZE: a perftest (or jrdma) log with no error and, where that side prints one, the
# result row of SIZE. Every side prints rows but the servers of ib_read_lat and ib_atomic_lat.
check_perftest() {
    local log=$1 tool=$2 role=$3 size=$4
    grep -qiE "error|fail|couldn|unable|invalid|timed out" "$log" && return 1
    distinct_remotes "$log" || return 1
    case "$tool:$role" in
        ib_read_lat:server | ib_atomic_lat:server) grep -q -- "------" "$log" ;;
        *) grep -qE "^ $size +[0-9]+ +[0-9]" "$log" ;;
    esac
}

# distinct_remotes LOG: no two "remote address" lines in LOG name the same QPN. perftest prints one per QP; a QPN
# printed twice means the two sides paired their handshakes out of order, each QP taking another QP's address.
distinct_remotes() {
    local dup
    dup=$(grep -oE "remote address: .*QPN 0x[0-9a-fA-F]+" "$1" | sort | uniq -d)
    [[ -z $dup ]] && return 0
    echo "interop: $1 names a remote QPN twice: $dup" >&2
    return 1
}

# guest_dmesg: the end of vm1's kernel log, appended to a failed case's log of the real tool.
guest_dmesg() {
    echo "--- vm1 dmesg (tail)"
    "$lab" exec --vm 1 --timeout 10 -n -- 'dmesg | tail -n 20' 2>&1
}

# exited0 LOG: the command whose output LOG holds exited 0.
exited0() {
    [[ $(tail -n 1 "$1") == "[exit status 0]" ]]
}

# perftest TOOL STEP_TIMEOUT ARGS...: both directions of one perftest case, the same arguments on both sides.
perftest() {
    local tool=$1 t=$2
    shift 2
    local args="-d rxe0 -x 1 $*"
    local name="$tool ${*}"
    local size tag
    size=$(echo " $* " | sed -n 's/.* -s \([0-9]*\) .*/\1/p')
    if [[ " $* " == *" -a "* ]]; then
        size="[0-9]+" # every size; the servers of the RDMA bandwidth tests print the client's last one only
    elif [[ -z "$size" ]]; then
        case "$tool" in
            ib_atomic_*) size=8 ;;
            *_bw) size=65536 ;;
            *) size=2 ;;
        esac
    fi
    tag=$(echo "$tool $*" | tr -c 'a-zA-Z0-9\n' '_')

    # real server in vm1 + jrdma client; each log ends with its command's "[exit status N]"
    local s="$logs/$tag.real-server.log" c="$logs/$tag.jrdma-client.log" ok rup=real_server_up jup=jrdma_server_up
    if [[ " $* " == *" -R "* ]]; then # no TCP listener with -R: wait for the CM listener (interop-rxe-cm.sh)
        rup=real_perftest_cm_up jup=jrdma_cm_up
    fi
    run_pair real_server "$rup" jrdma_client "$s" "$c" "$s"
    report "real-server/jrdma-client $name" "$ok" "$s" "$c"
    ((ok == 0)) || guest_dmesg >>"$s"

    # jrdma server + real client in vm1
    s="$logs/$tag.jrdma-server.log" c="$logs/$tag.real-client.log"
    run_pair jrdma_server "$jup" real_client "$s" "$c" "$c"
    report "jrdma-server/real-client $name" "$ok" "$s" "$c"
    ((ok == 0)) || guest_dmesg >>"$c"
}

# The two sides of a case, for run_pair; they use the caller's tool, args and t (perftest's locals).
real_server() { "$lab" exec --vm 1 --timeout "$t" -n -- "$tool $args"; }
real_server_up() { "$lab" exec --vm 1 --timeout 15 -n -- "rxelab-wait-listen $TCP_PORT 10" >/dev/null 2>&1; }
real_client() { retry_rejected "$lab" exec --vm 1 --timeout "$t" -n -- "$tool $args 10.77.0.1"; }
jrdma_server() {
    timeout "$t" "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" "$tool" $args --timeout=$((t - 5))
}
jrdma_client() {
    timeout "$t" "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" "$tool" $args \
        --timeout=$((t - 5)) "$VM_IP"
}
jrdma_server_up() { wait_host_listen 20; }
real_perftest_cm_up() { real_cm_up "$TCP_PORT"; }

# run_pair SERVER UP CLIENT SERVER_LOG CLIENT_LOG REAL_LOG: starts SERVER in the background, waits with UP for it
# to listen, runs CLIENT, and checks both logs (each ends with its command's "[exit status N]"); sets ok (0 when
# both passed). A case whose real perftest (REAL_LOG) could not calibrate its clock runs once more.
run_pair() {
    local server=$1 up=$2 client=$3 s=$4 c=$5 real=$6 attempt spid
    for attempt in 1 2; do
        ok=0
        ("$server"; echo "[exit status $?]") >"$s" 2>&1 &
        spid=$!
        "$up" || ok=1
        ("$client"; echo "[exit status $?]") >"$c" 2>&1
        wait "$spid"
        exited0 "$s" && exited0 "$c" || ok=1
        check_perftest "$s" "$tool" server "$size" && check_perftest "$c" "$tool" client "$size" || ok=1
        ((ok == 0)) || ! { uncalibrated "$real" "$attempt" || guest_died "$s" "$c" "$attempt"; } || continue
        break
    done
}

# uncalibrated LOG ATTEMPT: true (and says so) when the real perftest in LOG failed only because it could not
# measure the guest's CPU clock (its cycle counter against time fit worse than r^2 0.9, which an emulated guest on a
# loaded host sometimes gives: a bandwidth test says "Can't produce a report", a latency test "Correlation
# coefficient r^2: ... < 0.9" and prints inf) and this was the first attempt: the case runs again.
uncalibrated() {
    [[ $2 == 1 ]] && grep -qE "Can't produce a report|Correlation coefficient r\^2: [0-9.]+ < 0\.9" "$1" || return 1
    echo "RETRY $tool: perftest in the guest could not calibrate its clock (log kept as $1.first)" >&2
    cp "$1" "$1.first"
    return 0
}

# guest_died SERVER_LOG CLIENT_LOG ATTEMPT: true (and says so) when a failed first attempt left vm1 not answering
# at all: the emulated guest's kernel hung (seen once: a kernel rxe warning in rxe_destroy_qp as a timed-out tool
# exited, then no route to the guest). The guest is booted again and the case runs once more; a second failure
# stands. The first attempt's logs are kept as LOG.first.
guest_died() {
    [[ $3 == 1 ]] || return 1
    "$lab" exec --vm 1 --timeout 20 -n -- true >/dev/null 2>&1 && return 1
    echo "RETRY $tool: vm1 stopped answering during the case; booting it again (logs kept as $1.first, $2.first)" >&2
    cp "$1" "$1.first"
    cp "$2" "$2.first"
    boot "$booted_mtu"
    return 0
}

start=$SECONDS
boot 1500 # rxe active_mtu 1024
if [[ $only != cm ]]; then
# rc_pingpong: -c makes the client zero the first byte of every page and the server check it (real and jrdma).
pingpong rc_pingpong 50 60 -s 1 -c
pingpong rc_pingpong 50 60 -s 4095 -c
pingpong rc_pingpong 50 60 -s 4097 -c
pingpong rc_pingpong 4 120 -s 1048576 -c
pingpong rc_pingpong 10 60 -s 8192 -e -c
# ud_pingpong: the message must fit the port's active MTU (1024 with the lab's netdev MTU 1500).
pingpong ud_pingpong 20 60 -s 1
pingpong ud_pingpong 20 60 -s 1024
# perftest: bandwidth (RDMA WRITE, SEND, RDMA READ, atomics), then latency; sizes 1, 4095, 4097 and 1 MiB, 4 QPs
perftest ib_write_bw 60 -s 1 -n 200
perftest ib_write_bw 60 -s 4095 -n 100
perftest ib_write_bw 60 -s 4097 -n 100 --report_gbits
perftest ib_write_bw 120 -s 1048576 -n 5
perftest ib_write_bw 60 -s 4096 -n 50 -q 4
perftest ib_write_bw 60 -s 65536 -D 2
perftest ib_send_bw 60 -s 1 -n 200
perftest ib_send_bw 60 -s 4095 -n 100 -e
perftest ib_send_bw 60 -s 4097 -n 100
perftest ib_send_bw 120 -s 1048576 -n 5
perftest ib_send_bw 60 -s 4097 -n 50 -q 4
perftest ib_read_bw 60 -s 1 -n 200
perftest ib_read_bw 60 -s 4095 -n 100
perftest ib_read_bw 60 -s 4097 -n 100
# -t 1: one 1 MiB READ at a time, so that a responder on the host does not burst 5 MiB into the emulated guest
perftest ib_read_bw 120 -s 1048576 -n 5 -t 1
perftest ib_read_bw 60 -s 4095 -n 50 -q 4
perftest ib_atomic_bw 60 -A FETCH_AND_ADD -n 200
perftest ib_atomic_bw 60 -A CMP_AND_SWAP -n 200
perftest ib_atomic_bw 60 -A FETCH_AND_ADD -n 50 -q 4
perftest ib_send_lat 60 -s 1 -n 100
perftest ib_send_lat 60 -s 4097 -n 50
perftest ib_send_lat 120 -s 1048576 -n 5
perftest ib_write_lat 60 -s 1 -n 100
perftest ib_write_lat 60 -s 4095 -n 50
perftest ib_write_lat 120 -s 1048576 -n 5
perftest ib_read_lat 60 -s 1 -n 100
perftest ib_read_lat 60 -s 4097 -n 50
perftest ib_read_lat 120 -s 1048576 -n 5
perftest ib_atomic_lat 60 -A CMP_AND_SWAP -n 100
perftest ib_atomic_lat 60 -A FETCH_AND_ADD -n 100
# -a: every size from 2 to 8 MiB (ib_send_bw syncs around each size)
perftest ib_write_bw 180 -a -n 5
perftest ib_send_bw 180 -a -n 5
# -c UC (SEND, RDMA WRITE) and -c UD (SEND, at most the MTU: 1024 here; the receives carry the GRH). Nothing
# retransmits a lost packet: bandwidth counts stay small enough for the emulated guest to take every message.
perftest ib_send_bw 60 -c UC -s 4097 -n 20
perftest ib_write_bw 60 -c UC -s 4095 -n 20
perftest ib_write_lat 60 -c UC -s 64 -n 50
perftest ib_send_bw 60 -c UD -s 1024 -n 20
perftest ib_send_lat 60 -c UD -s 1024 -n 50
perftest ib_send_lat 60 -c UD -s 1 -n 100
fi
# The connection manager: rping, ucmatose, udaddy, reject, disconnects, loss (interop-rxe-cm.sh), then perftest -R
# (rdma_cm for the exchange and the test QPs; the servers are up when their CM id listens, as no TCP port does).
cm_cases
perftest ib_send_bw 90 -R -s 4097 -n 20
perftest ib_write_bw 90 -R -s 4095 -n 20 -q 2
perftest ib_read_lat 90 -R -s 64 -n 50
perftest ib_send_lat 90 -R -c UD -s 512 -n 50

[[ $only == cm ]] && { dump_failed; echo "$passed passed, $failed failed"; exit $((failed > 0)); }
boot 9000 # rxe active_mtu 4096
pingpong rc_pingpong 20 60 -m 4096 -s 4095 -c
pingpong rc_pingpong 20 60 -m 4096 -s 4097 -c
pingpong rc_pingpong 4 120 -m 4096 -s 1048576 -c
pingpong ud_pingpong 20 60 -s 4096
perftest ib_write_bw 60 -s 4095 -n 100
perftest ib_write_bw 120 -s 1048576 -n 5
perftest ib_send_bw 60 -s 4097 -n 100
perftest ib_send_bw 120 -s 1048576 -n 5 -q 4
perftest ib_read_bw 60 -s 4097 -n 100
perftest ib_send_lat 60 -s 4097 -n 50
perftest ib_write_lat 60 -s 4097 -n 50
perftest ib_read_lat 120 -s 1048576 -n 5

echo "interop: cases took $((SECONDS - start)) s; logs in $logs" >&2
dump_failed
echo "$passed passed, $failed failed"
((failed == 0))
