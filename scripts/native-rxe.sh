#!/usr/bin/env bash
# The native provider (module ibverbs: libibverbs through the FFM API) on the Linux kernel's Soft-RoCE (rdma_rxe):
# runs the conformance suite (tck's *Tck classes, bound in ibverbs' test sources) and the native zero-allocation
# check inside an rxe-lab VM, both endpoints on the guest's kernel device rxe0 (loopback), through the JUnit
# Platform Launcher (io.jrdma.ibverbs.rxe.NativeTckMain). Prints one line per test, the known kernel differences,
# then "N passed, M failed, K skipped". Then interop on the native provider: jrdma's tools on the ibverbs provider
# in vm1 against rdma-core's tools (ibv_*_pingpong, perftest) in vm2, and against jrdma on the soft provider in
# the lab's namespace (10.77.0.1), each case in both roles; one PASS/FAIL line per case, then "N passed, M failed".
# Exits 1 on any failure. Skips (exit 0, "SKIPPED: reason") where rxe-lab cannot run at all: not root, no
# rxe-lab, no qemu (and no apt-get to install it).
#
#   scripts/native-rxe.sh                 # everything; boots 2 VMs (reuses a running lab of 2 and leaves it up)
#   scripts/native-rxe.sh IbvQpTck IbvCqTck#overrunIsReportedAsEioBadFlow    # only these suite classes or tests
#   NATIVE_PHASES=interop scripts/native-rxe.sh                              # only the interop cases
# Environment: RXE_LAB (the rxe-lab script), NATIVE_KEEP_LOGS=DIR (where the log goes; default a temp dir).
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
logs=${NATIVE_KEEP_LOGS:-$(mktemp -d /tmp/native-rxe.XXXXXX)}
mkdir -p "$logs"

phases=${NATIVE_PHASES:-tck interop}
echo "native: building ibverbs and its test classes, and the tools (mvnw -pl ibverbs,tools -am package) ..." >&2
(cd "$root" && JAVA_HOME=$JAVA_HOME nice -n 19 ./mvnw -B -q -o -pl ibverbs,tools -am package -DskipTests) \
    >"$logs/build.log" 2>&1 \
    || { echo "native: the build failed, see $logs/build.log" >&2; cat "$logs/build.log" >&2; exit 1; }
cpfile="$root/ibverbs/target/test-classpath.txt"
[[ -s "$cpfile" ]] || { echo "native: no $cpfile" >&2; exit 1; }

# A snapshot of the class directories under /var/tmp (the guest sees the host's / at /host): a rebuild while the
# guest runs would otherwise pull classes from under the running JVM.
stage=$(mktemp -d /var/tmp/jrdma-native.XXXXXX)
guest_cp=""
i=0
for entry in "$root/ibverbs/target/test-classes" "$root/ibverbs/target/classes" $(tr ':' ' ' <"$cpfile"); do
    if [[ -d "$entry" ]]; then
        i=$((i + 1))
        cp -r "$entry" "$stage/$i"
        entry="$stage/$i"
    fi
    guest_cp="${guest_cp:+$guest_cp:}/host$entry"
done

started=0
cleanup() {
    rm -rf "$stage"
    ((started)) && "$lab" down >/dev/null 2>&1
}
trap cleanup EXIT

if "$lab" status >/dev/null 2>&1 && "$lab" exec --vm 2 --timeout 20 -n -- true >/dev/null 2>&1; then
    echo "native: reusing the running rxe-lab" >&2
else
    echo "native: rxe-lab build (cached) and up --vms 2 ..." >&2
    timeout 900 "$lab" build >"$logs/lab-build.log" 2>&1 \
        || { echo "native: rxe-lab build failed, see $logs/lab-build.log" >&2; exit 1; }
    "$lab" down >/dev/null 2>&1
    started=1
    timeout 400 "$lab" up --vms 2 >"$logs/up.log" 2>&1 \
        || { echo "native: rxe-lab up failed, see $logs/up.log" >&2; exit 1; }
fi

tck_failed=0
if [[ " $phases " == *" tck "* ]]; then
    echo "native: running the suite in vm1 (log: $logs/tck.log) ..." >&2
    "$lab" exec --vm 1 --timeout 3000 -- "/host$JAVA_HOME/bin/java -Xmx512m --enable-native-access=ALL-UNNAMED \
        -cp $guest_cp io.jrdma.ibverbs.rxe.NativeTckMain $*" 2>&1 | tee "$logs/tck.log"
    totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/tck.log" | tail -n 1)
    if [[ -z "$totals" ]]; then
        echo "native: the suite printed no totals (see $logs/tck.log)"
        tck_failed=1
    else
        tck_failed=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$totals")
    fi
fi

interop_failed=0
if [[ " $phases " == *" interop "* ]]; then
    # shellcheck source=scripts/native-interop.sh
    source "$root/scripts/native-interop.sh"
    native_interop
    interop_failed=$failed
fi
((tck_failed == 0 && interop_failed == 0))
