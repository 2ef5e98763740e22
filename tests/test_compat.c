/* test_compat.c -- checks the DeepSpeed and Megatron-LM compatibility modes against output those tools printed. */
#include <stdio.h>

#include "core/compat_deepspeed.h"
#include "core/compat_megatron.h"
#include "test.h"

/*
 * Every expected string below was printed by DeepSpeed or Megatron-LM themselves
 * (in their docs, in downstream docs/tutorials quoting a run, or in Megatron's own
 * unit tests); the source is named above each test. DeepSpeed prints
 * f"{bytes/2**30:7.2f}GB", Megatron f"{bytes/2**20:.2f} MB", so the checks format
 * our bytes the same way and compare the text.
 */

static const char *gib2(double bytes, char *buf, size_t n)
{
    snprintf(buf, n, "%.2f", bytes / 1073741824.0);
    return buf;
}

static const char *fmt(const char *f, double v, char *buf, size_t n)
{
    snprintf(buf, n, f, v);
    return buf;
}

/* Checks one DeepSpeed row: options, then the printed per-CPU and per-GPU GiB. */
static void check_row(const ds_row *r, int param, int optim, int zero_init,
                      const char *cpu_gib, const char *gpu_gib)
{
    char b[64];
    CHECK_EQ_INT(r->offload_param, param);
    CHECK_EQ_INT(r->offload_optimizer, optim);
    CHECK_EQ_INT(r->zero_init, zero_init);
    CHECK_STREQ(gib2(r->per_cpu_bytes, b, sizeof b), cpu_gib);
    CHECK_STREQ(gib2(r->per_gpu_bytes, b, sizeof b), gpu_gib);
}

/* ---------------------------------------------------------------- DeepSpeed */

/* DeepSpeed docs, docs/code-docs/source/memory.rst ("Memory Requirements",
 * deepspeed.readthedocs.io/en/latest/memory.html), ZeRO3 cold example:
 * estimate_zero3_model_states_mem_needs_all_cold(total_params=2851e6,
 * largest_layer_params=32e6, num_gpus_per_node=8, num_nodes=1). The ZeRO-3
 * estimator has not changed since that table was printed (only reformatting). */
static void test_ds_docs_t5_3b_zero3_cold(void)
{
    ds_row r[6];
    CHECK_EQ_INT(compat_deepspeed_zero3(2851e6, 32e6, 8, 1, 1.5, r, 6), 6);
    check_row(&r[0], 1, 1, 1, "71.69", "0.12");
    check_row(&r[1], 1, 1, 0, "127.45", "0.12");
    check_row(&r[2], 0, 1, 1, "63.72", "0.78");
    check_row(&r[3], 0, 1, 0, "127.45", "0.78");
    check_row(&r[4], 0, 0, 1, "1.43", "6.09");
    check_row(&r[5], 0, 0, 0, "127.45", "6.09");
}

/* Same docs page, ZeRO2 cold example: total_params=2851e6, 8 GPUs, 1 node:
 *   127.45GB |   5.31GB | offload_optimizer=cpu
 *   127.45GB |  15.93GB | offload_optimizer=none
 * The docs table predates DeepSpeed PR #5099 (merged 2024-06-04), which changed
 * only the offload_optimizer=none GPU figure from 4P + int(16P/G) to
 * 2P + int(18P/G); that one value is taken from post-#5099 printouts below. */
static void test_ds_docs_t5_3b_zero2_cold(void)
{
    ds_row r[2];
    char b[64];
    CHECK_EQ_INT(compat_deepspeed_zero2(2851e6, 8, 1, 1.5, r, 2), 2);
    check_row(&r[0], 0, 1, 0, "127.45", "5.31");
    CHECK_EQ_INT(r[1].offload_param, 0);
    CHECK_EQ_INT(r[1].offload_optimizer, 0);
    CHECK_STREQ(gib2(r[1].per_cpu_bytes, b, sizeof b), "127.45");
    /* The stale pre-#5099 figure must not come back. */
    CHECK(strcmp(gib2(r[1].per_gpu_bytes, b, sizeof b), "15.93") != 0);
}

/* Hugging Face transformers docs, docs/source/en/deepspeed.md ("Memory
 * requirements"), estimate_zero3_model_states_mem_needs_all_live on
 * bigscience/T0_3B, 1 node, 1 GPU: "SW: Model with 2783M total params, 65M
 * largest layer params". The printout shows only int(P/1e6); the exact counts
 * used here are those of the T0_3B (T5 v1.1 XL) architecture loaded with
 * AutoModel: 24+24 layers, d_model 2048, d_ff 5120 gated, 32 heads x 64,
 * vocab 32128, no lm_head: P = 2,783,959,040, largest layer = the shared
 * embedding 32128 * 2048 = 65,798,144. */
static void test_ds_hf_docs_t0_3b_zero3(void)
{
    ds_row r[6];
    CHECK_EQ_INT(compat_deepspeed_zero3(2783959040.0, 65798144.0, 1, 1, 1.5, r, 6), 6);
    check_row(&r[0], 1, 1, 1, "70.00", "0.25");
    check_row(&r[1], 1, 1, 0, "70.00", "0.25");
    check_row(&r[2], 0, 1, 1, "62.23", "5.43");
    check_row(&r[3], 0, 1, 0, "62.23", "5.43");
    check_row(&r[4], 0, 0, 1, "0.37", "46.91");
    check_row(&r[5], 0, 0, 0, "15.56", "46.91");
}

/* Post-#5099 ZeRO-2 printout, from a public Helm chart README ("Deepspeed RAM
 * and VRAM estimate", running estimate_zero2_model_states_mem_needs_all_live on
 * meta-llama/Llama-3.1-70B, 1 node, 8 GPUs): "SW: Model with 69503M total params."
 *   3107.03GB | 129.46GB | offload_optimizer=cpu
 *   3107.03GB | 275.10GB | offload_optimizer=none
 * (pre-#5099 the last GPU figure would have been 6*P/2^30 = 388.38).
 * P = 69,503,033,344 = Llama-3.1-70B's 70,553,706,496 minus the
 * 128256 x 8192 lm_head that AutoModel does not load. */
static void test_ds_llama31_70b_zero2_post5099(void)
{
    ds_row r[2];
    CHECK_EQ_INT(compat_deepspeed_zero2(69503033344.0, 8, 1, 1.5, r, 2), 2);
    check_row(&r[0], 0, 1, 0, "3107.03", "129.46");
    check_row(&r[1], 0, 0, 0, "3107.03", "275.10");
}

/* Post-#5099 ZeRO-2 and ZeRO-3 printouts kept in a public InstructUIE training
 * script's comments (a Flan-T5-XXL-sized model, 1 node, 4 GPUs):
 * "SW: Model with 11003M total params, 131M largest layer params." Exact
 * counts are not printed; P = 11,003,621,376 and largest layer 131,481,600
 * (T5-XXL encoder+decoder with its 4096-wide embedding resized to 32100
 * tokens, no lm_head) reproduce every printed row; e.g. the 32128-token count
 * gives 276.70 where 276.69 was printed. */
static void test_ds_flan_t5_xxl_zero2_zero3(void)
{
    ds_row r[6];
    const double p = 11003621376.0, big = 131481600.0;
    CHECK_EQ_INT(compat_deepspeed_zero2(p, 4, 1, 1.5, r, 6), 2);
    check_row(&r[0], 0, 1, 0, "245.95", "20.50");
    check_row(&r[1], 0, 0, 0, "245.95", "66.61");

    CHECK_EQ_INT(compat_deepspeed_zero3(p, big, 4, 1, 1.5, r, 6), 6);
    check_row(&r[0], 1, 1, 1, "276.69", "0.49");
    check_row(&r[1], 1, 1, 0, "276.69", "0.49");
    check_row(&r[2], 0, 1, 1, "245.95", "5.61");
    check_row(&r[3], 0, 1, 0, "245.95", "5.61");
    check_row(&r[4], 0, 0, 1, "2.94", "46.61");
    check_row(&r[5], 0, 0, 0, "245.95", "46.61");
}

/* The documented failure contract (no printed values involved). */
static void test_ds_rejects_bad_arguments(void)
{
    ds_row r[6];
    CHECK_EQ_INT(compat_deepspeed_zero2(0, 8, 1, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero2(-5, 8, 1, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero2(1e9, 0, 1, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero2(1e9, 8, 0, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero2(1e9, 8, 1, 1.5, r, 1), -1);
    CHECK_EQ_INT(compat_deepspeed_zero2(1e9, 8, 1, 1.5, NULL, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero2(1e9, 8, 1, -1.0, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero3(0, 1e6, 8, 1, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero3(1e9, -1, 8, 1, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero3(1e9, 1e6, 0, 1, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero3(1e9, 1e6, 8, 0, 1.5, r, 6), -1);
    CHECK_EQ_INT(compat_deepspeed_zero3(1e9, 1e6, 8, 1, 1.5, r, 5), -1);
    CHECK_EQ_INT(compat_deepspeed_zero3(1e9, 1e6, 8, 1, 1.5, r, 6), COMPAT_DS_ZERO3_ROWS);
}

/* ------------------------------------------------------------------ Megatron */

/* Megatron logs " > padded vocab (size: 50257) with 47 dummy tokens (new size:
 * 50304)" for GPT2BPETokenizer at TP=1 (many public training logs), and
 * "... with 175 dummy tokens (new size: 50432)" at TP=2 (Hugging Face
 * accelerate's Megatron-LM guide, and logs that print "initialized tensor model
 * parallel with size 2"). */
static void test_megatron_padded_vocab(void)
{
    CHECK_EQ_INT(compat_megatron_padded_vocab(50257, 128, 1), 50304);
    CHECK_EQ_INT(compat_megatron_padded_vocab(50257, 128, 2), 50432);
    CHECK_EQ_INT(compat_megatron_padded_vocab(0, 128, 1), -1);
    CHECK_EQ_INT(compat_megatron_padded_vocab(50257, 0, 1), -1);
    CHECK_EQ_INT(compat_megatron_padded_vocab(50257, 128, 0), -1);
}

/* GPT2-XL on 1 GPU, global/micro batch 1, bf16, no distributed optimizer,
 * Megatron main of Oct 2025 (run log in vuiseng9's Megatron-LM notes, 2025-10-11;
 * the weight line is also in github.com/vuiseng9/megatron-tutorials
 * 01-dp-zero2.md, config in scripts/100_gpt2xl_ddp_gpuX_gbsX.sh: 48 layers,
 * hidden 1600, 25 heads, seq 1024, GPT2BPETokenizer, GPT defaults = LayerNorm,
 * GeLU 4h MLP, tied embeddings). Printed:
 *   Number of parameters in transformer block in billions:  1.47
 *   Number of parameters in embedding layers in billions: 0.08
 *   Total number of parameters in billions: 1.56
 *   Number of parameters in most loaded shard in billions: 1.5554
 *   compute_activation_memory_without_sp
 *   Activation memory footprint per transformer layer (precise, without SP): 53.1 MB
 *   Theoretical memory footprints: weight and optimizer=26699.47 MB,
 *     activation=2785.59 MB, total=29485.06 MB
 * With TP=1 no later change to the file alters these numbers. */
static void test_megatron_gpt2_xl_1gpu(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160], b[64];
    compat_megatron_args_init(&a);
    a.num_layers = 48;
    a.hidden_size = 1600;
    a.num_attention_heads = 25;
    a.seq_length = 1024;
    a.micro_batch_size = 1;
    a.padded_vocab_size = compat_megatron_padded_vocab(50257, 128, 1);
    a.num_microbatches = 1;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_STREQ(fmt("%.2f", m.num_parameters_in_transformer_block / 1e9, b, sizeof b), "1.47");
    CHECK_STREQ(fmt("%.2f", m.num_parameters_in_embedding_layers / 1e9, b, sizeof b), "0.08");
    CHECK_STREQ(fmt("%.2f", m.num_total_parameters / 1e9, b, sizeof b), "1.56");
    CHECK_STREQ(fmt("%.4f", m.num_parameters_on_most_loaded_shard / 1e9, b, sizeof b), "1.5554");
    CHECK_EQ_INT(m.activation_with_sp, 0);
    CHECK_STREQ(fmt("%.1f", m.activation_per_layer_bytes / 1048576.0, b, sizeof b), "53.1");
    CHECK_STREQ(fmt("%.2f", m.weight_and_optimizer_mb, b, sizeof b), "26699.47");
    CHECK_STREQ(fmt("%.2f", m.activation_mb, b, sizeof b), "2785.59");
    CHECK_STREQ(fmt("%.2f", m.total_mb, b, sizeof b), "29485.06");
}

/* A 64.7B GPT (80 layers, hidden 8192, 64 heads, --vocab-size 32000 with
 * NullTokenizer, recompute full, no distributed optimizer) on 32 GPUs, log
 * dated 2026-03-28 in gnosia93's slurm-on-aws Megatron lesson. The printed
 * numbers pin the run's layout (the script shown beside it differs): "other
 * shards" = block/(PP*TP) = 2.0133 B with 32 GPUs and "in-flight microbatches:
 * 8" give TP=4, PP=8; the per-layer 1024.0 MB = s*b*h*(10 + 24/4) gives
 * seq*micro-batch = 8192. Printed:
 *   Number of parameters in transformer block in billions:  64.43
 *   Number of parameters in embedding layers in billions: 0.26
 *   Total number of parameters in billions: 64.69
 *   compute_activation_memory_without_sp
 *   Activation memory footprint per transformer layer (precise, without SP): 1024.0 MB
 *   Number of in-flight microbatches: 8
 *   Theoretical memory footprints: weight and optimizer=35695.42 MB,
 *     activation=86554.12 MB, total=122249.54 MB
 * Only the activation side and the model-wide counts are asserted: that run
 * predates Megatron commit a7c9e8c4 (2026-05-13), after which layernorm
 * parameters are no longer divided by TP on the most loaded shard, so main's
 * weight figure (and the "most loaded"/"other shards" counts) differ slightly
 * from the 35695.42 / 2.0794 / 2.0133 printed then. */
static void test_megatron_gpt_65b_tp4_pp8_activation(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160], b[64];
    compat_megatron_args_init(&a);
    a.num_layers = 80;
    a.hidden_size = 8192;
    a.num_attention_heads = 64;
    a.seq_length = 4096;
    a.micro_batch_size = 2;
    a.padded_vocab_size = compat_megatron_padded_vocab(32000, 128, 4); /* 32256 */
    a.tensor_model_parallel_size = 4;
    a.pipeline_model_parallel_size = 8;
    a.world_size = 32;
    a.data_parallel_size = 1;
    a.recompute_granularity = MEGATRON_RECOMPUTE_FULL;
    a.num_microbatches = 512;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_STREQ(fmt("%.2f", m.num_parameters_in_transformer_block / 1e9, b, sizeof b), "64.43");
    CHECK_STREQ(fmt("%.2f", m.num_parameters_in_embedding_layers / 1e9, b, sizeof b), "0.26");
    CHECK_STREQ(fmt("%.2f", m.num_total_parameters / 1e9, b, sizeof b), "64.69");
    CHECK_EQ_INT(m.activation_with_sp, 0);
    CHECK_STREQ(fmt("%.1f", m.activation_per_layer_bytes / 1048576.0, b, sizeof b), "1024.0");
    CHECK_EQ_INT(m.in_flight_microbatches, 8);
    CHECK_STREQ(fmt("%.2f", m.activation_mb, b, sizeof b), "86554.12");
}

/* The tiny model of Megatron's own tests/unit_tests/training/
 * test_weight_and_optimizer_memory.py (_make_args), on main. */
static void megatron_unit_test_args(megatron_args *a)
{
    static const int pattern[2] = {0, 1}; /* moe_layer_freq=[0, 1] */
    compat_megatron_args_init(a);
    a->add_bias_linear = 0;
    a->data_parallel_size = 16;
    a->expert_model_parallel_size = 2;
    a->expert_tensor_parallel_size = 4;
    a->ffn_hidden_size = 16;
    a->hidden_size = 8;
    a->kv_channels = 4;
    a->moe_ffn_hidden_size = 16;
    a->moe_layer_pattern = pattern;
    a->moe_layer_pattern_len = 2;
    a->moe_router_topk = 1;
    a->moe_shared_expert_intermediate_size = 8;
    a->normalization = MEGATRON_NORM_RMSNORM;
    a->num_attention_heads = 2;
    a->num_experts = 4;
    a->num_layers = 2;
    a->padded_vocab_size = 32;
    a->tensor_model_parallel_size = 2;
    a->use_distributed_optimizer = 1;
    a->world_size = 32;
    a->seq_length = 4; /* not read by the weight formula; any valid value */
}

/* test_weight_and_optimizer_memory_accounts_for_expert_parallelism: PP=2,
 * world 64. Megatron's expected value, written out in that test:
 *   tp_sharded = ((256 + 256 + 256 + 128) / 2 + 256) / 2
 *   replicated = (16 + 16 + 32 + 8) / 2
 *   expert     = 1024 / 2 / (4 * 2)
 *   expected   = (tp_sharded + replicated) * (6 + 12/16) + expert * (6 + 12/4) */
static void test_megatron_unit_expert_parallel(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160];
    megatron_unit_test_args(&a);
    a.pipeline_model_parallel_size = 2;
    a.world_size = 64;
    const double tp_sharded = ((256.0 + 256 + 256 + 128) / 2 + 256) / 2;
    const double replicated = (16.0 + 16 + 32 + 8) / 2;
    const double expert = 1024.0 / 2 / (4 * 2);
    const double expected = (tp_sharded + replicated) * (6 + 12.0 / 16) + expert * (6 + 12.0 / 4);
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_NEAR(m.weight_and_optimizer_bytes, expected, 1e-12);
}

/* test_weight_and_optimizer_memory_accounts_for_latent_moe_experts:
 * moe_latent_size=4, PP=1, world 32. Megatron's expected value:
 *   tp_sharded = ((256 + 256) + (256 + 128) + 256) / 2
 *   replicated = 16 + (16 + 64 + 32) + 8
 *   expert     = 512 / (4 * 2)
 *   expected   = (tp_sharded + replicated) * (6 + 12/16) + expert * (6 + 12/4) */
static void test_megatron_unit_latent_moe(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160];
    megatron_unit_test_args(&a);
    a.moe_latent_size = 4;
    const double tp_sharded = ((256.0 + 256) + (256 + 128) + 256) / 2;
    const double replicated = 16.0 + (16 + 64 + 32) + 8;
    const double expert = 512.0 / (4 * 2);
    const double expected = (tp_sharded + replicated) * (6 + 12.0 / 16) + expert * (6 + 12.0 / 4);
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_NEAR(m.weight_and_optimizer_bytes, expected, 1e-12);
}

/* test_weight_and_optimizer_memory_decreases_with_tensor_parallelism and
 * ..._with_expert_parallelism: the orderings Megatron's tests assert. */
static void test_megatron_unit_orderings(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160];
    double prev = 0;
    static const int tps[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        megatron_unit_test_args(&a);
        a.data_parallel_size = 16;
        a.expert_model_parallel_size = 1;
        a.expert_tensor_parallel_size = 1;
        a.tensor_model_parallel_size = tps[i];
        a.use_distributed_optimizer = 0;
        a.world_size = 16 * tps[i];
        CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
        if (i > 0) CHECK(m.weight_and_optimizer_bytes < prev);
        prev = m.weight_and_optimizer_bytes;
    }
    static const int ep_etp[4][2] = {{1, 1}, {2, 1}, {2, 2}, {4, 2}};
    for (int i = 0; i < 4; i++) {
        megatron_unit_test_args(&a);
        a.expert_model_parallel_size = ep_etp[i][0];
        a.expert_tensor_parallel_size = ep_etp[i][1];
        CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
        if (i > 0) CHECK(m.weight_and_optimizer_bytes < prev);
        prev = m.weight_and_optimizer_bytes;
    }
}

/* No printed Megatron output for the sequence-parallel + selective branch
 * (compute_activation_memory) was found, so these values are derived by hand
 * from the published formula. Model: 2 layers, h=1024, 16 heads (kv 64),
 * ffn 4096, LayerNorm, GeLU, tied embeddings, V = 51200 (already a multiple of
 * 128*2), seq 2048, micro-batch 1, TP=2 + SP + selective, PP=1, DP=1, no
 * distributed optimizer. With sbh = 2048*1*1024 = 2,097,152:
 *   activation = [sbh*(18 + 4*4096/1024)*2 + 8*2048*1*1 + sbh*1
 *                 + sbh*4*(1 + 51200/1024)] / 2
 *              = [142,606,336 + 16,384 + 2,097,152 + 427,819,008] / 2
 *              = 286,269,440 B = 273.0078125 MiB
 *   per layer (printed /TP) = 34*sbh/2 = 35,651,584 B = 34.0 MiB
 *   weights: attention 2*h*h*(1+1)*1 = 4,194,304; MLP 2*h*4096 = 8,388,608;
 *            norms 2*h*2 = 4096 per layer; final norm 2048; embedding 52,428,800
 *   most loaded shard = (2*(4,194,304 + 8,388,608) + 52,428,800)/2 + (2*4096 + 2048)
 *                     = 38,797,312 + 10,240 = 38,807,552 params
 *   weight and optimizer = 18 * 38,807,552 = 698,535,936 B = 666.17578125 MiB
 *   total = 939.18359375 MiB.
 * Second case: 8 layers, PP=4, VPP=2 (interleaved), 16 micro-batches:
 *   penalty = 1 + 3/(4*2) = 1.375; in flight = ceil(1.375*4) = 6
 *   activation = [34*sbh*8 + 8*2048*4 + sbh*4] * 1.375 / 2
 *              = [570,425,344 + 65,536 + 8,388,608] * 1.375 / 2
 *              = 397,979,648 B = 379.54296875 MiB
 *   most loaded = (8*12,582,912/4 + 52,428,800)/2 + (8*4096 + 2048)/4
 *               = 38,797,312 + 8,704 = 38,806,016 params
 *   weight = 18 * 38,806,016 = 698,508,288 B = 666.1494140625 MiB. */
static void test_megatron_sp_selective_by_hand(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160];
    compat_megatron_args_init(&a);
    a.num_layers = 2;
    a.hidden_size = 1024;
    a.num_attention_heads = 16;
    a.padded_vocab_size = 51200;
    a.seq_length = 2048;
    a.tensor_model_parallel_size = 2;
    a.world_size = 2;
    a.sequence_parallel = 1;
    a.recompute_granularity = MEGATRON_RECOMPUTE_SELECTIVE;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_EQ_INT(m.activation_with_sp, 1);
    CHECK_NEAR(m.activation_bytes, 286269440.0, 1e-15);
    CHECK_NEAR(m.activation_per_layer_bytes, 35651584.0, 1e-15);
    CHECK_NEAR(m.num_parameters_on_most_loaded_shard, 38807552.0, 1e-15);
    CHECK_NEAR(m.weight_and_optimizer_bytes, 698535936.0, 1e-15);
    CHECK_NEAR(m.total_mb, 939.18359375, 1e-15);
    CHECK_EQ_INT(m.in_flight_microbatches, 0);

    a.num_layers = 8;
    a.pipeline_model_parallel_size = 4;
    a.virtual_pipeline_model_parallel_size = 2;
    a.world_size = 8;
    a.num_microbatches = 16;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_NEAR(m.interleaved_schedule_memory_penalty, 1.375, 1e-15);
    CHECK_EQ_INT(m.in_flight_microbatches, 6);
    CHECK_NEAR(m.activation_bytes, 397979648.0, 1e-15);
    CHECK_NEAR(m.weight_and_optimizer_bytes, 698508288.0, 1e-15);

    /* SP is ignored at TP=1 (validate_args turns it off): other branch. */
    a.tensor_model_parallel_size = 1;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);
    CHECK_EQ_INT(m.activation_with_sp, 0);
}

/* The documented failure contract (no printed values involved). */
static void test_megatron_rejects_bad_arguments(void)
{
    megatron_args a;
    megatron_memory m;
    char err[160];
    compat_megatron_args_init(&a);
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), -1); /* shape unset */
    CHECK(err[0] != '\0');

    compat_megatron_args_init(&a);
    a.num_layers = 2;
    a.hidden_size = 100;
    a.num_attention_heads = 3; /* 100 % 3 != 0 and kv_channels unset */
    a.padded_vocab_size = 128;
    a.seq_length = 8;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), -1);
    a.kv_channels = 32;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);

    a.multi_latent_attention = 1;
    a.group_query_attention = 1; /* Megatron asserts these are exclusive */
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), -1);
    a.group_query_attention = 0;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), 0);

    static const int bad_pattern[3] = {1, 0, 1};
    a.num_experts = 4;
    a.moe_layer_pattern = bad_pattern;
    a.moe_layer_pattern_len = 3; /* != num_layers: Megatron asserts */
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), -1);
    a.moe_layer_pattern = NULL;

    a.recompute_granularity = 7;
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), -1);
    a.recompute_granularity = MEGATRON_RECOMPUTE_FULL;

    a.use_distributed_optimizer = 1;
    a.expert_model_parallel_size = 4; /* world 1 // (1*4*1) = 0: Python divides by zero */
    CHECK_EQ_INT(compat_megatron_memory(&a, &m, err, sizeof err), -1);

    CHECK_EQ_INT(compat_megatron_memory(NULL, &m, err, sizeof err), -1);
    CHECK_EQ_INT(compat_megatron_memory(&a, NULL, NULL, 0), -1);
}


/* MoE and expert-parallel configurations against the upstream function itself:
 * NVIDIA/Megatron-LM@d98e8a64 megatron/training/theoretical_memory_usage.py, run under
 * Python 3.11 with an args namespace holding exactly these values (RMSNorm, swiglu, untied
 * embeddings, --disable-bias-linear, distributed optimizer, 8 micro-batches,
 * expert_tensor_parallel_size = TP as validate_args sets it). It printed, in bytes
 * (weight and optimizer, activation):
 *   mixtral_ep8_pp4        20063312640.0  19236893491.2
 *   mixtral_tp2_ep4_sp     56157760512.0   8894038016.0
 *   mixtral22_tp4_pp4_ep8  15110029440.0  13921988608.0
 *   deepseek_v3_ep64_pp16  27743860116.0  32215675699.2
 *   deepseek_v2_lite_ep8   30445799040.0  17986083225.600002 */
static void moe_base(megatron_args *a)
{
    compat_megatron_args_init(a);
    a->normalization = MEGATRON_NORM_RMSNORM;
    a->swiglu = 1;
    a->untie_embeddings_and_output_weights = 1;
    a->add_bias_linear = 0;
    a->use_distributed_optimizer = 1;
    a->num_microbatches = 8;
}

static void mixtral(megatron_args *a, int64_t layers, int64_t h, int64_t ffn, int64_t heads, int64_t vocab)
{
    moe_base(a);
    a->num_layers = layers;
    a->hidden_size = h;
    a->ffn_hidden_size = ffn;
    a->num_attention_heads = heads;
    a->group_query_attention = 1;
    a->num_query_groups = 8;
    a->num_experts = 8;
    a->moe_router_topk = 2;
    a->padded_vocab_size = vocab;
    a->seq_length = 4096;
}

static void check_upstream(const megatron_args *a, double weight, double act)
{
    megatron_memory m;
    char err[160];
    CHECK_EQ_INT(compat_megatron_memory(a, &m, err, sizeof err), 0);
    CHECK_NEAR(m.weight_and_optimizer_bytes, weight, 1e-12);
    CHECK_NEAR(m.activation_bytes, act, 1e-12);
}

static void test_megatron_upstream_moe_ep(void)
{
    megatron_args a;
    mixtral(&a, 32, 4096, 14336, 32, 32000);
    a.pipeline_model_parallel_size = 4;
    a.expert_model_parallel_size = 8;
    a.world_size = 64;
    a.data_parallel_size = 16;
    check_upstream(&a, 20063312640.0, 19236893491.2);

    mixtral(&a, 32, 4096, 14336, 32, 32000);
    a.tensor_model_parallel_size = 2;
    a.expert_model_parallel_size = 4;
    a.world_size = 32;
    a.data_parallel_size = 16;
    a.sequence_parallel = 1;
    a.recompute_granularity = MEGATRON_RECOMPUTE_SELECTIVE;
    check_upstream(&a, 56157760512.0, 8894038016.0);

    mixtral(&a, 56, 6144, 16384, 48, 32768);
    a.tensor_model_parallel_size = 4;
    a.pipeline_model_parallel_size = 4;
    a.virtual_pipeline_model_parallel_size = 2;
    a.expert_model_parallel_size = 8;
    a.world_size = 256;
    a.data_parallel_size = 16;
    a.sequence_parallel = 1;
    a.recompute_granularity = MEGATRON_RECOMPUTE_SELECTIVE;
    check_upstream(&a, 15110029440.0, 13921988608.0);

    static int v3_pattern[61], lite_pattern[27];
    for (int i = 0; i < 61; i++) v3_pattern[i] = i >= 3;
    for (int i = 0; i < 27; i++) lite_pattern[i] = i >= 1;
    moe_base(&a);
    a.num_layers = 61;
    a.hidden_size = 7168;
    a.ffn_hidden_size = 18432;
    a.num_attention_heads = 128;
    a.kv_channels = 128;
    a.multi_latent_attention = 1;
    a.q_lora_rank = 1536;
    a.kv_lora_rank = 512;
    a.qk_head_dim = 128;
    a.qk_pos_emb_head_dim = 64;
    a.v_head_dim = 128;
    a.num_experts = 256;
    a.moe_router_topk = 8;
    a.moe_ffn_hidden_size = 2048;
    a.moe_shared_expert_intermediate_size = 2048;
    a.moe_layer_pattern = v3_pattern;
    a.moe_layer_pattern_len = 61;
    a.mtp_num_layers = 1;
    a.padded_vocab_size = 129280;
    a.seq_length = 4096;
    a.pipeline_model_parallel_size = 16;
    a.expert_model_parallel_size = 64;
    a.world_size = 1024;
    a.data_parallel_size = 64;
    a.recompute_granularity = MEGATRON_RECOMPUTE_FULL;
    check_upstream(&a, 27743860116.0, 32215675699.2);

    moe_base(&a);
    a.num_layers = 27;
    a.hidden_size = 2048;
    a.ffn_hidden_size = 10944;
    a.num_attention_heads = 16;
    a.kv_channels = 128;
    a.multi_latent_attention = 1;
    a.kv_lora_rank = 512;
    a.qk_head_dim = 128;
    a.qk_pos_emb_head_dim = 64;
    a.v_head_dim = 128;
    a.num_experts = 64;
    a.moe_router_topk = 6;
    a.moe_ffn_hidden_size = 1408;
    a.moe_shared_expert_intermediate_size = 2816;
    a.moe_layer_pattern = lite_pattern;
    a.moe_layer_pattern_len = 27;
    a.padded_vocab_size = 102400;
    a.seq_length = 4096;
    a.micro_batch_size = 2;
    a.expert_model_parallel_size = 8;
    a.world_size = 16;
    a.data_parallel_size = 16;
    check_upstream(&a, 30445799040.0, 17986083225.600002);
}

void suite_compat(void)
{
    RUN_TEST(test_ds_docs_t5_3b_zero3_cold);
    RUN_TEST(test_ds_docs_t5_3b_zero2_cold);
    RUN_TEST(test_ds_hf_docs_t0_3b_zero3);
    RUN_TEST(test_ds_llama31_70b_zero2_post5099);
    RUN_TEST(test_ds_flan_t5_xxl_zero2_zero3);
    RUN_TEST(test_ds_rejects_bad_arguments);
    RUN_TEST(test_megatron_padded_vocab);
    RUN_TEST(test_megatron_gpt2_xl_1gpu);
    RUN_TEST(test_megatron_gpt_65b_tp4_pp8_activation);
    RUN_TEST(test_megatron_unit_expert_parallel);
    RUN_TEST(test_megatron_unit_latent_moe);
    RUN_TEST(test_megatron_unit_orderings);
    RUN_TEST(test_megatron_sp_selective_by_hand);
    RUN_TEST(test_megatron_rejects_bad_arguments);
    RUN_TEST(test_megatron_upstream_moe_ep);
}
