/* test_memory.c -- the memory model against the ZeRO paper's Table 1 and Korthikanti's Table 2. */
#include <stdlib.h>

#include "core/compute.h"
#include "core/framework.h"
#include "core/memory.h"
#include "io/model_json.h"
#include "core/sim.h"
#include "core/strategy.h"
#include "fixture_hw.h"
#include "test.h"

/* A V100-like system; memory tests read only hbm_bytes, the rest keeps the step model finite. */
static hardware test_hw(void) { return fixture_hw(FIXTURE_V100_NODE); }

/* Model states in GB (1e9 bytes) from the ZeRO paper (Rajbhandari et al., SC20, arXiv
 * 1910.02054), Table 1: mixed-precision Adam, K = 12, for DP degree N. The paper rounds
 * decimals and truncates whole numbers (4187.5 prints 4187), so a cell must lie within one
 * unit of its last printed digit. */
static void zero_table1(void)
{
    static const struct { double psi; int dp; const char *cells[4]; } rows[] = {
        {7.5e9, 1, {"120", "120", "120", "120"}},
        {7.5e9, 4, {"120", "52.5", "41.25", "30"}},
        {7.5e9, 16, {"120", "35.6", "21.6", "7.5"}},
        {7.5e9, 64, {"120", "31.4", "16.6", "1.88"}},
        {7.5e9, 256, {"120", "30.4", "15.4", "0.47"}},
        {7.5e9, 1024, {"120", "30.1", "15.1", "0.12"}},
        {128e9, 4, {"2048", "896", "704", "512"}},
        {128e9, 16, {"2048", "608", "368", "128"}},
        {128e9, 64, {"2048", "536", "284", "32"}},
        {128e9, 256, {"2048", "518", "263", "8"}},
        {128e9, 1024, {"2048", "513", "257", "2"}},
        {1e12, 4, {"16000", "7000", "5500", "4000"}},
        {1e12, 16, {"16000", "4750", "2875", "1000"}},
        {1e12, 64, {"16000", "4187", "2218", "250"}},
        {1e12, 256, {"16000", "4046", "2054", "62.5"}},
        {1e12, 1024, {"16000", "4011", "2013", "15.6"}},
    };
    hardware hw = test_hw();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        model m;
        param_counts pc;
        model_from_params(&m, &pc, rows[i].psi, 0);
        training t;
        training_init(&t);
        t.gpus = rows[i].dp;
        t.precision = PREC_FP16;
        t.optimizer = OPT_ADAM;
        sim_input in;
        zs_error e = {0};
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        for (int s = 0; s < 4; s++) {
            result r;
            sim_run(&in, strategies[s], 0, &r);
            const char *cell = rows[i].cells[s];
            const char *dot = strchr(cell, '.');
            double unit = dot ? pow(10, -(double)strlen(dot + 1)) : 1;
            double want = atof(cell), got = r.mem.model_states / 1e9;
            test_report(fabs(got - want) < unit, __FILE__, __LINE__,
                        "ZeRO Table 1: psi %.3g N %d %s = %.4f GB, paper prints %s", rows[i].psi,
                        rows[i].dp, strategies[s]->name, got, cell);
        }
    }
}

/* A GPT-style block as Korthikanti et al. assume it: MHA, 4h MLP with GeLU, dropout,
 * LayerNorm, 16-bit activations, attention matrix stored (no flash attention). */
static model gpt_block(void)
{
    model m = {0};
    snprintf(m.model_type, sizeof m.model_type, "transformer");
    m.hidden_size = 12288; m.num_layers = 96; m.num_heads = 96; m.num_kv_heads = 96;
    m.head_dim = 128; m.intermediate_size = 4 * 12288; m.vocab_size = 51200;
    m.max_positions = 2048; m.dropout = true; m.norm = NORM_LAYERNORM; m.norm_bias = true;
    m.pos = POS_LEARNED; m.tied_embeddings = true; m.fused_qkv = true;
    m.qkv_bias = m.out_bias = m.mlp_bias = true;
    return m;
}

/* Korthikanti et al. 2022 (arXiv 2205.05198), Table 2: activation memory per layer. */
static void korthikanti_table2(void)
{
    model m = gpt_block();
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = test_hw();
    const double s = 2048, b = 1, h = 12288, a = 96, t8 = 8;
    const struct { int tp; bool sp; ckpt_kind ck; double want; const char *row; } rows[] = {
        {1, false, CKPT_NONE, s * b * h * (34 + 5 * a * s / h), "no parallelism"},
        {8, false, CKPT_NONE, s * b * h * (10 + 24 / t8 + 5 * a * s / (h * t8)), "tensor parallel"},
        {8, true, CKPT_NONE, s * b * h / t8 * (34 + 5 * a * s / h), "tensor + sequence parallel"},
        {8, false, CKPT_SELECTIVE, s * b * h * (10 + 24 / t8), "tensor parallel + selective"},
        {8, true, CKPT_SELECTIVE, s * b * h * 34 / t8, "tensor + sequence parallel + selective"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        training t;
        training_init(&t);
        t.gpus = rows[i].tp;
        t.tp = rows[i].tp;
        t.sequence_parallel = rows[i].sp;
        t.checkpointing = rows[i].ck;
        t.flash_attention = false;
        sim_input in;
        test_current = rows[i].row;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        CHECK_NEAR(memory_layer_activations(&in, rows[i].ck != CKPT_SELECTIVE), rows[i].want, 1e-12);
    }
    /* Full recomputation keeps 2 s b h per layer: one more layer adds exactly that. */
    training t;
    training_init(&t);
    t.checkpointing = CKPT_FULL;
    t.flash_attention = false;
    sim_input in;
    result r1, r2;
    m.num_layers = 10;
    CHECK(model_count(&m, t.persistence_threshold, &pc, &e) == 0);
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r1);
    m.num_layers = 11;
    CHECK(model_count(&m, t.persistence_threshold, &pc, &e) == 0);
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r2);
    CHECK_NEAR(r2.mem.activations - r1.mem.activations, 2 * s * b * h, 1e-12);
}

/* 1F1B: the first stage holds p micro-batches of L/p layers, i.e. L layers' worth
 * (Korthikanti section 4.2.3), and interleaving multiplies it by 1 + (p-1)/(p m). */
static void pipeline_inflight(void)
{
    model m = gpt_block();
    m.dropout = false; /* isolate block activations from the embedding dropout mask */
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = test_hw();
    training t;
    training_init(&t);
    t.gpus = 8; t.pp = 8; t.grad_accum = 16;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_ddp, 0, &r);
    double per_layer = memory_layer_activations(&in, true);
    CHECK_NEAR(r.mem.activations, per_layer * 96, 1e-12);
    t.virtual_stages = 4;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK_NEAR(r.mem.activations, per_layer * 96 * (1 + 7.0 / 32), 1e-12);
    /* Megatron-Core's warm-up, 2 (p - i - 1) + (v - 1) N chunk micro-batches plus the one in
     * flight (schedules.py get_pp_rank_microbatches), in chunks of L / (p v) = 3 layers: the
     * last stage (i = 7, N = p = 8) holds 3 x 8 + 1 = 25 chunks = 75 layers' worth, not the
     * 12 x 1.22 of Korthikanti's first-stage factor; with N = 16 micro-batches per group the
     * first stage holds 14 + 48 + 1 = 63 of the m v = 64 chunks. */
    in.stage.index = 7;
    CHECK_NEAR(memory_inflight(&in) * 12, 75, 1e-12);
    t.microbatch_group = 16;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK_NEAR(r.mem.activations, per_layer * 63 * 3, 1e-12);
    t.microbatch_group = 0;
    /* Fewer micro-batches than stages: only m are in flight. */
    t.virtual_stages = 1;
    t.grad_accum = 2;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK_NEAR(r.mem.activations, per_layer * 12 * 2, 1e-12);
}

/* Uneven stages (Megatron-Core's --decoder-first/last-pipeline-num-layers): 96 layers on 8
 * stages with 9 on each end leave (96 - 18) / 6 = 13 per middle stage. Under 1F1B stage i holds
 * min(p - i, m) micro-batches (Narayanan et al. 2021 section 2.2): stage 0 9 x 8 = 72 layers'
 * worth, stage 1 13 x 7 = 91, the last 9 and the head; stage 1 also holds the most parameters
 * (13 blocks against 9 + the embedding), so it is the peak. */
static void pipeline_uneven_memory(void)
{
    model m = gpt_block();
    m.dropout = false;
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = test_hw();
    training t;
    training_init(&t);
    t.gpus = 8; t.pp = 8; t.grad_accum = 16;
    t.pp_first_layers = t.pp_last_layers = 9;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    CHECK_EQ_INT(in.stage_layers, 13);
    result r;
    sim_run(&in, &strat_ddp, 0, &r);
    double per_layer = memory_layer_activations(&in, true);
    CHECK_NEAR(r.mem.activations, per_layer * 91, 1e-12);
    CHECK_NEAR(r.mem.parameters, 2 * 13 * pc.per_layer, 1e-12);
    CHECK_NEAR(r.mem.logits, 0, 1e-12);
    /* Two stages (no middle): the first holds 2 micro-batches of its layers, the last one of
     * its layers plus the head's inputs and the fp32 logits. 60 + 36: the first holds 120
     * layers' worth and the most parameters; 40 + 56: the last's 16 more blocks of states (16
     * bytes a parameter under DDP) outweigh the first's 24 more layers of activations. */
    t.pp = 2; t.gpus = 2; t.pp_first_layers = 60; t.pp_last_layers = 36;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK_NEAR(r.mem.activations, per_layer * 120, 1e-12);
    CHECK_NEAR(r.mem.logits, 0, 1e-12);
    t.pp_first_layers = 40; t.pp_last_layers = 56;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK_NEAR(r.mem.logits, 4.0 * 2048 * 51200, 1e-12);
    CHECK_NEAR(r.mem.activations, per_layer * 56 + 2 * 2.0 * 2048 * 12288, 1e-12);
    /* A split Megatron-Core refuses: 96 - 9 = 87 layers over 7 stages. */
    t.pp = 8; t.gpus = 8; t.pp_first_layers = 9; t.pp_last_layers = 0;
    e.quiet = true;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == ZS_ERR_USAGE);
}

/* The slowest stage sets the pace: a step's compute + bubble is (m - 1) T_max + sum_i T_i
 * (DAPPLE, arXiv 2007.01045 section 4.2), the stages' times built here from the per-layer time
 * and the head's: 16 layers on 4 stages as 3 + 5 + 5 + 3. */
static void pipeline_pace_step(void)
{
    model m = gpt_block();
    m.num_layers = 16;
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = test_hw();
    training t;
    training_init(&t);
    t.gpus = 4; t.pp = 4; t.grad_accum = 8;
    t.pp_first_layers = t.pp_last_layers = 3;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_ddp, 0, &r);
    double mean = in.mb.fwd + in.mb.bwd, total = 4 * mean;
    double head = compute_head_seconds(&m, &hw, &t, in.peak, in.gemm_efficiency);
    double tau = (total - head) / 16;
    double stages[4] = {3 * tau, 5 * tau, 5 * tau, 3 * tau + head}, tmax = 0, sum = 0;
    for (int i = 0; i < 4; i++) {
        tmax = stages[i] > tmax ? stages[i] : tmax;
        sum += stages[i];
    }
    CHECK(head > 0);
    CHECK_NEAR(r.step.compute + r.step.bubble, 7 * tmax + sum, 1e-9);
    CHECK_NEAR(r.step.compute, 8 * tmax, 1e-9);
    /* Even stages of a model without a head cost would give the textbook (p - 1) / m bubble;
     * with the head on the last stage the bubble is smaller than (p - 1) T_mean and the step
     * longer than (m + p - 1) T_mean. */
    t.pp_first_layers = t.pp_last_layers = 0;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    mean = in.mb.fwd + in.mb.bwd;
    CHECK(r.step.compute + r.step.bubble > 11 * mean);
    CHECK(r.step.bubble < 3 * mean);
}

/* Properties that hold whatever the constants: the total is the sum of its parts, ZeRO
 * stages never raise model states, and sharded states fall as GPUs are added. */
static void invariants(void)
{
    model m = gpt_block();
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 1e5, &pc, &e) == 0);
    hardware hw = test_hw();
    hw.cuda_context_bytes = 1e9;
    hw.allocator_fraction = 0.1;
    double prev3 = 1e300;
    for (int g = 1; g <= 4096; g *= 4) {
        training t;
        training_init(&t);
        t.gpus = g;
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        double prev = 1e300;
        for (int s = 0; strategies[s]; s++) {
            result r;
            sim_run(&in, strategies[s], 0, &r);
            const memory *x = &r.mem;
            double sum = x->model_states + x->activations + x->logits + x->comm_buffers +
                         x->gathered_params + x->cuda_context + x->allocator;
            CHECK_NEAR(x->total, sum, 1e-12);
            CHECK(x->model_states <= prev * (1 + 1e-12));
            prev = x->model_states;
            if (s == 3) {
                CHECK(x->model_states <= prev3);
                prev3 = x->model_states;
            }
        }
    }
}

/* Offload moves optimizer states (ZeRO-Offload) and parameters (ZeRO-Infinity) off the GPU. */
static void offload(void)
{
    model m;
    param_counts pc;
    model_from_params(&m, &pc, 10e9, 1e8);
    hardware hw = test_hw();
    training t;
    training_init(&t);
    t.gpus = 8;
    t.offload_optimizer = OFFLOAD_CPU;
    sim_input in;
    zs_error e = {0};
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK(!r.applicable);
    sim_run(&in, &strat_zero2, 0, &r);
    CHECK(r.applicable);
    CHECK_EQ_INT(r.mem.optimizer_states, 0);
    CHECK_NEAR(r.mem.parameters, 2 * 10e9, 1e-12);
    /* fp32 master + m + v + fp32 gradient partition = 16 bytes per parameter / N on host */
    CHECK_NEAR(r.mem.host_per_gpu, 16 * 10e9 / 8, 1e-12);
    t.offload_params = OFFLOAD_CPU;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_zero3, 0, &r);
    CHECK_EQ_INT(r.mem.parameters, 0);
    CHECK_NEAR(r.mem.host_per_gpu, 18 * 10e9 / 8, 1e-12);
}

/* NVMe optimizer offload (ZeRO-Infinity, arXiv 2104.07857): each step reads the fp32 master,
 * both Adam moments and the fp32 gradient (4 + 8 + 4 = 16 B per parameter: the ZeRO paper's
 * K = 12, arXiv 1910.02054 section 3.1, plus the 4-byte gradient ZeRO-Offload keeps on the
 * host, arXiv 2101.06840 section 4) and writes master and moments back (12 B), at the node's
 * NVMe bandwidth shared by its GPUs. Expected times are computed here from those byte counts
 * and the profile's bandwidths, not from the simulator. */
static void nvme_offload(void)
{
    model m;
    param_counts pc;
    model_from_params(&m, &pc, 10e9, 1e8);
    hardware hw = test_hw();
    hw.gpus_per_node = 8;
    hw.nvme_bandwidth = 16e9;             /* bytes/s per node: 2e9 per GPU */
    training t;
    training_init(&t);
    t.gpus = 8;
    t.offload_optimizer = OFFLOAD_CPU;
    sim_input in;
    zs_error e = {0};
    result cpu, nvme;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_zero2, 0, &cpu);
    t.offload_optimizer = OFFLOAD_NVME;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_zero2, 0, &nvme);
    double shard = 10e9 / 8, per_gpu = 16e9 / 8;
    double io = (16 + 12) * shard / per_gpu;          /* 17.5 s */
    double cpu_step = 28 * shard / (200e9 / 8);        /* Adam's 28 B at the host share: 1.4 s */
    CHECK_NEAR(cpu.step.optimizer, cpu_step, 1e-9);
    /* DeepSpeed's default (pipeline_read/write false): I/O and step in series. */
    CHECK_NEAR(nvme.step.optimizer, cpu_step + io, 1e-9);
    CHECK_NEAR(nvme.step.total - cpu.step.total, io, 1e-6);
    /* Pipelined read and write over k = ceil(1.25e9 / 1e9) = 2 sub-groups: the first read and
     * last write (one sub-group's I/O) and one sub-group's step are exposed, the rest overlaps. */
    t.nvme_pipeline_read = t.nvme_pipeline_write = true;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_zero2, 0, &nvme);
    CHECK_NEAR(nvme.step.optimizer, io / 2 + cpu_step / 2 + fmax(io, cpu_step) / 2, 1e-9);
    /* A profile without NVMe bandwidth cannot time it: a usage error, not a free transfer. */
    hw.nvme_bandwidth = 0;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == ZS_ERR_USAGE && strstr(e.msg, "nvme_bandwidth"));
}

/* A tiny hand-built hybrid stack: `nd` gated-DeltaNet, `nm` Mamba-2 and `na` attention layers,
 * each followed by a SwiGLU MLP (no dropout, RMSNorm, rotary). */
static model hybrid_block(int64_t nd, int64_t nm, int64_t na)
{
    model m = {0};
    snprintf(m.model_type, sizeof m.model_type, "qwen3_next");
    m.hidden_size = 256; m.num_heads = 4; m.num_kv_heads = 2; m.head_dim = 64;
    m.intermediate_size = 512; m.vocab_size = 1000; m.max_positions = 65536;
    m.gated_mlp = true; m.norm = NORM_RMSNORM; m.pos = POS_ROTARY;
    m.lin_k_heads = 2; m.lin_v_heads = 4; m.lin_k_dim = 32; m.lin_v_dim = 48; m.lin_conv = 4;
    m.ssm_inner = 512; m.ssm_state = 16; m.ssm_heads = 8; m.ssm_groups = 2; m.ssm_conv = 4;
    m.ssm_chunk = 64; m.ssm_norm = true; m.ssm_conv_bias = true;
    const int64_t n[3] = {nd, nm, na};
    const mixer_kind mk[3] = {MIX_DELTANET, MIX_MAMBA2, MIX_ATTENTION};
    for (int k = 0; k < 3; k++)
        if (n[k] > 0)
            m.classes[m.nclass++] =
                (layer_class){.mixer = mk[k], .mixer2 = MIX_NONE, .ffn = BLOCK_DENSE, .count = n[k]};
    m.num_layers = nd + nm + na;
    return m;
}

/* The class of pc holding `mix`; -1 when none. */
static int class_of(const param_counts *pc, mixer_kind mix)
{
    for (int c = 0; c < pc->nclass; c++)
        if (pc->mixer[c] == mix && pc->nblocks[c] > 0) return c;
    return -1;
}

/* Sum of a block's terms whose description starts with `prefix`, and how many there are. */
static double terms_sum(const act_term *t, int n, const char *prefix, int *count)
{
    double sum = 0;
    *count = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(t[i].what, prefix, strlen(prefix)) == 0) sum += t[i].bytes, (*count)++;
    return sum;
}

/* Each DeltaNet and Mamba-2 term against the formulas stated in src/core/mix_deltanet.c and
 * mix_mamba.c, computed here from the dimensions: bf16 (e = e8 = 2), s 4096, b 2, t 2. */
static void hybrid_terms(void)
{
    model m = hybrid_block(2, 1, 1);
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = fixture_hw(FIXTURE_H100_NODE);
    training t;
    training_init(&t);
    t.gpus = t.tp = 2;
    t.seq_len = 4096;
    t.micro_batch = 2;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    const double s = 4096, b = 2, tp = 2, E = 2, h = 256;
    act_term out[ACT_TERMS_MAX];
    int c = class_of(&pc, MIX_DELTANET), n;
    CHECK(c >= 0);
    if (c < 0) return;
    n = memory_block_terms(&in, c, false, true, out);
    /* kd = nk dk = 64, vd = nv dv = 192, nv = 4, dk 32, dv 48, C = 64 */
    /* What flash-linear-attention's ChunkGatedDeltaRuleFunction saves (q, k, v, g, beta, A,
     * q/k rstd) and what the conv, gates, gated norm and out_proj around it keep: */
    const double kd = 64, vd = 192, nv = 4, nk = 2;
    const double want_d[7] = {
        E * s * b * (2 * kd + vd) / tp,               /* conv input: in_proj's q, k, v */
        E * s * b * (2 * kd + vd) / tp,               /* kernel inputs after the conv */
        E * s * b * (vd + 2 * nv) / tp,               /* z, a, b */
        s * b * ((4 + E) * nv + 8 * nk) / tp,         /* fp32 decay g, beta, fp32 q/k rstd */
        E * s * b * nv * 64 / tp,                     /* WY transform A: C = 64 values a head */
        E * s * b * vd / tp,                          /* kernel output */
        E * s * b * vd / tp,                          /* out_proj input */
    };
    int k = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(out[i].what, "DeltaNet", 8) == 0 && k < 7) CHECK_NEAR(out[i].bytes, want_d[k++], 1e-12);
    CHECK_EQ_INT(k, 7);
    /* The block's MLP (SwiGLU: 3 e + e8 per intermediate element) and its two norms. */
    int cnt;
    CHECK_NEAR(terms_sum(out, n, "MLP", &cnt), (3 * E + E) * s * b * 512 / tp, 1e-12);
    CHECK_NEAR(terms_sum(out, n, "norm", &cnt), s * b * h * (E * 2 + E * 2), 1e-12);

    c = class_of(&pc, MIX_MAMBA2);
    CHECK(c >= 0);
    if (c < 0) return;
    n = memory_block_terms(&in, c, false, true, out);
    /* d_inner 512, H 8, G 2, N 16: conv = d_inner + 2 G N = 576; chunk Q 64 */
    /* What mamba_ssm's MambaSplitConv1dScanCombinedFn saves (zxbcdt, out_x, rstd); the conv,
     * dt, chunk states and out_proj's input are recomputed in backward. */
    const double di = 512, nh = 8, G = 2, conv = 512 + 2 * 2 * 16;
    const double want_m[3] = {
        E * s * b * (di + conv + nh) / tp, /* in_proj output z, x, B, C, dt */
        E * s * b * di / tp,               /* scan output before the gated norm */
        4 * s * b * G / tp,                /* the norm's fp32 statistics per group */
    };
    k = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(out[i].what, "Mamba-2", 7) == 0 && k < 3) CHECK_NEAR(out[i].bytes, want_m[k++], 1e-12);
    CHECK_EQ_INT(k, 3);
}

/* Mixing FLOPs per token (model convention) and as executed, against the formulas in the
 * mixers' comments: DeltaNet nv (2 C (3 dk + 2 dv) + 6 dk dv) + 2 d_conv (2 kd + vd), its
 * intra-chunk part half executed; Mamba-2 2 Q (N G + P H) + 4 N P H + 2 d_conv (d_inner +
 * 2 G N), intra-chunk half executed; flash attention 4 s q, half executed (causal). */
static void hybrid_flops(void)
{
    model m = hybrid_block(2, 1, 1);
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    training t;
    training_init(&t);
    t.seq_len = 4096;
    flops f;
    compute_flops(&m, &pc, &t, &f);
    const double s = 4096, C = 64, nv = 4, dk = 32, dv = 48, kd = 64, vd = 192;
    double d_intra = nv * 2 * C * (3 * dk + 2 * dv), d_rest = nv * 6 * dk * dv + 2 * 4 * (2 * kd + vd);
    const double Q = 64, N = 16, G = 2, H = 8, P = 512 / 8;
    double m_intra = 2 * Q * (N * G + P * H), m_rest = 4 * N * P * H + 2 * 4 * (512 + 2 * G * N);
    double q = 4 * 64, attn = 2 * s * (q + q);
    CHECK_NEAR(f.attention, 2 * (d_intra + d_rest) + (m_intra + m_rest) + attn, 1e-12);
    double exec = 2 * (d_intra / 2 + d_rest) + (m_intra / 2 + m_rest) + attn / 2;
    CHECK_NEAR(f.attn_fwd_mb, exec * s, 1e-12); /* one sequence of s tokens, no model parallelism */
}

/* A 3:1 DeltaNet:attention stack: with flash attention every term is linear in s, so the
 * activations at 8192 are exactly twice those at 4096 (the DeltaNet terms themselves double);
 * with eager attention only the attention layers' a s^2 b e / t score term grows faster. */
static void hybrid_seq_scaling(void)
{
    model m = hybrid_block(3, 0, 1);
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = fixture_hw(FIXTURE_H100_NODE);
    double act[2][2], delta[2];
    for (int flash = 0; flash < 2; flash++)
        for (int k = 0; k < 2; k++) {
            training t;
            training_init(&t);
            t.seq_len = k ? 8192 : 4096;
            t.flash_attention = flash;
            sim_input in;
            CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
            act[flash][k] = memory_layer_activations(&in, true);
            if (flash) {
                act_term out[ACT_TERMS_MAX];
                int n = memory_block_terms(&in, class_of(&pc, MIX_DELTANET), false, true, out), cnt;
                delta[k] = terms_sum(out, n, "DeltaNet", &cnt);
                CHECK_EQ_INT(cnt, 7);
            }
        }
    CHECK_NEAR(delta[1], 2 * delta[0], 1e-12);
    CHECK_NEAR(act[1][1], 2 * act[1][0], 1e-12);
    /* eager: a s^2 b e per attention layer (no dropout, b 1, t 1), 1 of 4 layers */
    double a = 4, sq = 8192.0 * 8192 - 2 * 4096.0 * 4096;
    CHECK_NEAR(act[0][1] - 2 * act[0][0], a * sq * 2 / 4, 1e-12);
}

/* Autocast over fp32 parameters saves each matmul's 16-bit weight cast for the backward (memory.c
 * memory_autocast): Llama-2-7B (6,738,415,616 parameters; embedding 32,000 x 4,096, untied head
 * of the same size, norms 2 x 4,096 a block and one final) without recompute keeps 2 bytes of
 * every block matrix and of the head, 2 x (P - embedding - norms); under full recompute one
 * block's matrices (4 h^2 + 3 h x 11,008) and the head; torchtitan's DDP the same as FSDP's
 * --param-dtype fp32, and nothing without autocast. */
static void autocast_casts(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(model_load("models/llama-2-7b.json", &m, &e) == 0 && model_count(&m, 1e5, &pc, &e) == 0);
    hardware hw = fixture_catalog_hw("a100-80gb");
    const double P = 6738415616.0, emb = 32000.0 * 4096, norms = 32 * 2 * 4096.0 + 4096;
    const double block = 4 * 4096.0 * 4096 + 3 * 4096.0 * 11008;
    const struct {
        const char *fw;
        int param_bytes, ckpt, strat;
        double expect;
    } c[] = {
        {"fsdp", 4, CKPT_NONE, 3, 2 * (P - emb - norms)},
        {"fsdp", 4, CKPT_FULL, 3, 2 * (block + emb)},
        {"fsdp", 0, CKPT_NONE, 3, 0},
        {"fsdp2", 0, CKPT_NONE, 0, 2 * (P - emb - norms)},
        {"fsdp2", 0, CKPT_NONE, 3, 0},
        {"fsdp", 0, CKPT_NONE, 0, 0},
    };
    const strategy *const st[] = {&strat_ddp, &strat_zero1, &strat_zero2, &strat_zero3};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.param_bytes = c[k].param_bytes;
        t.checkpointing = (ckpt_kind)c[k].ckpt;
        t.framework = framework_find(c[k].fw);
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        memory mem = {0};
        memory_autocast(&in, st[c[k].strat], &mem);
        CHECK_NEAR(mem.activations, c[k].expect, 1);
    }
}

void suite_memory(void)
{
    RUN_TEST(zero_table1);
    RUN_TEST(korthikanti_table2);
    RUN_TEST(pipeline_inflight);
    RUN_TEST(pipeline_uneven_memory);
    RUN_TEST(pipeline_pace_step);
    RUN_TEST(invariants);
    RUN_TEST(offload);
    RUN_TEST(nvme_offload);
    RUN_TEST(hybrid_terms);
    RUN_TEST(hybrid_flops);
    RUN_TEST(hybrid_seq_scaling);
    RUN_TEST(autocast_casts);
}
