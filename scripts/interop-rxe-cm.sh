# shellcheck shell=bash
# The connection-manager cases of scripts/interop-rxe.sh (sourced by it; uses its lab, logs, java, JAR, HOST_DEV,
# VM_IP, report and guest_dmesg): librdmacm's rping, ucmatose and udaddy, a reject, disconnects seen by the side that
# did not disconnect, and rping under packet loss, each in both roles against the kernel's ib_cm/rdma_cm in vm1.

# real_cm_up PORT: until vm1 has an rdma_cm id listening on PORT (the kernel's resource table: `rdma res show cm_id`).
real_cm_up() {
    "$lab" exec --vm 1 --timeout 25 -n -- "for i in \$(seq 200); do
        rdma res show cm_id 2>/dev/null | grep -q 'state LISTEN .*:$1 ' && exit 0; sleep 0.1; done; exit 1" \
        >/dev/null 2>&1
}

# jrdma_cm_up: until the jrdma program in the namespace has opened its soft device (its UDP port 4791), then one
# second more for the bind and listen that follow at once (a jrdma CM listener has no socket of its own to see).
jrdma_cm_up() {
    local end=$((SECONDS + 30))
    while ((SECONDS < end)); do
        if "$lab" ns -- ss -Hlun "sport = :4791" 2>/dev/null | grep -q .; then
            sleep 1
            return 0
        fi
        sleep 0.2
    done
    return 1
}

# retry_rejected CMD...: runs CMD (a real client) up to 5 times while it fails with REJECTED reason 8 (nobody
# listens on that service id yet: a jrdma server's device and agent are up before its listen, which nothing outside
# its JVM can see); passes on the last attempt's stdout, stderr and exit status.
retry_rejected() {
    local attempt rc out err
    out=$(mktemp) err=$(mktemp)
    for attempt in 1 2 3 4 5; do
        "$@" >"$out" 2>"$err"
        rc=$?
        ((rc != 0 && attempt < 5)) && grep -qE "REJECTED[,;] error:? 8" "$out" "$err" || break
        echo "RETRY $*: rejected with reason 8 (attempt $attempt), the server did not listen yet" >>"$logs/retries.log"
        sleep 1
    done
    cat "$out"
    cat "$err" >&2
    rm -f "$out" "$err"
    return "$rc"
}

# cm_run SERVER UP CLIENT SERVER_LOG CLIENT_LOG: SERVER in the background, UP until it listens, then CLIENT; each
# log (stdout) ends with its command's "[exit status N]", and stderr goes to LOG.err: rping writes its 4 KiB ping
# lines to stdout and its CM events to stderr from another thread, which would otherwise cut a line in two.
# Sets up_ok (0 when UP succeeded).
cm_run() {
    local spid
    ("$1" 2>"$4.err"; echo "[exit status $?]") >"$4" &
    spid=$!
    up_ok=0
    "$2" || up_ok=1
    ("$3" 2>"$5.err"; echo "[exit status $?]") >"$5"
    wait "$spid"
}

# The sides for cm_run; they use the caller's t, real (the guest command) and jr (the jrdma arguments).
cm_real_server() { "$lab" exec --vm 1 --timeout "$t" -n -- "$real"; }
cm_real_client() { retry_rejected "$lab" exec --vm 1 --timeout "$t" -n -- "$real"; }
cm_jrdma() {
    timeout "$t" "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" $jr --timeout=$((t - 10))
}
cm_real_up() { real_cm_up "$port"; }

# ping_lines LOG: the ping data of an rping log, without the "server " prefix of the server's lines.
ping_lines() {
    sed -n 's/^\(server \)\{0,1\}ping data: //p' "$1"
}

# rping_ok SERVER_LOG CLIENT_LOG COUNT: both exited 0, each printed COUNT ping data lines, the same on both sides
# and the same as the first passing case of this size (the other direction), and the server saw the client's
# disconnect ("server DISCONNECT EVENT...": the side that did not disconnect gets DISCONNECTED).
rping_ok() {
    exited0 "$1" && exited0 "$2" || return 1
    grep -qiE "error|fail|mismatch|bogus" "$1" "$2" "$1.err" "$2.err" && return 1
    [[ $(ping_lines "$2" | wc -l) == "$3" ]] || return 1
    [[ "$(ping_lines "$1")" == "$(ping_lines "$2")" ]] || return 1
    grep -q "^server DISCONNECT EVENT" "$1.err" || return 1
    local ref="$logs/rping-S$size.reference"
    [[ -f "$ref" ]] || ping_lines "$2" >"$ref"
    [[ "$(ping_lines "$2")" == "$(cat "$ref")" ]]
}

# cm_rping COUNT SIZE [TAG [BETWEEN]]: rping -C COUNT -S SIZE -v -V in both roles; TAG names the case (e.g.
# "loss3"); BETWEEN, a command run between the two roles.
cm_rping() {
    local count=$1 size=$2 tag="rping_C$1_S$2${3:+_$3}" between=${4:-} t=90 port=7174 real jr s c ok
    local name="rping -C $count -S $size -v -V${3:+ ($3)}"
    s="$logs/$tag.real-server.log" c="$logs/$tag.jrdma-client.log"
    real="rping -s -a $VM_IP -C $count -S $size -v -V" jr="rping -c -a $VM_IP -C $count -S $size -v -V"
    cm_run cm_real_server cm_real_up cm_jrdma "$s" "$c"
    ok=$up_ok
    rping_ok "$s" "$c" "$count" || ok=1
    report "real-server/jrdma-client $name" "$ok" "$s" "$c"
    ((ok == 0)) || guest_dmesg >>"$s"
    [[ -z "$between" ]] || $between

    s="$logs/$tag.jrdma-server.log" c="$logs/$tag.real-client.log"
    jr="rping -s -a 10.77.0.1 -C $count -S $size -v -V" real="rping -c -a 10.77.0.1 -C $count -S $size -v -V"
    cm_run cm_jrdma jrdma_cm_up cm_real_client "$s" "$c"
    ok=$up_ok
    rping_ok "$s" "$c" "$count" || ok=1
    report "jrdma-server/real-client $name" "$ok" "$s" "$c"
    ((ok == 0)) || guest_dmesg >>"$c"
}

# cmatose_ok LOG: ucmatose/udaddy finished its test.
cmatose_ok() {
    exited0 "$1" && grep -q "^test complete" "$1" && grep -q "^return status 0" "$1" \
        && ! grep -qiE "error|fail" "$1" "$1.err"
}

# cm_cmatose TOOL PORT ARGS...: ucmatose or udaddy (server: no -s; client: -s SERVER) in both roles.
cm_cmatose() {
    local tool=$1 port=$2 t=90 real jr s c ok
    shift 2
    local name="$tool $*" tag
    tag=$(echo "$tool $*" | tr -c 'a-zA-Z0-9\n' '_')
    s="$logs/$tag.real-server.log" c="$logs/$tag.jrdma-client.log"
    real="$tool -b $VM_IP $*" jr="$tool -s $VM_IP $*"
    cm_run cm_real_server cm_real_up cm_jrdma "$s" "$c"
    ok=$up_ok
    cmatose_ok "$s" && cmatose_ok "$c" || ok=1
    report "real-server/jrdma-client $name" "$ok" "$s" "$c"
    ((ok == 0)) || guest_dmesg >>"$s"

    s="$logs/$tag.jrdma-server.log" c="$logs/$tag.real-client.log"
    jr="$tool -b 10.77.0.1 $*" real="$tool -s 10.77.0.1 $*"
    cm_run cm_jrdma jrdma_cm_up cm_real_client "$s" "$c"
    ok=$up_ok
    cmatose_ok "$s" && cmatose_ok "$c" || ok=1
    report "jrdma-server/real-client $name" "$ok" "$s" "$c"
    ((ok == 0)) || guest_dmesg >>"$c"
}

# cm_reject: a client connects to a port nobody listens on and gets REJECTED with reason 8 (invalid service id) from
# the peer's CM: jrdma's client from the kernel's CM, and the real rping client from jrdma's CM (a jrdma rping
# server listening on another port keeps jrdma's CM agent up on the device).
cm_reject() {
    local t=60 s c ok=0 spid
    c="$logs/reject.jrdma-client.log"
    (timeout 60 "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" rping -c -a "$VM_IP" -p 7999 -C 1 \
        --timeout=40; echo "[exit status $?]") >"$c" 2>&1
    grep -q "RDMA_CM_EVENT_REJECTED, error 8" "$c" && ! exited0 "$c" || ok=1
    report "kernel-cm/jrdma-client reject (rping -p 7999: REJECTED 8)" "$ok" "$c" "-"

    s="$logs/reject.jrdma-server.log" c="$logs/reject.real-client.log" ok=0
    (timeout 60 "$lab" ns -- env JRDMA_DEVICES="$HOST_DEV" "$java" -jar "$JAR" rping -s -a 10.77.0.1 -C 1 \
        --timeout=30; echo "[exit status $?]") >"$s" 2>&1 &
    spid=$!
    jrdma_cm_up || ok=1
    "$lab" exec --vm 1 --timeout 40 -n -- "rping -c -a 10.77.0.1 -p 7999 -C 1; echo \"[exit status \$?]\"" \
        >"$c" 2>&1
    wait "$spid"
    grep -q "RDMA_CM_EVENT_REJECTED, error 8" "$c" && ! exited0 "$c" || ok=1
    report "jrdma-cm/real-client reject (rping -p 7999: error 8)" "$ok" "$s" "$c"
}

# netem LOSS [in]: LOSS% packet loss (or none with "off") in both directions of vm1's link (with "in": only in what
# vm1 receives), all in vm1 (the host kernel may have no sch_netem): netem on eth0's egress, and on an ifb device
# that eth0's ingress is redirected to.
netem() {
    local out=$1
    [[ ${2:-} == in ]] && out=0
    if [[ $1 == off ]]; then
        "$lab" exec --vm 1 --timeout 15 -n -- "tc qdisc del dev eth0 root; tc qdisc del dev eth0 ingress;
            ip link del ifb0" >/dev/null 2>&1
        return 0
    fi
    "$lab" exec --vm 1 --timeout 20 -n -- "set -e; modprobe sch_netem; modprobe ifb numifbs=0
        ip link add ifb0 type ifb 2>/dev/null || true; ip link set ifb0 up
        tc qdisc replace dev eth0 root netem loss $out%
        tc qdisc replace dev eth0 ingress
        tc filter replace dev eth0 parent ffff: matchall action mirred egress redirect dev ifb0
        tc qdisc replace dev ifb0 root netem loss $1%"
}

# cm_cases: every CM case (rxe active_mtu 1024).
cm_cases() {
    cm_rping 10 64
    cm_rping 10 4096
    cm_cmatose ucmatose 7471 -c 3
    cm_cmatose udaddy 7174 -c 2
    cm_reject
    if netem 3; then
        # the kernel's rping client destroys its id right after its DREQ, which ends the DREQ's retransmission: a
        # DREQ lost then leaves any rping server waiting forever, so with the real client only vm1's ingress loses
        # packets (every packet jrdma's server sends) and the client's DREQ arrives
        cm_rping 10 64 loss3 "netem 3 in"
        # what the loss did: netem's drop counts, and the kernel CM's retransmissions and duplicates received
        "$lab" exec --vm 1 --timeout 15 -n -- "tc -s qdisc show dev eth0; tc -s qdisc show dev ifb0
            ls /sys/class/infiniband_cm/rxe0/; grep -rs . /sys/class/infiniband_cm/rxe0/*/ | grep -E 'retries|dupl'" \
            >"$logs/rping_loss3.counters.log" 2>&1
    else
        report "rping -C 10 -S 64 (3% loss): tc netem unavailable" 1 "-" "-"
    fi
    netem off
}
