# Interop cases for the native provider, sourced by scripts/native-rxe.sh (which sets lab, root, JAVA_HOME, logs
# and boots 2 VMs): jrdma's tools on the ibverbs provider in vm1 (10.77.0.11) against rdma-core's tools in vm2
# (10.77.0.12) and against jrdma on the soft provider in the lab's namespace (10.77.0.1), each case in both roles.
# In vm1 `-d rxe0` names the kernel's device: the ibverbs provider lists it before the soft default rxe0
# (127.0.0.1), which could not reach either peer.
# Defines native_interop; it prints one PASS/FAIL line per case and role, then "N passed, M failed", and sets
# passed and failed. NATIVE_INTEROP=rping runs only the rping cases (jrdma rping against librdmacm's rping),
# NATIVE_INTEROP=cm only the other connection-manager cases (ucmatose, udaddy, perftest -R, rejects).

NATIVE_TCP_PORT=18515
# What a real perftest prints when it could not calibrate the emulated guest's clock (r^2 under 0.9): a bandwidth
# test "Can't produce a report", a latency test the coefficient (and inf for every figure).
UNCALIBRATED="Can't produce a report|Correlation coefficient r\^2: [0-9.]+ < 0\.9"
# shellcheck source=scripts/failed-logs.sh
source "$root/scripts/failed-logs.sh"

# The JVM of a jrdma tool in a guest. These cases check the wire and the tools' output, not speed, and a JVM under
# emulation starts slowly (20 - 50 s to a listening server, one vCPU): so no JIT rehearsal before the run
# (JRDMA_WARMUP=0, 10 - 20 s of an RC tool's start), the client compiler only and the serial collector (a fifth of the
# rest; no compiler or collector threads competing with the tool's for the vCPU). The suite (tck) runs with the
# JVM's defaults.
guest_java() {
    echo "env JRDMA_WARMUP=0 /host$JAVA_HOME/bin/java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
}

# The tools jar, as the guests see it (the host's / is mounted at /host) and as the namespace runs it.
native_tools_jar() {
    local j
    for j in "$root"/tools/target/jrdma-tools-*.jar; do
        case "$j" in *-sources.jar | *-javadoc.jar | *-tests.jar) ;; *) [[ -f "$j" ]] && { echo "$j"; return 0; } ;; esac
    done
    return 1
}

# on WHERE SECONDS CMD: CMD (a shell string) in vm1, vm2 or the namespace (ns), bounded in time.
on() {
    local where=$1 t=$2
    shift 2
    case "$where" in
        vm*) "$lab" exec --vm "${where#vm}" --timeout "$t" -n -- "$*" ;;
        ns) timeout "$t" "$lab" ns -- bash -c "$*" ;;
    esac
}

# listening WHERE: until a server listens on the tools' TCP port there (at most 150 s: a jrdma tool in an emulated
# guest takes about 40 s to start and its JIT rehearsal over RC 10 - 20 s more before it listens).
listening() {
    local end=$((SECONDS + 150))
    if [[ $1 == vm* ]]; then
        on "$1" 160 "rxelab-wait-listen $NATIVE_TCP_PORT 150" >/dev/null 2>&1
        return
    fi
    while ((SECONDS < end)); do
        "$lab" ns -- ss -Hltn "sport = :$NATIVE_TCP_PORT" 2>/dev/null | grep -q . && return 0
        sleep 0.3
    done
    return 1
}

# tool_cmd IMPL TOOL ARGS: the command line of TOOL for one implementation: real (rdma-core, perftest), native
# (jrdma on the ibverbs provider, in a guest) or soft (jrdma on the soft provider, in the namespace).
tool_cmd() {
    local impl=$1 tool=$2 args=$3 gid="-x 1"
    [[ $tool == *_pingpong ]] && gid="-g 1"
    case "$impl" in
        real) [[ $tool == *_pingpong ]] && tool="ibv_$tool"
            echo "$tool -d rxe0 $gid $args" ;;
        native) echo "$(guest_java) -jar /host$NATIVE_JAR $tool -d rxe0 $gid $args --timeout=200" ;;
        soft) echo "env JRDMA_DEVICES=rxe0=10.77.0.1 $JAVA_HOME/bin/java -jar $NATIVE_JAR $tool -d rxe0 $gid $args" \
            "--timeout=200" ;;
    esac
}

# native_case TOOL ARGS SERVER_IMPL@WHERE CLIENT_IMPL@WHERE SERVER_IP: one case in one role; up to two attempts
# when a real perftest could not calibrate the emulated guest's clock ("Can't produce a report").
native_case() {
    local tool=$1 args=$2 sside=$3 cside=$4 ip=$5
    local simpl=${sside%@*} swhere=${sside#*@} cimpl=${cside%@*} cwhere=${cside#*@}
    local tag s c ok attempt spid size
    tag=$(echo "$tool $args $simpl-$cimpl" | tr -c 'a-zA-Z0-9\n' '_')
    s="$logs/$tag.server.log" c="$logs/$tag.client.log"
    size=$(echo " $args " | sed -n 's/.* -s \([0-9]*\) .*/\1/p')
    for attempt in 1 2; do
        ok=0
        (on "$swhere" 300 "$(tool_cmd "$simpl" "$tool" "$args")"; echo "[exit status $?]") >"$s" 2>&1 &
        spid=$!
        listening "$swhere" || ok=1
        (on "$cwhere" 300 "$(tool_cmd "$cimpl" "$tool" "$args") $ip"; echo "[exit status $?]") >"$c" 2>&1
        wait "$spid"
        [[ $(tail -n 1 "$s") == "[exit status 0]" && $(tail -n 1 "$c") == "[exit status 0]" ]] || ok=1
        if [[ $tool == *_pingpong ]]; then
            grep -q " iters in .* usec/iter" "$c" && grep -q " iters in .* usec/iter" "$s" || ok=1
            grep -q -e "invalid data" -e "Failed status" "$s" "$c" && ok=1
        else
            grep -qE "^ ${size:-[0-9]+} +[0-9]+ +[0-9]" "$c" || ok=1
            grep -qiE "error|fail|couldn|unable|invalid|timed out" "$s" "$c" && ok=1
        fi
        ((ok != 0 && attempt == 1)) && grep -qE "$UNCALIBRATED" "$s" "$c" && continue
        break
    done
    verdict "$ok" "$simpl-server/$cimpl-client $tool $args" "$s" "$c"
}

# both TOOL ARGS PEER_IMPL@WHERE PEER_IP: the native tool in vm1 as server then as client against the peer.
both() {
    native_case "$1" "$2" native@vm1 "$3" 10.77.0.11
    native_case "$1" "$2" "$3" native@vm1 "$4"
}

# cm_listening WHERE PORT: until an rdma_cm id listens on PORT there (rdma resource show cm_id; at most 150 s, as
# listening: a perftest server reaches its listen after the JVM's start, about 50 s in a busy guest, where the 60 s
# this waited once were not enough and the client was rejected by a CM with nobody listening).
cm_listening() {
    on "$1" 160 "end=\$((SECONDS + 150)); while ((SECONDS < end)); do
        rdma resource show cm_id 2>/dev/null | grep -q 'state LISTEN.*:$2 ' && exit 0; sleep 0.2; done; exit 1" \
        >/dev/null 2>&1
}

# rping_cmd IMPL ROLE ARGS: rdma-core's rping (real) or jrdma rping on the ibverbs provider (native).
rping_cmd() {
    case "$1" in
        real) echo "rping $2 $3" ;;
        native) echo "$(guest_java) -jar /host$NATIVE_JAR rping $2 $3 --timeout=100" ;;
    esac
}

# rping_case ARGS SERVER_IMPL@WHERE CLIENT_IMPL@WHERE SERVER_IP COUNT: one rping run; both exit 0, the client
# prints COUNT "ping data: rdma-ping-N: ..." lines in order, the server COUNT "server ping data: " lines, and
# neither reports an error.
rping_case() {
    local args=$1 sside=$2 cside=$3 ip=$4 count=$5
    local simpl=${sside%@*} swhere=${sside#*@} cimpl=${cside%@*} cwhere=${cside#*@}
    local tag s c ok=0 spid n
    tag=$(echo "rping $args $simpl-$cimpl" | tr -c 'a-zA-Z0-9\n' '_')
    s="$logs/$tag.server.log" c="$logs/$tag.client.log"
    (on "$swhere" 200 "$(rping_cmd "$simpl" -s "-a $ip -p 7174 $args")"; echo "[exit status $?]") >"$s" 2>&1 &
    spid=$!
    cm_listening "$swhere" 7174 || ok=1
    (on "$cwhere" 200 "$(rping_cmd "$cimpl" -c "-a $ip -p 7174 $args")"; echo "[exit status $?]") >"$c" 2>&1
    wait "$spid"
    [[ $(tail -n 1 "$s") == "[exit status 0]" && $(tail -n 1 "$c") == "[exit status 0]" ]] || ok=1
    n=$(grep -cE '^ping data: rdma-ping-[0-9]+: [ -~]+$' "$c")
    ((n == count)) || ok=1
    for ((i = 0; i < count; i++)); do
        grep -qE "^ping data: rdma-ping-$i: " "$c" || ok=1
    done
    # rdma-core's rping prints its data on stdout and "server DISCONNECT EVENT..." on stderr from another thread,
    # both into this log: the message can land inside a 4 KiB data line, so both are found anywhere in a line
    (($(grep -o 'server ping data: rdma-ping-[0-9]*: ' "$s" | wc -l) == count)) || ok=1
    grep -q "server DISCONNECT EVENT" "$s" || ok=1 # the client disconnects: the server sees it
    grep -qiE "error|fail|mismatch|bogus|exception" "$s" "$c" && ok=1
    verdict "$ok" "$simpl-server/$cimpl-client rping $args" "$s" "$c"
}

# rping_both ARGS COUNT: jrdma rping (native, vm1) as server then as client against rdma-core's rping in vm2.
rping_both() {
    rping_case "$1" native@vm1 real@vm2 10.77.0.11 "$2"
    rping_case "$1" real@vm2 native@vm1 10.77.0.12 "$2"
}

# verdict OK NAME SERVER_LOG CLIENT_LOG: one PASS/FAIL line; counts it (every case of this file reports through it).
verdict() {
    if (($1 == 0)); then
        echo "PASS $2"
        passed=$((passed + 1))
    else
        echo "FAIL $2 (logs: $3 $4)"
        failed=$((failed + 1))
        failed_log "$3" "$4"
    fi
}

# cm_tool_cmd IMPL TOOL ARGS: ucmatose or udaddy of rdma-core (real) or jrdma on the ibverbs provider (native).
cm_tool_cmd() {
    case "$1" in
        real) echo "$2 $3" ;;
        native) echo "$(guest_java) -jar /host$NATIVE_JAR $2 $3 --timeout=100" ;;
    esac
}

# cmatose_case TOOL PORT ARGS SERVER_IMPL@WHERE CLIENT_IMPL@WHERE SERVER_IP: ucmatose or udaddy in one role (server
# -b SERVER_IP, client -s SERVER_IP); both exit 0 with "test complete" and "return status 0", no error. ucmatose's
# server disconnects: its client must see DISCONNECTED ("disconnecting" then "test complete" after the events).
cmatose_case() {
    local tool=$1 port=$2 args=$3 sside=$4 cside=$5 ip=$6
    local simpl=${sside%@*} swhere=${sside#*@} cimpl=${cside%@*} cwhere=${cside#*@}
    local tag s c ok=0 spid f
    tag=$(echo "$tool $args $simpl-$cimpl" | tr -c 'a-zA-Z0-9\n' '_')
    s="$logs/$tag.server.log" c="$logs/$tag.client.log"
    (on "$swhere" 200 "$(cm_tool_cmd "$simpl" "$tool" "-b $ip $args")"; echo "[exit status $?]") >"$s" 2>&1 &
    spid=$!
    cm_listening "$swhere" "$port" || ok=1
    (on "$cwhere" 200 "$(cm_tool_cmd "$cimpl" "$tool" "-s $ip $args")"; echo "[exit status $?]") >"$c" 2>&1
    wait "$spid"
    for f in "$s" "$c"; do
        [[ $(tail -n 1 "$f") == "[exit status 0]" ]] && grep -q "^test complete" "$f" \
            && grep -q "^return status 0" "$f" && ! grep -qiE "error|fail|exception" "$f" || ok=1
    done
    verdict "$ok" "$simpl-server/$cimpl-client $tool $args" "$s" "$c"
}

# cm_perftest TOOL ARGS SERVER_IMPL@WHERE CLIENT_IMPL@WHERE SERVER_IP: perftest over rdma_cm (-R); the server has no
# TCP listener, so the readiness check is its CM id listening on the perftest port (rdma res show cm_id).
cm_perftest() {
    local tool=$1 args=$2 sside=$3 cside=$4 ip=$5
    local simpl=${sside%@*} swhere=${sside#*@} cimpl=${cside%@*} cwhere=${cside#*@}
    local tag s c ok attempt spid size
    tag=$(echo "$tool $args $simpl-$cimpl" | tr -c 'a-zA-Z0-9\n' '_')
    s="$logs/$tag.server.log" c="$logs/$tag.client.log"
    size=$(echo " $args " | sed -n 's/.* -s \([0-9]*\) .*/\1/p')
    for attempt in 1 2; do
        ok=0
        (on "$swhere" 200 "$(tool_cmd "$simpl" "$tool" "$args")"; echo "[exit status $?]") >"$s" 2>&1 &
        spid=$!
        cm_listening "$swhere" "$NATIVE_TCP_PORT" || ok=1
        (on "$cwhere" 200 "$(tool_cmd "$cimpl" "$tool" "$args") $ip"; echo "[exit status $?]") >"$c" 2>&1
        wait "$spid"
        [[ $(tail -n 1 "$s") == "[exit status 0]" && $(tail -n 1 "$c") == "[exit status 0]" ]] || ok=1
        grep -qE "^ ${size:-[0-9]+} +[0-9]+ +[0-9]" "$c" || ok=1
        grep -qiE "error|fail|couldn|unable|invalid|timed out|exception" "$s" "$c" && ok=1
        ((ok != 0 && attempt == 1)) && grep -qE "$UNCALIBRATED" "$s" "$c" && continue
        break
    done
    verdict "$ok" "$simpl-server/$cimpl-client $tool $args" "$s" "$c"
}

# cm_reject: a client connecting to a port nobody listens on gets REJECTED with status 8 (invalid service id) from
# the peer's CM: jrdma rping (native, vm1) from vm2's kernel CM, and rdma-core's rping (vm2) from vm1's while a
# jrdma rping server listens there on another port.
cm_reject() {
    local s c ok=0 spid
    c="$logs/reject.native-client.log"
    (on vm1 60 "$(rping_cmd native -c "-a 10.77.0.12 -p 7999 -C 1")"; echo "[exit status $?]") >"$c" 2>&1
    grep -q "RDMA_CM_EVENT_REJECTED, error 8" "$c" && [[ $(tail -n 1 "$c") != "[exit status 0]" ]] || ok=1
    verdict "$ok" "real-cm/native-client reject (rping -p 7999: REJECTED 8)" "-" "$c"

    s="$logs/reject.native-server.log" c="$logs/reject.real-client.log" ok=0
    (on vm1 90 "$(rping_cmd native -s "-a 10.77.0.11 -p 7174 -C 1")"; echo "[exit status $?]") >"$s" 2>&1 &
    spid=$!
    cm_listening vm1 7174 || ok=1
    (on vm2 40 "rping -c -a 10.77.0.11 -p 7999 -C 1"; echo "[exit status $?]") >"$c" 2>&1
    # the server's one ping, so it ends
    on vm2 60 "rping -c -a 10.77.0.11 -p 7174 -C 1" >>"$c" 2>&1
    wait "$spid"
    grep -q "RDMA_CM_EVENT_REJECTED, error 8" "$c" || ok=1
    verdict "$ok" "native-cm/real-client reject (rping -p 7999: REJECTED 8)" "$s" "$c"
}

# cm_cases: ucmatose (its server disconnects: the client sees it), udaddy (UD over SIDR), perftest -R and the
# rejects, each in both roles against rdma-core and perftest in vm2.
cm_cases() {
    if [[ ${NATIVE_CM_CASES:-all} == perftest ]]; then
        cm_perftest_cases
        return
    fi
    cmatose_case ucmatose 7471 "-c 3" native@vm1 real@vm2 10.77.0.11
    cmatose_case ucmatose 7471 "-c 3" real@vm2 native@vm1 10.77.0.12
    cmatose_case udaddy 7174 "-c 2" native@vm1 real@vm2 10.77.0.11
    cmatose_case udaddy 7174 "-c 2" real@vm2 native@vm1 10.77.0.12
    cm_perftest_cases
    cm_reject
}

# cm_perftest_cases: perftest -R in both roles (NATIVE_CM_CASES=perftest runs only these of the CM cases).
cm_perftest_cases() {
    local a
    for a in "ib_send_bw|-R -s 4097 -n 20" "ib_write_bw|-R -s 4095 -n 20 -q 2" "ib_read_lat|-R -s 64 -n 50" \
        "ib_send_lat|-R -c UD -s 512 -n 50"; do
        cm_perftest "${a%%|*}" "${a#*|}" native@vm1 real@vm2 10.77.0.11
        cm_perftest "${a%%|*}" "${a#*|}" real@vm2 native@vm1 10.77.0.12
    done
}

native_interop() {
    passed=0
    failed=0
    NATIVE_JAR=$(native_tools_jar) || { echo "native: no tools jar"; failed=1; return; }
    local start=$SECONDS
    # against rdma-core's rping in vm2 (the connection manager: librdmacm on both sides)
    if [[ ${NATIVE_INTEROP:-all} != cm ]]; then
        rping_both "-C 10 -S 64 -V -v" 10
        rping_both "-C 10 -S 4096 -V -v" 10
    fi
    if [[ ${NATIVE_INTEROP:-all} == rping ]]; then
        dump_failed
        echo "$passed passed, $failed failed"
        return
    fi
    cm_cases
    if [[ ${NATIVE_INTEROP:-all} == cm ]]; then
        dump_failed
        echo "$passed passed, $failed failed"
        return
    fi
    echo "native: interop cases (native provider in vm1; rdma-core in vm2; soft provider in the namespace) ..." >&2
    # against rdma-core's tools in vm2
    both rc_pingpong "-n 20 -s 4097 -c" real@vm2 10.77.0.12
    both ud_pingpong "-n 10 -s 1024" real@vm2 10.77.0.12
    both ib_send_lat "-n 100 -s 2" real@vm2 10.77.0.12
    both ib_write_bw "-n 50 -s 65536" real@vm2 10.77.0.12
    both ib_read_bw "-n 50 -s 4097" real@vm2 10.77.0.12
    both ib_atomic_bw "-n 50 -A FETCH_AND_ADD" real@vm2 10.77.0.12
    # against jrdma on the soft provider (the lab's namespace, 10.77.0.1)
    both rc_pingpong "-n 20 -s 4097 -c" soft@ns 10.77.0.1
    both ib_send_lat "-n 100 -s 2" soft@ns 10.77.0.1
    both ib_write_bw "-n 50 -s 65536" soft@ns 10.77.0.1
    both ib_read_lat "-n 50 -s 4097" soft@ns 10.77.0.1
    echo "native: interop cases took $((SECONDS - start)) s; logs in $logs" >&2
    dump_failed
    echo "$passed passed, $failed failed"
}
