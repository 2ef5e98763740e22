/* membw_gpu.c -- the CUDA "membw" sub-benchmark: STREAM kernels on device memory plus D2D cudaMemcpy. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "be.h"
#include "be_cuda.h"
#include "bench.h"
#include "cuda_util.h"
#include "kernels.h"
#include "membw.h"
#include "zb_report.h"
#include "stream.h"

#define WHO "membw"
#define NROWS MEMBW_MAX_ROWS /* the four kernels, then cudaMemcpy D2D (row MEMBW_D2D) */

/* timed: runs row k once between two events; 0 or -1. */
static int timed(int k, double **d, size_t n, cudaStream_t st, cudaEvent_t ev[2], double *sec)
{
    float ms = 0;
    int ok = cuda_ok(cudaEventRecord(ev[0], st), WHO, "event");
    if (k < STREAM_NKERNELS)
        ok = ok && cuda_ok((cudaError_t)kern_stream(k, d[0], d[1], d[2], n, STREAM_Q, st), WHO, "launch");
    else
        ok = ok &&
            cuda_ok(
                cudaMemcpyAsync(d[2], d[0], n * sizeof(double), cudaMemcpyDeviceToDevice, st), WHO, "memcpy");
    ok = ok && cuda_ok(cudaEventRecord(ev[1], st), WHO, "event") &&
        cuda_ok(cudaEventSynchronize(ev[1]), WHO, "sync") &&
        cuda_ok(cudaEventElapsedTime(&ms, ev[0], ev[1]), WHO, "event time");
    *sec = ms * 1e-3;
    return ok ? 0 : -1;
}

/* one_size: device arrays initialised from the host (a=1, b=2, c=0); the
 * D2D copy row copies a into c and so runs after the validated cycles. */
static int one_size(
    const struct bench_opts *o, size_t n, cudaStream_t st, struct membw_times *t, long long *wrong)
{
    struct stream_arrays h;
    double *d[3] = {NULL, NULL, NULL};
    cudaEvent_t ev[2] = {NULL, NULL};
    if (stream_alloc(&h, n) != 0) return -1;
    int ok = cuda_events(ev, 2, 0) == 0;
    for (int i = 0; ok && i < 3; i++) {
        double *src = i == 0 ? h.a : i == 1 ? h.b : h.c;
        ok = cuda_ok(cudaMalloc((void **)&d[i], n * sizeof(double)), WHO, "cudaMalloc") &&
            cuda_ok(cuda_copy_sync(d[i], src, n * sizeof(double), cudaMemcpyHostToDevice, st), WHO, "upload");
    }
    membw_times_init(t);
    for (int i = 0; ok && i < o->warmup + o->iters; i++)
        for (int k = 0; k < STREAM_NKERNELS && ok; k++) {
            double s = 0;
            ok = timed(k, d, n, st, ev, &s) == 0;
            if (ok && i >= o->warmup) membw_times_add(t, k, s);
        }
    *wrong = -1;
    if (ok && o->check) {
        ok = cuda_ok(cuda_copy_sync(h.a, d[0], n * sizeof(double), cudaMemcpyDeviceToHost, st), WHO,
                 "download") &&
            cuda_ok(
                cuda_copy_sync(h.b, d[1], n * sizeof(double), cudaMemcpyDeviceToHost, st), WHO, "download") &&
            cuda_ok(
                cuda_copy_sync(h.c, d[2], n * sizeof(double), cudaMemcpyDeviceToHost, st), WHO, "download");
        if (ok) *wrong = (long long)stream_check(&h, o->warmup + o->iters, STREAM_Q);
    }
    for (int i = 0; ok && i < o->warmup + o->iters; i++) {
        double s = 0;
        ok = timed(MEMBW_D2D, d, n, st, ev, &s) == 0;
        if (ok && i >= o->warmup) membw_times_add(t, MEMBW_D2D, s);
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
    }
    membw_table_columns(&rep, NROWS);
    for (size_t bytes = o->min_bytes; bytes && !failed;) {
        size_t n = bytes / sizeof(double);
        struct membw_times t;
        long long wrong = -1;
        if (!bench_all_ok(n > 0 && one_size(o, n, x->stream, &t, &wrong) == 0)) {
            failed = 1;
            break;
        }
        if (membw_table_rows(&rep, NROWS, n, &t, wrong) > 0) bad++;
        bytes = bench_next_size(o, bytes, o->step_factor);
    }
    return report_close(&rep, "wrong_sizes", bad, failed);
}
