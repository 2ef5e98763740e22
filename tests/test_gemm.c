/* test_gemm.c -- the GEMM table against XLA's measured points, a step's GEMMs by hand, the fallback. */
#include <math.h>
#include <stdio.h>

#include "analysis/plan_cache.h"
#include "core/compute.h"
#include "core/gemm.h"
#include "core/sim.h"
#include "fixture_hw.h"
#include "io/model_json.h"
#include "test.h"

/* XLA's measured sm_90 BF16 rates, TFLOP/s, as the source prints them (FLOP/s / 1e12):
 * tensorflow/tensorflow@372d578b third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h,
 * entries b: 1, "bf16xbf16->bf16", written (m, n, k) as there; rows = n, cols = m here. */
typedef struct xla_point {
    double m, n, k, tflops;
} xla_point;

static const xla_point xla[] = {
    {4096, 4096, 4096, 783.328793548203}, /* the table's largest */
    {256, 256, 256, 6.452775384615},      /* and smallest */
    {256, 4096, 2048, 324.589426844014},  /* m and n swapped: the orientation */
    {4096, 256, 2048, 304.694047673098},
    {1024, 1024, 2048, 349.981037809648},
    {2048, 1024, 1024, 373.345557719054},
    {1024, 2048, 1024, 373.345557719054},
    {4096, 1024, 2048, 631.984593290170},
    {2048, 1024, 4096, 653.127630170316},
    {4096, 2048, 1024, 593.227527071823},
    {2048, 4096, 1024, 594.212409518539},
    {512, 256, 4096, 91.056803256445},
    {1024, 512, 512, 82.241254901960},
};
#define XLA_REF 783.328793548203
#define NXLA (int)(sizeof xla / sizeof xla[0])

/* The measured points come back as the source printed them (the table keeps 0.1 TFLOP/s). */
static void gemm_measured_points(void)
{
    for (int i = 0; i < NXLA; i++) {
        double got = gemm_tflops(xla[i].n, xla[i].m, xla[i].k);
        test_report(fabs(got - xla[i].tflops) <= 0.05, __FILE__, __LINE__,
            "gemm_tflops(rows %g, cols %g, k %g) = %.4f, source %.4f", xla[i].n, xla[i].m, xla[i].k, got,
            xla[i].tflops);
    }
    /* Held above 4096 on every axis; below 256 the time of the 256 GEMM (rate x size / 256). */
    CHECK_NEAR(gemm_tflops(65536, 8192, 16384), gemm_tflops(4096, 4096, 4096), 1e-15);
    CHECK_NEAR(gemm_tflops(128, 256, 256), gemm_tflops(256, 256, 256) / 2, 1e-12);
    CHECK(gemm_tflops(0, 256, 256) == 0);
    /* Between points: inside the octave's two measured values. */
    double mid = gemm_tflops(3072, 4096, 4096);
    CHECK(mid > 758.4 && mid < 783.3);
}

/* The source rises along every axis (all 300 neighbouring pairs of its 125 b = 1 points), and so
 * does the interpolation, at sizes on and between the points. */
static void gemm_monotone(void)
{
    static const double other[] = {256, 700, 1024, 3000, 4096, 10000};
    int bad = 0;
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double prev = 0;
                for (double x = 100; x <= 9000; x *= 1.07) {
                    double d[3];
                    for (int b = 0, q = 0; b < 3; b++) d[b] = b == a ? x : q++ == 0 ? other[i] : other[j];
                    double r = gemm_tflops(d[0], d[1], d[2]);
                    if (r < prev) bad++;
                    prev = r;
                }
            }
    CHECK_EQ_INT(bad, 0);
}

/* FP8 read at half the contraction (gemm.c): twice the BF16 rate of the K / 2 GEMM against
 * Azure's measured FP8 cuBLASLt GEMMs on an H100 SXM (Azure/AI-benchmarking-guide@f350e7e6
 * "Azure Results/ND_H100_v5_results.md": 1024^3 274.1, 2048^3 1011.3 TFLOP/s). */
static void gemm_fp8_reading(void)
{
    CHECK_NEAR(2 * gemm_tflops(1024, 1024, 512), 274.1, 0.10);
    CHECK_NEAR(2 * gemm_tflops(2048, 2048, 1024), 1011.3, 0.10);
}

/* A model whose every GEMM falls on a measured point at TP 2 and 1024 tokens: h 2048, MHA with
 * separate q, k, v (1024 columns each after TP), a plain 8192-wide MLP, vocabulary 32768. */
static model grid_model(void)
{
    model m = {0};
    snprintf(m.model_type, sizeof m.model_type, "llama");
    m.hidden_size = 2048;
    m.num_layers = 4;
    m.num_heads = 16;
    m.num_kv_heads = 16;
    m.head_dim = 128;
    m.intermediate_size = 8192;
    m.vocab_size = 32768;
    m.max_positions = 4096;
    m.norm = NORM_RMSNORM;
    m.pos = POS_ROTARY;
    return m;
}

/* Weighted harmonic mean by hand: each shape's weight count T K N, its three passes at the
 * source's rates (forward contracts K, dgrad N, wgrad T). */
static void gemm_step_by_hand(void)
{
    model m = grid_model();
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware h100 = fixture_catalog_hw("h100-80gb");
    training t;
    training_init(&t);
    t.gpus = 8;
    t.tp = 2;
    t.seq_len = 1024;
    t.micro_batch = 1;
    t.gemm_shapes = 1;
    /* {weight, fwd, dgrad, wgrad}: q/k/v (x12: 3 per block), attn_out, mlp_up, mlp_down, head. */
    const double T = 1024, L = 4;
    const double g[5][4] = {
        {3 * L * T * 2048 * 1024, 349.981037809648, 373.345557719054, 373.345557719054},
        {L * T * 1024 * 2048, 373.345557719054, 349.981037809648, 373.345557719054},
        {L * T * 2048 * 4096, 631.984593290170, 653.127630170316, 593.227527071823},
        {L * T * 4096 * 2048, 653.127630170316, 631.984593290170, 594.212409518539},
        {T * 2048 * 16384, 631.984593290170, 653.127630170316, 593.227527071823},
    };
    double w = 0, tf = 0, tb = 0;
    for (int i = 0; i < 5; i++) {
        w += g[i][0];
        tf += g[i][0] / g[i][1];
        tb += g[i][0] / g[i][2] + g[i][0] / g[i][3];
    }
    double fwd = w / tf / XLA_REF, bwd = 2 * w / tb / XLA_REF;
    double head = 3 / (1 / g[4][1] + 1 / g[4][2] + 1 / g[4][3]) / XLA_REF;
    gemm_rates r = gemm_step(&m, &pc, &h100, &t, 2);
    CHECK(r.measured);
    CHECK_NEAR(r.fwd, fwd, 1e-3);
    CHECK_NEAR(r.bwd, bwd, 1e-3);
    CHECK_NEAR(r.head, head, 1e-3);
    gemm_shape sh[GEMM_SHAPES_MAX];
    CHECK_EQ_INT(gemm_list(&m, &pc, &t, 2, sh), 6); /* q, "k, v", attn_out, mlp_up, mlp_down, head */
    /* The evaluation takes them: GEMMs at matmul_max_fraction x the framework's (generic 1) x the
     * forward mean, backward GEMMs fwd / bwd slower per FLOP. */
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &h100, &t, &e) == 0);
    CHECK_NEAR(in.gemm_efficiency, h100.matmul_max_fraction * fwd, 1e-3);
    CHECK_NEAR(in.fl.gemm_bwd, fwd / bwd, 1e-3);
    /* The LM head's seconds, one shape by hand: 2 T h V/t FLOPs per pass at peak x
     * matmul_max_fraction x its rate over the 4096^3 one, plus the loss's 16 V/t bytes per token
     * three times at the HBM rate. */
    double head_flops = 2 * T * 2048 * 16384, peak = h100.peak_bf16, mmf = h100.matmul_max_fraction;
    double want = 3 * 16 * 16384 * T / (h100.hbm_bandwidth * h100.hbm_fraction);
    for (int p = 1; p <= 3; p++) want += head_flops / (peak * mmf * g[4][p] / XLA_REF);
    CHECK_NEAR(compute_head_seconds(&m, &h100, &t, peak, mmf * r.head), want, 1e-3);
}

/* Without a table (A100, fp32, or the flag off) the answer is the single-W formula as before:
 * matmul_max_fraction x W / (W + matmul_half_flops), W = 2 (b s) h i / t, by hand. */
static void gemm_fallback(void)
{
    model m = grid_model();
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware a100 = fixture_catalog_hw("a100-80gb"), h100 = fixture_catalog_hw("h100-80gb");
    training t;
    training_init(&t);
    t.gpus = 8;
    t.tp = 2;
    t.seq_len = 1024;
    t.gemm_shapes = 1;
    const double W = 2.0 * 1024 * 2048 * 8192 / 2;
    sim_input in, off;
    CHECK(sim_prepare(&in, &m, &pc, &a100, &t, &e) == 0);
    CHECK_NEAR(in.gemm_efficiency, a100.matmul_max_fraction * W / (W + a100.matmul_half_flops), 1e-12);
    CHECK(in.fl.gemm_bwd == 1);
    CHECK(!gemm_step(&m, &pc, &a100, &t, 2).measured);
    t.gemm_shapes = 0;
    CHECK(sim_prepare(&off, &m, &pc, &a100, &t, &e) == 0);
    CHECK(off.mb.fwd == in.mb.fwd && off.mb.bwd == in.mb.bwd); /* bit for bit */
    CHECK(sim_prepare(&in, &m, &pc, &h100, &t, &e) == 0);
    CHECK_NEAR(in.gemm_efficiency, h100.matmul_max_fraction * W / (W + h100.matmul_half_flops), 1e-12);
    t.gemm_shapes = 1;
    t.precision = PREC_FP32;
    CHECK(!gemm_measured(&h100, &t));
    t.precision = PREC_FP8;
    CHECK(gemm_measured(&h100, &t));
}

/* With GEMMs by shape a routed expert's GEMM has T k EP / E rows (gemm.c walk_ffn): for
 * Qwen3-30B-A3B (E 128, k 8) at 4096 tokens, EP 1 gives 256 rows and EP 8 2048, so the
 * rates differ and plan's key for them must too (plan_cache.c). A plan once kept EP 1's for
 * EP 8. Without shapes the rates do not read EP and the keys agree. */
static void gemm_rates_read_ep(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    bool loaded =
        model_load("models/qwen3-30b-a3b.json", &m, &e) == ZS_OK && model_count(&m, 1e5, &pc, &e) == ZS_OK;
    CHECK(loaded);
    if (!loaded) return;
    hardware h100 = fixture_catalog_hw("h100-80gb");
    training t;
    training_init(&t);
    t.gpus = 8;
    t.seq_len = 4096;
    t.gemm_shapes = 1;
    training t8 = t;
    t8.ep = 8;
    sim_input a, b;
    bool ok = sim_prepare_lazy(&a, &m, &pc, &h100, &t, &e) == ZS_OK &&
        sim_prepare_lazy(&b, &m, &pc, &h100, &t8, &e) == ZS_OK;
    CHECK(ok);
    if (!ok) return;
    CHECK(b.gemm_efficiency > a.gemm_efficiency * 1.01);
    plan_key k1, k8;
    CHECK(plan_cache_key(&t, 0, &k1) && plan_cache_key(&t8, 0, &k8));
    CHECK(k1.w[0] != k8.w[0] || k1.w[1] != k8.w[1]);
    t.gemm_shapes = t8.gemm_shapes = 0;
    CHECK(plan_cache_key(&t, 0, &k1) && plan_cache_key(&t8, 0, &k8));
    CHECK(k1.w[0] == k8.w[0] && k1.w[1] == k8.w[1]);
}

void suite_gemm(void)
{
    RUN_TEST(gemm_measured_points);
    RUN_TEST(gemm_monotone);
    RUN_TEST(gemm_fp8_reading);
    RUN_TEST(gemm_step_by_hand);
    RUN_TEST(gemm_fallback);
    RUN_TEST(gemm_rates_read_ep);
}
