/* gemm_gpu.c -- the CUDA "gemm" sub-benchmark: cublasGemmEx (bf16/fp16/fp32 in, fp32 accumulate), TFLOP/s. */
#include <cublas_v2.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "be_cuda.h"
#include "bench.h"
#include "cuda_util.h"
#include "dtype.h"
#include "fmt.h"
#include "gemm.h"
#include "kernels.h"
#include "report.h"

#define WHO "gemm"

/* Training-like defaults: squares, then (tokens x h) x (h x 4h), the MLP
 * up-projection of a transformer layer, for h = 4096..12288. */
static const struct gemm_shape gpu_defaults[] = {
    {4096, 4096, 4096}, {8192, 8192, 8192},
    {8192, 16384, 4096}, {8192, 20480, 5120}, {8192, 32768, 8192}, {8192, 49152, 12288},
};

static int blas_ok(cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS) return 1;
    fprintf(stderr, "zerobench-cuda: " WHO ": %s: cuBLAS status %d\n", what, (int)s);
    return 0;
}

/* Host copy of C for gemm_check. */
struct host_c {
    const void *c;   /* M x N elements of dtype */
    size_t n;        /* columns */
    int dtype;       /* ZB_BF16, ZB_HALF or ZB_FLOAT */
};

static double get_host(void *ctx, size_t i, size_t j)
{
    const struct host_c *h = ctx;
    return dtype_load(h->dtype, h->c, i * h->n + j);
}

/* one_shape: fill, check once, time iters back-to-back GEMMs with events. */
static int one_shape(const struct bench_opts *o, cublasHandle_t hb, cudaStream_t st, int dtype,
                     const struct gemm_shape *s, double *avg, double *best, long long *wrong, const char **mode)
{
    cudaDataType_t ct = dtype == ZB_BF16 ? CUDA_R_16BF : dtype == ZB_HALF ? CUDA_R_16F : CUDA_R_32F;
    size_t ts = dtype_get(dtype)->size;
    void *A = NULL, *B = NULL, *C = NULL, *hc = NULL;
    cudaEvent_t *ev = calloc((size_t)o->iters + 1, sizeof *ev);
    double *sec = calloc((size_t)o->iters, sizeof *sec);
    const float alpha = 1.0f, beta = 0.0f;
    int ok = ev && sec && cuda_ok(cudaMalloc(&A, s->m * s->k * ts), WHO, "cudaMalloc")
             && cuda_ok(cudaMalloc(&B, s->k * s->n * ts), WHO, "cudaMalloc")
             && cuda_ok(cudaMalloc(&C, s->m * s->n * ts), WHO, "cudaMalloc")
             && cuda_ok((cudaError_t)kern_gemm_fill(dtype, A, GEMM_SEED_A, s->m * s->k, st), WHO, "fill")
             && cuda_ok((cudaError_t)kern_gemm_fill(dtype, B, GEMM_SEED_B, s->k * s->n, st), WHO, "fill")
             && cuda_events(ev, o->iters + 1, 0) == 0;
    /* row-major C = A B is column-major C^T = B^T A^T: swap operands. */
#define GEMM_CALL()                                                                              \
    blas_ok(cublasGemmEx(hb, CUBLAS_OP_N, CUBLAS_OP_N, (int)s->n, (int)s->m, (int)s->k, &alpha, B, ct, \
                         (int)s->n, A, ct, (int)s->k, &beta, C, ct, (int)s->n, CUBLAS_COMPUTE_32F,       \
                         CUBLAS_GEMM_DEFAULT), "cublasGemmEx")
    *wrong = -1;
    *mode = "none";
    if (ok && o->check) {
        ok = cuda_ok(cudaMemsetAsync(C, 0xa5, s->m * s->n * ts, st), WHO, "memset") && GEMM_CALL()
             && cuda_ok(cudaStreamSynchronize(st), WHO, "gemm") && (hc = malloc(s->m * s->n * ts)) != NULL
             && cuda_ok(cuda_copy_sync(hc, C, s->m * s->n * ts, cudaMemcpyDeviceToHost, st), WHO, "download");
        if (ok) {
            struct host_c h = {hc, s->n, dtype};
            double u_out = dtype == ZB_BF16 ? 0x1p-8 : dtype == ZB_HALF ? 0x1p-11 : 0x1p-24;
            *wrong = (long long)gemm_check(s, 0x1p-24, u_out, get_host, &h, mode);
        }
    }
    for (int i = 0; ok && i < o->warmup; i++) ok = GEMM_CALL();
    ok = ok && cuda_ok(cudaStreamSynchronize(st), WHO, "warm-up");
    if (ok) MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; ok && i < o->iters; i++)
        ok = cuda_ok(cudaEventRecord(ev[i], st), WHO, "event") && GEMM_CALL();
    ok = ok && cuda_ok(cudaEventRecord(ev[o->iters], st), WHO, "event")
         && cuda_ok(cudaStreamSynchronize(st), WHO, "gemm");
#undef GEMM_CALL
    double total = 0;
    if (ok && cuda_event_times(ev, o->iters, sec, &total) == 0) {
        *avg = total / o->iters;
        *best = sec[0];
        for (int i = 1; i < o->iters; i++) *best = sec[i] < *best ? sec[i] : *best;
    } else {
        ok = 0;
    }
    if (ev) cuda_events(ev, o->iters + 1, 1);
    free(ev);
    free(sec);
    free(hc);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return ok ? 0 : -1;
}

int gemm_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct report rep;
    struct gemm_shape shapes[OPTS_MAX_SHAPES];
    const struct be_cuda_ctx *x = be_comm(0);
    int dtype = o->dtype >= 0 ? o->dtype : ZB_BF16;
    if (dtype != ZB_BF16 && dtype != ZB_HALF && dtype != ZB_FLOAT) {
        if (bi->proc == 0)
            fprintf(stderr, "zerobench-cuda: gemm supports -d bfloat16, half or float, not %s\n",
                    dtype_get(dtype)->name);
        return 2;
    }
    int nshapes = gemm_shapes(o, gpu_defaults, (int)(sizeof gpu_defaults / sizeof gpu_defaults[0]),
                              shapes, OPTS_MAX_SHAPES);
    cublasHandle_t hb = NULL;
    cudaSetDevice(x->device);
    int ok = blas_ok(cublasCreate(&hb), "cublasCreate")
             && blas_ok(cublasSetStream(hb, x->stream), "cublasSetStream");
    if (!cuda_all_ok(ok)) {
        if (hb) cublasDestroy(hb);
        return 1;
    }
    long long bad = 0;
    int failed = 0;
    report_begin(&rep, o, bi);
    if (rep.is_root) {
        report_header(&rep);
        printf("# gemm: row-major C = A B via cublasGemmEx, %s in/out, fp32 accumulate (CUBLAS_COMPUTE_32F), "
               "default algorithm; warmup iters: %d iters: %d validation: %d; first GPU of each process\n",
               dtype_get(dtype)->name, o->warmup, o->iters, o->check);
        printf("# check: double dot products, every element when MNK <= 2^26 else 256 samples; "
               "bound gamma_K sum|a||b| + u_out|ref|\n");
        printf("# TFLOP/s = 2MNK / time / 1e12 (avg of back-to-back calls, CUDA events); "
               "times are max over processes\n#\n");
        printf("# %8s  %8s  %6s  %6s  %6s  %10s  %10s  %9s  %8s  %6s\n", "impl", "type", "M", "N",
               "K", "time", "best", "TFLOP/s", "check", "#wrong");
        printf("# %8s  %8s  %6s  %6s  %6s  %10s  %10s  %9s  %8s  %6s\n", "", "", "", "", "", "(us)",
               "(us)", "(avg)", "", "");
    }
    for (int si = 0; si < nshapes && !failed; si++) {
        const struct gemm_shape *s = &shapes[si];
        double avg = 0, best = 0;
        long long wrong = -1;
        const char *mode = "none";
        if (!cuda_all_ok(one_shape(o, hb, x->stream, dtype, s, &avg, &best, &wrong, &mode) == 0)) {
            failed = 1;
            break;
        }
        MPI_Allreduce(MPI_IN_PLACE, &avg, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &best, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (o->check) MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (wrong > 0) bad++;
        double tflops = gemm_flops(s) / avg / 1e12;
        if (rep.is_root) {
            char t[16], tb[16], tf[16];
            fmt_num(t, 10, avg * 1e6);
            fmt_num(tb, 10, best * 1e6);
            snprintf(tf, sizeof tf, "%9.2f", tflops);
            printf("  %8s  %8s  %6zu  %6zu  %6zu  %10s  %10s  %9s  %8s  ", "cublas", dtype_get(dtype)->name,
                   s->m, s->n, s->k, t, tb, tf, mode);
            if (wrong >= 0) printf("%6lld\n", wrong);
            else printf("   N/A\n");
            fflush(stdout);
        }
        struct json *j = &rep.j;
        json_obj_begin(j, NULL);
        json_str(j, "impl", "cublas");
        json_str(j, "type", dtype_get(dtype)->name);
        json_int(j, "m", (long long)s->m);
        json_int(j, "n", (long long)s->n);
        json_int(j, "k", (long long)s->k);
        json_num(j, "flops", gemm_flops(s));
        json_num(j, "time_us", avg * 1e6);
        json_num(j, "time_min_us", best * 1e6);
        json_num(j, "tflops", tflops);
        json_num(j, "tflops_best", gemm_flops(s) / best / 1e12);
        json_str(j, "check", mode);
        if (wrong >= 0) json_int(j, "wrong", wrong);
        else json_null(j, "wrong");
        json_obj_end(j);
    }
    cublasDestroy(hb);
    report_rows_end(&rep);
    report_summary(&rep, "wrong_rows", bad, failed);
    if (rep.is_root) {
        printf("# %-20s : %lld %s\n", "Out of bounds values", bad, bad ? "FAILED" : "OK");
        printf("#\n");
    }
    int rc = report_finish(&rep);
    return (bad || failed) ? 1 : rc;
}
