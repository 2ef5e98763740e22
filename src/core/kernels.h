/* kernels.h -- the attention kernel a run uses and its measured rate by head dim and sequence. */
#ifndef ZS_KERNELS_H
#define ZS_KERNELS_H

#include <stdbool.h>

#include "core/error.h"
#include "core/hardware.h"
#include "core/training.h"

/* Attention kernels. KERNEL_DEFAULT (0) in a training means the framework's; KERNEL_TE is
 * a framework default only: Transformer Engine's own choice by GPU (kernels.c). */
typedef enum attn_kernel {
    KERNEL_DEFAULT,
    KERNEL_FA2,   /* FlashAttention-2 (Dao 2023), also PyTorch SDPA's flash backend */
    KERNEL_FA3,   /* FlashAttention-3 (Shah et al. 2024), Hopper only */
    KERNEL_CUDNN, /* cuDNN fused attention (Transformer Engine FusedAttention) */
    KERNEL_TE,    /* Transformer Engine DotProductAttention: cuDNN on Hopper+, else FA2 */
    KERNEL_EAGER, /* no flash kernel: the s^2 scores in HBM (--eager-attention) */
    KERNEL_COUNT
} attn_kernel;

/* The passes the tables measure. */
typedef enum { KERNEL_FWD, KERNEL_BWD } kernel_pass;

/* A kernel's achieved fractions of the 16-bit peak on one GPU, per pass. */
typedef struct kernel_rate {
    attn_kernel kernel; /* resolved: never KERNEL_DEFAULT or KERNEL_TE */
    double fwd;         /* forward (causal) */
    double bwd;         /* backward */
    double bwd_work;    /* backward FLOPs the rates count, x the forward's: 2.5 flash, 2 eager */
    bool measured;      /* from the measured table (Hopper); else the profile's FA2 fraction */
} kernel_rate;

/* "fa2", "fa3", "cudnn", "eager" ("te" for KERNEL_TE, "default" for KERNEL_DEFAULT). Never fails. */
const char *kernel_name(attn_kernel k);

/* The kernel training t runs on hw: eager without flash attention, else --attention-kernel,
 * else the framework's default (KERNEL_TE resolved by compute capability). Never fails. */
attn_kernel kernel_of(const training *t, const hardware *hw);

/* Whether hw's profile has the measured (Hopper, compute capability 9.x) table. */
bool kernel_hopper(const hardware *hw);

/* The profile's attention_fraction, the FlashAttention-2 rate on that GPU, else the A100
 * default (0.55). Pure. */
double kernel_fa2_fraction(const hardware *hw);

/* TFLOP/s of kernel k (FA2, FA3 or cuDNN) in pass p at head dim hd and sequence s on an H100
 * SXM5, interpolated in log2(hd) and log2(s) between the measured points and held at the
 * ends. 0 for a kernel with no table (eager, default). Pure. */
double kernel_tflops(attn_kernel k, kernel_pass p, double hd, double s);

/* The head dim kernel k runs a head of hd at: FlashAttention-2 and -3 pad it to the next width
 * they compile; hd itself for cuDNN and eager (and for hd <= 0 or past the widest). Pure. */
double kernel_head_dim(attn_kernel k, double hd);

/* The fractions of peak kernel_of(t, hw) reaches at head dim hd and attention span s, in
 * FLOPs of hd: the profile's attention_fraction (the FlashAttention-2 rate on that GPU)
 * scaled by the kernel's measured rate at its padded head dim (kernel_head_dim) over FA2's
 * long-sequence rate in the same pass, on Hopper, unscaled elsewhere; times hd / padded.
 * The profile's fraction alone when hd is 0 (no attention shape). Pure. */
kernel_rate kernel_attention(const hardware *hw, const training *t, double hd, double s);

/* Whether t's kernel runs on hw: FA3 needs Hopper, and a kernel chosen with --eager-attention is a
 * contradiction. Fails with ZS_ERR_USAGE naming the flag. */
int kernel_check(const hardware *hw, const training *t, zs_error *err);

#endif
