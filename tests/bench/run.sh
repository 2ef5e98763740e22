#!/usr/bin/env bash
# tests/bench/run.sh -- zerobench tests: 2-rank collective sweeps, adam/gemm/membw checks, flag errors, CUDA build.
#
# Run from anywhere: sh tests/bench/run.sh. Builds (top-level make) ./zerobench (and
# ./zerobench-cuda when nvcc and nccl.h exist) unless ZEROBENCH_NO_BUILD=1.
# ZEROBENCH / ZEROBENCH_CUDA name other binaries (e.g. sanitized builds);
# MPIRUN overrides the launcher. Prints one line per test and ends with
# "N passed, N failed"; exits 1 when anything failed.
set -u
cd "$(dirname "$0")/../.." || exit 1

pass=0
fail=0
ok()  { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}

ZB=${ZEROBENCH:-./zerobench}
ZBC=${ZEROBENCH_CUDA:-./zerobench-cuda}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MAKE=${MAKE:-make}
MPIRUN=${MPIRUN:-mpirun}
MPIFLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && MPIFLAGS="$MPIFLAGS --allow-run-as-root"
# Containers without ssh/rsh: launch locally with Open MPI's "isolated" launcher.
if ! command -v ssh >/dev/null 2>&1 && ! command -v rsh >/dev/null 2>&1; then
    export OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# Under SANITIZER=address, Open MPI's own allocations look like leaks at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1

# --- build -------------------------------------------------------------------
if ! command -v "${MPICC:-mpicc}" >/dev/null 2>&1 || ! command -v "${MPIRUN%% *}" >/dev/null 2>&1; then
    echo "skip: zerobench needs MPI (mpicc and mpirun not found)"
    finish
fi
if [ "${ZEROBENCH_NO_BUILD:-0}" != 1 ]; then
    # through the top-level Makefile (it links zerosim's model loader for gemm --model NAME)
    if $MAKE zerobench >"$TMP/build.log" 2>&1; then
        if grep -q "warning:" "$TMP/build.log"; then bad "build has warnings"; grep "warning:" "$TMP/build.log"; else ok "build zerobench"; fi
    else
        bad "build zerobench"; tail -20 "$TMP/build.log"; finish
    fi
fi
if [ ! -x "$ZB" ]; then bad "$ZB missing"; finish; fi

# --- unit tests without MPI: fp8 encodings (OFP8 spec), GPU selection ---------
UNITS=${ZEROBENCH_UNITS:-build/bench/test-units}
if [ "${ZEROBENCH_NO_BUILD:-0}" != 1 ]; then $MAKE -s "$UNITS" >/dev/null 2>&1; fi
if [ -x "$UNITS" ] && "$UNITS" >"$TMP/units" 2>&1; then ok "units: $(tail -1 "$TMP/units") (fp8 vs OFP8 spec, device selection, fp8 GEMM check)"; else bad "units: $(grep FAIL "$TMP/units" | head -3)"; fi

# expect_usage_error ARGS...: exit 2, one line on stderr, nothing on stdout.
expect_usage_error() {
    "$ZB" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ] && grep -q "^zerobench: " "$TMP/err"; then
        ok "usage error: $* -> $(cat "$TMP/err")"
    else
        bad "usage error: $* (rc $rc, stderr: $(cat "$TMP/err"))"
    fi
}

# --- flags ---------------------------------------------------------------------
if "$ZB" --help >"$TMP/out" 2>&1 && grep -q "^usage: zerobench" "$TMP/out"; then ok "--help"; else bad "--help"; fi
expect_usage_error allreduce -b 0
expect_usage_error allreduce -b 1M -e 1K
expect_usage_error allreduce -d quad
expect_usage_error allreduce -o xor
expect_usage_error allreduce -b 12Q
expect_usage_error allreduce -e 1.5M
expect_usage_error allreduce -x 1
expect_usage_error allreduce -n
expect_usage_error nosuchbench
expect_usage_error
expect_usage_error broadcast -b 1K -r 5
expect_usage_error gemm --shape 12x3
expect_usage_error allreduce -N 0
expect_usage_error allreduce -m 0
expect_usage_error allreduce --timing fast
expect_usage_error allreduce -G 1 -I 1
expect_usage_error allreduce -G 1 -z 1
expect_usage_error allreduce -d f8e4m3 -o xor
expect_usage_error allreduce -o xor2
expect_usage_error allreduce -G 2
expect_usage_error gemm --model x --hidden 0

# --- collectives: 2-rank sweeps checked against arithmetic and JSON -------------
# coll NAME EXTRA-ARGS...: NP ranks (default 2); CHK adds check_coll.py flags
coll() {
    name=$1; shift
    np=${NP:-2}
    label="$name -np $np $*"
    json="$TMP/$name.json"
    rm -f "$json"
    $MPIRUN $MPIFLAGS -np "$np" "$ZB" "$name" -n 3 -w 1 -J "$json" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ $rc -ne 0 ]; then bad "$label: rc $rc: $(tail -3 "$TMP/err")"; return; fi
    if ls "$TMP"/*.tmp.* >/dev/null 2>&1; then bad "$label: temporary JSON left behind"; return; fi
    if [ $HAVE_PY = 1 ]; then
        extra="${CHK:-}"
        case " $* " in *" -I 1 "*) extra="$extra --per-iter" ;; esac
        if python3 tests/bench/check_coll.py "$name" "$np" "$TMP/out" "$json" $extra >"$TMP/chk" 2>&1; then
            ok "$label ($(grep -cv '^#' "$TMP/out") rows, table = arithmetic = JSON)"
        else
            bad "$label: $(head -3 "$TMP/chk")"
        fi
    elif grep -q "Out of bounds values : 0 OK" "$TMP/out"; then
        ok "$label (no python3: footer only)"
    else
        bad "$label: footer"
    fi
}
for c in allreduce allgather reducescatter broadcast alltoall; do
    coll $c -b 8 -e 1M -f 4
done
coll allreduce -b 1K -e 256K -f 16 -d bf16 -o max
coll allreduce -b 1K -e 64K -f 8 -d int32 -o prod
coll allreduce -b 1K -e 64K -f 8 -d double -o min -I 1
coll allreduce -b 1K -e 4K -i 1K -d half
coll reducescatter -b 1K -e 64K -f 8 -d int8
coll reducescatter -b 1K -e 64K -f 8 -d uint64 -o max
coll broadcast -b 1K -e 64K -f 8 -r 1 -d uint8
coll alltoall -b 1K -e 64K -f 8 -d bf16
coll allgather -b 1K -e 64K -f 8 -d double -a 3
# torch.distributed.all_gather's list form: the same result, one copy per rank after the gather
coll allgather-list -b 8 -e 1M -f 4
coll allgather-list -b 1K -e 64K -f 8 -d bf16
# new collectives (busbw factors: nccl-tests doc/PERFORMANCE.md), non-zero roots, new types and ops
coll reduce -b 8 -e 64K -f 8 -r 1 -o premulsum -d bf16
coll gather -b 8 -e 64K -f 8 -r 1 -d f8e4m3
coll scatter -b 8 -e 64K -f 8 -r 1 -d int64
coll sendrecv -b 8 -e 64K -f 8
# every type x every op, one size: exact results for avg/premulsum and fp8
coll allreduce -b 1K -e 1K -d all -o all
# 4 ranks (oversubscribed on this machine): the same checks
NP=4 coll allreduce -b 1K -e 1K -d all -o all
NP=4 coll gather -b 1K -e 16K -f 16 -r 3 -d half
NP=4 coll scatter -b 1K -e 16K -f 16 -r 2 -d f8e5m2
NP=4 coll alltoall -b 1K -e 16K -f 16 -d uint8
# IMB-style timing: per-call samples over iterations x ranks
CHK="--imb 3" NP=4 coll sendrecv -b 8 -e 64K -f 8 --timing imb -I 1
# 3 ranks: float avg is inexact (nranks ulps), every integer type exact
NP=3 coll reducescatter -b 1K -e 1K -d all -o avg
# -c 0 still makes one untimed call before each timed loop (nccl-tests), with -m/-z/-C/-N
CHK="--untimed 1" coll allreduce -b 1K -e 4K -f 4 -c 0 -m 3 -z 1 -C 1 -N 2
ZEROBENCH_NO_INPLACE=1 CHK="--inplace-na" coll alltoall -b 1K -e 16K -f 4

# deliberately corrupted results must be counted and fail the run
ZEROBENCH_FAULT=1 $MPIRUN $MPIFLAGS -np 2 "$ZB" allreduce -b 1K -e 4K -f 2 -n 2 -J "$TMP/fault.json" >"$TMP/out" 2>/dev/null
rc=$?
if [ $rc -ne 0 ] && grep -q "Out of bounds values : 6 FAILED" "$TMP/out" \
   && { [ $HAVE_PY = 0 ] || python3 tests/bench/check_coll.py allreduce 2 "$TMP/out" "$TMP/fault.json" --wrong 1 >/dev/null; }; then
    ok "injected fault: #wrong 1 per pass, exit status nonzero"
else
    bad "injected fault not reported (rc $rc)"
fi

ZEROBENCH_FAULT=1 $MPIRUN $MPIFLAGS -np 2 "$ZB" gather -b 1K -e 4K -f 2 -n 2 -o premulsum >"$TMP/out" 2>/dev/null
if [ $? -ne 0 ] && grep -q "Out of bounds values : 6 FAILED" "$TMP/out"; then
    ok "injected fault in gather's root counted"
else
    bad "gather injected fault not reported"
fi
ZEROBENCH_FAULT=1 $MPIRUN $MPIFLAGS -np 2 "$ZB" allreduce -b 1K -e 1K -n 2 -o premulsum -d f8e5m2 >"$TMP/out" 2>/dev/null
if [ $? -ne 0 ] && grep -q "Out of bounds values : 2 FAILED" "$TMP/out"; then
    ok "injected fault in fp8 premulsum counted"
else
    bad "fp8 premulsum injected fault not reported"
fi

# --- adam: kernels vs double reference --------------------------------------------
json_ok() {  # json_ok FILE BENCH NROWS: valid JSON, right benchmark, rows, summary ok
    [ $HAVE_PY = 0 ] && return 0
    python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["tool"] == "zerobench" and d["benchmark"] == sys.argv[2], "header"
assert len(d["rows"]) == int(sys.argv[3]), "rows %d" % len(d["rows"])
assert d["summary"]["ok"] is True, "summary"
for r in d["rows"]:
    assert r.get("wrong", 0) in (0, None), r
PY
}
OMP_NUM_THREADS=2 "$ZB" adam -b 100000 -e 300000 -f 3 -n 3 --tensors 7 -J "$TMP/adam.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
rows=$(grep -cv '^#' "$TMP/out")
if [ $rc -eq 0 ] && [ "$rows" -eq 4 ] && grep -v '^#' "$TMP/out" | awk '$NF != 0 {bad=1} END {exit bad}' \
   && json_ok "$TMP/adam.json" adam 4; then
    ok "adam fp32 + mixed vs double reference (#wrong 0, 4 rows)"
else
    bad "adam (rc $rc): $(tail -3 "$TMP/out") $(cat "$TMP/err")"
fi
ZEROBENCH_FAULT=1 "$ZB" adam -b 1000 -n 1 >"$TMP/out" 2>&1
if [ $? -eq 1 ] && grep -q "FAILED" "$TMP/out"; then ok "adam injected fault fails"; else bad "adam injected fault"; fi

# --- gemm: blocked (and cblas when built) vs naive reference ------------------------
OMP_NUM_THREADS=2 "$ZB" gemm --shape 67x45x129 --shape 130x70x300 --shape 1x1x1 -n 2 -J "$TMP/gemm.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ] && grep -v '^#' "$TMP/out" | awk '$9 != "full" || $NF != 0 {bad=1} END {exit bad}' && json_ok "$TMP/gemm.json" gemm 3; then
    ok "gemm float odd shapes, full reference check"
else
    bad "gemm float (rc $rc): $(cat "$TMP/err")"
fi
"$ZB" gemm -d double --shape 97x33x65 -n 1 --impl all >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 0 ] && grep -v '^#' "$TMP/out" | awk '$NF != 0 {bad=1} END {exit bad}'; then ok "gemm double, all implementations"; else bad "gemm double: $(cat "$TMP/err")"; fi
ZEROBENCH_FAULT=1 "$ZB" gemm --shape 8x8x8 -n 1 >"$TMP/out" 2>&1
if [ $? -eq 1 ]; then ok "gemm injected fault fails"; else bad "gemm injected fault"; fi

# gemm --model: Llama-2-7B (HF config: hidden 4096, intermediate 11008, 32 heads,
# vocab 32000) at --tp 8, one token. Its parameter count, 6,738,415,616 (HF
# transformers' count of meta-llama/Llama-2-7b-hf, as PEFT's
# print_trainable_parameters prints it), is 32 blocks x (linear + 2 x 4096 norm)
# + embedding and untied head (2 x 32000 x 4096) + final norm 4096, so the
# forward GEMMs must do 2 x tp x (linear params per block) and 2 x tp x 32000 x 4096 FLOP per token.
OMP_NUM_THREADS=2 "$ZB" gemm --model llama-2-7b --hidden 4096 --ffn 11008 --heads 32 --vocab 32000 --tp 8 \
    --micro-batch 1 --seq-len 1 -n 1 -w 0 -c 0 -J "$TMP/gm.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
model_flops() {
    [ $HAVE_PY = 0 ] && return 0
    python3 - "$1" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
names = [r["name"] for r in rows]
assert len(rows) == 18 and names[0] == "qkv.fwd" and names[-1] == "logits.wgrad", names
total, head = 6738415616, 32000 * 4096
linear = (total - 2 * head - 4096) // 32 - 2 * 4096
fwd = {r["name"]: r for r in rows if r["name"].endswith(".fwd")}
blk = sum(r["flops"] for n, r in fwd.items() if not n.startswith("logits")) / 2 * 8
assert blk == linear, (blk, linear)
assert fwd["logits.fwd"]["flops"] / 2 * 8 == head, fwd["logits.fwd"]
for r in rows:   # dgrad and wgrad do the forward's FLOPs
    assert r["flops"] == fwd[r["name"].split(".")[0] + ".fwd"]["flops"], r
PY
}
if [ $rc -eq 0 ] && model_flops "$TMP/gm.json"; then ok "gemm --model Llama-2-7B tp 8: 18 GEMMs, FLOPs = 2 x parameters (6,738,415,616)"; else bad "gemm --model (rc $rc): $(cat "$TMP/err")"; fi
OMP_NUM_THREADS=2 "$ZB" gemm --model gqa --hidden 256 --ffn 688 --heads 8 --kv-heads 2 --vocab 1000 --tp 2 --seq-len 64 -n 1 \
    >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 0 ] && grep -q "Out of bounds values : 0 OK" "$TMP/out" \
   && grep -q " 64  *192  *256 .* qkv.fwd$" "$TMP/out"; then
    ok "gemm --model GQA tp 2: QKV N = (8/2 + 2 x 2/2) x 32 = 192, all checked"
else
    bad "gemm --model GQA: $(tail -3 "$TMP/out") $(cat "$TMP/err")"
fi
# the same through zerosim's model loader (models/llama-2-7b.json, the HF config): same GEMMs
OMP_NUM_THREADS=2 "$ZB" gemm --model llama-2-7b --tp 8 --micro-batch 1 --seq-len 1 -n 1 -w 0 -c 0 -J "$TMP/gl.json" \
    >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "built without zerosim's model loader" "$TMP/err"; then
    echo "skip: gemm --model NAME: this zerobench has no model loader (built by bench.mk alone)"
elif [ $rc -eq 0 ] && model_flops "$TMP/gl.json"; then
    ok "gemm --model llama-2-7b through the core loader: the same 18 GEMMs"
else
    bad "gemm --model llama-2-7b via the loader (rc $rc): $(cat "$TMP/err")"
fi
"$ZB" gemm --model mixtral-8x7b -n 1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -e "mixture of experts" -e "built without" "$TMP/err"; then
    ok "gemm --model of a MoE: exit 2, one line"
else
    bad "gemm --model MoE (rc $rc): $(cat "$TMP/err")"
fi
"$ZB" gemm --model x --hidden 256 --ffn 688 --heads 8 --vocab 1000 --tp 3 >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 2 ] && grep -q "^zerobench: --tp 3 must divide" "$TMP/err"; then ok "gemm --model bad --tp: exit 2, one line"; else bad "gemm --model bad --tp: $(cat "$TMP/err")"; fi
"$ZB" gemm --model x --hidden 256 --ffn 688 --heads 8 --vocab 1000 --precision fp8 >"$TMP/out" 2>"$TMP/err"
if [ $? -eq 2 ] && grep -q "needs the CUDA back end" "$TMP/err"; then ok "gemm --precision fp8 on CPU: exit 2"; else bad "gemm fp8 on CPU: $(cat "$TMP/err")"; fi

# --- membw ---------------------------------------------------------------------------
"$ZB" membw -b 1M -e 2M -f 2 -n 3 -J "$TMP/membw.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
membw_bytes() {  # rows count bytes STREAM's way and rate = bytes / best time
    [ $HAVE_PY = 0 ] && return 0
    python3 - "$1" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    want = {"copy": 16, "scale": 16, "add": 24, "triad": 24}[r["kernel"]] * r["array_bytes"] / 8
    assert r["bytes"] == want, r
    assert abs(r["gbps"] - r["bytes"] / r["time_min_us"] / 1e3) <= 1e-6 * r["gbps"], r
PY
}
if [ $rc -eq 0 ] && json_ok "$TMP/membw.json" membw 8 && membw_bytes "$TMP/membw.json"; then ok "membw copy/scale/add/triad (STREAM byte counts, validated)"; else bad "membw (rc $rc): $(cat "$TMP/err")"; fi

# --- gpu-check without a GPU: one line, exit 77, nothing written -----------------------
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "skip: gpu-check no-GPU path (this machine has a GPU: run make gpu-check)"
else
    OUT="$TMP/gc" sh src/bench/gpu_check.sh >"$TMP/out" 2>&1
    rc=$?
    if [ $rc -eq 77 ] && [ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q "^gpu-check: no NVIDIA GPU" "$TMP/out" && [ ! -e "$TMP/gc" ]; then
        ok "gpu-check without a GPU: $(cat "$TMP/out"), exit 77"
    else
        bad "gpu-check without a GPU: rc $rc: $(cat "$TMP/out")"
    fi
fi

# --- CUDA back end: compiles here; without a GPU, one line and exit 1 ----------------
cuda_built=0
if [ "${ZEROBENCH_NO_BUILD:-0}" != 1 ]; then
    $MAKE zerobench-cuda >"$TMP/build-cuda.log" 2>&1
    rc=$?
    if grep -q "zerobench-cuda: skipped" "$TMP/build-cuda.log"; then
        echo "skip: $(grep 'zerobench-cuda: skipped' "$TMP/build-cuda.log")"
    elif [ $rc -ne 0 ] || [ ! -x "$ZBC" ]; then
        bad "build zerobench-cuda"; tail -20 "$TMP/build-cuda.log"
    elif grep -q "warning" "$TMP/build-cuda.log"; then
        bad "build zerobench-cuda has warnings"; grep "warning" "$TMP/build-cuda.log" | head
    else
        ok "build zerobench-cuda"; cuda_built=1
    fi
elif [ -x "$ZBC" ]; then
    cuda_built=1
else
    echo "skip: CUDA back end not built"
fi
if [ $cuda_built = 1 ]; then
    "$ZBC" allreduce -b 8 -e 1M -f 4 -n 2 >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if grep -q "no CUDA device found" "$TMP/err"; then
        if [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ] \
           && grep -q "^zerobench-cuda: no CUDA device found (cudaGetDeviceCount: .*)$" "$TMP/err"; then
            ok "zerobench-cuda without GPU: $(cat "$TMP/err"), exit 1"
        else
            bad "zerobench-cuda without GPU: rc $rc, stderr: $(cat "$TMP/err")"
        fi
    elif [ $rc -eq 0 ] && grep -q "Out of bounds values : 0 OK" "$TMP/out"; then
        ok "zerobench-cuda allreduce on a GPU"
        for b in adam gemm membw; do
            case $b in
                adam) args="-b 1M -n 3" ;;
                gemm) args="--shape 256x256x256 --shape 1024x2048x512 -n 3" ;;
                *) args="-b 64M -n 3" ;;
            esac
            if "$ZBC" $b $args >"$TMP/out" 2>&1; then ok "zerobench-cuda $b on a GPU"; else bad "zerobench-cuda $b: $(tail -3 "$TMP/out")"; fi
        done
        # NCCL has no in-place all-to-all: N/A columns, null JSON (one rank)
        "$ZBC" alltoall -b 1K -e 64K -f 4 -n 3 -J "$TMP/a2a.json" >"$TMP/out" 2>&1
        if [ $? -eq 0 ] && { [ $HAVE_PY = 0 ] || python3 tests/bench/check_coll.py alltoall 1 "$TMP/out" "$TMP/a2a.json" --inplace-na >"$TMP/chk" 2>&1; }; then
            ok "zerobench-cuda alltoall: in place N/A"
        else
            bad "zerobench-cuda alltoall in place: $(head -3 "$TMP/chk" 2>/dev/null) $(tail -2 "$TMP/out")"
        fi
        for args in "allreduce -d all -o all -b 1K -e 64K -f 8 -n 2" "allreduce -G 2 -b 1K -e 1M -f 8 -n 5" \
                    "sendrecv -b 8 -e 1M -f 8 --timing imb -n 5" "gemm --precision tf32 --shape 512x256x384 -n 2" \
                    "gemm --model t --hidden 1024 --ffn 2816 --heads 16 --kv-heads 4 --vocab 32000 --seq-len 512 -n 2"; do
            if "$ZBC" $args >"$TMP/out" 2>&1; then ok "zerobench-cuda $args"; else bad "zerobench-cuda $args: $(tail -3 "$TMP/out")"; fi
        done
        "$ZBC" gemm --precision fp8 --shape 512x256x384 -n 2 >"$TMP/out" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then ok "zerobench-cuda gemm fp8 (cuBLASLt)"
        elif [ $rc -eq 2 ] && grep -q "compute capability" "$TMP/out"; then echo "skip: fp8 gemm: $(cat "$TMP/out")"
        else bad "zerobench-cuda gemm fp8: $(tail -3 "$TMP/out")"; fi
    else
        bad "zerobench-cuda allreduce: rc $rc: $(tail -3 "$TMP/err")"
    fi
    "$ZBC" allreduce -b 0 >/dev/null 2>&1
    if [ $? -eq 2 ]; then ok "zerobench-cuda bad flag exits 2"; else bad "zerobench-cuda bad flag"; fi
fi


# --- -J through src/io/atomicfile.c (issue 14): a FIFO stays a FIFO, a read-only file is refused
mkfifo "$TMP/j.fifo"
cat "$TMP/j.fifo" >"$TMP/j.out" &
reader=$!
"$ZB" membw -b 1M -e 1M -n 2 -J "$TMP/j.fifo" >/dev/null 2>&1
rc=$?
[ -p "$TMP/j.fifo" ] || kill $reader 2>/dev/null # replaced: the reader would wait forever
wait $reader
if [ $rc -eq 0 ] && [ -p "$TMP/j.fifo" ] && grep -q '"tool": "zerobench"' "$TMP/j.out"; then ok "-J to a FIFO writes it in place"; else bad "-J to a FIFO: rc $rc"; fi
echo old >"$TMP/ro.json"
chmod 444 "$TMP/ro.json"
"$ZB" membw -b 1M -e 1M -n 2 -J "$TMP/ro.json" >/dev/null 2>&1
if [ $? -ne 0 ] && [ "$(cat "$TMP/ro.json")" = old ]; then ok "-J refuses a read-only file"; else bad "-J replaced a read-only file"; fi

finish
