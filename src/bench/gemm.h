/* gemm.h -- GEMM shapes, exact test data, reference check and table (gemm_table.c) shared by the back ends.
 */
#ifndef ZB_GEMM_H
#define ZB_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "opts.h"

/* Row-major C[M x N] = A[M x K] * B[K x N]. */
struct gemm_shape {
    size_t m, n, k; /* dimensions */
};

/* gemm_value: element idx of the matrix identified by seed: a nonzero
 * multiple of 1/128 in [-126/128, 1], exact in bf16, half, float and
 * double, so every back end multiplies identical inputs. Header-inline so
 * CUDA kernels can use the same definition. */
#if defined(__CUDACC__)
#define GEMM_HD __host__ __device__
#else
#define GEMM_HD
#endif
static inline GEMM_HD float gemm_value(uint32_t seed, uint64_t idx)
{
    uint64_t x = idx * 0x9e3779b97f4a7c15ull + seed;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    int v = (int)(x % 254u) - 126; /* -126..127 */
    if (v >= 0) v++;               /* skip zero: -126..-1, 1..128 */
    return (float)v * (1.0f / 128.0f);
}

#define GEMM_SEED_A 0x1234u
#define GEMM_SEED_B 0xabcdu

/* Model-shaped GEMMs (gemm --model): the linear layers of one transformer
 * block under Megatron tensor parallelism (QKV and MLP up/gate column-
 * parallel, attention out and MLP down row-parallel, logits split over the
 * vocabulary), each as forward Y = X W, dgrad dX = dY W^T and wgrad
 * dW = X^T dY; T = micro-batch x seq-len tokens. Attention's own batched
 * GEMMs (QK^T, PV) are not here: zerosim models them with attention_fraction. */
#define GEMM_NAME_LEN 24

/* A model's sizes as the GEMMs need them. */
struct gemm_model_dims {
    long long hidden;   /* h */
    long long ffn;      /* MLP inner width */
    long long heads;    /* query heads */
    long long kv_heads; /* key/value heads */
    long long head_dim; /* width of one head */
    long long vocab;    /* vocabulary */
    int gated;          /* 1: SwiGLU gate projection */
};

/* gemm_model_lookup: the sizes of model NAME (a name in models/ or a path
 * to an HF config.json or our model JSON) through zerosim's own loader,
 * when zerobench was linked with it (the top-level make does; bench.mk alone
 * does not). Returns 0, or -1 with one line in err (unknown name, bad file,
 * a MoE or --params-only model, or no loader linked in). */
int gemm_model_lookup(const char *name, struct gemm_model_dims *d, char *err, size_t len);

/* gemm_model_shapes: fills out/names (at most max) and *d: sizes from
 * --model NAME through gemm_model_lookup unless --hidden, --ffn, --heads and
 * --vocab are all given; explicit flags (--kv-heads, --head-dim, --gated
 * too) override the file's. Then --tp, --micro-batch, --seq-len. Returns
 * the count, or -1 with one line in err naming the flag (missing size,
 * heads not divisible by --tp, a dimension above 2^31-1). */
int gemm_model_shapes(const struct bench_opts *o, struct gemm_model_dims *d, struct gemm_shape *out,
    char (*names)[GEMM_NAME_LEN], int max, char *err, size_t len);

/* The shapes a run multiplies, with their --model names and sizes. */
struct gemm_list {
    int n;                                      /* shapes */
    struct gemm_shape s[OPTS_MAX_SHAPES];       /* the shapes, in order */
    char names[OPTS_MAX_SHAPES][GEMM_NAME_LEN]; /* --model: each shape's GEMM name */
    struct gemm_model_dims dims;                /* --model: the sizes they come from */
};

/* gemm_shapes: the shapes to run into l: with --model, gemm_model_shapes'
 * (with dims and names); else the --shape list if given, else the back
 * end's defaults (copied from defs). Returns l->n, or -1 with one line in
 * err (only --model can fail). */
int gemm_shapes(const struct bench_opts *o, const struct gemm_shape *defs, int ndefs, struct gemm_list *l,
    char *err, size_t len);

/* gemm_model_banner: with --model, prints "# model ..." describing the
 * configuration (proc 0's job; prints nothing without --model). */
void gemm_model_banner(const struct bench_opts *o, const struct gemm_model_dims *d);

struct json;
/* gemm_model_json: a model row's extra keys: name, model, tp, tokens. */
void gemm_model_json(struct json *j, const struct bench_opts *o, const char *name);

/* One row of the gemm table: a shape's times (max over processes) and check (summed). */
struct gemm_row {
    const char *impl;           /* "blocked", "cblas", "cublas", "cublaslt" */
    const char *type;           /* element type column */
    const char *precision;      /* written after "type" when set (CUDA); the CPU back end
                                   writes its "precision" after "wrong" itself */
    const struct gemm_shape *s; /* the shape */
    double avg, best;           /* seconds per call: mean and fastest */
    const char *mode;           /* check: "full", "sampled" or "none" */
    long long wrong;            /* wrong elements, -1 unchecked */
    const char *name;           /* --model GEMM name, NULL without --model */
};

struct report;
/* gemm_table_header: prints (proc 0) the identity lines, "# gemm: row-major
 * C = A B, <what>", how results are checked (bound ... + <u_name>|ref|) and
 * timed (TFLOP/s = 2MNK / time / 1e12<timing>), the --model banner and the
 * column header (with a "gemm" name column under --model). */
void gemm_table_header(const struct report *r, const struct gemm_list *gl, const char *what,
    const char *u_name, const char *timing);

/* gemm_table_row: prints the row when is_root (TFLOP/s with tflops_digits
 * decimals) and opens its JSON object in the rows array of j with impl,
 * type, [precision,] m, n, k, flops, times, TFLOP/s, check and wrong; the
 * caller adds its own keys and closes the object. Never fails. */
void gemm_table_row(struct json *j, int is_root, const struct gemm_row *row, int tflops_digits);

/* gemm_flops: 2 M N K. */
double gemm_flops(const struct gemm_shape *s);

/* Reads element (i, j) of the result, as double; ctx is the caller's. */
typedef double (*gemm_get_fn)(void *ctx, size_t i, size_t j);

/* gemm_check: compares C against a double-precision dot product of the
 * gemm_value inputs: every element when M*N*K <= 2^26 ("full"), else 256
 * pseudo-random elements ("sampled"). Bound per element:
 * |c - ref| <= gamma_K * sum_k |a_ik b_kj| + u_out * |ref|, gamma_K =
 * K u_acc / (1 - K u_acc), with u_acc, u_out the unit roundoffs of the
 * accumulation and output types. Returns the wrong count; *mode is set
 * to "full" or "sampled". Never fails. With ZEROBENCH_FAULT set, element
 * (0, 0) is read as got + 1 (test hook). */
size_t gemm_check(
    const struct gemm_shape *s, double u_acc, double u_out, gemm_get_fn get, void *ctx, const char **mode);

/* gemm_check_fp8: as gemm_check, for inputs stored as OCP fp8 e4m3: the
 * reference multiplies gemm_value rounded to e4m3 (as the device stored it),
 * and the accumulation bound is min(K,128) u_acc (one chunk at the tensor
 * cores' reduced precision) plus gamma_K of fp32 across chunks. */
size_t gemm_check_fp8(
    const struct gemm_shape *s, double u_acc, double u_out, gemm_get_fn get, void *ctx, const char **mode);

#endif
