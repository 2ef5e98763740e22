/* membw_gpu.c -- the CUDA "membw" sub-benchmark: STREAM kernels on device memory plus D2D cudaMemcpy. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "be.h"
#include "be_cuda.h"
#include "bench.h"
#include "cuda_util.h"
#include "fmt.h"
#include "kernels.h"
#include "report.h"
#include "stream.h"

#define WHO "membw"
#define STREAM_Q 0.41421356237309503   /* sqrt(2)-1: values stay bounded (see membw_cpu.c) */
#define NROWS (STREAM_NKERNELS + 1)    /* the four kernels, then cudaMemcpy D2D */

/* Timing of one size: per row best/sum/worst seconds. */
struct times {
    double best[NROWS], sum[NROWS], worst[NROWS];
};

/* timed: runs row k once between two events; 0 or -1. */
static int timed(int k, double **d, size_t n, cudaStream_t st, cudaEvent_t ev[2], double *sec)
{
    float ms = 0;
    int ok = cuda_ok(cudaEventRecord(ev[0], st), WHO, "event");
    if (k < STREAM_NKERNELS)
        ok = ok && cuda_ok((cudaError_t)kern_stream(k, d[0], d[1], d[2], n, STREAM_Q, st), WHO, "launch");
    else
        ok = ok && cuda_ok(cudaMemcpyAsync(d[2], d[0], n * sizeof(double), cudaMemcpyDeviceToDevice, st),
                           WHO, "memcpy");
    ok = ok && cuda_ok(cudaEventRecord(ev[1], st), WHO, "event")
         && cuda_ok(cudaEventSynchronize(ev[1]), WHO, "sync")
         && cuda_ok(cudaEventElapsedTime(&ms, ev[0], ev[1]), WHO, "event time");
    *sec = ms * 1e-3;
    return ok ? 0 : -1;
}

/* one_size: device arrays initialised from the host (a=1, b=2, c=0); the
 * D2D copy row copies a into c and so runs after the validated cycles. */
static int one_size(const struct bench_opts *o, size_t n, cudaStream_t st, struct times *t, long long *wrong)
{
    struct stream_arrays h;
    double *d[3] = {NULL, NULL, NULL};
    cudaEvent_t ev[2] = {NULL, NULL};
    if (stream_alloc(&h, n) != 0) return -1;
    int ok = cuda_events(ev, 2, 0) == 0;
    for (int i = 0; ok && i < 3; i++) {
        double *src = i == 0 ? h.a : i == 1 ? h.b : h.c;
        ok = cuda_ok(cudaMalloc((void **)&d[i], n * sizeof(double)), WHO, "cudaMalloc")
             && cuda_ok(cuda_copy_sync(d[i], src, n * sizeof(double), cudaMemcpyHostToDevice, st), WHO, "upload");
    }
    for (int k = 0; k < NROWS; k++) {
        t->best[k] = 1e30;
        t->sum[k] = t->worst[k] = 0;
    }
    for (int i = 0; ok && i < o->warmup + o->iters; i++)
        for (int k = 0; k < STREAM_NKERNELS && ok; k++) {
            double s = 0;
            ok = timed(k, d, n, st, ev, &s) == 0;
            if (ok && i >= o->warmup) {
                t->sum[k] += s;
                t->best[k] = s < t->best[k] ? s : t->best[k];
                t->worst[k] = s > t->worst[k] ? s : t->worst[k];
            }
        }
    *wrong = -1;
    if (ok && o->check) {
        ok = cuda_ok(cuda_copy_sync(h.a, d[0], n * sizeof(double), cudaMemcpyDeviceToHost, st), WHO, "download")
             && cuda_ok(cuda_copy_sync(h.b, d[1], n * sizeof(double), cudaMemcpyDeviceToHost, st), WHO, "download")
             && cuda_ok(cuda_copy_sync(h.c, d[2], n * sizeof(double), cudaMemcpyDeviceToHost, st), WHO, "download");
        if (ok) *wrong = (long long)stream_check(&h, o->warmup + o->iters, STREAM_Q);
    }
    for (int i = 0; ok && i < o->warmup + o->iters; i++) {
        double s = 0;
        ok = timed(STREAM_NKERNELS, d, n, st, ev, &s) == 0;
        if (ok && i >= o->warmup) {
            t->sum[STREAM_NKERNELS] += s;
            t->best[STREAM_NKERNELS] = s < t->best[STREAM_NKERNELS] ? s : t->best[STREAM_NKERNELS];
            t->worst[STREAM_NKERNELS] = s > t->worst[STREAM_NKERNELS] ? s : t->worst[STREAM_NKERNELS];
        }
    }
    cuda_events(ev, 2, 1);
    for (int i = 0; i < 3; i++) cudaFree(d[i]);
    stream_free(&h);
    return ok ? 0 : -1;
}

int membw_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct report rep;
    const struct be_cuda_ctx *x = be_comm(0);
    long long bad = 0;
    int failed = 0;
    cudaSetDevice(x->device);
    report_begin(&rep, o, bi);
    if (rep.is_root) {
        report_header(&rep);
        printf("# membw: STREAM-style kernels on 3 device arrays of doubles (grid-stride, CUDA events), "
               "then cudaMemcpy device-to-device; warmup cycles: %d timed cycles: %d; "
               "first GPU of each process\n",
               o->warmup, o->iters);
        printf("# bytes counted STREAM's way: copy/scale 16 B/element, add/triad 24 B/element, "
               "d2d_memcpy 16 B/element (read + write); rate from the best time, GB/s = 1e9 B/s\n#\n");
        printf("# %10s  %12s  %12s  %9s  %9s  %9s  %8s  %8s  %6s\n", "kernel", "array", "bytes",
               "best", "avg", "max", "GB/s", "GB/s", "#wrong");
        printf("# %10s  %12s  %12s  %9s  %9s  %9s  %8s  %8s  %6s\n", "", "(B)", "(per call)",
               "(us)", "(us)", "(us)", "(best)", "(avg)", "");
    }
    for (size_t bytes = o->min_bytes; bytes && !failed;) {
        size_t n = bytes / sizeof(double);
        struct times t;
        long long wrong = -1;
        if (!cuda_all_ok(n > 0 && one_size(o, n, x->stream, &t, &wrong) == 0)) {
            failed = 1;
            break;
        }
        MPI_Allreduce(MPI_IN_PLACE, t.best, NROWS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, t.sum, NROWS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, t.worst, NROWS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (o->check) MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (wrong > 0) bad++;
        for (int k = 0; k < NROWS; k++) {
            const char *name = k < STREAM_NKERNELS ? stream_name(k) : "d2d_memcpy";
            double moved = k < STREAM_NKERNELS ? stream_bytes(k, n) : 16.0 * (double)n;
            double avg = t.sum[k] / o->iters, gb_best = moved / t.best[k] / 1e9, gb_avg = moved / avg / 1e9;
            long long w = k < STREAM_NKERNELS ? wrong : -1;
            if (rep.is_root) {
                char tb[16], ta[16], tw[16], g1[16], g2[16];
                fmt_num(tb, 9, t.best[k] * 1e6);
                fmt_num(ta, 9, avg * 1e6);
                fmt_num(tw, 9, t.worst[k] * 1e6);
                fmt_num(g1, 8, gb_best);
                fmt_num(g2, 8, gb_avg);
                printf("  %10s  %12zu  %12.0f  %9s  %9s  %9s  %8s  %8s  ", name, n * sizeof(double), moved,
                       tb, ta, tw, g1, g2);
                if (w >= 0) printf("%6lld\n", w);
                else printf("   N/A\n");
            }
            struct json *j = &rep.j;
            json_obj_begin(j, NULL);
            json_str(j, "kernel", name);
            json_int(j, "array_bytes", (long long)(n * sizeof(double)));
            json_num(j, "bytes", moved);
            json_num(j, "time_min_us", t.best[k] * 1e6);
            json_num(j, "time_us", avg * 1e6);
            json_num(j, "time_max_us", t.worst[k] * 1e6);
            json_num(j, "gbps", gb_best);
            json_num(j, "gbps_avg", gb_avg);
            if (w >= 0) json_int(j, "wrong", w);
            else json_null(j, "wrong");
            json_obj_end(j);
        }
        if (rep.is_root) fflush(stdout);
        bytes = bench_next_size(o, bytes, o->step_factor);
    }
    report_rows_end(&rep);
    report_summary(&rep, "wrong_sizes", bad, failed);
    if (rep.is_root) {
        printf("# %-20s : %lld %s\n", "Out of bounds values", bad, bad ? "FAILED" : "OK");
        printf("#\n");
    }
    int rc = report_finish(&rep);
    return (bad || failed) ? 1 : rc;
}
