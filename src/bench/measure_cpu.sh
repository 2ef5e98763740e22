#!/bin/sh
# measure_cpu.sh -- runs the CPU measurement set and saves JSON into hardware/measured/.
#
# usage: [IMB=/path/to/IMB-MPI1] sh src/bench/measure_cpu.sh [RUNS] [NAME]
#   RUNS  repetitions of every benchmark (default 3; compare medians)
#   NAME  machine tag in the file names (default cpu-<cpu model>-<N>c)
#   IMB   when set, IMB-MPI1 runs the same collectives right after ours in
#         every round (same conditions) and its stdout is kept as .txt
#   TIMING when set to imb, the collectives run with --timing imb (barrier + per-call
#         times, time = median over iterations x ranks), files are named
#         <NAME>-<DATE>-imb-timing-<bench>-run<i>.json, and adam/membw/gemm are skipped
#   QUIET when set (a percentage, e.g. 10), each benchmark first waits (up to
#         5 minutes) until the CPUs are less than QUIET % busy over 2 s
# Files: hardware/measured/<NAME>-<YYYY-MM-DD>-<bench>-run<i>.json (and -imb-run<i>.txt)
# Collectives: 2 ranks, 1 OpenMP thread each; adam/membw/gemm: 1 rank, all cores.
# Summary: python3 src/bench/summarize.py hardware/measured NAME-DATE hardware/measured/NAME-DATE-imb-run*.txt
set -eu
cd "$(dirname "$0")/../.."
RUNS=${1:-3}
ncpu=$(getconf _NPROCESSORS_ONLN)
model=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1 | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/-*$//')
NAME=${2:-cpu-$model-${ncpu}c}
DATE=$(date -u +%Y-%m-%d)
OUT=hardware/measured
MPIRUN=${MPIRUN:-mpirun}
MPIFLAGS="--oversubscribe"
[ "$(id -u)" = 0 ] && MPIFLAGS="$MPIFLAGS --allow-run-as-root"
mkdir -p "$OUT"

# cpu_busy: percent of CPU time not idle over the next 2 seconds (all CPUs).
cpu_busy() {
    read -r _ u n s i w x y z _ </proc/stat
    t1=$((u + n + s + i + w + x + y + z)); i1=$((i + w))
    sleep 2
    read -r _ u n s i w x y z _ </proc/stat
    t2=$((u + n + s + i + w + x + y + z)); i2=$((i + w))
    echo $((100 * ((t2 - t1) - (i2 - i1)) / (t2 - t1 + 1)))
}
wait_quiet() {
    [ -n "${QUIET:-}" ] || return 0
    tries=0
    while [ "$(cpu_busy)" -ge "$QUIET" ] && [ $tries -lt 150 ]; do tries=$((tries + 1)); done
}
[ -x ./zerobench ] || ${MAKE:-make} -f src/bench/bench.mk zerobench

TAG=$NAME-$DATE${TIMING:+-$TIMING-timing}
i=1
while [ "$i" -le "$RUNS" ]; do
    for c in allreduce allgather reducescatter broadcast alltoall; do
        wait_quiet
        OMP_NUM_THREADS=1 $MPIRUN $MPIFLAGS -np 2 ./zerobench "$c" -b 8 -e 32M -f 4 -n 20 -w 5 \
            ${TIMING:+--timing $TIMING} -J "$OUT/$TAG-$c-run$i.json" >/dev/null
    done
    if [ -n "${IMB:-}" ]; then
        wait_quiet
        OMP_NUM_THREADS=1 $MPIRUN $MPIFLAGS -np 2 "$IMB" Allreduce Allgather Reduce_scatter_block Bcast Alltoall \
            -npmin 2 -msglog 2:25 -iter 20 -iter_policy off >"$OUT/$NAME-$DATE-imb-run$i.txt" 2>&1
    fi
    if [ -n "${TIMING:-}" ]; then echo "run $i done"; i=$((i + 1)); continue; fi
    wait_quiet
    OMP_NUM_THREADS=$ncpu ./zerobench adam -b 1M -e 64M -f 4 -n 20 -w 2 -J "$OUT/$NAME-$DATE-adam-run$i.json" >/dev/null
    wait_quiet
    OMP_NUM_THREADS=$ncpu ./zerobench membw -b 8M -e 512M -f 4 -n 20 -w 2 -J "$OUT/$NAME-$DATE-membw-run$i.json" >/dev/null
    wait_quiet
    OMP_NUM_THREADS=$ncpu ./zerobench gemm -n 10 -w 2 -J "$OUT/$NAME-$DATE-gemm-run$i.json" >/dev/null
    echo "run $i done"
    i=$((i + 1))
done
