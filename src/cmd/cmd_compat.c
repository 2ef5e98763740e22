/* cmd_compat.c -- `zerosim estimate --compat deepspeed|megatron`: reproduce those tools' estimates. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/compat_deepspeed.h"
#include "core/compat_megatron.h"
#include "report/report_compat.h"
#include "cmd/setup.h"

/* DeepSpeed's *_all_cold tables for the chosen stages (2 and/or 3), all computed before any
 * is printed. */
static int deepspeed(const setup *s)
{
    const training *t = &s->t;
    compat_ds_report r = {0};
    int gpn = r.gpus_per_node = (int)scenario_gpus_per_node(&s->hw, t);
    int nodes = r.nodes = (int)((t->gpus + gpn - 1) / gpn);
    /* DeepSpeed's estimators cover its stage 2 (gradients sharded, parameters whole) and
     * stage 3 (parameters sharded too). */
    for (int k = 0; s->chosen[k]; k++) {
        r.want[0] |= s->chosen[k]->shards.gradients && !s->chosen[k]->shards.parameters;
        r.want[1] |= s->chosen[k]->shards.parameters;
    }
    if (!r.want[0] && !r.want[1])
        return cmd_error(
            "estimate", ZS_ERR_USAGE, "--compat deepspeed: --strategy must include zero2 or zero3");
    r.params = s->pc.total;
    r.largest = s->pc.largest_module;
    if (r.want[1] && r.largest <= 0)
        return cmd_error("estimate", ZS_ERR_USAGE,
            "--compat deepspeed with zero3 needs --largest-layer-params (or a --model)");
    if (r.want[0]) r.n[0] = compat_deepspeed_zero2(r.params, gpn, nodes, 1.5, r.rows[0], COMPAT_DS_MAX_ROWS);
    if (r.want[1])
        r.n[1] = compat_deepspeed_zero3(r.params, r.largest, gpn, nodes, 1.5, r.rows[1], COMPAT_DS_MAX_ROWS);
    if (r.n[0] < 0 || r.n[1] < 0)
        return cmd_error("estimate", ZS_ERR_USAGE, "--compat deepspeed: arguments out of range");
    report_compat_deepspeed(cmd_out(), s->format, &r);
    return 0;
}

/* Megatron-LM's theoretical_memory_usage.py for the model and parallel layout. */
static int megatron(const setup *s, bool distopt)
{
    const model *m = &s->m;
    const training *t = &s->t;
    if (m->params_only)
        return cmd_error(
            "estimate", ZS_ERR_USAGE, "--compat megatron needs --model (it uses the model's shape)");
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
    static _Thread_local int pattern[4096];
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
        : t->checkpointing == CKPT_FULL                          ? MEGATRON_RECOMPUTE_FULL
                                                                 : MEGATRON_RECOMPUTE_NONE;
    a.num_microbatches = t->grad_accum;
    megatron_memory r;
    char err[256];
    if (compat_megatron_memory(&a, &r, err, sizeof err)) return cmd_error("estimate", ZS_ERR_USAGE, err);
    report_compat_megatron(cmd_out(), s->format, &r, a.padded_vocab_size);
    return 0;
}

int cmd_compat(setup *s, const char *tool, bool distopt)
{
    if (strcmp(tool, "deepspeed") == 0) return deepspeed(s);
    if (strcmp(tool, "megatron") == 0) return megatron(s, distopt);
    return cmd_error("estimate", ZS_ERR_USAGE, "--compat: expected deepspeed or megatron");
}
