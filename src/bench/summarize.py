#!/usr/bin/env python3
# summarize.py -- medians over repeated zerobench runs, and collectives vs Intel MPI Benchmarks, as markdown.
"""usage: summarize.py MEASURED_DIR PREFIX [IMB_OUT.txt ...]

MEASURED_DIR/PREFIX-<bench>-run*.json are zerobench runs (measure_cpu.sh
names them so). For adam, membw and gemm it prints per-row medians (and
the range) over the runs. For the collectives it prints busbw medians and,
when IMB files are given (stdout of
  mpirun -np N IMB-MPI1 Allreduce Allgather Reduce_scatter_block Bcast Alltoall -npmin N ...),
compares times. Sizes are matched through the two conventions: zerobench (nccl-tests)
prints the whole buffer, IMB the per-process message for Allgather,
Reduce_scatter_block and Alltoall, so IMB bytes = zerobench bytes / N there.
Prints, per collective and size, the median (and minimum) out-of-place
time over the zerobench runs, the median (and minimum) IMB t_avg over the
IMB runs, and the ratios ours/IMB of both statistics.
"""
import glob
import json
import statistics
import sys

IMB_NAME = {"allreduce": "Allreduce", "allgather": "Allgather", "reducescatter": "Reduce_scatter_block",
            "broadcast": "Bcast", "alltoall": "Alltoall"}
PER_RANK = {"allgather", "reducescatter", "alltoall"}


def parse_imb(path):
    out, cur = {}, None
    for line in open(path):
        if line.startswith("# Benchmarking"):
            cur = line.split()[2]
            out[cur] = {}
        elif cur and line.strip() and line.strip()[0].isdigit():
            f = line.split()
            out[cur][int(f[0])] = float(f[4])
    return out


def load(mdir, prefix, bench):
    return [json.load(open(p)) for p in sorted(glob.glob("%s/%s-%s-run*.json" % (mdir, prefix, bench)))]


def spread(vals, fmt="%.1f"):
    """median [min-max]"""
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(vals), min(vals), max(vals))


def medians(runs, bench, how, header, align, row):
    """One markdown table of per-row medians over runs (nothing without runs): row(r, col) formats
    the first run's row r, col being that row in every run."""
    if not runs:
        return
    print("\n%s (%d runs; %s)\n" % (bench, len(runs), how))
    print(header)
    print(align)
    for i, r in enumerate(runs[0]["rows"]):
        print(row(r, [x["rows"][i] for x in runs]))


def wrong(col):
    return sum(c["wrong"] or 0 for c in col)


def points(mdir, prefix):
    runs = load(mdir, prefix, "adam")
    ref = runs[0]["rows"][0]["ref"] if runs else ""
    medians(runs, "adam", "GB/s from the best step, median [min-max] over runs",
            "| params | variant | Adam GB/s | %s GB/s | fraction | wrong |" % ref,
            "|---:|---|---:|---:|---:|---:|",
            lambda r, col: "| %d | %s | %s | %s | %s | %d |" % (
                r["params"], r["variant"], spread([c["gbps_best"] for c in col]),
                spread([c["ref_gbps"] for c in col]), spread([c["fraction_of_ref"] for c in col], "%.2f"),
                wrong(col)))
    medians(load(mdir, prefix, "membw"), "membw", "GB/s from the best of each run's cycles, median [min-max] over runs",
            "| kernel | bytes per array | GB/s | wrong |", "|---|---:|---:|---:|",
            lambda r, col: "| %s | %d | %s | %d |" % (r["kernel"], r["array_bytes"], spread([c["gbps"] for c in col]),
                                                      wrong(col)))
    medians(load(mdir, prefix, "gemm"), "gemm", "GFLOP/s from the mean and the best call, medians [min-max] over runs",
            "| impl | type | M x N x K | GFLOP/s (mean) | GFLOP/s (best) | check | wrong |",
            "|---|---|---|---:|---:|---|---:|",
            lambda r, col: "| %s | %s | %dx%dx%d | %s | %s | %s | %d |" % (
                r["impl"], r["type"], r["m"], r["n"], r["k"], spread([c["tflops"] * 1e3 for c in col]),
                spread([c["tflops_best"] * 1e3 for c in col]), r["check"], wrong(col)))


def main(argv):
    mdir, prefix, imb_files = argv[1], argv[2], argv[3:]
    points(mdir, prefix)
    imb = [parse_imb(p) for p in imb_files]
    for bench, name in IMB_NAME.items():
        runs = load(mdir, prefix, bench)
        if not runs:
            continue
        n = runs[0]["mpi"]["ranks"]
        print("\n%s (%d ranks, %d zerobench runs, %d IMB runs; times in us, medians)\n" % (bench, n, len(runs), len(imb)))
        print("| size (B) | zerobench time | busbw (GB/s) | IMB %s bytes | IMB t_avg | ratio ours/IMB "
              "| min zerobench | min IMB | ratio of minima |" % name)
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        ratios, mratios = [], []
        for i, row in enumerate(runs[0]["rows"]):
            size = row["bytes"]
            if size == 0:
                continue
            ts = [r["rows"][i]["out_of_place"]["time_us"] for r in runs]
            t, tmin = statistics.median(ts), min(ts)
            bw = statistics.median(r["rows"][i]["out_of_place"]["busbw_gbps"] for r in runs)
            ib = size // n if bench in PER_RANK else size
            vals = [x[name][ib] for x in imb if name in x and ib in x[name]]
            if not vals:
                print("| %d | %.2f | %.2f | %d | - | - | %.2f | - | - |" % (size, t, bw, ib, tmin))
                continue
            it, imin = statistics.median(vals), min(vals)
            ratios.append(t / it)
            mratios.append(tmin / imin)
            print("| %d | %.2f | %.2f | %d | %.2f | %.2f | %.2f | %.2f | %.2f |"
                  % (size, t, bw, ib, it, t / it, tmin, imin, tmin / imin))
        if ratios:
            print("\nmedian over sizes: ratio of medians %.2f, ratio of minima %.2f"
                  % (statistics.median(ratios), statistics.median(mratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
