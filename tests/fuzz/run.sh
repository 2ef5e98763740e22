#!/bin/sh
# run.sh -- fuzz one target for N seconds and write its one-line result for the report.
# usage: sh tests/fuzz/run.sh TARGET SECONDS BUILD_DIR   (run from the repository root)
# Exits 0 when libFuzzer ran the whole time and reported nothing, 1 otherwise; the result line
# goes to BUILD_DIR/results/TARGET.txt either way so that `make fuzz` can print every target.
set -u
t=$1
secs=$2
b=$3
bin=$b/fuzz_$t
corpus=$b/corpus/$t
art=$b/artifacts/$t/
log=$b/logs/$t.log
res=$b/results/$t.txt
mkdir -p "$corpus" "$art" "$b/logs" "$b/results"
rm -f "$res"
sh tests/fuzz/seed.sh "$t" "$corpus" || exit 1
case $t in
nccl) dict=tests/fuzz/nccl.dict ;;
units|grid) dict=tests/fuzz/units.dict ;;
flags) dict=tests/fuzz/flags.dict ;;
*) dict=tests/fuzz/json.dict ;;
esac
echo "  FUZZ    $t for ${secs}s (log $log)"
"$bin" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -dict="$dict" \
    -artifact_prefix="$art" -print_final_stats=1 "$corpus" > "$log" 2>&1
rc=$?
# libFuzzer's last words after -max_total_time: "Done 123456 runs in 60 second(s)"
done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1)
runs=$(echo "$done_line" | sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p')
took=$(echo "$done_line" | sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p')
# A sanitizer report counts even if something let the process exit 0.
if [ $rc -ne 0 ] || [ -z "$runs" ] ||
   grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:' "$log"; then
    printf 'fuzz_%-9s FAILED (exit %d): see %s; the input is in %s\n' "$t" "$rc" "$log" "$art" > "$res"
    cat "$res"
    exit 1
fi
printf 'fuzz_%-9s %10s runs in %4s s  ok: no crash, leak, timeout or sanitizer report\n' "$t" "$runs" "$took" > "$res"
cat "$res"
exit 0
