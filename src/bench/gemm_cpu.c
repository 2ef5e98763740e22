/* gemm_cpu.c -- blocked, packed, OpenMP GEMM (and cblas when built with it): the CPU "gemm" sub-benchmark. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dtype.h"
#include "fmt.h"
#include "gemm.h"
#include "zb_report.h"
#include "timer.h"

#ifdef ZB_HAVE_CBLAS
#include <cblas.h>
#endif

/* Blocking (Goto/BLIS loop order): NC columns of B and KC rows are packed
 * into NR-wide panels shared by all threads; each thread packs MC x KC of A
 * into MR-tall panels and runs the MR x NR register-blocked micro-kernel.
 * NR is two SIMD vectors; MR x 2 accumulators fill most of the register
 * file (AVX-512: 12 x 2 of 32 zmm; AVX2/SSE: 6 x 2 of 16). */
#if defined(__AVX512F__)
#define VBYTES 64
#define MR 12
#elif defined(__AVX__)
#define VBYTES 32
#define MR 6
#else
#define VBYTES 16
#define MR 6
#endif
#define KC 256
#define MC (MR * 8)
#define NC 1024

/* The micro-kernel keeps its accumulators in GCC/Clang vector-extension
 * registers; other compilers get the plain loop (correct, slower). */
#if defined(__GNUC__)
#define GEMM_VECTOR_EXT 1
#endif

/* GEMM_DEFINE(T, NAME): defines NAME(m, n, k, A, B, C) for element type T,
 * row-major, C = A B. Returns 0, or -1 if a packing buffer cannot be
 * allocated (C is then unspecified). */
#ifdef GEMM_VECTOR_EXT
#define GEMM_UKR(T, NAME)                                                                                \
    typedef T NAME##_vec __attribute__((vector_size(VBYTES)));                                           \
    enum { NAME##_VL = VBYTES / sizeof(T), NAME##_NR = 2 * (VBYTES / sizeof(T)) };                       \
    static void NAME##_ukr(int kc, const T *restrict a, const T *restrict b, T *restrict c, size_t ldc,  \
        int mr, int nr, int accumulate)                                                                  \
    {                                                                                                    \
        NAME##_vec c0[MR], c1[MR];                                                                       \
        for (int i = 0; i < MR; i++) c0[i] = c1[i] = (NAME##_vec){0};                                    \
        for (int p = 0; p < kc; p++) {                                                                   \
            NAME##_vec b0, b1;                                                                           \
            memcpy(&b0, b + (size_t)p * NAME##_NR, VBYTES);                                              \
            memcpy(&b1, b + (size_t)p * NAME##_NR + NAME##_VL, VBYTES);                                  \
            for (int i = 0; i < MR; i++) {                                                               \
                T ai = a[(size_t)p * MR + i];                                                            \
                c0[i] += ai * b0;                                                                        \
                c1[i] += ai * b1;                                                                        \
            }                                                                                            \
        }                                                                                                \
        for (int i = 0; i < mr; i++) {                                                                   \
            T row[2 * (VBYTES / sizeof(T))];                                                             \
            memcpy(row, &c0[i], VBYTES);                                                                 \
            memcpy(row + NAME##_VL, &c1[i], VBYTES);                                                     \
            for (int j = 0; j < nr; j++) c[i * ldc + j] = accumulate ? c[i * ldc + j] + row[j] : row[j]; \
        }                                                                                                \
    }
#else
#define GEMM_UKR(T, NAME)                                                                               \
    enum { NAME##_NR = 2 * (VBYTES / sizeof(T)) };                                                      \
    static void NAME##_ukr(int kc, const T *restrict a, const T *restrict b, T *restrict c, size_t ldc, \
        int mr, int nr, int accumulate)                                                                 \
    {                                                                                                   \
        T acc[MR][NAME##_NR];                                                                           \
        memset(acc, 0, sizeof acc);                                                                     \
        for (int p = 0; p < kc; p++)                                                                    \
            for (int i = 0; i < MR; i++)                                                                \
                for (int j = 0; j < NAME##_NR; j++)                                                     \
                    acc[i][j] += a[(size_t)p * MR + i] * b[(size_t)p * NAME##_NR + j];                  \
        for (int i = 0; i < mr; i++)                                                                    \
            for (int j = 0; j < nr; j++)                                                                \
                c[i * ldc + j] = accumulate ? c[i * ldc + j] + acc[i][j] : acc[i][j];                   \
    }
#endif

#define GEMM_DEFINE(T, NAME)                                                                             \
    GEMM_UKR(T, NAME)                                                                                    \
    /* B[pc:pc+kc, jc:jc+nc] -> panels of NR columns, zero padded */                                     \
    static void NAME##_pack_b(const T *B, size_t ldb, int kc, int nc, T *bp)                             \
    {                                                                                                    \
        _Pragma("omp for schedule(static)") for (int jr = 0; jr < nc; jr += NAME##_NR)                   \
        {                                                                                                \
            T *dst = bp + (size_t)jr * kc;                                                               \
            int w = nc - jr < NAME##_NR ? nc - jr : NAME##_NR;                                           \
            for (int p = 0; p < kc; p++) {                                                               \
                const T *src = B + (size_t)p * ldb + jr;                                                 \
                for (int j = 0; j < NAME##_NR; j++) dst[(size_t)p * NAME##_NR + j] = j < w ? src[j] : 0; \
            }                                                                                            \
        }                                                                                                \
    }                                                                                                    \
    /* A[ic:ic+mc, pc:pc+kc] -> panels of MR rows, zero padded */                                        \
    static void NAME##_pack_a(const T *A, size_t lda, int mc, int kc, T *ap)                             \
    {                                                                                                    \
        for (int ir = 0; ir < mc; ir += MR) {                                                            \
            T *dst = ap + (size_t)ir * kc;                                                               \
            int h = mc - ir < MR ? mc - ir : MR;                                                         \
            for (int p = 0; p < kc; p++)                                                                 \
                for (int i = 0; i < MR; i++)                                                             \
                    dst[(size_t)p * MR + i] = i < h ? A[(size_t)(ir + i) * lda + p] : 0;                 \
        }                                                                                                \
    }                                                                                                    \
    static int NAME(size_t m, size_t n, size_t k, const T *A, const T *B, T *C)                          \
    {                                                                                                    \
        T *bp = NULL;                                                                                    \
        int failed = posix_memalign((void **)&bp, 64, sizeof(T) * KC * (NC + NAME##_NR)) != 0;           \
        _Pragma("omp parallel shared(failed)")                                                           \
        {                                                                                                \
            T *ap = NULL;                                                                                \
            if (posix_memalign((void **)&ap, 64, sizeof(T) * KC * (MC + MR)) != 0) {                     \
                ap = NULL;                                                                               \
                _Pragma("omp atomic write") failed = 1;                                                  \
            }                                                                                            \
            _Pragma("omp barrier") int skip;                                                             \
            _Pragma("omp atomic read") skip = failed;                                                    \
            for (size_t jc = 0; !skip && jc < n; jc += NC) {                                             \
                int nc = n - jc < NC ? (int)(n - jc) : NC;                                               \
                for (size_t pc = 0; pc < k; pc += KC) {                                                  \
                    int kc = k - pc < KC ? (int)(k - pc) : KC;                                           \
                    NAME##_pack_b(B + pc * n + jc, n, kc, nc, bp); /* implicit barrier */                \
                    _Pragma("omp for schedule(dynamic, 1)") for (size_t ic = 0; ic < m; ic += MC)        \
                    {                                                                                    \
                        int mc = m - ic < MC ? (int)(m - ic) : MC;                                       \
                        NAME##_pack_a(A + ic * k + pc, k, mc, kc, ap);                                   \
                        for (int jr = 0; jr < nc; jr += NAME##_NR)                                       \
                            for (int ir = 0; ir < mc; ir += MR)                                          \
                                NAME##_ukr(kc, ap + (size_t)ir * kc, bp + (size_t)jr * kc,               \
                                    C + (ic + ir) * n + jc + jr, n, mc - ir < MR ? mc - ir : MR,         \
                                    nc - jr < NAME##_NR ? nc - jr : NAME##_NR, pc > 0);                  \
                    }                                                                                    \
                }                                                                                        \
            }                                                                                            \
            free(ap);                                                                                    \
        }                                                                                                \
        free(bp);                                                                                        \
        return failed ? -1 : 0;                                                                          \
    }

GEMM_DEFINE(float, sgemm_blocked)
GEMM_DEFINE(double, dgemm_blocked)

/* One implementation as the table shows it. */
struct gemm_impl {
    const char *name; /* "blocked" or "cblas" */
    int (*run)(int dtype, const struct gemm_shape *s, const void *A, const void *B, void *C);
};

static int run_blocked(int dtype, const struct gemm_shape *s, const void *A, const void *B, void *C)
{
    return dtype == ZB_DOUBLE ? dgemm_blocked(s->m, s->n, s->k, A, B, C)
                              : sgemm_blocked(s->m, s->n, s->k, A, B, C);
}

#ifdef ZB_HAVE_CBLAS
static int run_cblas(int dtype, const struct gemm_shape *s, const void *A, const void *B, void *C)
{
    if (dtype == ZB_DOUBLE)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->m, (int)s->n, (int)s->k, 1.0, A,
            (int)s->k, B, (int)s->n, 0.0, C, (int)s->n);
    else
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->m, (int)s->n, (int)s->k, 1.0f, A,
            (int)s->k, B, (int)s->n, 0.0f, C, (int)s->n);
    return 0;
}
#endif

/* Result accessor for gemm_check. */
struct host_c {
    const void *c; /* result matrix */
    size_t n;      /* columns */
    int dtype;     /* ZB_FLOAT or ZB_DOUBLE */
};

static double get_host(void *ctx, size_t i, size_t j)
{
    const struct host_c *h = ctx;
    return dtype_load(h->dtype, h->c, i * h->n + j);
}

static void fill(int dtype, void *x, uint32_t seed, size_t count)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++) dtype_store(dtype, x, i, gemm_value(seed, i));
}

static const struct gemm_shape cpu_defaults[] = {
    {256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
    {2048, 4096, 1024}, /* (tokens 2048 x h 1024) x (h x 4h) */
};

/* pick_impls: the implementations --impl selects; returns the count. */
static int pick_impls(const char *want, struct gemm_impl *out)
{
    int n = 0, all = !strcmp(want, "all");
#ifdef ZB_HAVE_CBLAS
#ifdef ZB_CBLAS_OPTIMIZED
    int auto_cblas = 1;
#else
    int auto_cblas = 0; /* reference BLAS: slower than ours */
#endif
    if (all || !strcmp(want, "blocked") || (!strcmp(want, "auto") && !auto_cblas))
        out[n++] = (struct gemm_impl){"blocked", run_blocked};
    if (all || !strcmp(want, "cblas") || (!strcmp(want, "auto") && auto_cblas))
        out[n++] = (struct gemm_impl){"cblas", run_cblas};
#else
    if (strcmp(want, "cblas") != 0 || all) out[n++] = (struct gemm_impl){"blocked", run_blocked};
#endif
    return n;
}

int gemm_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct report rep;
    struct gemm_impl impls[2];
    int dtype = o->dtype >= 0 ? o->dtype : ZB_FLOAT;
    if (o->precision) {
        if (strcmp(o->precision, "fp32") && strcmp(o->precision, "fp64"))
            return bench_usage(bi,
                "zerobench: gemm: --precision %s needs the CUDA back end; the CPU back end "
                "runs fp32 or fp64",
                o->precision);
        dtype = strcmp(o->precision, "fp32") ? ZB_DOUBLE : ZB_FLOAT;
    }
    if (dtype != ZB_FLOAT && dtype != ZB_DOUBLE)
        return bench_usage(bi, "zerobench: gemm: the CPU back end supports -d float or double, not %s",
            dtype_get(dtype)->name);
    int nimpl = pick_impls(o->impl, impls);
    if (nimpl == 0)
        return bench_usage(
            bi, "zerobench: gemm: --impl cblas needs a build with cblas (pkg-config openblas or blas)");
    struct gemm_list gl;
    char why[512];
    if (gemm_shapes(
            o, cpu_defaults, (int)(sizeof cpu_defaults / sizeof cpu_defaults[0]), &gl, why, sizeof why) < 0)
        return bench_usage(bi, "zerobench: %s", why);
    double u = dtype == ZB_DOUBLE ? 0x1p-53 : 0x1p-24;
    size_t ts = dtype_get(dtype)->size;
    long long bad = 0;
    int failed = 0;
    report_begin(&rep, o, bi);
    char what[256];
    snprintf(what, sizeof what,
        "%s; blocked: %dx%d micro-kernel, packed panels (KC %d, MC %d, NC %d), OpenMP; "
        "warmup iters: %d iters: %d validation: %d",
        dtype_get(dtype)->name, MR, dtype == ZB_DOUBLE ? (int)dgemm_blocked_NR : (int)sgemm_blocked_NR, KC,
        MC, NC, o->warmup, o->iters, o->check);
    gemm_table_header(&rep, &gl, what, "u", "");
    for (int si = 0; si < gl.n && !failed; si++) {
        const struct gemm_shape *s = &gl.s[si];
        void *A = malloc(s->m * s->k * ts), *B = malloc(s->k * s->n * ts), *C = malloc(s->m * s->n * ts);
        if (!bench_all_ok(A && B && C)) {
            free(A);
            free(B);
            free(C);
            failed = 1;
            break;
        }
        fill(dtype, A, GEMM_SEED_A, s->m * s->k);
        fill(dtype, B, GEMM_SEED_B, s->k * s->n);
        for (int ii = 0; ii < nimpl; ii++) {
            const char *mode = "none";
            long long wrong = -1;
            int rc = 0;
            if (o->check) {
                memset(C, 0xa5, s->m * s->n * ts);
                rc |= impls[ii].run(dtype, s, A, B, C);
                struct host_c hc = {C, s->n, dtype};
                wrong = (long long)gemm_check(s, u, u, get_host, &hc, &mode);
            }
            for (int i = 0; i < o->warmup; i++) rc |= impls[ii].run(dtype, s, A, B, C);
            double sum = 0, best = 1e30;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < o->iters; i++) {
                double t0 = timer_now();
                rc |= impls[ii].run(dtype, s, A, B, C);
                double dt = timer_now() - t0;
                sum += dt;
                if (dt < best) best = dt;
            }
            struct gemm_row row = {impls[ii].name, dtype_get(dtype)->name, NULL, s, sum / o->iters, best,
                mode, wrong, o->model ? gl.names[si] : NULL};
            if (!bench_all_ok(rc == 0)) failed = 1;
            bad += bench_row_total(o, &row.avg, &row.best, &row.wrong);
            gemm_table_row(&rep.j, rep.is_root, &row, 4);
            json_str(&rep.j, "precision", dtype == ZB_DOUBLE ? "fp64" : "fp32");
            if (o->model) gemm_model_json(&rep.j, o, gl.names[si]);
            json_obj_end(&rep.j);
        }
        free(A);
        free(B);
        free(C);
    }
    if (failed && rep.is_root) fprintf(stderr, "zerobench: gemm: out of memory on some rank\n");
    return report_close(&rep, "wrong_rows", bad, failed);
}
