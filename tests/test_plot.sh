#!/bin/sh
# test_plot.sh -- `zerosim plot`: files per chart, PNG/SVG validity, .dat numbers equal to
# estimate/plan/validate JSON, the no-gnuplot path, errors. Ends with "N passed, N failed".
Z=${ZEROSIM:-./zerosim}
case $Z in /*) ;; *) Z=$(pwd)/$Z ;; esac
pass=0
fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { if eval "$1"; then ok; else bad "$2"; fi; }

RUNS=tests/validation/published_runs.csv
CFG="--model llama-2-7b --hardware a100-80gb --gpus 16 --seq-len 4096 --checkpointing selective"
GL="--gpus-list 1,8,64"
CHARTS="memory memory-vs-gpus step comm max-model validate compare"

have_gnuplot=yes
if [ -n "$GNUPLOT" ]; then command -v "$GNUPLOT" >/dev/null 2>&1 || have_gnuplot=no
else command -v gnuplot >/dev/null 2>&1 || have_gnuplot=no; fi

# --- every chart, both formats -----------------------------------------------------------------
D=$T/all
"$Z" plot $CFG $GL --runs $RUNS -o "$D" >"$T/out" 2>"$T/err"
rc=$?
check '[ $rc -eq 0 ]' "plot all charts -> exit $rc: $(head -c 300 "$T/err")"
for c in $CHARTS; do
    check '[ -s "$D/$c.dat" ] && [ -s "$D/$c.gp" ]' "$c: .dat or .gp missing"
done
check '[ -z "$(ls -A "$D" | grep "^\.")" ]' "temporary files left in $D: $(ls -A "$D" | grep '^\.' | head -3)"

if [ $have_gnuplot = yes ]; then
    for c in $CHARTS; do
        check '[ "$(head -c 4 "$D/$c.png" 2>/dev/null | od -An -tx1 | tr -d " \n")" = 89504e47 ]' "$c.png: no PNG signature"
        check 'python3 -c "
import sys, xml.etree.ElementTree as E
t = open(sys.argv[1]).read()
E.fromstring(t)
assert \"<svg\" in t
" "$D/$c.svg" 2>>"$T/err"' "$c.svg: not an SVG document: $(tail -c 200 "$T/err")"
    done
    check '[ "$(wc -l <"$T/out")" -eq 7 ] && grep -q "$D/memory.png $D/memory.svg" "$T/out"' "stdout should list the images: $(head -c 300 "$T/out")"
    # The .gp runs by hand from its directory and draws both images again.
    mkdir "$T/hand" && cp "$D/memory.dat" "$D/memory.gp" "$T/hand/"
    (cd "$T/hand" && ${GNUPLOT:-gnuplot} memory.gp) 2>"$T/err"
    check '[ -s "$T/hand/memory.png" ] && [ -s "$T/hand/memory.svg" ] && [ ! -s "$T/err" ]' "gnuplot memory.gp by hand: $(head -c 300 "$T/err")"
    # --format png: only PNGs, and the script draws only PNG; one strategy, one bar (no
    # all-undefined label plot, which crashes gnuplot 5.4).
    "$Z" plot memory $CFG --strategy zero3 --format png -o "$T/png" >/dev/null 2>"$T/err"
    rc=$?
    check '[ $rc -eq 0 ] && [ -s "$T/png/memory.png" ] && [ ! -e "$T/png/memory.svg" ] && ! grep -q "terminal svg" "$T/png/memory.gp"' "--format png --strategy zero3 -> exit $rc: $(head -c 300 "$T/err")"
else
    echo "SKIP: gnuplot not installed; image checks skipped" >&2
fi

# --- the numbers are the library's: estimate, plan --max-model, validate -----------------------
"$Z" estimate $CFG --format json >"$T/est.json" 2>/dev/null
check 'python3 - "$D" "$T/est.json" <<"EOF"
import json, shlex, sys
d, est = sys.argv[1], json.load(open(sys.argv[2]))
res = {r["strategy"]: r for r in est["results"]}
def table(path):
    cols, rows = None, []
    for line in open(path):
        if line.startswith("# columns:"): cols = line.split(":", 1)[1].split()
        elif line.strip() and not line.startswith("#"): rows.append(dict(zip(cols, shlex.split(line))))
    assert cols and rows, path
    return rows
def same(a, b):
    a, b = float(a), float(b)
    assert abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-300), (a, b)
mem = table(d + "/memory.dat")
assert [r["strategy"] for r in mem] == [r["strategy"] for r in est["results"]]
n = 0
for r in mem:
    j = res[r["strategy"]]
    assert int(r["applicable"]) == int(j["applicable"])
    if not j["applicable"]: continue
    for k, v in j["memory_bytes"].items(): same(r[k], v); n += 1
assert n >= 4 * 11, n
for r in table(d + "/comm.dat"):
    c = res[r["strategy"]]["communication_bytes_per_gpu"]
    for k in ("intra_node", "inter_node", "host_link", "total", "ideal_zero_paper", "expert_all_to_all", "context_parallel_kv"): same(r[k], c[k])
EOF' "memory.dat/comm.dat differ from estimate --format json"

"$Z" plan $CFG --max-model $GL --format json >"$T/plan.json" 2>/dev/null
check 'python3 - "$D/max-model.dat" "$T/plan.json" <<"EOF"
import json, sys
plan = {r["gpus"]: r for r in json.load(open(sys.argv[2]))["max_model"]}
cols = None
n = 0
for line in open(sys.argv[1]):
    if line.startswith("# columns:"): cols = line.split(":", 1)[1].split(); continue
    if line.startswith("#") or not line.strip(): continue
    r = dict(zip(cols, line.split()))
    p = plan[int(r["gpus"])]
    for s in ("ddp", "zero1", "zero2", "zero3"):
        v = 0.0 if r[s + "_params"] == "?" else float(r[s + "_params"])
        assert abs(v - p[s]) <= 1e-6 * max(v, p[s], 1), (r["gpus"], s, v, p[s]); n += 1
assert n == 12, n
EOF' "max-model.dat differs from plan --max-model --format json"

"$Z" validate $RUNS --format json >"$T/val.json" 2>/dev/null
check 'python3 - "$D/validate.dat" "$T/val.json" <<"EOF"
import json, shlex, sys
val = {r["name"]: r for r in json.load(open(sys.argv[2]))["runs"]}
n = 0
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip(): continue
    name, strat, gpus, meas, pred, err, metric = shlex.split(line)
    v = val[name]
    assert abs(float(pred) - v["predicted_step_seconds"]) <= 1e-6 * v["predicted_step_seconds"], name
    assert abs(float(err) - v["error"]) <= 1e-9 + 1e-6 * abs(v["error"]), name
    if metric == "step_seconds": assert abs(float(meas) - v["measured"]) <= 1e-9 * v["measured"], name
    n += 1
assert n == len(val), (n, len(val))
EOF' "validate.dat differs from validate --format json"

# --- without gnuplot: one line, exit 0, data and scripts written --------------------------------
for how in gnuplot path; do
    G=$T/nognu-$how
    if [ $how = gnuplot ]; then GNUPLOT=/nonexistent "$Z" plot memory step $CFG -o "$G" >"$T/out" 2>"$T/err"
    else PATH=/nonexistent GNUPLOT= "$Z" plot memory step $CFG -o "$G" >"$T/out" 2>"$T/err"; fi
    rc=$?
    check '[ $rc -eq 0 ]' "no gnuplot ($how) -> exit $rc"
    check '[ "$(cat "$T/out" "$T/err" | wc -l)" -eq 1 ] && grep -q "^zerosim plot: gnuplot not found; wrote .dat and .gp files to $G\$" "$T/err"' "no gnuplot ($how): want exactly the one-line notice, got: $(cat "$T/out" "$T/err" | head -c 300)"
    check '[ -s "$G/memory.dat" ] && [ -s "$G/memory.gp" ] && [ -s "$G/step.dat" ] && [ -s "$G/step.gp" ] && [ ! -e "$G/memory.png" ]' "no gnuplot ($how): .dat/.gp missing"
done

# --- a chart's files stay consistent (issue 14) ------------------------------------------------
# Stand-ins for gnuplot: one that draws (writes the two images the -e line names), one that
# fails, one that hangs until it is killed.
printf '#!/bin/sh\neval "$2"\nprintf PNG >"$zs_png"\nprintf "<svg/>" >"$zs_svg"\n' >"$T/gp-ok"
printf '#!/bin/sh\necho "line 1: some error" >&2\nexit 1\n' >"$T/gp-fail"
printf '#!/bin/sh\necho $$ >"$GP_PIDFILE"\nexec sleep 30\n' >"$T/gp-slow"
chmod +x "$T/gp-ok" "$T/gp-fail" "$T/gp-slow"
hidden() { ls -A "$1" | grep '^\.' | head -3; }
K=$T/keep
GNUPLOT=$T/gp-ok "$Z" plot memory $CFG -o "$K" >/dev/null 2>"$T/err"
check '[ -s "$K/memory.png" ] && [ -s "$K/memory.dat" ]' "fake gnuplot run: $(head -c 300 "$T/err")"
cp "$K/memory.dat" "$T/memory.dat.old"
# gnuplot fails on a new configuration: the old .dat/.gp/.png stay together, no temporaries.
GNUPLOT=$T/gp-fail "$Z" plot memory --model llama-2-13b --gpus 8 -o "$K" >/dev/null 2>"$T/err"
rc=$?
check '[ $rc -eq 4 ] && grep -q "some error" "$T/err" && cmp -s "$K/memory.dat" "$T/memory.dat.old" && [ -z "$(hidden "$K")" ]' "failed render replaced files or left temporaries (exit $rc): $(head -c 300 "$T/err") $(hidden "$K")"
# A read-only output is refused, and nothing of that chart is replaced (not even the .dat).
chmod 444 "$K/memory.gp"
GNUPLOT=$T/gp-ok "$Z" plot memory --model llama-2-13b --gpus 8 -o "$K" >/dev/null 2>"$T/err"
rc=$?
check '[ $rc -eq 4 ] && grep -q "memory.gp: exists and is read-only" "$T/err" && cmp -s "$K/memory.dat" "$T/memory.dat.old" && [ "$(stat -c %a "$K/memory.gp")" = 444 ]' "read-only memory.gp (exit $rc): $(head -c 300 "$T/err")"
chmod 644 "$K/memory.gp"
# A writable output keeps its permission bits.
chmod 640 "$K/memory.dat"
GNUPLOT=$T/gp-ok "$Z" plot memory --model llama-2-13b --gpus 8 -o "$K" >/dev/null 2>"$T/err"
check '[ "$(stat -c %a "$K/memory.dat")" = 640 ] && ! cmp -s "$K/memory.dat" "$T/memory.dat.old"' "memory.dat lost mode 640: $(stat -c %a "$K/memory.dat") $(head -c 300 "$T/err")"
# SIGTERM while gnuplot runs: gnuplot is stopped and no temporary is left.
S=$T/sig
GP_PIDFILE=$T/gp.pid GNUPLOT=$T/gp-slow "$Z" plot memory $CFG -o "$S" >/dev/null 2>&1 &
zp=$!
i=0
while [ ! -s "$T/gp.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM $zp
wait $zp 2>/dev/null # (no "Terminated" notice from the shell)
rc=$?
gp=$(cat "$T/gp.pid" 2>/dev/null)
sleep 0.2
check '[ -n "$gp" ] && ! kill -0 "$gp" 2>/dev/null' "interrupted plot left gnuplot (pid $gp) running"
check '[ $rc -ne 0 ] && [ -z "$(hidden "$S")" ] && [ ! -e "$S/memory.dat" ]' "interrupted plot (exit $rc) left: $(hidden "$S") $(ls "$S")"
[ -n "$gp" ] && kill "$gp" 2>/dev/null

# --- step marks what does not fit; the calibration legend stays off the points ------------------
# Mixed-precision Adam keeps 16 bytes per parameter (ZeRO paper, Rajbhandari et al. 2020,
# section 3.1): Llama-2-7B (6.74e9 parameters, model card) needs 108 GB under DDP, more than
# an 80 GB GPU, while ZeRO-3 over 8 GPUs needs 13.5 GB per GPU.
F=$T/fit
GNUPLOT=/nonexistent "$Z" plot step --model llama-2-7b --gpus 8 --strategy ddp,zero3 -o "$F" >/dev/null 2>&1
check 'python3 - "$F/step.dat" <<"EOF"
import shlex, sys
cols, rows = None, {}
for line in open(sys.argv[1]):
    if line.startswith("# columns:"): cols = line.split(":", 1)[1].split()
    elif line.strip() and not line.startswith("#"):
        r = dict(zip(cols, shlex.split(line))); rows[r["strategy"]] = r
assert rows["ddp"]["fits"] == "0" and rows["zero3"]["fits"] == "1", rows
assert "does not fit" in rows["ddp"]["label"] and "fit" not in rows["zero3"]["label"], rows
EOF' "step.dat should mark DDP of llama-2-7b on 8 x 80 GB as not fitting"
check 'grep -q "does not fit" "$F/step.gp"' "step.gp draws no mark for what does not fit"
GNUPLOT=/nonexistent "$Z" calibrate --hardware h100-80gb --nccl-tests tests/data/nccl/all_reduce_2.19_h100x8.log --plot "$T/cal" >/dev/null 2>&1
check 'grep -q "^set key outside" "$T/cal/calibration.gp" && ! grep -q "^set key.*opaque" "$T/cal/calibration.gp"' "calibration legend inside the plot: $(grep "^set key" "$T/cal/calibration.gp" | tr '\n' ' ')"

# --- errors: status, one short line on stderr naming the problem -------------------------------
expect() {
    want=$1 pat=$2
    shift 2
    "$Z" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then bad "zerosim $* -> exit $rc, want $want ($(head -c 300 "$T/err"))"; return; fi
    if ! grep -q -- "$pat" "$T/err"; then bad "zerosim $* -> stderr lacks '$pat': $(head -c 300 "$T/err")"; return; fi
    if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "zerosim $* -> error is not one line: $(cat "$T/err")"; return; fi
    ok
}
: >"$T/afile"
printf 'name,model,hardware\nx,llama-2-7b,a100-80gb\n' >"$T/bad.csv"
expect 2 'unknown chart "memroy"' plot memroy $CFG -o "$T/e"
expect 4 "not a directory" plot memory $CFG -o "$T/afile"
expect 3 "bad.csv" plot validate --runs "$T/bad.csv" -o "$T/e"
expect 3 "bad.csv" plot $CFG --runs "$T/bad.csv" -o "$T/e"
expect 3 "nope.csv" plot validate --runs "$T/nope.csv" -o "$T/e"
expect 2 "needs --runs" plot validate $CFG -o "$T/e"
expect 2 "nothing to plot" plot -o "$T/e"
expect 2 "--format" plot memory $CFG --format gif -o "$T/e"
expect 2 "--gpus-list" plot memory-vs-gpus $CFG --gpus-list 8,zero -o "$T/e"
expect 2 "unknown option --frob" plot $CFG --frob 1
check '[ ! -e "$T/e/memory.dat" ] && [ ! -e "$T/e/validate.dat" ]' "a failed run left chart files in $T/e"
"$Z" plot --help >"$T/out" 2>&1
check '[ $? -eq 0 ] && grep -q "^usage: zerosim plot" "$T/out"' "plot --help"

# compare.dat holds what `zerosim compare --format json` gives for the same flags.
"$Z" compare $CFG --format json >"$T/cmp.json" 2>/dev/null
check 'python3 - "$D/compare.dat" "$T/cmp.json" <<"EOF"
import json, math, shlex, sys
rows = [shlex.split(l) for l in open(sys.argv[1]) if not l.startswith("#") and l.strip()]
d = json.load(open(sys.argv[2]))["results"]
assert len(rows) == len(d) == 4, (len(rows), len(d))
for r, j in zip(rows, d):
    assert r[0] == j["strategy"]
    mem = float(r[2]); assert (math.isnan(mem) and not j["applicable"]) or abs(mem - j["memory_bytes"]["total"]) < 1
    mb = float(r[4]); assert (math.isnan(mb) and j["max_micro_batch"] == 0) or mb == j["max_micro_batch"]
    g = float(r[6]); assert (math.isnan(g) and j["min_gpus"] is None) or g == j["min_gpus"]
EOF' "compare.dat differs from zerosim compare"

# The compare chart (issue 22): every panel names its y axis; each panel's y range leaves room
# above its largest value for the value labels and the x range room right of the last
# (hatched) bar; the fewest-GPU bars carry what their configuration offloads, as compare's
# JSON gives it (1 GPU for ZeRO-3 here only with offload).
BIG="--model llama-2-70b --hardware a100-80gb --gpus 64 --seq-len 4096 --checkpointing full --tokens 2e12"
"$Z" plot compare $BIG -o "$T/cmp" >/dev/null 2>&1
"$Z" compare $BIG --format json >"$T/cmp2.json" 2>/dev/null
check 'python3 - "$T/cmp/compare.dat" "$T/cmp/compare.gp" "$T/cmp2.json" <<"EOF"
import json, re, shlex, sys
rows = [shlex.split(l) for l in open(sys.argv[1]) if not l.startswith("#") and l.strip()]
gp = open(sys.argv[2]).read()
d = json.load(open(sys.argv[3]))["results"]
def off(c):
    o, p = c["offload_optimizer"], c["offload_params"]
    return "none" if o == p == "none" else ("opt+param " + p if p != "none" else "opt " + o)
assert [r[9] for r in rows] == [off(j["min_gpus_config"]) for j in d], [r[9] for r in rows]
assert any(r[9] != "none" for r in rows)
block = gp[gp.index("set multiplot"):gp.index("unset multiplot")]
panels = block.split("set title ")[1:]
assert len(panels) == 4, len(panels)
for p in panels:
    assert "set ylabel " in p, ("no y-axis label", p[:60])
tops = {}
for p in panels[1:]:
    m = re.search(r"set yrange \[0:([0-9.e+]+)\]", p)
    assert m, ("y range not fixed", p[:80])
    tops[p[:20]] = float(m.group(1))
mb = max(max(j["max_micro_batch"], j["max_micro_batch_with_recompute"]) for j in d)
gpus = max(j["min_gpus"] or 0 for j in d)
usd = max(j["cost"]["dollars"] or 0 for j in d)
want = [mb * 1.1, gpus * 1.2, usd * 1.1]
assert all(t >= w for t, w in zip(tops.values(), want)), (tops, want)
assert "strcol(10)" in panels[2], "fewest-GPU labels do not name the offload"
m = re.search(r"set xrange \[(-?[0-9.]+):([0-9.]+)\]", block)
assert float(m.group(2)) >= len(d) - 1 + 0.18 + 0.35 / 2 + 0.15, m.group(0)
EOF' "compare chart: y labels, headroom, x range or the fewest-GPU offload"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
