/* gemm.h -- a training step's GEMMs by shape, each at its measured rate on the GPU. */
#ifndef ZS_GEMM_H
#define ZS_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hardware.h"
#include "core/model.h"
#include "core/training.h"

/* One GEMM of a block (or the LM head) on one GPU, Y[T x N] = X[T x K] W[K x N]: its forward,
 * and backward's two, dgrad dX = dY W^T (T x K, contracting N) and wgrad dW = X^T dY (K x N,
 * contracting T). */
typedef struct gemm_shape {
    const char *name; /* "qkv", "attn_out", "mlp_up", "mlp_down", "expert_up", .., "lm_head" */
    double tokens;    /* T: rows of X and Y (a micro-batch's tokens; an expert's share of them) */
    double k;         /* K: input features after the TP split */
    double n;         /* N: output features after the TP split */
    double count;     /* GEMMs of this shape in the model per micro-batch: blocks x local experts */
    double fwd;       /* forward rate over the table's largest-shape rate, in (0, 1] */
    double dgrad;     /* the same for the input-gradient GEMM */
    double wgrad;     /* ... and the weight-gradient GEMM */
} gemm_shape;

/* The step's GEMMs, each at its own rate: FLOP-weighted harmonic means of the rates over the
 * table's largest-shape rate, so a step's matmul time is sum(FLOPs_g / rate_g). */
typedef struct gemm_rates {
    bool measured; /* a table applies (gemm_measured); when false the other fields are 1 */
    double fwd;    /* forward GEMMs (blocks and LM head) */
    double bwd;    /* dgrad and wgrad GEMMs */
    double head;   /* the LM head's three GEMMs (the last pipeline stage's extra time) */
} gemm_rates;

#define GEMM_SHAPES_MAX 24 /* rows gemm_list writes at most */

/* The measured rate in TFLOP/s of one BF16 GEMM of rows x cols outputs contracting k on an
 * sm_90 GPU (XLA's cuBLAS table, gemm.c), interpolated linearly in size within each octave
 * between the measured sizes 256..4096, held above 4096, and proportional to size below 256
 * (the kernel's time no shorter than at 256). 0 for a non-positive size. Pure. */
double gemm_tflops(double rows, double cols, double k);

/* Whether the GEMM table applies: --gemm-shapes on, a Hopper profile (compute capability 9.x) at a 16-bit
 * precision (bf16, fp16, bf16-pure) or FP8 (read at half the contraction). fp32 runs keep the
 * single-W formula. Pure. */
bool gemm_measured(const hardware *hw, const training *t);

/* The step's rates over the table's largest-shape rate for model m trained as t, with expert
 * tensor parallelism etp. When the table does not apply (gemm_measured false), or m is a
 * parameter count without shapes, every field is 1 (and measured false, or true at the
 * saturated rate). Pure; never fails. */
gemm_rates gemm_step(
    const model *m, const param_counts *pc, const hardware *hw, const training *t, int64_t etp);

/* The shapes gemm_step weighs, with their rates, into out (room for GEMM_SHAPES_MAX; more are
 * weighed but not listed). Returns how many were written. Pure; never fails. */
int gemm_list(const model *m, const param_counts *pc, const training *t, int64_t etp, gemm_shape *out);

#endif
