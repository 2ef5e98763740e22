#!/bin/sh
# run.sh -- run test scripts side by side, each into its own log, then print the logs whole, in
# the order given, so that their "N passed, N failed" lines never interleave (tests/total.sh
# sums them). Usage: sh tests/cli/run.sh LOGDIR SCRIPT...; exits 1 when any script failed.
logs=$1
shift
mkdir -p "$logs"
rm -f "$logs/summary"
jobs=""
for t in "$@"; do
    n=$(basename "$t" .sh)
    sh "$t" >"$logs/$n.log" 2>&1 &
    jobs="$jobs $!:$n"
done
rc=0
for j in $jobs; do
    wait "${j%%:*}" || { rc=1; echo "${j#*:}: FAILED (log $logs/${j#*:}.log)" >>"$logs/summary"; }
    cat "$logs/${j#*:}.log"
done
[ "$rc" -eq 0 ] || cat "$logs/summary" >&2
rm -f "$logs/summary"
exit "$rc"
