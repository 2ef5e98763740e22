/* model_explain.c -- --explain text for the model: its blocks, exact counts, FLOPs and activation terms. */
#include "report/model_explain.h"

#include "core/memory.h"
#include "core/mixer.h"
#include "core/scenario.h"
#include "core/sim.h"
#include "core/units.h"

/* A class's name: the classic kinds as before; a hybrid layer by its mixers and MLP. */
static const char *block_name(const model *m, const param_counts *pc, int c, char *buf, size_t len)
{
    block_kind kind = pc->kind[c];
    if (m->nclass <= 0) {
        switch (kind) {
        case BLOCK_MOE: return "MoE block";
        case BLOCK_ENCODER: return "encoder block";
        default: return m->encoder_layers > 0 ? "decoder block (with cross-attention)" : "dense block";
        }
    }
    const char *mix = pc->mixer[c] == MIX_NONE ? "" : mixer_table[pc->mixer[c]]->name;
    const char *mix2 = pc->mixer2[c] == MIX_NONE ? "" : mixer_table[pc->mixer2[c]]->name;
    const char *ffn = kind == BLOCK_MOE ? "MoE" : kind == BLOCK_DENSE ? "MLP" : "";
    snprintf(buf, len, "%s%s%s%s%s block", mix, *mix2 ? " || " : "", mix2, *mix && *ffn ? " + " : "", ffn);
    return buf;
}

/* The mixers beside softmax attention, once each: their shapes, state and cost (mixer_ops). */
static void mixers(FILE *o, const model *m, const param_counts *pc)
{
    bool seen[MIX_KINDS] = {false};
    for (int c = 0; c < pc->nclass; c++) {
        const mixer_kind mk[2] = {pc->mixer[c], pc->mixer2[c]};
        for (int k = 0; k < 2; k++) {
            if (mk[k] == MIX_NONE || mk[k] == MIX_ATTENTION || mk[k] == MIX_CROSS || seen[mk[k]]) continue;
            seen[mk[k]] = true;
            fprintf(o, "  %s\n", mixer_table[mk[k]]->formula);
        }
    }
    if (seen[MIX_DELTANET])
        fprintf(o,
            "    %lld key heads of %lld, %lld value heads of %lld, conv %lld: state %lld values a layer\n",
            (long long)m->lin_k_heads, (long long)m->lin_k_dim, (long long)m->lin_v_heads,
            (long long)m->lin_v_dim, (long long)m->lin_conv,
            (long long)(m->lin_v_heads * m->lin_k_dim * m->lin_v_dim));
    if (seen[MIX_MAMBA2] || seen[MIX_MAMBA1])
        fprintf(o,
            "    d_inner %lld, d_state %lld, %lld heads, %lld groups, conv %lld, chunk %lld: state %lld "
            "values a layer\n",
            (long long)m->ssm_inner, (long long)m->ssm_state, (long long)m->ssm_heads,
            (long long)m->ssm_groups, (long long)m->ssm_conv, (long long)m->ssm_chunk,
            (long long)(m->ssm_inner * m->ssm_state));
    if (seen[MIX_SWA])
        fprintf(o, "    sliding layers: %lld heads, %lld key/value heads, head_dim %lld, v %lld\n",
            (long long)m->swa_heads, (long long)m->swa_kv_heads, (long long)m->swa_head_dim,
            (long long)m->swa_v_dim);
}

/* The family's features that change the count, the FLOPs or the activations. */
static void features(FILE *o, const model *m, const param_counts *pc)
{
    char a[32], b[32];
    if (m->kv_lora_rank > 0)
        fprintf(o,
            "  Multi-head Latent Attention: q_lora_rank %lld%s, kv_lora_rank %lld, per head q/k %lld nope + "
            "%lld rope\n"
            "    (one rotary key shared by all heads), v %lld\n",
            (long long)m->q_lora_rank, m->q_lora_rank ? "" : " (none: one q projection)",
            (long long)m->kv_lora_rank, (long long)m->qk_nope_dim, (long long)m->qk_rope_dim,
            (long long)m->v_head_dim);
    if (m->num_experts > 0) {
        fprintf(o, "  experts: %lld routed of width %lld, top-%lld per token", (long long)m->num_experts,
            (long long)model_expert_width(m), (long long)m->experts_per_token);
        if (m->shared_intermediate_size > 0)
            fprintf(o, ", shared width %lld%s", (long long)m->shared_intermediate_size,
                m->shared_expert_gate ? " (gated)" : "");
        fprintf(o, "%s; %s\n", m->router_bias ? ", router correction bias" : "",
            m->capacity_factor > 0 ? "capacity factor set" : "dropless (no capacity factor)");
        if (m->capacity_factor > 0)
            fprintf(o, "    capacity factor %.3g: each token takes %.3g expert slots\n", m->capacity_factor,
                m->capacity_factor * (double)m->experts_per_token);
    }
    if (m->sliding_window > 0 && m->sliding_layers > 0 && m->window_chunked)
        fprintf(o, "  chunked attention: %lld of %lld layers see only their own %lld-token chunk\n",
            (long long)m->sliding_layers, (long long)m->num_layers, (long long)m->sliding_window);
    else if (m->sliding_window > 0 && m->sliding_layers > 0)
        fprintf(o, "  sliding-window attention: %lld of %lld layers see the last %lld tokens\n",
            (long long)m->sliding_layers, (long long)m->num_layers, (long long)m->sliding_window);
    if (m->nope_layers > 0)
        fprintf(o, "  NoPE: %lld attention layers without rotary embedding\n", (long long)m->nope_layers);
    if (m->attn_sinks || m->swa_sinks)
        fprintf(o, "  attention sinks: a learned logit per head joins each softmax (%s layers)\n",
            m->attn_sinks && m->swa_sinks ? "all"
                : m->swa_sinks            ? "sliding"
                                          : "full");
    if (m->attn_output_gate)
        fprintf(o, "  gated attention: q_proj also makes a sigmoid gate of the output\n");
    if (m->idx_heads > 0)
        fprintf(o, "  sparse attention: an indexer (%lld heads of %lld) picks the top %lld keys per query\n",
            (long long)m->idx_heads, (long long)m->idx_head_dim, (long long)m->idx_topk);
    mixers(o, m, pc);
    if (m->attn_softcap > 0 || m->final_softcap > 0)
        fprintf(o,
            "  logit soft-capping: attention %.3g, final %.3g (tanh; eager attention keeps its input)\n",
            m->attn_softcap, m->final_softcap);
    if (m->block_norms == 4)
        fprintf(o, "  four norms per block (pre- and post-norm around attention and MLP)\n");
    if (m->parallel_block) fprintf(o, "  parallel block: attention and MLP read one normed input\n");
    if (m->qk_norm != QKNORM_NONE)
        fprintf(o, "  q/k norms: %s\n",
            m->qk_norm == QKNORM_HEAD ? "head_dim wide, shared by the heads" : "over all heads' channels");
    if (m->norm_weightless) fprintf(o, "  LayerNorm without parameters\n");
    if (m->encoder_layers > 0)
        fprintf(o,
            "  encoder-decoder: %lld encoder + %lld decoder blocks; relative position buckets %lld%s;\n"
            "    decoder tokens per encoder token %.3g\n",
            (long long)m->encoder_layers, (long long)(m->num_layers - m->encoder_layers),
            (long long)m->rel_buckets,
            m->rel_bias_every_layer ? " in every block" : " (first block of each stack)",
            model_seq_scale(m, BLOCK_DENSE));
    if (pc->mtp > 0)
        fprintf(o,
            "  multi-token prediction: %s parameters (%s with the checkpoint's copies of embedding and "
            "head)\n"
            "    not in the total (the main model: the checkpoint's layers 0 to L-1)\n",
            units_fmt_count(pc->mtp, a, sizeof a),
            units_fmt_count(pc->mtp + 2 * (double)m->vocab_size * (double)m->hidden_size, b, sizeof b));
}

void model_explain(FILE *o, const scenario *s)
{
    const model *m = s->m;
    const param_counts *pc = s->pc;
    if (m->params_only) return;
    sim_input in;
    zs_error err = {0};
    if (sim_prepare(&in, m, pc, s->hw, s->t, &err)) return;
    char a[32], b[32];
    fprintf(o, "Model %s (%s): %s parameters, %s active per token%s;\n", m->name, m->model_type,
        units_fmt_count(pc->total, a, sizeof a), units_fmt_count(pc->active, b, sizeof b),
        m->num_experts > 0 ? " (top-k and shared experts of each MoE block)" : "");
    fprintf(o, "  embedding %s, LM head %s, final norm %.0f; per block (total / active):\n",
        units_fmt_count(pc->embedding, a, sizeof a),
        pc->lm_head > 0 ? units_fmt_count(pc->lm_head, b, sizeof b) : "tied", pc->final_norm);
    char nm[96];
    for (int kind = 0; kind < pc->nclass; kind++) {
        double n = pc->nblocks[kind];
        if (n <= 0) continue;
        fprintf(o, "  %4.4g x %-38s %18s / %s\n", n, block_name(m, pc, kind, nm, sizeof nm),
            units_fmt_count(pc->blocks[kind], a, sizeof a),
            units_fmt_count(pc->blocks_active[kind], b, sizeof b));
    }
    features(o, m, pc);
    const flops *f = &in.fl;
    fprintf(o,
        "FLOPs per token, forward: 2 x linear parameters a token passes through = %.4g; attention\n"
        "  scores 2 x keys x (q/k width + v width) per block (local: keys = window)%s = %.4g, as run %.4g\n",
        f->matmul, m->nclass > 0 ? ", with the scans above" : "", f->attention,
        f->attn_fwd_mb / ((double)s->t->seq_len * (double)s->t->micro_batch) * (double)(s->t->tp * s->t->pp));
    fprintf(o,
        "Activations of one block per micro-batch on one GPU (s %lld, b %lld, t %lld%s; e = %.0f B):\n",
        (long long)s->t->seq_len, (long long)s->t->micro_batch, (long long)s->t->tp,
        s->t->sequence_parallel ? ", sequence parallel" : "", in.bt.act);
    for (int kind = 0; kind < pc->nclass; kind++) {
        double n = pc->nblocks[kind];
        if (n <= 0) continue;
        double local = pc->nlocal[kind];
        for (int l = 0; l < 2; l++) {
            double count = l ? local : n - local;
            if (count <= 0) continue;
            act_term terms[ACT_TERMS_MAX];
            int nt = memory_block_terms(&in, kind, l == 1, s->t->checkpointing != CKPT_SELECTIVE, terms);
            double sum = 0;
            fprintf(o, "  %s%s, %.4g of them:\n", block_name(m, pc, kind, nm, sizeof nm),
                l ? (m->window_chunked ? " (chunked attention)" : " (sliding window)") : "", count);
            for (int j = 0; j < nt; j++) {
                sum += terms[j].bytes;
                fprintf(o, "    %-96s %12s\n", terms[j].what, units_fmt_bytes(terms[j].bytes, a, sizeof a));
            }
            fprintf(o, "    %-96s %12s\n", "= per block", units_fmt_bytes(sum, a, sizeof a));
        }
    }
    fprintf(o, "  mean over the %lld blocks: %s per block\n", (long long)m->num_layers,
        units_fmt_bytes(memory_layer_activations(&in, s->t->checkpointing != CKPT_SELECTIVE), a, sizeof a));
}
