#!/bin/sh
# output.sh -- output files (calibrate -o: FIFOs, symlinks, read-only, failed writes) and stdout errors.
# Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

# Output files (issue 14): calibrate -o writes a temporary file made with mkstemp beside the
# target and renames it; devices, FIFOs and our own stdout are written directly; read-only
# targets are refused; a write error leaves the previous output whole. All inside a temporary
# directory: nothing here touches /dev/null.
T=$(mktemp -d)
CAL="calibrate --hardware h100-80gb --nccl-tests tests/data/nccl/all_reduce_2.19_h100x8.log"
# a FIFO stays a FIFO, and its reader gets the profile
mkfifo $T/fifo
cat $T/fifo >$T/fifo.out & reader=$!
"$Z" $CAL -o $T/fifo >/dev/null 2>"$err"; rc=$?
[ -p $T/fifo ] || kill $reader 2>/dev/null # replaced: the reader would wait forever
wait $reader
[ $rc -eq 0 ] && [ -p $T/fifo ] && grep -q '"h100-80gb-calibrated"' $T/fifo.out && ok || bad "calibrate -o FIFO: rc $rc, FIFO replaced or empty: $(cat "$err")"
# a symlink to /dev/stdout stays a symlink; the profile arrives on stdout
ln -s /dev/stdout $T/out-link
"$Z" $CAL -o $T/out-link 2>"$err" | cat >$T/piped; [ -L $T/out-link ] && grep -q '"h100-80gb-calibrated"' $T/piped && ok || bad "calibrate -o symlink to /dev/stdout replaced it: $(cat "$err")"
# a symlink planted at the old predictable temporary name (NAME.tmp.PID) is not written through
echo precious >$T/victim
sh -c 'ln -s "$1/victim" "$1/prof.json.tmp.$$"; exec "$2" calibrate --hardware h100-80gb --nccl-tests tests/data/nccl/all_reduce_2.19_h100x8.log -o "$1/prof.json"' sh $T "$Z" >/dev/null 2>"$err"
[ "$(cat $T/victim)" = precious ] && [ ! -L $T/prof.json ] && grep -q '"h100-80gb-calibrated"' $T/prof.json && ok || bad "calibrate -o wrote through a symlink planted at the temporary name"
# a read-only output is refused (exit 4), not replaced by a writable file
echo old >$T/ro.json; chmod 444 $T/ro.json
"$Z" $CAL -o $T/ro.json >/dev/null 2>"$err"; rc=$?
[ $rc -eq 4 ] && [ "$(cat $T/ro.json)" = old ] && [ -z "$(find $T/ro.json -perm -u+w)" ] && grep -q "ro.json" "$err" && ok || bad "calibrate -o read-only file: rc $rc, $(cat "$err")"
# an existing output keeps its permission bits
echo old >$T/perm.json; chmod 640 $T/perm.json
"$Z" $CAL -o $T/perm.json >/dev/null 2>"$err"; [ "$(stat -c %a $T/perm.json)" = 640 ] && grep -q calibrated $T/perm.json && ok || bad "calibrate -o changed permissions to $(stat -c %a $T/perm.json)"
# a write that fails (file size limit) leaves the previous output whole and no temporary file,
# also for a 4095-character -o, whose temporary name used to be cut short to the output itself
long=$T; while [ ${#long} -lt 3890 ]; do long=$long/dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd; done
mkdir -p $long
long=$long/$(printf '%*s' $((4095 - ${#long} - 1)) '' | tr ' ' f)
mkdir $T/lim
for target in $T/lim/limited.json $long; do
    echo previous >$target
    (trap '' XFSZ; ulimit -f 1; exec "$Z" $CAL -o $target) >/dev/null 2>"$err"; rc=$?
    [ $rc -eq 4 ] && [ "$(cat $target)" = previous ] && [ -z "$(ls -A "$(dirname $target)" | grep '\.tmp')" ] && ok || bad "calibrate -o with a failing write (${#target} characters): rc $rc, output now $(head -c 40 $target)"
done
"$Z" $CAL -o $long >/dev/null 2>"$err" && grep -q calibrated $long && ok || bad "calibrate -o with a 4095-character path: $(cat "$err")"
rm -rf "$T"
# stdout write errors: exit 4 and one line on stderr (a sweep larger than stdio's buffer exited 4
# silently; smaller outputs exited 0)
if [ -w /dev/full ]; then
    for args in "estimate $M --gpus 8" "estimate $M --gpus 8 --compat deepspeed" "plan $M --max-gpus 16" \
                "validate tests/validation/published_runs.csv" "list models" "$CAL" "sweep $M --gpus 8:4096:x2 --micro-batch 1,2,4,8" "--help"; do
        "$Z" $args >/dev/full 2>"$err"; rc=$?
        [ $rc -eq 4 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -q "cannot write standard output" "$err" && ok || bad "zerosim $args >/dev/full: exit $rc, stderr: $(cat "$err")"
    done
fi

finish
