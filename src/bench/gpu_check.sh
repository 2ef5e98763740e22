#!/bin/sh
# gpu_check.sh -- the unattended GPU suite behind `make gpu-check`: device query, NCCL collectives
# over all local GPUs, Adam vs D2D copy, membw, GEMMs (bf16/tf32/fp8, model-shaped), calibrate.
#
# usage: sh src/bench/gpu_check.sh            (from anywhere; `make gpu-check` builds first)
# Environment:
#   OUT      output directory (default hardware/measured/gpu-<gpu>-drv<driver>-<date>)
#   MODEL    model for the model-shaped GEMMs: a name in models/ or a config.json path (default llama-3-8b)
#   PROFILE  hardware profile to compare with and calibrate (default: from the GPU name)
#   MPIRUN   launcher (default mpirun); QUICK=1 shrinks every sweep (a smoke test)
# Exit status: 0 all steps passed; 1 a step failed (see OUT/log.txt); 77 no NVIDIA GPU
# (one line, nothing run or written). Time budget: at most 8 minutes on one H100/H200 after
# the build (each step runs under `timeout`; the budget per step is printed with its result).
set -u
cd "$(dirname "$0")/../.." || exit 1
NO_GPU=77

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "gpu-check: no NVIDIA GPU (nvidia-smi $(command -v nvidia-smi >/dev/null 2>&1 && echo 'lists none' || echo 'not found')); nothing run"
    exit $NO_GPU
fi
if [ ! -x "${ZB:-./zerobench-cuda}" ] || [ ! -x ./zerosim ]; then
    echo "gpu-check: ./zerobench-cuda and ./zerosim are needed (make zerobench-cuda zerosim)"
    exit 1
fi

NG=$(nvidia-smi -L | grep -c '^GPU ')
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
DRV=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
slug=$(echo "$GPU" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-*//; s/-*$//')
OUT=${OUT:-hardware/measured/gpu-$slug-x$NG-drv$DRV-$(date -u +%Y-%m-%d)}
MODEL=${MODEL:-llama-3-8b}
MPIRUN=${MPIRUN:-mpirun}
MPIFLAGS=""
[ "$(id -u)" = 0 ] && MPIFLAGS="--allow-run-as-root"
if [ -z "${PROFILE:-}" ]; then
    case "$slug" in
        *h200*) PROFILE=h200-141gb ;;
        *h100*) PROFILE=h100-80gb ;;
        *a100*80*) PROFILE=a100-80gb ;;
        *a100*) PROFILE=a100-40gb ;;
        *v100*) PROFILE=v100-32gb ;;
        *) PROFILE=h100-80gb ;;
    esac
fi
mkdir -p "$OUT" || exit 1
LOG=$OUT/log.txt
: >"$LOG"
T0=$(date +%s)
failed=0

# The suite's budget: 480 s (8 minutes) on one H100/H200; every step runs under timeout with
# at most what is left, keeping 40 s for calibrate, and steps past the budget are skipped.
BUDGET=${BUDGET:-480}

# step NAME BUDGET_S CMD...: runs CMD under timeout, stdout to OUT/NAME.txt, one status line.
step() {
    name=$1; budget=$2; shift 2
    s=$(date +%s)
    left=$(( BUDGET - (s - T0) ))
    [ "$name" != calibrate ] && left=$(( left - 40 ))
    if [ $left -lt 5 ]; then
        printf '%-28s %4ds (budget %3ds) %s\n' "$name" 0 "$budget" "SKIPPED (suite budget spent)" | tee -a "$LOG"
        failed=1
        return
    fi
    [ $left -lt "$budget" ] && budget=$left
    timeout "$budget" "$@" >"$OUT/$name.txt" 2>>"$LOG"
    rc=$?
    d=$(( $(date +%s) - s ))
    if [ $rc -eq 0 ]; then st=ok; elif [ $rc -eq 124 ]; then st="TIMEOUT"; failed=1; else st="FAILED rc $rc"; failed=1; fi
    printf '%-28s %4ds (budget %3ds) %s\n' "$name" "$d" "$budget" "$st" | tee -a "$LOG"
}

echo "gpu-check: $NG x $GPU, driver $DRV, compute capability ${CC:-?}; output $OUT" | tee -a "$LOG"
{ nvidia-smi; nvidia-smi -q; nvidia-smi topo -m; } >"$OUT/device.txt" 2>&1

# Sweeps (QUICK=1: a smoke test of the whole path in well under a minute).
if [ "${QUICK:-0}" = 1 ]; then
    CMAX=16M; ITERS=5; AMAX=10000000; MSIZE=256M; GITERS=3
else
    CMAX=1G; ITERS=20; AMAX=1000000000; MSIZE=1G; GITERS=10
fi
ZB=${ZB:-./zerobench-cuda}   # ZB=./zerobench runs the script path on the CPU back end (smoke test)
# collectives: one process per GPU (a single rank when there is one GPU: stated in the summary)
for c in allreduce allgather reducescatter broadcast alltoall reduce gather scatter sendrecv; do
    step "coll-$c" 45 $MPIRUN $MPIFLAGS -np "$NG" $ZB "$c" -b 8 -e "$CMAX" -f 4 -n "$ITERS" -w 5 \
        -J "$OUT/coll-$c.json"
done
step "coll-allreduce-bf16-imb" 30 $MPIRUN $MPIFLAGS -np "$NG" $ZB allreduce -b 1K -e 256M -f 16 -n "$ITERS" -w 5 \
    -d bf16 --timing imb -J "$OUT/coll-allreduce-bf16-imb.json"
# fused Adam, 10^6 .. 10^9 parameters, against the D2D copy of the same bytes
step adam 120 $ZB adam -b 1000000 -e "$AMAX" -f 10 -n "$ITERS" -w 3 -J "$OUT/adam.json"
step membw 30 $ZB membw -b "$MSIZE" -n "$ITERS" -w 3 -J "$OUT/membw.json"
# GEMMs: default training shapes in bf16 and tf32, fp8 where the GPU has it
step gemm-bf16 30 $ZB gemm --precision bf16 -n "$GITERS" -w 2 -J "$OUT/gemm-bf16.json"
step gemm-tf32 30 $ZB gemm --precision tf32 -n "$GITERS" -w 2 -J "$OUT/gemm-tf32.json"
fp8=0
case "$CC" in 8.9|9.*|1[0-9].*) fp8=1 ;; esac
[ $fp8 = 1 ] && step gemm-fp8 30 $ZB gemm --precision fp8 -n "$GITERS" -w 2 -J "$OUT/gemm-fp8.json"
# model-shaped GEMMs: sizes through zerosim's model loader (models/MODEL.json), tp 1 and 8
for tp in 1 8; do
    for p in bf16 fp8; do
        [ $p = fp8 ] && [ $fp8 = 0 ] && continue
        step "gemm-model-tp$tp-$p" 30 $ZB gemm --model "$MODEL" --tp $tp --micro-batch 1 --seq-len 4096 \
            --precision $p -n "$GITERS" -w 2 -J "$OUT/gemm-model-tp$tp-$p.json"
    done
done
# calibrate the profile from everything measured
set -- "$OUT"/*.json
args=""
for f in "$@"; do
    case "$f" in */calibrated-*) continue ;; esac   # an earlier run's output, not a zerobench file
    args="$args --harness $f"
done
step calibrate 40 ./zerosim calibrate --hardware "$PROFILE" $args -o "$OUT/calibrated-$PROFILE.json"

python3 src/bench/gpu_summary.py "$OUT" "hardware/$PROFILE.json" "$NG" >"$OUT/summary.txt" 2>>"$LOG" || failed=1
cat "$OUT/summary.txt"
echo "gpu-check: $(( $(date +%s) - T0 )) s in all; $( [ $failed = 0 ] && echo 'every step passed' || echo "some step FAILED (see $LOG)"); commit $OUT"
exit $failed
