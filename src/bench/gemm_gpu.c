/* gemm_gpu.c -- the CUDA "gemm" sub-benchmark: cublasGemmEx (bf16/fp16/tf32/fp32) and cuBLASLt fp8, TFLOP/s.
 */
#include <cublasLt.h>
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
#include "gemm.h"
#include "kernels.h"
#include "zb_report.h"

#define WHO "gemm"

/* Training-like defaults: squares, then (tokens x h) x (h x 4h), the MLP
 * up-projection of a transformer layer, for h = 4096..12288. */
static const struct gemm_shape gpu_defaults[] = {
    {4096, 4096, 4096},
    {8192, 8192, 8192},
    {8192, 16384, 4096},
    {8192, 20480, 5120},
    {8192, 32768, 8192},
    {8192, 49152, 12288},
};

static int blas_ok(cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS) return 1;
    fprintf(stderr, "zerobench-cuda: " WHO ": %s: cuBLAS status %d\n", what, (int)s);
    return 0;
}

/* How one precision runs, as training uses it: inputs, output, compute type. */
struct prec {
    const char *name;       /* --precision value, printed in the "type" column */
    int in_dtype;           /* storage type of A and B (ZB_F8E4M3 for fp8) */
    int out_dtype;          /* storage type of C */
    cublasComputeType_t ct; /* accumulate/compute type */
    double u_acc;           /* unit roundoff of the accumulation, for the check bound */
    int lt_fp8;             /* 1: cuBLASLt fp8 (compute capability >= 8.9) */
    const char *type;       /* "type" column and JSON value (dtype names as before) */
};

/* u_acc: fp32 accumulation 2^-24; fp8 tensor cores on Hopper keep about 14
 * bits in the accumulator between promotions (DeepSeek-V3 report, arXiv
 * 2412.19437, section 3.3.2): fp8 is checked with 2^-14 per 128-long chunk
 * (gemm_check_fp8). */
static const struct prec precs[] = {
    {"bf16", ZB_BF16, ZB_BF16, CUBLAS_COMPUTE_32F, 0x1p-24, 0, "bfloat16"},
    {"fp16", ZB_HALF, ZB_HALF, CUBLAS_COMPUTE_32F, 0x1p-24, 0, "half"},
    {"tf32", ZB_FLOAT, ZB_FLOAT, CUBLAS_COMPUTE_32F_FAST_TF32, 0x1p-24, 0, "tf32"},
    {"fp32", ZB_FLOAT, ZB_FLOAT, CUBLAS_COMPUTE_32F, 0x1p-24, 0, "float"},
    {"fp8", ZB_F8E4M3, ZB_BF16, CUBLAS_COMPUTE_32F, 0x1p-14, 1, "f8e4m3"},
};

/* u_out: unit roundoff of the stored result. TF32 rounds the inputs to 10
 * mantissa bits; gemm_value's multiples of 1/128 in [-1, 1] are exact there. */
static double u_out_of(int dtype)
{
    return dtype == ZB_BF16 ? 0x1p-8 : dtype == ZB_HALF ? 0x1p-11 : 0x1p-24;
}

/* cuBLASLt state for fp8: handle, workspace. */
struct lt {
    cublasLtHandle_t h; /* NULL until first fp8 shape */
    void *ws;           /* workspace, LT_WS bytes */
};
#define LT_WS (32u << 20)

static int lt_ok(cublasStatus_t s, const char *what)
{
    return blas_ok(s, what);
}

/* One shape's cuBLASLt fp8 plan: descriptors and the algorithm, made once
 * so that the timed loop queues nothing but cublasLtMatmul. */
struct lt_plan {
    cublasLtMatmulDesc_t op;           /* compute 32F, scale 32F, TRANSA = T */
    cublasLtMatrixLayout_t la, lb, lc; /* Bt (K x N col-major), A (K x M), C (N x M, bf16) */
    cublasLtMatmulAlgo_t algo;         /* the heuristic's first choice */
};

static void lt_plan_free(struct lt_plan *p)
{
    if (p->lc) cublasLtMatrixLayoutDestroy(p->lc);
    if (p->lb) cublasLtMatrixLayoutDestroy(p->lb);
    if (p->la) cublasLtMatrixLayoutDestroy(p->la);
    if (p->op) cublasLtMatmulDescDestroy(p->op);
    memset(p, 0, sizeof *p);
}

/* lt_plan_make: row-major C[M x N] (bf16) = A[M x K] B[K x N] with A and B
 * in e4m3. cuBLASLt's fp8 path takes only "TN": in column-major terms
 * C^T = op(Bt) A^T with Bt the N x K row-major transpose of B (transposed
 * again by the call) and A^T = A's memory. 0, or -1 after one line. */
static int lt_plan_make(struct lt *lt, const struct gemm_shape *s, struct lt_plan *p)
{
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t heur;
    int nres = 0;
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    size_t ws = LT_WS;
    memset(p, 0, sizeof *p);
    int ok =
        lt_ok(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate") &&
        lt_ok(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA") &&
        lt_ok(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB") &&
        lt_ok(cublasLtMatrixLayoutCreate(&p->la, CUDA_R_8F_E4M3, s->k, s->n, (int64_t)s->k), "layout A") &&
        lt_ok(cublasLtMatrixLayoutCreate(&p->lb, CUDA_R_8F_E4M3, s->k, s->m, (int64_t)s->k), "layout B") &&
        lt_ok(cublasLtMatrixLayoutCreate(&p->lc, CUDA_R_16BF, s->n, s->m, (int64_t)s->n), "layout C") &&
        lt_ok(cublasLtMatmulPreferenceCreate(&pref), "preference") &&
        lt_ok(cublasLtMatmulPreferenceSetAttribute(
                  pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
            "workspace") &&
        lt_ok(cublasLtMatmulAlgoGetHeuristic(lt->h, p->op, p->la, p->lb, p->lc, p->lc, pref, 1, &heur, &nres),
            "heuristic");
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (ok && nres < 1) {
        fprintf(stderr,
            "zerobench-cuda: " WHO ": no cuBLASLt fp8 algorithm for %zux%zux%zu "
            "(fp8 needs M, N, K multiples of 16)\n",
            s->m, s->n, s->k);
        ok = 0;
    }
    if (ok)
        p->algo = heur.algo;
    else
        lt_plan_free(p);
    return ok ? 0 : -1;
}

/* lt_fp8_gemm: queues the planned GEMM on st; 0 or -1 (printed). */
static int lt_fp8_gemm(
    struct lt *lt, const struct lt_plan *p, const void *A, const void *Bt, void *C, cudaStream_t st)
{
    const float alpha = 1.0f, beta = 0.0f;
    return lt_ok(cublasLtMatmul(lt->h, p->op, &alpha, Bt, p->la, A, p->lb, &beta, C, p->lc, C, p->lc,
                     &p->algo, lt->ws, LT_WS, st),
               "cublasLtMatmul")
        ? 0
        : -1;
}

/* Host copy of C for gemm_check. */
struct host_c {
    const void *c; /* M x N elements of dtype */
    size_t n;      /* columns */
    int dtype;     /* ZB_BF16, ZB_HALF or ZB_FLOAT */
};

static double get_host(void *ctx, size_t i, size_t j)
{
    const struct host_c *h = ctx;
    return dtype_load(h->dtype, h->c, i * h->n + j);
}

/* one_shape: fill, check once, time iters back-to-back GEMMs with events. */
static int one_shape(const struct bench_opts *o, cublasHandle_t hb, struct lt *lt, cudaStream_t st,
    const struct prec *pr, const struct gemm_shape *s, double *avg, double *best, long long *wrong,
    const char **mode)
{
    cudaDataType_t ct = pr->in_dtype == ZB_BF16 ? CUDA_R_16BF
        : pr->in_dtype == ZB_HALF               ? CUDA_R_16F
                                                : CUDA_R_32F;
    size_t ts = dtype_get(pr->in_dtype)->size, tc = dtype_get(pr->out_dtype)->size;
    void *A = NULL, *B = NULL, *C = NULL, *hc = NULL;
    cudaEvent_t *ev = calloc((size_t)o->iters + 1, sizeof *ev);
    double *sec = calloc((size_t)o->iters, sizeof *sec);
    const float alpha = 1.0f, beta = 0.0f;
    struct lt_plan plan;
    memset(&plan, 0, sizeof plan);
    int ok = ev && sec && cuda_ok(cudaMalloc(&A, s->m * s->k * ts), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc(&B, s->k * s->n * ts), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc(&C, s->m * s->n * tc), WHO, "cudaMalloc") && cuda_events(ev, o->iters + 1, 0) == 0;
    if (ok && pr->lt_fp8) /* B stored transposed (N x K) for the TN layout */
        ok = lt_plan_make(lt, s, &plan) == 0 &&
            cuda_ok((cudaError_t)kern_gemm_fill_fp8(A, GEMM_SEED_A, s->m, s->k, 0, st), WHO, "fill") &&
            cuda_ok((cudaError_t)kern_gemm_fill_fp8(B, GEMM_SEED_B, s->n, s->k, 1, st), WHO, "fill");
    else if (ok)
        ok = cuda_ok(
                 (cudaError_t)kern_gemm_fill(pr->in_dtype, A, GEMM_SEED_A, s->m * s->k, st), WHO, "fill") &&
            cuda_ok((cudaError_t)kern_gemm_fill(pr->in_dtype, B, GEMM_SEED_B, s->k * s->n, st), WHO, "fill");
        /* row-major C = A B is column-major C^T = B^T A^T: swap operands. */
#define GEMM_CALL()                                                                                        \
    (pr->lt_fp8 ? lt_fp8_gemm(lt, &plan, A, B, C, st) == 0                                                 \
                : blas_ok(cublasGemmEx(hb, CUBLAS_OP_N, CUBLAS_OP_N, (int)s->n, (int)s->m, (int)s->k,      \
                              &alpha, B, ct, (int)s->n, A, ct, (int)s->k, &beta, C, ct, (int)s->n, pr->ct, \
                              CUBLAS_GEMM_DEFAULT),                                                        \
                      "cublasGemmEx"))
    *wrong = -1;
    *mode = "none";
    if (ok && o->check) {
        ok = cuda_ok(cudaMemsetAsync(C, 0xa5, s->m * s->n * tc, st), WHO, "memset") && GEMM_CALL() &&
            cuda_ok(cudaStreamSynchronize(st), WHO, "gemm") && (hc = malloc(s->m * s->n * tc)) != NULL &&
            cuda_ok(cuda_copy_sync(hc, C, s->m * s->n * tc, cudaMemcpyDeviceToHost, st), WHO, "download");
        if (ok) {
            struct host_c h = {hc, s->n, pr->out_dtype};
            *wrong = (long long)(pr->lt_fp8
                    ? gemm_check_fp8(s, pr->u_acc, u_out_of(pr->out_dtype), get_host, &h, mode)
                    : gemm_check(s, pr->u_acc, u_out_of(pr->out_dtype), get_host, &h, mode));
        }
    }
    for (int i = 0; ok && i < o->warmup; i++) ok = GEMM_CALL();
    ok = ok && cuda_ok(cudaStreamSynchronize(st), WHO, "warm-up");
    if (ok) MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; ok && i < o->iters; i++)
        ok = cuda_ok(cudaEventRecord(ev[i], st), WHO, "event") && GEMM_CALL();
    ok = ok && cuda_ok(cudaEventRecord(ev[o->iters], st), WHO, "event") &&
        cuda_ok(cudaStreamSynchronize(st), WHO, "gemm");
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
    lt_plan_free(&plan);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    return ok ? 0 : -1;
}

int gemm_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct report rep;
    const struct be_cuda_ctx *x = be_comm(0);
    /* --precision wins; else -d picks bf16/fp16/fp32 (default bf16) */
    const char *pname = o->precision;
    if (!pname) {
        int dtype = o->dtype >= 0 ? o->dtype : ZB_BF16;
        pname = dtype == ZB_BF16 ? "bf16" : dtype == ZB_HALF ? "fp16" : dtype == ZB_FLOAT ? "fp32" : NULL;
        if (!pname)
            return bench_usage(bi,
                "zerobench-cuda: gemm supports -d bfloat16, half or float (or --precision), not %s",
                dtype_get(dtype)->name);
    }
    const struct prec *pr = NULL;
    for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
        if (!strcmp(precs[i].name, pname)) pr = &precs[i];
    if (!pr) return bench_usage(bi, "zerobench-cuda: gemm: --precision %s is not a GPU precision", pname);
    int major = 0, minor = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, x->device);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, x->device);
    if (pr->lt_fp8 && major * 10 + minor < 89)
        return bench_usage(bi,
            "zerobench-cuda: gemm: --precision fp8 needs compute capability 8.9 or newer "
            "(device %d is %d.%d)",
            x->device, major, minor);
    struct gemm_list gl;
    char why[512];
    if (gemm_shapes(
            o, gpu_defaults, (int)(sizeof gpu_defaults / sizeof gpu_defaults[0]), &gl, why, sizeof why) < 0)
        return bench_usage(bi, "zerobench-cuda: %s", why);
    cublasHandle_t hb = NULL;
    struct lt lt = {NULL, NULL};
    cudaSetDevice(x->device);
    int ok = blas_ok(cublasCreate(&hb), "cublasCreate") &&
        blas_ok(cublasSetStream(hb, x->stream), "cublasSetStream");
    if (ok && pr->lt_fp8)
        ok = lt_ok(cublasLtCreate(&lt.h), "cublasLtCreate") &&
            cuda_ok(cudaMalloc(&lt.ws, LT_WS), WHO, "cudaMalloc");
    if (!bench_all_ok(ok)) {
        if (hb) cublasDestroy(hb);
        if (lt.h) cublasLtDestroy(lt.h);
        cudaFree(lt.ws);
        return 1;
    }
    long long bad = 0;
    int failed = 0;
    report_begin(&rep, o, bi);
    char what[384];
    snprintf(what, sizeof what,
        "precision %s: %s in, %s out, %s; warmup iters: %d iters: %d "
        "validation: %d; first GPU of each process",
        pr->name, dtype_get(pr->in_dtype)->name, dtype_get(pr->out_dtype)->name,
        pr->lt_fp8 ? "cuBLASLt fp8 (TN), fp32 compute"
            : pr->ct == CUBLAS_COMPUTE_32F_FAST_TF32
            ? "cublasGemmEx, TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32)"
            : "cublasGemmEx, fp32 accumulate (CUBLAS_COMPUTE_32F)",
        o->warmup, o->iters, o->check);
    gemm_table_header(&rep, &gl, what, "u_out", " (avg of back-to-back calls, CUDA events)");
    for (int si = 0; si < gl.n && !failed; si++) {
        const struct gemm_shape *s = &gl.s[si];
        double avg = 0, best = 0;
        long long wrong = -1;
        const char *mode = "none";
        if (!bench_all_ok(one_shape(o, hb, &lt, x->stream, pr, s, &avg, &best, &wrong, &mode) == 0)) {
            failed = 1;
            break;
        }
        struct gemm_row row = {pr->lt_fp8 ? "cublaslt" : "cublas", pr->type, pr->name, s, avg, best, mode,
            wrong, o->model ? gl.names[si] : NULL};
        bad += bench_row_total(o, &row.avg, &row.best, &row.wrong);
        gemm_table_row(&rep.j, rep.is_root, &row, 2);
        if (o->model) gemm_model_json(&rep.j, o, gl.names[si]);
        json_obj_end(&rep.j);
    }
    cublasDestroy(hb);
    if (lt.h) cublasLtDestroy(lt.h);
    cudaFree(lt.ws);
    return report_close(&rep, "wrong_rows", bad, failed);
}
