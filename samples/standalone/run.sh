#!/usr/bin/env bash
# Installs jrdma (./mvnw -DskipTests install), builds this sample against the installed artifacts as an application
# would, then runs it on the module path and on the class path, checking what it prints. Extra arguments go to both
# Maven runs (e.g. -o offline). Exits non-zero on any failure; .ci/run calls it.
#   samples/standalone/run.sh [MAVEN_ARGS...]
set -euo pipefail

sample=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$sample/../.." && pwd)
# shellcheck source=../../scripts/java-home.sh
source "$root/scripts/java-home.sh"
JAVA_HOME=$(jrdma_java_home) || exit 1
export JAVA_HOME
java="$JAVA_HOME/bin/java"
# Maven's own libraries still call sun.misc.Unsafe; keep JDK 25 from warning about it.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"

echo "sample: installing jrdma (./mvnw -B -q -DskipTests install $*)"
(cd "$root" && ./mvnw -B -q -DskipTests "$@" install)
echo "sample: building samples/standalone against the installed artifacts"
(cd "$root" && ./mvnw -B -q -f samples/standalone/pom.xml "$@" clean package)

modules="$sample/target/modules"
failed=0
# check NAME EXPECTED-SUFFIX COMMAND...: runs the sample, shows its output, fails on a non-zero exit, on any
# WARNING (e.g. native access not enabled) and when the line it prints is not the expected one.
check() {
    local name=$1 suffix=$2 out rc=0
    shift 2
    echo "sample: $name: $*"
    out=$(timeout 60 "$@" 2>&1) || rc=$?
    printf '%s\n' "$out" | sed 's/^/  | /'
    if ((rc != 0)); then
        echo "sample: $name FAILED: exit $rc"; failed=1
    elif grep -q 'WARNING' <<<"$out"; then
        echo "sample: $name FAILED: it printed a warning"; failed=1
    elif ! grep -Eq "^received \"hello, jrdma\" \(13 bytes\) on [^ ]+: RC QP [0-9]+ -> QP [0-9]+, $suffix\$" <<<"$out"
    then
        echo "sample: $name FAILED: not the expected line"; failed=1
    else
        echo "sample: $name OK"
    fi
}
check "module path" "module path" \
    "$java" --enable-native-access=io.jrdma.soft -p "$modules" -m com.example.hello/com.example.hello.Hello
check "class path" "class path" \
    "$java" --enable-native-access=ALL-UNNAMED -cp "$modules/*" com.example.hello.Hello
exit $failed
