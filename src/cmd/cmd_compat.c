/* cmd_compat.c -- `zerosim estimate --compat deepspeed|megatron`: reproduce those tools' estimates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/commands.h"
#include "core/compat_deepspeed.h"
#include "core/compat_megatron.h"
#include "cmd/setup.h"
#include "core/units.h"

static const char *dev(int on) { return on ? "cpu" : "none"; }

/* DeepSpeed's *_all_cold tables for the chosen stages (2 and/or 3). */
static int deepspeed(const setup *s)
{
    const training *t = &s->t;
    int gpn = (int)scenario_gpus_per_node(&s->hw, t);
    int nodes = (int)((t->gpus + gpn - 1) / gpn);
    /* DeepSpeed's estimators cover its stage 2 (gradients sharded, parameters whole) and
     * stage 3 (parameters sharded too). */
    bool want2 = false, want3 = false;
    for (int k = 0; s->chosen[k]; k++) {
        want2 |= s->chosen[k]->shards.gradients && !s->chosen[k]->shards.parameters;
        want3 |= s->chosen[k]->shards.parameters;
    }
    if (!want2 && !want3)
        return cmd_error("estimate", ZS_ERR_USAGE, "--compat deepspeed: --strategy must include zero2 or zero3");
    double largest = s->pc.largest_module;
    if (want3 && largest <= 0)
        return cmd_error("estimate", ZS_ERR_USAGE, "--compat deepspeed with zero3 needs --largest-layer-params (or a --model)");
    ds_row rows[8];
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "rows");
    for (int stage = 2; stage <= 3; stage++) {
        if ((stage == 2 && !want2) || (stage == 3 && !want3)) continue;
        int n = stage == 2 ? compat_deepspeed_zero2(s->pc.total, gpn, nodes, 1.5, rows, 8)
                           : compat_deepspeed_zero3(s->pc.total, largest, gpn, nodes, 1.5, rows, 8);
        if (n < 0) { cJSON_Delete(root); return cmd_error("estimate", ZS_ERR_USAGE, "--compat deepspeed: arguments out of range"); }
        if (s->format == FMT_TABLE) {
            printf("Estimated memory needed for params, optim states and gradients for a:\n"
                   "HW: Setup with %d node%s, %d GPU%s per node.\n", nodes, nodes == 1 ? "" : "s",
                   gpn, gpn == 1 ? "" : "s");
            if (stage == 2) printf("SW: Model with %dM total params.\n", (int)(s->pc.total / 1e6));
            else printf("SW: Model with %dM total params, %dM largest layer params.\n",
                        (int)(s->pc.total / 1e6), (int)(largest / 1e6));
            printf("  per CPU  |  per GPU |   Options\n");
        }
        for (int i = 0; i < n; i++) {
            if (s->format == FMT_TABLE) {
                printf(" %7.2fGB | %6.2fGB | ", rows[i].per_cpu_bytes / GiB, rows[i].per_gpu_bytes / GiB);
                if (stage == 3) printf("offload_param=%-4s, offload_optimizer=%-4s, zero_init=%d\n",
                                       dev(rows[i].offload_param), dev(rows[i].offload_optimizer), rows[i].zero_init);
                else printf("offload_optimizer=%-4s\n", dev(rows[i].offload_optimizer));
            }
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "strategy", stage == 2 ? "zero2" : "zero3");
            cJSON_AddStringToObject(o, "offload_param", dev(rows[i].offload_param));
            cJSON_AddStringToObject(o, "offload_optimizer", dev(rows[i].offload_optimizer));
            if (stage == 3) cJSON_AddBoolToObject(o, "zero_init", rows[i].zero_init);
            cJSON_AddNumberToObject(o, "per_gpu_bytes", rows[i].per_gpu_bytes);
            cJSON_AddNumberToObject(o, "per_cpu_bytes", rows[i].per_cpu_bytes);
            cJSON_AddItemToArray(arr, o);
        }
        if (s->format == FMT_TABLE) printf("\n");
    }
    if (s->format == FMT_TABLE) {
        printf("(DeepSpeed prints GiB = 2^30 bytes and labels them \"GB\". Model states only: no activations,\n"
               " buckets, CUDA context or fragmentation; 'zerosim estimate' without --compat adds them.)\n");
    } else {
        char *text = cJSON_Print(root);
        if (text) puts(text);
        free(text);
    }
    cJSON_Delete(root);
    return 0;
}

/* Megatron-LM's theoretical_memory_usage.py for the model and parallel layout. */
static int megatron(const setup *s, bool distopt)
{
    const model *m = &s->m;
    const training *t = &s->t;
    if (m->params_only) return cmd_error("estimate", ZS_ERR_USAGE, "--compat megatron needs --model (it uses the model's shape)");
    megatron_args a;
    compat_megatron_args_init(&a);
    a.num_layers = m->num_layers;
    a.hidden_size = m->hidden_size;
    a.ffn_hidden_size = m->intermediate_size;
    a.num_attention_heads = m->num_heads;
    a.kv_channels = m->head_dim;
    a.group_query_attention = m->num_kv_heads != m->num_heads;
    a.num_query_groups = m->num_kv_heads;
    a.swiglu = m->gated_mlp;
    a.untie_embeddings_and_output_weights = !m->tied_embeddings;
    a.normalization = m->norm == NORM_RMSNORM ? MEGATRON_NORM_RMSNORM : MEGATRON_NORM_LAYERNORM;
    a.add_bias_linear = m->mlp_bias || m->out_bias;
    a.padded_vocab_size = compat_megatron_padded_vocab(m->vocab_size, 128, t->tp);
    a.seq_length = t->seq_len;
    a.micro_batch_size = t->micro_batch;
    a.num_experts = m->num_experts;
    static int pattern[4096];
    if (m->num_experts) {
        a.moe_router_topk = m->experts_per_token;
        a.moe_ffn_hidden_size = model_expert_width(m);
        a.moe_shared_expert_intermediate_size = m->shared_intermediate_size;
        a.moe_shared_expert_gate = m->shared_expert_gate;
        a.expert_model_parallel_size = t->ep;
        /* Dense blocks first, as DeepSeek's first_k_dense_replace places them. */
        int64_t moe = model_blocks(m, BLOCK_MOE);
        if (moe < m->num_layers && m->num_layers <= 4096) {
            for (int64_t i = 0; i < m->num_layers; i++) pattern[i] = i >= m->num_layers - moe;
            a.moe_layer_pattern = pattern;
            a.moe_layer_pattern_len = m->num_layers;
        }
    }
    if (m->kv_lora_rank > 0) {
        /* Multi-head latent attention (DeepSeek-V2/V3). */
        a.multi_latent_attention = 1;
        a.group_query_attention = 0;
        a.q_lora_rank = m->q_lora_rank;
        a.kv_lora_rank = m->kv_lora_rank;
        a.qk_head_dim = m->qk_nope_dim;
        a.qk_pos_emb_head_dim = m->qk_rope_dim;
        a.v_head_dim = m->v_head_dim;
    }
    a.tensor_model_parallel_size = t->tp;
    a.pipeline_model_parallel_size = t->pp;
    a.virtual_pipeline_model_parallel_size = t->virtual_stages > 1 ? t->virtual_stages : 0;
    a.world_size = t->gpus;
    a.data_parallel_size = training_dp(t);
    a.use_distributed_optimizer = distopt;
    a.sequence_parallel = t->sequence_parallel;
    a.recompute_granularity = t->checkpointing == CKPT_SELECTIVE ? MEGATRON_RECOMPUTE_SELECTIVE
                              : t->checkpointing == CKPT_FULL    ? MEGATRON_RECOMPUTE_FULL
                                                                 : MEGATRON_RECOMPUTE_NONE;
    a.num_microbatches = t->grad_accum;
    megatron_memory r;
    char err[256];
    if (compat_megatron_memory(&a, &r, err, sizeof err))
        return cmd_error("estimate", ZS_ERR_USAGE, err);
    if (s->format == FMT_TABLE) {
        printf("Number of parameters in transformer block in billions: %6.2f\n", r.num_parameters_in_transformer_block / 1e9);
        printf("Number of parameters in embedding layers in billions: %.2f\n", r.num_parameters_in_embedding_layers / 1e9);
        printf("Total number of parameters in billions: %.2f\n", r.num_total_parameters / 1e9);
        printf("Number of parameters in most loaded shard in billions: %.4f\n", r.num_parameters_on_most_loaded_shard / 1e9);
        printf("Theoretical memory footprints: weight and optimizer=%.2f MB, activation=%.2f MB, total=%.2f MB\n",
               r.weight_and_optimizer_mb, r.activation_mb, r.total_mb);
        printf("(Megatron's MB are MiB = 2^20 bytes; padded vocabulary %lld. Megatron's formula omits\n"
               " buffers, the CUDA context and fragmentation: 'zerosim estimate' without --compat adds them.)\n",
               (long long)a.padded_vocab_size);
        return 0;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "weight_and_optimizer_bytes", r.weight_and_optimizer_bytes);
    cJSON_AddNumberToObject(o, "activation_bytes", r.activation_bytes);
    cJSON_AddNumberToObject(o, "total_bytes", r.total_bytes);
    cJSON_AddNumberToObject(o, "parameters_on_most_loaded_shard", r.num_parameters_on_most_loaded_shard);
    cJSON_AddNumberToObject(o, "total_parameters", r.num_total_parameters);
    cJSON_AddNumberToObject(o, "padded_vocab_size", (double)a.padded_vocab_size);
    char *text = cJSON_Print(o);
    if (text) puts(text);
    free(text);
    cJSON_Delete(o);
    return 0;
}

int cmd_compat(setup *s, const char *tool, bool distopt)
{
    if (strcmp(tool, "deepspeed") == 0) return deepspeed(s);
    if (strcmp(tool, "megatron") == 0) return megatron(s, distopt);
    return cmd_error("estimate", ZS_ERR_USAGE, "--compat: expected deepspeed or megatron");
}
