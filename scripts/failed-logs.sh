#!/usr/bin/env bash
# Sourced by the lab scripts (interop-rxe.sh, native-interop.sh): keeps the logs of the cases that failed and prints
# their ends once the run is over, so that a run whose logs do not survive it (CI's machine) still shows why.
#   failed_log FILE...   remember FILE (names that are no file, such as "-", are passed over when printed)
#   dump_failed          print the last 40 lines of each (and of FILE.err, the stderr some cases keep beside it)

failed_logs=()

failed_log() {
    failed_logs+=("$@")
}

dump_failed() {
    local f
    for f in "${failed_logs[@]}"; do
        [[ -f "$f" ]] || continue
        echo "--- $f (last 40 lines)"
        tail -n 40 "$f"
        if [[ -f "$f.err" ]]; then
            echo "--- $f.err (last 20 lines)"
            tail -n 20 "$f.err"
        fi
    done
}
