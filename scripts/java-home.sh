#!/usr/bin/env bash
# Finds a JDK 25 or newer for building and running jrdma.
#
#   export JAVA_HOME=$(scripts/java-home.sh)     # run: prints the JDK's home directory, or fails with a message
#   source scripts/java-home.sh; jrdma_java_home # source: defines jrdma_java_home (used by ./jrdma and .ci/run)
#
# Looks, in order, at $JAVA_HOME, /usr/lib/jvm/*25*, then the `java` on the PATH; the first that is a JDK (has
# javac) of version 25 or newer wins.

JRDMA_MIN_JAVA=25

# The feature version (8, 17, 25, ...) of the java launcher $1, or nothing when it does not run.
jrdma_java_version() {
    local v
    v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1)
    v=${v#1.} # 1.8 -> 8
    printf '%s' "${v%%.*}"
}

# Whether the directory $1 is a JDK of version JRDMA_MIN_JAVA or newer.
jrdma_is_jdk() {
    local home=$1 v
    [[ -n "$home" && -x "$home/bin/java" && -x "$home/bin/javac" ]] || return 1
    v=$(jrdma_java_version "$home/bin/java")
    [[ "$v" =~ ^[0-9]+$ ]] && ((v >= JRDMA_MIN_JAVA))
}

# Prints the home of a JDK 25+, or explains on stderr and returns 1.
jrdma_java_home() {
    local candidate java
    if jrdma_is_jdk "${JAVA_HOME:-}"; then
        printf '%s\n' "$JAVA_HOME"
        return 0
    fi
    for candidate in /usr/lib/jvm/*25*; do
        if jrdma_is_jdk "$candidate"; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    if java=$(command -v java 2>/dev/null); then
        java=$(readlink -f "$java")
        candidate=${java%/bin/java}
        if jrdma_is_jdk "$candidate"; then
            printf '%s\n' "$candidate"
            return 0
        fi
    fi
    {
        echo "error: jrdma needs a JDK ${JRDMA_MIN_JAVA} or newer, and none was found."
        echo "  looked at: JAVA_HOME=${JAVA_HOME:-<unset>}, /usr/lib/jvm/*${JRDMA_MIN_JAVA}*, java on the PATH ($(command -v java || echo none))"
        echo "  install one (for example Eclipse Temurin 25: https://adoptium.net) and set JAVA_HOME to it."
    } >&2
    return 1
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    jrdma_java_home
fi
