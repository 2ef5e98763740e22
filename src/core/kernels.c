/* kernels.c -- attention kernels' measured rates (FlashAttention-2/3, cuDNN) and which one a run uses. */
#include "core/kernels.h"

#include <math.h>

#include "core/framework.h"
#include "core/minmax.h"

/* Measured TFLOP/s on one H100 80GB SXM5, BF16 (Shah et al. 2024, FlashAttention-3, arXiv
 * 2407.08608, section 4.1: the labels on the bars), batch x sequence = 16k tokens and heads x
 * head dim = 2048 as that benchmark sizes them (pytorch/benchmark#2391 replicating it).
 * Columns: sequence 512, 1k, 2k, 4k, 8k, 16k. FA2 is the FlashAttention-2 and cuDNN the cuDNN
 * fused attention the paper compares against. */
#define SEQ_POINTS 6
#define SEQ_LOG2_FIRST 9 /* 512 */
static const double head_log2[3] = {6, 7, 8}; /* head dim 64, 128, 256 */

/* Forward with the causal mask (training's LLM attention): Figure 5, panels "Attention
 * forward speed, head dim 64/128/256 (H100 80GB SXM5)", the causal ones. Rows FA2, FA3,
 * cuDNN; [head dim][sequence]. */
static const double fwd_tflops[3][3][SEQ_POINTS] = {
    /* FA2 */
    {{180, 229, 262, 284, 295, 299}, {191, 260, 298, 319, 333, 335}, {208, 251, 278, 293, 297, 298}},
    /* FA3 */
    {{197, 265, 371, 420, 460, 473}, {292, 423, 521, 579, 602, 616}, {286, 427, 537, 612, 628, 642}},
    /* cuDNN */
    {{225, 288, 334, 363, 379, 388}, {315, 410, 484, 518, 529, 539}, {308, 391, 450, 483, 497, 509}},
};
/* Backward: Figure 6, panels "Attention backward speed, head dim 64/128 (H100 80GB SXM5)",
 * measured without the causal mask (the paper's only backward); each kernel is taken relative
 * to FA2's in the same pass, so the mask's cost cancels as far as it is alike across kernels.
 * No backward at head dim 256: held at 128's. */
static const double bwd_tflops[3][2][SEQ_POINTS] = {
    /* FA2 */ {{198, 238, 264, 279, 287, 291}, {214, 260, 291, 310, 318, 322}},
    /* FA3 */ {{272, 363, 422, 453, 472, 474}, {316, 424, 501, 542, 559, 561}},
    /* cuDNN */ {{266, 348, 395, 417, 432, 433}, {305, 408, 465, 499, 518, 516}},
};

/* The profile's attention_fraction on H100 is FlashAttention-2's 35% of peak (the FA3
 * abstract): its long-sequence rate, FA2 at head dim 128 and 16k in each pass above. */
#define FA2_REF_FWD 335.0
#define FA2_REF_BWD 322.0

/* FlashAttention-2 (Dao 2023, arXiv 2307.08691, section 4.1) reaches 50-73% of A100 peak in
 * forward and up to 63% in backward; eager attention's batched GEMMs on (s x head_dim)
 * operands sit lower still. Used when the profile does not give attention_fraction. */
#define ATTENTION_FRACTION_DEFAULT 0.55

double kernel_fa2_fraction(const hardware *hw)
{
    return hw->attention_fraction > 0 ? hw->attention_fraction : ATTENTION_FRACTION_DEFAULT;
}

const char *kernel_name(attn_kernel k)
{
    static const char *const names[KERNEL_COUNT] = {"default", "fa2", "fa3", "cudnn", "te", "eager"};
    return k >= 0 && k < KERNEL_COUNT ? names[k] : "default";
}

bool kernel_hopper(const hardware *hw)
{
    return hw->compute_capability >= 9 && hw->compute_capability < 10;
}

attn_kernel kernel_of(const training *t, const hardware *hw)
{
    if (!t->flash_attention) return KERNEL_EAGER;
    attn_kernel k = t->attention_kernel ? (attn_kernel)t->attention_kernel
                                        : (attn_kernel)framework_of(t)->attention_kernel;
    /* Transformer Engine's get_attention_backend: with FlashAttention and FusedAttention both
     * available, "Disabling FlashAttention to give FusedAttention preference on Hopper+ for
     * performance reasons" when device_compute_capability >= (9, 0) (NVIDIA/TransformerEngine
     * v2.0 transformer_engine/pytorch/attention.py); before Hopper it keeps FlashAttention. */
    if (k == KERNEL_TE) k = hw->compute_capability >= 9 ? KERNEL_CUDNN : KERNEL_FA2;
    return k == KERNEL_DEFAULT ? KERNEL_FA2 : k;
}

/* Linear interpolation of row (SEQ_POINTS values) at x = log2(s), held at the ends. */
static double along_seq(const double *row, double x)
{
    double i = zs_fmin(zs_fmax(x - SEQ_LOG2_FIRST, 0), SEQ_POINTS - 1);
    int lo = (int)i;
    if (lo >= SEQ_POINTS - 1) return row[SEQ_POINTS - 1];
    return row[lo] + (row[lo + 1] - row[lo]) * (i - lo);
}

double kernel_tflops(attn_kernel k, kernel_pass p, double hd, double s)
{
    if ((k != KERNEL_FA2 && k != KERNEL_FA3 && k != KERNEL_CUDNN) || hd <= 0 || s <= 0) return 0;
    int r = k == KERNEL_FA2 ? 0 : k == KERNEL_FA3 ? 1 : 2;
    int n = p == KERNEL_FWD ? 3 : 2;
    const double *rows[3];
    for (int j = 0; j < n; j++) rows[j] = p == KERNEL_FWD ? fwd_tflops[r][j] : bwd_tflops[r][j];
    double xs = log2(s), xh = zs_fmin(zs_fmax(log2(hd), head_log2[0]), head_log2[n - 1]);
    int j = xh >= head_log2[n - 1] ? n - 2 : (int)(xh - head_log2[0]);
    double a = along_seq(rows[j], xs), b = along_seq(rows[j + 1], xs);
    return a + (b - a) * (xh - head_log2[j]);
}

/* A flash kernel's backward recomputes the scores from Q and K: five matmuls against the
 * forward's two, and FlashAttention counts its backward rate on 2.5x the forward's FLOPs
 * (Dao 2023, arXiv 2307.08691, section 4.1; Dao-AILab/flash-attention@0469c727
 * benchmarks/benchmark_flash_attention.py and @1899c970 hopper/benchmark_flash_attention.py,
 * flops(mode="bwd") = 2.5 f), the convention of every rate above and of the FA2 fractions.
 * Eager attention keeps the scores: its backward is the forward's two GEMMs twice. */
#define FLASH_BWD_WORK 2.5
#define EAGER_BWD_WORK 2.0

double kernel_head_dim(attn_kernel k, double hd)
{
    /* FlashAttention-2 compiles one kernel per head dim 32, 64, 96, 128, 160, 192, 256 and runs
     * the smallest that holds the head (Dao-AILab/flash-attention@2bce87c9
     * csrc/flash_attn/src/static_switch.h HEADDIM_SWITCH); FlashAttention-3 one per 64, 96,
     * 128, 192, 256 (@0e79d711 hopper/flash_api.cpp round_up_headdim). The padded columns go
     * through the tensor cores all the same. cuDNN and eager attention: no padding read. */
    static const double fa2[] = {32, 64, 96, 128, 160, 192, 256, 0}, fa3[] = {64, 96, 128, 192, 256, 0};
    const double *dims = k == KERNEL_FA2 ? fa2 : k == KERNEL_FA3 ? fa3 : NULL;
    if (!dims || hd <= 0) return hd;
    for (; *dims > 0; dims++)
        if (hd <= *dims) return *dims;
    return hd;
}

kernel_rate kernel_attention(const hardware *hw, const training *t, double hd, double s)
{
    double f = kernel_fa2_fraction(hw);
    kernel_rate r = {
        .kernel = kernel_of(t, hw), .fwd = f, .bwd = f, .bwd_work = FLASH_BWD_WORK, .measured = false};
    if (r.kernel == KERNEL_EAGER) r.bwd_work = EAGER_BWD_WORK;
    if (r.kernel == KERNEL_EAGER || hd <= 0) return r;
    /* A head padded to the kernel's width runs at that kernel's rate on hd / padded useful
     * FLOPs. */
    double padded = kernel_head_dim(r.kernel, hd), useful = hd / padded;
    r.fwd = r.bwd = f * useful;
    if (!kernel_hopper(hw)) return r;
    r.fwd = f * kernel_tflops(r.kernel, KERNEL_FWD, padded, s) / FA2_REF_FWD * useful;
    r.bwd = f * kernel_tflops(r.kernel, KERNEL_BWD, padded, s) / FA2_REF_BWD * useful;
    r.measured = true;
    return r;
}

int kernel_check(const hardware *hw, const training *t, zs_error *err)
{
    if (!t->flash_attention && t->attention_kernel)
        return zs_fail(err, ZS_ERR_USAGE,
            "--attention-kernel %s: --eager-attention runs no flash kernel (give one of the two)",
            kernel_name((attn_kernel)t->attention_kernel));
    if (kernel_of(t, hw) != KERNEL_FA3 || kernel_hopper(hw)) return ZS_OK;
    /* FlashAttention-3 is written for Hopper's wgmma and TMA (Shah et al. 2024, section 3;
     * Dao-AILab/flash-attention hopper/: "FlashAttention-3 is optimized for Hopper GPUs"). */
    if (hw->compute_capability <= 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--attention-kernel fa3: FlashAttention-3 runs on Hopper only; %s gives no "
            "gpu.compute_capability (9.0 for H100/H200)",
            hw->name);
    return zs_fail(err, ZS_ERR_USAGE,
        "--attention-kernel fa3: FlashAttention-3 runs on Hopper only; %s has compute capability %g (9.0 for "
        "H100/H200)",
        hw->name, hw->compute_capability);
}
