/* adam.h -- Adam step definition shared by the back ends: tensor plan, data, reference check. */
#ifndef ZB_ADAM_H
#define ZB_ADAM_H

#include <stddef.h>
#include <stdint.h>

/* Variants. fp32: params, grads, m, v all float.
 * mixed: fp32 master weights and m, v; bf16 (uint16_t) params and grads. */
enum adam_variant { ADAM_FP32 = 0, ADAM_MIXED = 1, ADAM_NVARIANTS };

/* Bytes one step must move per parameter (each array read or written once):
 *   fp32 : read grad 4 + param 4 + m 4 + v 4 = 16, write param 4 + m 4 + v 4 = 12 -> 28
 *   mixed: read grad 2 + master 4 + m 4 + v 4 = 14, write master 4 + m 4 + v 4 + param 2 = 14 -> 28
 * (write-allocate reads that a cache may add are not counted, as in STREAM). */
#define ADAM_BYTES_PER_PARAM 28

/* Resident bytes per parameter (fp32: 4 arrays x 4; mixed: 3 x 4 + 2 x 2). */
#define ADAM_STATE_BYTES_PER_PARAM 16

/* AdamW with PyTorch's update order, coefficients prepared for step t:
 *   p <- p * (1 - lr*wd)
 *   m <- b1*m + (1-b1)*g ;  v <- b2*v + (1-b2)*g*g
 *   p <- p - (lr/bc1) * m / (sqrt(v)/sqrt(bc2) + eps),  bc_i = 1 - b_i^t */
struct adam_coef {
    float beta1;        /* b1 */
    float beta2;        /* b2 */
    float one_m_beta1;  /* 1 - b1 */
    float one_m_beta2;  /* 1 - b2 */
    float decay;        /* 1 - lr*wd */
    float step_size;    /* lr / bc1 */
    float inv_sqrt_bc2; /* 1 / sqrt(bc2) */
    float eps;          /* added to the denominator */
};

/* Hyper-parameters (double, the reference uses them directly). */
struct adam_hparams {
    double lr, beta1, beta2, eps, weight_decay; /* the usual AdamW constants */
    int step;                                   /* t >= 1, for bias correction */
};

/* adam_hparams_default: lr 1e-3, betas (0.9, 0.999), eps 1e-8, wd 0.01, step 10. */
void adam_hparams_default(struct adam_hparams *h);

/* adam_coef_make: float coefficients for the kernels. Never fails. */
void adam_coef_make(const struct adam_hparams *h, struct adam_coef *c);

/* A model-like split of `total` parameters into tensors laid out in one
 * pool per array, each tensor starting on a 64-element boundary. */
struct adam_plan {
    int ntensors; /* tensors */
    size_t total; /* parameters (sum of len) */
    size_t pool;  /* elements to allocate per array (with padding) */
    size_t *len;  /* elements of each tensor */
    size_t *off;  /* element offset of each tensor in the pools */
};

/* adam_plan_make: splits total over ntensors (fewer if total is small) in a
 * repeating transformer-like pattern (qkv 3, out 1, fc1 4, fc2 4, norm and
 * bias vectors ~1/1024 with odd lengths so vector tails are exercised).
 * Returns 0, or -1 when memory is short or total is 0. */
int adam_plan_make(struct adam_plan *p, size_t total, int ntensors);
/* adam_plan_free: releases a plan (also a failed or zeroed one). */
void adam_plan_free(struct adam_plan *p);

/* Host copy of one variant's state; unused arrays are NULL. */
struct adam_state {
    float *master;     /* fp32 params (fp32) or master weights (mixed) */
    float *m, *v;      /* moments */
    float *grad32;     /* fp32 grads (fp32 variant) */
    uint16_t *param16; /* bf16 params (mixed) */
    uint16_t *grad16;  /* bf16 grads (mixed) */
    void *raw[6];      /* allocations behind the arrays (for free) */
};

/* adam_state_alloc: pool-sized host arrays for variant, each starting at a
 * different offset modulo 4 KiB (k * 576 bytes) so that same-index loads
 * and stores of different arrays do not alias in the cache/store buffer
 * (the reason STREAM has OFFSET). Returns 0 or -1. */
int adam_state_alloc(struct adam_state *s, int variant, size_t pool);
/* adam_state_free: releases the arrays (also of a failed or zeroed state). */
void adam_state_free(struct adam_state *s);

/* adam_state_fill: random, never-zero data, deterministic in seed:
 * master in +-[0.1, 1], m in +-[1e-3, 1e-1], v in [1e-6, 1e-2],
 * grads in +-[1e-3, 1]; bf16 params are the rounded masters. Parallel. */
void adam_state_fill(struct adam_state *s, int variant, const struct adam_plan *p, uint64_t seed);

/* adam_state_copy: dst = src over the pool (same variant). */
void adam_state_copy(struct adam_state *dst, const struct adam_state *src, int variant, size_t pool);

/* Tolerance of adam_check against the double-precision reference. Each
 * fp32 output is a short sum, so its error is bounded relative to the sum
 * of the magnitudes of its terms (not to the result, which can cancel):
 *   m: |got-ref| <= ADAM_RTOL * (b1|m0| + (1-b1)|g|)
 *   v: |got-ref| <= ADAM_RTOL * (b2 v0 + (1-b2) g^2)
 *   w: |got-ref| <= ADAM_RTOL * ((1-lr wd)|w0| + (lr/bc1)(b1|m0| + (1-b1)|g|)/denom)
 * ADAM_RTOL = 1e-6 is ~17 float ulps (observed worst case ~3 ulps);
 * bf16 params: |got - ref_w| <= 2^-8 |ref_w| (one bf16 ulp). */
#define ADAM_RTOL 1e-6

/* adam_check: replays one step in double precision from `before` and
 * counts elements of `after` outside the tolerances (master, m, v, and the
 * bf16 params for mixed). Parallel; never fails. With ZEROBENCH_FAULT set
 * it first corrupts after's first master weight (test hook). */
size_t adam_check(const struct adam_hparams *h, int variant, const struct adam_plan *p,
    const struct adam_state *before, struct adam_state *after);

/* adam_variant_name: "fp32" or "mixed". */
const char *adam_variant_name(int variant);

struct report;

/* One row of the adam table (already combined over processes). */
struct adam_result {
    size_t params;    /* parameters per step */
    int tensors;      /* tensors in the fused step */
    int variant;      /* enum adam_variant */
    double avg;       /* mean step time, seconds */
    double best;      /* fastest step, seconds */
    double ref_bytes; /* bytes one reference call moves */
    double ref_best;  /* fastest reference call, seconds */
    long long wrong;  /* elements outside tolerance over all ranks; -1 unchecked */
};

/* adam_table_header: prints (proc 0) the identity lines, how bytes are
 * counted, what the reference is (ref_desc) and the column header with
 * ref_col naming the reference column ("triad", "d2d"). */
void adam_table_header(const struct report *r, const char *ref_desc, const char *ref_col);

/* adam_table_row: prints one row (proc 0) and appends it to the JSON rows
 * with "ref": ref_key. Never fails. */
void adam_table_row(struct report *r, const struct adam_result *res, const char *ref_key);

struct bench_opts;
struct be_info;

/* What a back end plugs into adam_sweep. */
struct adam_backend {
    const char *ref_desc;   /* what the reference is (the "# reference:" line) */
    const char *ref_col;    /* reference column name: "triad", "d2d" */
    const char *ref_key;    /* the rows' JSON "ref": "stream_triad", "d2d_memcpy" */
    const char *setup_fail; /* stderr line (proc 0) when a size cannot be set up; NULL when
                               the back end has already printed why */
    /* ref: times the reference for params parameters into r->ref_bytes and
     * r->ref_best (this process's); 0 or -1 */
    int (*ref)(size_t params, const struct bench_opts *o, struct adam_result *r, void *ctx);
    /* run: checks one step of variant r->variant (r->wrong, -1 unchecked),
     * then times o->iters steps into r->avg and r->best; 0 or -1 */
    int (*run)(const struct bench_opts *o, const struct adam_plan *p, struct adam_result *r, void *ctx);
    void *ctx; /* passed to ref and run */
};

/* adam_sweep: the adam sub-benchmark on any back end: per size (-b..-e
 * parameters) the plan, the reference and each variant, combined over
 * processes into the table and JSON. Collective over MPI_COMM_WORLD.
 * Returns the exit status: 0, 1 when a result was wrong or a size could
 * not be set up on some process, or report_close's. */
int adam_sweep(const struct bench_opts *o, const struct be_info *bi, const struct adam_backend *b);

#endif
