#!/usr/bin/env bash
# Same-run A/B of two builds of the tools jar: runs `jrdma bench` from build A and build B alternately, ROUNDS times
# each (A B A B ...), and prints, per figure, each build's median and the median of its ratio to the baseline that
# `jrdma bench` measured in the same run (so machine drift between rounds cancels out of the ratios).
#
#   bench/probes/ab-jars.sh DIR_A DIR_B [ROUNDS] [bench options...]
#
# DIR_A, DIR_B: folders holding jrdma-tools-*.jar and its lib/ (e.g. copies of two builds' tools/target).
# Default options: --only write-bw,send-lat,msg-rate -r 1. Logs go to ${AB_LOGS:-a temp dir}.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=../../scripts/java-home.sh
source "$root/scripts/java-home.sh"
java="$(jrdma_java_home)/bin/java"
[[ $# -ge 2 ]] || { echo "usage: $0 DIR_A DIR_B [ROUNDS] [bench options...]" >&2; exit 2; }
a=$1 b=$2
shift 2
rounds=3
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
[[ $rounds -gt 0 ]] || { echo "ROUNDS must be positive" >&2; exit 2; }
opts=("$@")
[[ ${#opts[@]} -gt 0 ]] || opts=(--only write-bw,send-lat,msg-rate -r 1)
logs=${AB_LOGS:-$(mktemp -d /tmp/ab-jars.XXXXXX)}
mkdir -p "$logs"
run() { # build-dir label round
    local jar
    jar=$(ls "$1"/jrdma-tools-*.jar | grep -v -e sources -e javadoc | head -1)
    "$java" --enable-native-access=ALL-UNNAMED -jar "$jar" bench --markdown "${opts[@]}" >"$logs/$2.$3.md" 2>&1
}
for ((i = 1; i <= rounds; i++)); do
    echo "round $i/$rounds: A" >&2; run "$a" A "$i"
    echo "round $i/$rounds: B" >&2; run "$b" B "$i"
done
# rows: | case | unit | jrdma | baseline | baseline figure | ratio | goal | verdict |
awk -F'|' -v rounds="$rounds" '
    function median(arr, n,    i, j, t) {
        for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
        return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
    }
    FNR == 1 { split(FILENAME, p, "/"); split(p[length(p)], q, "."); build = q[1] }
    /^\| / && $4 ~ /[0-9]/ {
        key = $2 "|" $3 "|" $5
        gsub(/,/, "", $4); gsub(/,/, "", $7)
        if (!(key in seen)) { seen[key] = 1; order[++keys] = key }
        n = ++cnt[key, build]; val[key, build, n] = $4 + 0; rat[key, build, n] = $7 + 0
    }
    END {
        print "| case | unit | vs | A median | B median | B/A | A ratio to baseline | B ratio to baseline |"
        print "|---|---|---|---:|---:|---:|---:|---:|"
        for (k = 1; k <= keys; k++) {
            key = order[k]; split(key, f, "|")
            for (bi = 1; bi <= 2; bi++) {
                b = bi == 1 ? "A" : "B"; n = cnt[key, b]
                for (i = 1; i <= n; i++) { v[i] = val[key, b, i]; r[i] = rat[key, b, i] }
                mv[b] = n ? median(v, n) : 0; mr[b] = n ? median(r, n) : 0
            }
            printf "| %s | %s | %s | %.4g | %.4g | %.3f | %.3f | %.3f |\n", f[1], f[2], f[3], mv["A"], mv["B"],
                mv["A"] ? mv["B"] / mv["A"] : 0, mr["A"], mr["B"]
        }
    }' "$logs"/A.*.md "$logs"/B.*.md
echo "logs: $logs" >&2
