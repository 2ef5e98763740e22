/* membw_cpu.c -- the CPU "membw" sub-benchmark: STREAM-style copy/scale/add/triad, best of N. */
#include <mpi.h>
#include <stdio.h>

#include "bench.h"
#include "fmt.h"
#include "report.h"
#include "stream.h"
#include "timer.h"

/* q = sqrt(2)-1 makes one copy/scale/add/triad cycle multiply a by
 * q^2 + 2q = 1, so any number of cycles stays finite (STREAM uses 3). */
#define STREAM_Q 0.41421356237309503

int membw_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct report rep;
    report_begin(&rep, o, bi);
    long long bad = 0;
    int failed = 0;
    if (rep.is_root) {
        report_header(&rep);
        printf("# membw: STREAM-style kernels on 3 arrays of doubles (OpenMP parallel, simd), "
               "warmup cycles: %d timed cycles: %d\n", o->warmup, o->iters);
        printf("# bytes counted STREAM's way: copy/scale 16 B/element, add/triad 24 B/element "
               "(no write-allocate); rate from the best time, GB/s = 1e9 B/s\n");
        printf("# times are max over processes; #wrong: elements of a, b, c off the scalar "
               "replay by more than 1e-13 relative after all cycles\n#\n");
        printf("# %8s  %12s  %12s  %9s  %9s  %9s  %8s  %8s  %6s\n", "kernel", "array", "bytes",
               "best", "avg", "max", "GB/s", "GB/s", "#wrong");
        printf("# %8s  %12s  %12s  %9s  %9s  %9s  %8s  %8s  %6s\n", "", "(B)", "(per call)",
               "(us)", "(us)", "(us)", "(best)", "(avg)", "");
    }
    for (size_t bytes = o->min_bytes; bytes;) {
        struct stream_arrays s;
        size_t n = bytes / sizeof(double);
        int mine = n > 0 && stream_alloc(&s, n) == 0, ok = mine;
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!ok) {
            if (mine) stream_free(&s);
            failed = 1;
            break;
        }
        double best[STREAM_NKERNELS], sum[STREAM_NKERNELS] = {0}, worst[STREAM_NKERNELS] = {0};
        for (int k = 0; k < STREAM_NKERNELS; k++) best[k] = 1e30;
        for (int i = 0; i < o->warmup; i++)
            for (int k = 0; k < STREAM_NKERNELS; k++) stream_run(&s, k, STREAM_Q);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < o->iters; i++)
            for (int k = 0; k < STREAM_NKERNELS; k++) {
                double t0 = timer_now();
                stream_run(&s, k, STREAM_Q);
                double dt = timer_now() - t0;
                sum[k] += dt;
                if (dt < best[k]) best[k] = dt;
                if (dt > worst[k]) worst[k] = dt;
            }
        long long wrong = o->check ? (long long)stream_check(&s, o->warmup + o->iters, STREAM_Q) : -1;
        stream_free(&s);
        MPI_Allreduce(MPI_IN_PLACE, best, STREAM_NKERNELS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, sum, STREAM_NKERNELS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, worst, STREAM_NKERNELS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (o->check) MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (wrong > 0) bad++;
        for (int k = 0; k < STREAM_NKERNELS; k++) {
            double moved = stream_bytes(k, n), avg = sum[k] / o->iters;
            double gb_best = moved / best[k] / 1e9, gb_avg = moved / avg / 1e9;
            if (rep.is_root) {
                char tb[16], ta[16], tw[16], g1[16], g2[16];
                fmt_num(tb, 9, best[k] * 1e6);
                fmt_num(ta, 9, avg * 1e6);
                fmt_num(tw, 9, worst[k] * 1e6);
                fmt_num(g1, 8, gb_best);
                fmt_num(g2, 8, gb_avg);
                printf("  %8s  %12zu  %12.0f  %9s  %9s  %9s  %8s  %8s  ", stream_name(k),
                       n * sizeof(double), moved, tb, ta, tw, g1, g2);
                if (wrong >= 0) printf("%6lld\n", wrong);
                else printf("   N/A\n");
            }
            struct json *j = &rep.j;
            json_obj_begin(j, NULL);
            json_str(j, "kernel", stream_name(k));
            json_int(j, "array_bytes", (long long)(n * sizeof(double)));
            json_num(j, "bytes", moved);
            json_num(j, "time_min_us", best[k] * 1e6);
            json_num(j, "time_us", avg * 1e6);
            json_num(j, "time_max_us", worst[k] * 1e6);
            json_num(j, "gbps", gb_best);
            json_num(j, "gbps_avg", gb_avg);
            if (wrong >= 0) json_int(j, "wrong", wrong);
            else json_null(j, "wrong");
            json_obj_end(j);
        }
        if (rep.is_root) fflush(stdout);
        bytes = bench_next_size(o, bytes, o->step_factor);
    }
    report_rows_end(&rep);
    report_summary(&rep, "wrong_sizes", bad, failed);
    if (failed && rep.is_root) fprintf(stderr, "zerobench: membw: cannot allocate 3 arrays on some rank\n");
    if (rep.is_root) {
        printf("# %-20s : %lld %s\n", "Out of bounds values", bad, bad ? "FAILED" : "OK");
        printf("#\n");
    }
    int rc = report_finish(&rep);
    return (bad || failed) ? 1 : rc;
}
