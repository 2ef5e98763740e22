/* test_kernels.c -- the attention-kernel table against the papers' bars, and the frameworks' defaults. */
#include <math.h>
#include <string.h>

#include "core/compute.h"
#include "core/framework.h"
#include "core/kernels.h"
#include "fixture_hw.h"
#include "io/catalog.h"
#include "io/hardware_json.h"
#include "test.h"

/* Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) on H100 80GB SXM5, BF16: the bars'
 * labels at the measured points come back exactly. */
static void kernel_measured_points(void)
{
    /* Figure 5, forward, causal, head dim 128: FA2 298 / FA3 521 / cuDNN 484 TFLOP/s at 2k. */
    CHECK_NEAR(kernel_tflops(KERNEL_FA2, KERNEL_FWD, 128, 2048), 298, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_FA3, KERNEL_FWD, 128, 2048), 521, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_CUDNN, KERNEL_FWD, 128, 2048), 484, 1e-12);
    /* ... causal, head dim 64 at 512: FA2 180, FA3 197; head dim 256 at 16k: FA3 642. */
    CHECK_NEAR(kernel_tflops(KERNEL_FA2, KERNEL_FWD, 64, 512), 180, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_FA3, KERNEL_FWD, 64, 512), 197, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_FA3, KERNEL_FWD, 256, 16384), 642, 1e-12);
    /* Figure 6, backward, head dim 128 at 8k: FA2 318, cuDNN 518, FA3 559; head dim 64 at 1k:
     * FA3 363. */
    CHECK_NEAR(kernel_tflops(KERNEL_FA2, KERNEL_BWD, 128, 8192), 318, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_CUDNN, KERNEL_BWD, 128, 8192), 518, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_FA3, KERNEL_BWD, 128, 8192), 559, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_FA3, KERNEL_BWD, 64, 1024), 363, 1e-12);
    /* Between points: log-linear; 3k lies between 2k (298) and 4k (319), head dim 96 between
     * 64 and 128; beyond the ends the end values hold (no backward at 256: 128's). */
    double mid = kernel_tflops(KERNEL_FA2, KERNEL_FWD, 128, 3072);
    CHECK(mid > 298 && mid < 319);
    double hd96 = kernel_tflops(KERNEL_FA3, KERNEL_FWD, 96, 2048);
    CHECK(hd96 > 371 && hd96 < 521);
    CHECK_NEAR(kernel_tflops(KERNEL_FA2, KERNEL_FWD, 128, 65536), 335, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_FA2, KERNEL_FWD, 128, 128), 191, 1e-12);
    CHECK_NEAR(kernel_tflops(KERNEL_CUDNN, KERNEL_BWD, 256, 4096), 499, 1e-12);
    /* No table for eager or an unresolved default. */
    CHECK(kernel_tflops(KERNEL_EAGER, KERNEL_FWD, 128, 2048) == 0);
    CHECK(kernel_tflops(KERNEL_DEFAULT, KERNEL_FWD, 128, 2048) == 0);
}

/* Which kernel each framework runs, read at their code (fw_*.c, kernels.c cite it). */
static void kernel_framework_defaults(void)
{
    hardware h100 = fixture_catalog_hw("h100-80gb"), a100 = fixture_catalog_hw("a100-80gb");
    CHECK(kernel_hopper(&h100));
    CHECK(!kernel_hopper(&a100));
    training t;
    training_init(&t);
    /* Megatron: FA2's rate by default (fw_megatron.c says why), on Hopper and before. */
    t.framework = framework_find("megatron");
    CHECK_EQ_INT(kernel_of(&t, &h100), KERNEL_FA2);
    CHECK_EQ_INT(kernel_of(&t, &a100), KERNEL_FA2);
    /* torchtitan/FSDP2 (SDPA, flash first), FSDP1 (HF flash_attention_2), DeepSpeed, generic: FA2. */
    const char *fa2[] = {"fsdp2", "fsdp", "deepspeed", "generic"};
    for (int i = 0; i < 4; i++) {
        t.framework = framework_find(fa2[i]);
        test_current = fa2[i];
        CHECK_EQ_INT(kernel_of(&t, &h100), KERNEL_FA2);
    }
    /* The flag wins; --eager-attention wins over both. */
    t.framework = framework_find("megatron");
    t.attention_kernel = KERNEL_FA3;
    CHECK_EQ_INT(kernel_of(&t, &h100), KERNEL_FA3);
    t.flash_attention = false;
    CHECK_EQ_INT(kernel_of(&t, &h100), KERNEL_EAGER);
    CHECK_STREQ(kernel_name(KERNEL_CUDNN), "cudnn");
}

/* The rates: FA2 at its long-sequence plateau is the profile's fraction (FA3 abstract's 35% on
 * H100); the others scale by their measured ratio over it; A100 keeps its profile fraction
 * (no Hopper table: validated A100 runs do not move); FA3 refuses non-Hopper GPUs. */
static void kernel_rates(void)
{
    hardware h100 = fixture_catalog_hw("h100-80gb"), a100 = fixture_catalog_hw("a100-80gb");
    training t;
    training_init(&t);
    t.framework = framework_find("fsdp2");
    kernel_rate r = kernel_attention(&h100, &t, 128, 16384);
    CHECK(r.measured);
    CHECK_NEAR(r.fwd, h100.attention_fraction, 1e-12);
    CHECK_NEAR(r.bwd, h100.attention_fraction, 1e-12);
    t.attention_kernel = KERNEL_FA3;
    r = kernel_attention(&h100, &t, 128, 2048);
    CHECK_NEAR(r.fwd, h100.attention_fraction * 521 / 335, 1e-12);
    CHECK_NEAR(r.bwd, h100.attention_fraction * 501 / 322, 1e-12);
    zs_error e = {0};
    CHECK(kernel_check(&h100, &t, &e) == ZS_OK);
    CHECK(kernel_check(&a100, &t, &e) == ZS_ERR_USAGE);
    CHECK(strstr(e.msg, "fa3") != NULL);
    t.attention_kernel = KERNEL_CUDNN;
    r = kernel_attention(&a100, &t, 128, 2048);
    CHECK(!r.measured);
    CHECK_NEAR(r.fwd, compute_attention_fraction(&a100), 1e-12);
    /* A kernel named with --eager-attention is refused. */
    t.flash_attention = false;
    CHECK(kernel_check(&h100, &t, &e) == ZS_ERR_USAGE);
    t.flash_attention = true;
    /* No attention shape (a hybrid stack, a --params model): the profile's fraction. */
    r = kernel_attention(&h100, &t, 0, 2048);
    CHECK_NEAR(r.fwd, h100.attention_fraction, 1e-12);
}

/* A flash kernel's backward is 2.5x its forward's FLOPs (five matmuls against two: it
 * recomputes the scores; Dao 2023, arXiv 2307.08691, section 4.1, and flash-attention's
 * benchmark flops(mode="bwd") = 2.5 f, the convention the measured rates are in); eager
 * attention keeps the scores and runs the forward's two GEMMs twice. A micro-batch of
 * attention alone on the A100 (no measured table: one fraction for both passes). */
static void kernel_backward_work(void)
{
    hardware a100 = fixture_catalog_hw("a100-80gb");
    training t;
    training_init(&t);
    t.framework = framework_find("fsdp2");
    t.precision = PREC_BF16;
    flops f = {.fwd_mb = 1e15,
        .attn_fwd_mb = 1e15,
        .softmax_fwd_mb = 1e15,
        .attn_head_dim = 128,
        .attn_span = 4096,
        .gemm_bwd = 1};
    double rate = a100.peak_bf16 * compute_attention_fraction(&a100);
    mb_time tm = compute_time(&a100, &t, &f, a100.peak_bf16, 1);
    CHECK_NEAR(tm.fwd, 1e15 / rate, 1e-9);
    CHECK_NEAR(tm.attn_bwd, 2.5e15 / rate, 1e-9);
    CHECK_NEAR(tm.bwd, 2.5e15 / rate, 1e-9);
    t.flash_attention = false;
    tm = compute_time(&a100, &t, &f, a100.peak_bf16, 1);
    CHECK_NEAR(tm.bwd, 2e15 / rate, 1e-9);
    CHECK_NEAR(tm.attn_bwd, 2e15 / rate, 1e-9);
    /* A scan (Mamba, DeltaNet) keeps 2x under flash: a quarter of the mixing is softmax. */
    t.flash_attention = true;
    f.softmax_fwd_mb = 0.25e15;
    tm = compute_time(&a100, &t, &f, a100.peak_bf16, 1);
    CHECK_NEAR(tm.attn_bwd, (0.25e15 * 2.5 + 0.75e15 * 2) / rate, 1e-9);
}

/* FlashAttention pads the head to the width of a compiled kernel (FA2: 32, 64, 96, 128, 160,
 * 192, 256, static_switch.h HEADDIM_SWITCH; FA3: 64, 96, 128, 192, 256, hopper/flash_api.cpp
 * round_up_headdim): Phi-2's 80-wide heads run the 96 kernel, 5/6 of its FLOPs useful. */
static void kernel_padded_heads(void)
{
    CHECK_NEAR(kernel_head_dim(KERNEL_FA2, 80), 96, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA2, 112), 128, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA2, 160), 160, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA2, 200), 256, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA3, 80), 96, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA3, 160), 192, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA3, 40), 64, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_CUDNN, 80), 80, 0);
    CHECK_NEAR(kernel_head_dim(KERNEL_FA2, 128), 128, 0);
    hardware h100 = fixture_catalog_hw("h100-80gb"), a100 = fixture_catalog_hw("a100-80gb");
    training t;
    training_init(&t);
    t.framework = framework_find("fsdp2");
    double f = compute_attention_fraction(&a100);
    kernel_rate r = kernel_attention(&a100, &t, 80, 2048);
    CHECK_NEAR(r.fwd, f * 80 / 96, 1e-12);
    CHECK_NEAR(r.bwd, f * 80 / 96, 1e-12);
    r = kernel_attention(&a100, &t, 128, 2048);
    CHECK_NEAR(r.fwd, f, 1e-12);
    /* On the H100 the 96 kernel's rate comes from the measured table, then the same 80/96. */
    r = kernel_attention(&h100, &t, 80, 16384);
    double fa2_96 = kernel_tflops(KERNEL_FA2, KERNEL_FWD, 96, 16384);
    CHECK_NEAR(r.fwd, h100.attention_fraction * fa2_96 / 335 * 80 / 96, 1e-12);
    t.attention_kernel = KERNEL_CUDNN;
    r = kernel_attention(&h100, &t, 80, 16384);
    double cudnn_80 = kernel_tflops(KERNEL_CUDNN, KERNEL_FWD, 80, 16384);
    CHECK_NEAR(r.fwd, h100.attention_fraction * cudnn_80 / 335, 1e-12);
}

void suite_kernels(void)
{
    RUN_TEST(kernel_measured_points);
    RUN_TEST(kernel_framework_defaults);
    RUN_TEST(kernel_rates);
    RUN_TEST(kernel_backward_work);
    RUN_TEST(kernel_padded_heads);
}
