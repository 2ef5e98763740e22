#!/bin/sh
# total.sh -- run make test's steps in order, showing their output, and end with one line that
# totals every suite: each "N passed, M failed" line, and each fuzz target's ok/FAILED line as
# one check. Usage: sh tests/total.sh LOG 'make step' ['make step' ...]. Stops at the first
# step that fails (after printing the total so far) and exits with its status.
log=$1
shift
mkdir -p "$(dirname "$log")"
: >"$log"
st=$(mktemp)
trap 'rm -f "$st"' EXIT
rc=0
steps=0
for step in "$@"; do
    # the step's status survives the pipe through tee in a file
    { sh -c "$step"; echo $? >"$st"; } 2>&1 | tee -a "$log"
    rc=$(cat "$st")
    steps=$((steps + 1))
    [ "$rc" -eq 0 ] || break
done
awk -v steps="$steps" -v rc="$rc" '
    /^[0-9]+ passed, [0-9]+ failed$/ { p += $1; f += $3; s++; next }
    /^fuzz-regress: fuzz_.* ok/ || /^fuzz_[a-z]+ .* ok: / { p++; next }
    /^fuzz-regress: fuzz_.* FAILED/ || /^fuzz_[a-z]+ .*FAILED/ { f++; next }
    END {
        if (rc != 0 && f == 0) f = 1   # a step failed without a counted check (build, crash)
        printf "make test: %d passed, %d failed in all (%d suites and the fuzz targets, %d steps)\n", p, f, s, steps
    }' "$log"
exit "$rc"
