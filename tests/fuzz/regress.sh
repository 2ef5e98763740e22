#!/bin/sh
# regress.sh -- run each fuzz target once over its regression inputs and the real seed files.
# usage: sh tests/fuzz/regress.sh BUILD_DIR TARGET...   (run from the repository root)
# Quick (every input once, no fuzzing): this is the fuzz check `make test` runs.
set -u
b=$1
shift
fail=0
mkdir -p "$b/logs"
for t in "$@"; do
    dir=$b/regress/$t
    log=$b/logs/regress-$t.log
    rm -rf "$dir"
    sh tests/fuzz/seed.sh "$t" "$dir" || { fail=1; continue; }
    nreg=$(ls tests/data/fuzz-regressions/"$t" 2>/dev/null | wc -l)
    nall=$(ls "$dir" | wc -l)
    # file arguments: libFuzzer runs each once and exits non-zero on a crash, leak or timeout
    if "$b/fuzz_$t" -timeout=5 -rss_limit_mb=2048 "$dir"/* > "$log" 2>&1 &&
       ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:' "$log"; then
        printf 'fuzz-regress: fuzz_%-9s %3d inputs ok (%d regression cases)\n' "$t" "$nall" "$nreg"
    else
        printf 'fuzz-regress: fuzz_%-9s FAILED; last lines of %s:\n' "$t" "$log"
        tail -n 30 "$log"
        fail=1
    fi
done
exit $fail
