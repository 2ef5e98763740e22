/* compute.h -- FLOPs of a training step and how fast one GPU runs them. */
#ifndef ZS_COMPUTE_H
#define ZS_COMPUTE_H

#include <stdbool.h>

#include "core/hardware.h"
#include "core/model.h"
#include "core/training.h"

/* FLOPs per token of one forward pass, whole model (before model parallelism). */
typedef struct flops {
    double matmul;          /* 2 x active linear parameters (blocks + LM head) */
    double attention;       /* 4 s q per layer: QK^T and attention x V, full (non-causal) */
    double model_step;      /* per GPU per step: 3 x forward over its tokens with attention as
                               computed (causal: half), the MFU numerator */
    double model_step_full; /* the same with attention counted whole, as PaLM appendix B (6N +
                               12 L H Q T per token) and Megatron/NeMo's published "model TFLOP/s"
                               count it: tflops_per_gpu, to compare with those tables */
    double hw_step;         /* per GPU per step: model_step plus recomputed FLOPs, counted the same
                               way (the HFU numerator) */
    double hw_step_full;    /* the same with attention counted whole (published HFU tables) */
    double fwd_mb;          /* per GPU per micro-batch: forward, executed */
    double bwd_mb;          /* backward, executed (2 x forward) */
    double recompute_mb;    /* recomputed forward (full) or attention scores (selective) */
    double attn_fwd_mb;     /* of fwd_mb: attention-score FLOPs, executed */
    double softmax_fwd_mb;  /* of attn_fwd_mb: the softmax-attention mixers' (not scans') */
    double mem_fwd_mb;      /* bytes of memory-bound traffic (norms, residuals, activation functions,
                               rotary, dropout, loss) per GPU per micro-batch, forward */
    double attn_mem_fwd_mb; /* of mem_fwd_mb: the s^2 score traffic of eager attention */
    double frozen_fwd_mb;   /* of fwd_mb: matmul FLOPs of frozen weights (LoRA/QLoRA), whose
                               weight-gradient GEMM backward skips */
    double fp8_kernels_mb;  /* FP8 cast kernels per GPU per micro-batch, forward (backward
                               launches as many): each pays a GEMM's fixed cost */
    double attn_head_dim;   /* the attention kernel's shape (kernels.c): head dim, 0 = no
                               measured shape (no attention, or a hybrid stack's mixers) */
    double attn_span;       /* ... and the keys a query attends over: s, or the packed document */
    double gemm_bwd;        /* the backward GEMMs' time per FLOP over the forward ones' (their
                               transposed shapes, gemm.c); compute_flops sets 1 */
    double model_mb;        /* one micro-batch's model_step numerator (FLOPs x its tokens), before
                               the accumulation and the model-parallel split */
    double model_mb_full;   /* the same for model_step_full */
    double again_mb;        /* the same for the recomputed FLOPs hw_step adds */
    double again_mb_full;   /* ... and hw_step_full adds */
} flops;

/* Seconds of one micro-batch on one GPU. */
typedef struct mb_time {
    double fwd;  /* forward */
    double bwd;  /* backward + recompute */
    double attn;     /* of fwd: the attention scores */
    double attn_bwd; /* of bwd: the attention scores' backward (kernels.c's work at its rate) */
} mb_time;

/* FLOPs for a model and training (counts from model_count). For a --params model the count
 * stands in for the linear parameters (6 P per token). Pure. */
void compute_flops(const model *m, const param_counts *pc, const training *t, flops *out);

/* The per-token FLOPs compute_flops starts from, which read the sequence and the kernels but
 * not the micro-batch, the accumulation or the recomputation. Pure. */
typedef struct flops_tokens {
    double matmul;    /* flops.matmul before adapters */
    double attention; /* flops.attention */
    double attn_exec; /* attention FLOPs per token as executed */
    double attn_softmax; /* of attn_exec: the softmax-attention mixers' */
} flops_tokens;
flops_tokens compute_flops_tokens(const model *m, const param_counts *pc, const training *t);

/* compute_flops from tk = compute_flops_tokens(m, pc, t'), t' equal to t in what that reads;
 * the same bits. Pure. */
void compute_flops_with(
    const model *m, const param_counts *pc, const training *t, const flops_tokens *tk, flops *out);

/* The step fields (model_step, hw_step and their _full forms) from the micro-batch ones and
 * t's accumulation and model-parallel split, as compute_flops sets them. Pure; never fails. */
void compute_flops_accumulate(const training *t, flops *f);

/* Dense peak FLOP/s for the training's precision (bf16, fp16, fp32). 0 when the GPU has no
 * such unit (e.g. bf16 on V100). */
double compute_peak(const hardware *hw, const training *t);

/* Forward and backward(+recompute) seconds of one micro-batch: GEMMs at peak x
 * gemm_efficiency, attention scores at the attention kernel's rate in each pass
 * (kernel_attention), memory-bound traffic at
 * the achieved HBM rate; backward is twice forward (two GEMMs per forward GEMM), its GEMMs
 * f->gemm_bwd times slower per FLOP. Pure. */
mb_time compute_time(
    const hardware *hw, const training *t, const flops *f, double peak, double gemm_efficiency);

/* Achieved fraction of peak for a GEMM of `gemm_flops`:
 * matmul_max_fraction x W / (W + matmul_half_flops). Pure. */
double compute_efficiency(const hardware *hw, double gemm_flops);

/* The fraction of peak attention scores reach: the profile's attention_fraction, else the
 * FlashAttention-2 default. Pure. */
double compute_attention_fraction(const hardware *hw);

/* Seconds one TP rank spends per micro-batch on the LM head and the loss (forward and
 * backward; not divided over pipeline stages): the share of a step the last stage adds.
 * 0 for a parameter-count-only model. Pure. */
double compute_head_seconds(
    const model *m, const hardware *hw, const training *t, double peak, double gemm_efficiency);

/* FLOPs of the representative GEMM of one micro-batch on one GPU: the MLP up-projection,
 * 2 (b s) h (i / t). Infinity for a --params model (no shape: efficiency at its maximum). */
double compute_gemm_flops(const model *m, const training *t);

#endif
