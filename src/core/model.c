/* model.c -- parameter tensors of a transformer, exact counts, and shape validation. */
#include "core/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_TENSORS 64

/* One parameter tensor of a block or of the model's ends. */
typedef struct model_tensor {
    const char *name; /* e.g. "mlp.up.weight" */
    double numel;     /* elements */
    double count;     /* how many of this tensor per block (experts) or in the model */
    int module;       /* tensors with the same module id belong to one nn.Module */
    bool active_all;  /* false for expert tensors: only top-k of `count` are used per token */
} model_tensor;

/* Append one tensor; module ids group tensors into nn.Modules. */
static void add(model_tensor *t, int *n, int max, const char *name, double numel, double count, int module,
    bool active_all)
{
    if (*n < max) t[*n] = (model_tensor){name, numel, count, module, active_all};
    (*n)++;
}

/* A norm of width w contributes a weight and, for LayerNorm with beta, a bias: two tensors,
 * one module; OLMo-1's non-parametric LayerNorm contributes nothing. */
static void add_norm_w(
    const model *m, model_tensor *t, int *n, int max, const char *w, const char *b, int module, double width)
{
    if (m->norm_weightless) return;
    add(t, n, max, w, width, 1, module, true);
    if (m->norm == NORM_LAYERNORM && m->norm_bias) add(t, n, max, b, width, 1, module, true);
}

static void add_norm(
    const model *m, model_tensor *t, int *n, int max, const char *w, const char *b, int module)
{
    add_norm_w(m, t, n, max, w, b, module, (double)m->hidden_size);
}

int64_t model_expert_width(const model *m)
{
    return m->moe_intermediate_size > 0 ? m->moe_intermediate_size : m->intermediate_size;
}

/* Clamped so that a model whose depth plan_max_model scales still sums to num_layers; a
 * model with experts but no moe_layers (built by hand) has experts in every decoder block. */
double model_seq_scale(const model *m, block_kind kind)
{
    if (m->encoder_layers <= 0 || kind == BLOCK_ENCODER || m->decoder_seq_ratio <= 0) return 1;
    return m->decoder_seq_ratio;
}

double model_tp_allreduces(const model *m)
{
    double sum = 0, L = (double)m->num_layers;
    if (L <= 0) return 0;
    for (int kind = 0; kind < BLOCK_KINDS; kind++) {
        double n = (double)model_blocks(m, (block_kind)kind);
        double per = m->parallel_block ? 1 : 2;
        if (m->encoder_layers > 0 && kind == BLOCK_DENSE) per += 1;
        sum += n * per * model_seq_scale(m, (block_kind)kind);
    }
    return sum / L;
}

/* q, k, v, o of one attention (self or cross); `base` spaces module ids. */
static void add_qkvo(const model *m, model_tensor *t, int *n, int max, bool cross, int base)
{
    double h = (double)m->hidden_size;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    if (m->fused_qkv && !cross) {
        add(t, n, max, "attn.qkv.weight", h * (q + 2 * kv), 1, base, true);
        if (m->qkv_bias) add(t, n, max, "attn.qkv.bias", q + 2 * kv, 1, base, true);
    } else {
        add(t, n, max, cross ? "xattn.q.weight" : "attn.q.weight", h * q, 1, base, true);
        add(t, n, max, cross ? "xattn.k.weight" : "attn.k.weight", h * kv, 1, base + 1, true);
        add(t, n, max, cross ? "xattn.v.weight" : "attn.v.weight", h * kv, 1, base + 2, true);
        if (m->qkv_bias) {
            add(t, n, max, cross ? "xattn.q.bias" : "attn.q.bias", q, 1, base, true);
            add(t, n, max, cross ? "xattn.k.bias" : "attn.k.bias", kv, 1, base + 1, true);
            add(t, n, max, cross ? "xattn.v.bias" : "attn.v.bias", kv, 1, base + 2, true);
        }
    }
    add(t, n, max, cross ? "xattn.o.weight" : "attn.o.weight", q * h, 1, base + 3, true);
    if (m->out_bias) add(t, n, max, cross ? "xattn.o.bias" : "attn.o.bias", h, 1, base + 3, true);
}

/* Multi-head Latent Attention (DeepSeek-V2 section 2.1; HF modeling_deepseek_v3.py shapes):
 * q through a q_lora_rank bottleneck (or one projection), a shared latent of kv_lora_rank plus
 * one rotary key of qk_rope_dim, expanded per head to nope keys and values. */
static void add_mla(const model *m, model_tensor *t, int *n, int max)
{
    double h = (double)m->hidden_size, a = (double)m->num_heads;
    double qk = (double)(m->qk_nope_dim + m->qk_rope_dim), qr = (double)m->q_lora_rank;
    double kvr = (double)m->kv_lora_rank, rope = (double)m->qk_rope_dim, v = (double)m->v_head_dim;
    if (m->q_lora_rank > 0) {
        add(t, n, max, "attn.q_a.weight", h * qr, 1, 2, true);
        if (m->qkv_bias) add(t, n, max, "attn.q_a.bias", qr, 1, 2, true);
        add(t, n, max, "attn.q_a_norm.weight", qr, 1, 3, true);
        add(t, n, max, "attn.q_b.weight", qr * a * qk, 1, 4, true);
    } else {
        add(t, n, max, "attn.q.weight", h * a * qk, 1, 2, true);
    }
    add(t, n, max, "attn.kv_a.weight", h * (kvr + rope), 1, 5, true);
    if (m->qkv_bias) add(t, n, max, "attn.kv_a.bias", kvr + rope, 1, 5, true);
    add(t, n, max, "attn.kv_a_norm.weight", kvr, 1, 6, true);
    add(t, n, max, "attn.kv_b.weight", kvr * a * ((double)m->qk_nope_dim + v), 1, 7, true);
    add(t, n, max, "attn.o.weight", a * v * h, 1, 8, true);
    if (m->out_bias) add(t, n, max, "attn.o.bias", h, 1, 8, true);
}

/* One MLP of width w: gate/up/down (gated) or fc/down, with biases if the model has them. */
static void add_mlp(const model *m, model_tensor *t, int *n, int max, const char *const *nm, double w,
    double copies, int base, bool active_all)
{
    double h = (double)m->hidden_size;
    if (m->gated_mlp) {
        add(t, n, max, nm[0], h * w, copies, base, active_all);
        add(t, n, max, nm[1], h * w, copies, base + 1, active_all);
        if (m->mlp_bias) {
            add(t, n, max, nm[3], w, copies, base, active_all);
            add(t, n, max, nm[4], w, copies, base + 1, active_all);
        }
    } else {
        add(t, n, max, nm[1], h * w, copies, base, active_all);
        if (m->mlp_bias) add(t, n, max, nm[4], w, copies, base, active_all);
    }
    add(t, n, max, nm[2], w * h, copies, base + 2, active_all);
    if (m->mlp_bias) add(t, n, max, nm[5], h, copies, base + 2, active_all);
}

/* Fill `t` (capacity max) with the tensors of one block of `kind` (layer = true) or the
 * model's embedding/head tensors (layer = false, kind ignored). Returns the number written, or
 * -1 when max is too small. */
static int model_tensors(const model *m, bool layer, block_kind kind, model_tensor *t, int max)
{
    static const char *const norm_w[] = {"norm1.weight", "norm2.weight", "norm3.weight", "norm4.weight"};
    static const char *const norm_b[] = {"norm1.bias", "norm2.bias", "norm3.bias", "norm4.bias"};
    static const char *const mlp_nm[] = {"mlp.gate.weight", "mlp.up.weight", "mlp.down.weight",
        "mlp.gate.bias", "mlp.up.bias", "mlp.down.bias"};
    static const char *const exp_nm[] = {"moe.expert.gate.weight", "moe.expert.up.weight",
        "moe.expert.down.weight", "moe.expert.gate.bias", "moe.expert.up.bias", "moe.expert.down.bias"};
    static const char *const shr_nm[] = {"moe.shared.gate.weight", "moe.shared.up.weight",
        "moe.shared.down.weight", "moe.shared.gate.bias", "moe.shared.up.bias", "moe.shared.down.bias"};
    int n = 0;
    double h = (double)m->hidden_size, v = (double)m->vocab_size;
    double rel = (double)(m->rel_buckets * m->num_heads);
    if (!layer) {
        add(t, &n, max, "embed.tokens", v * h, 1, 0, true);
        if (m->pos == POS_LEARNED)
            add(t, &n, max, "embed.positions", (double)m->max_positions * h, 1, 1, true);
        if (m->embedding_norm) add_norm(m, t, &n, max, "embed.norm.weight", "embed.norm.bias", 2);
        /* T5/MT5: one relative-position table in the first encoder and first decoder block. */
        if (m->pos == POS_RELATIVE && !m->rel_bias_every_layer && m->encoder_layers > 0) {
            add(t, &n, max, "embed.rel_bias.encoder", rel, 1, 5, true);
            add(t, &n, max, "embed.rel_bias.decoder", rel, 1, 6, true);
        } else if (m->pos == POS_RELATIVE && !m->rel_bias_every_layer) {
            add(t, &n, max, "embed.rel_bias", rel, 1, 5, true);
        }
        if (m->encoder_layers > 0)
            add_norm(m, t, &n, max, "final_norm.encoder.weight", "final_norm.encoder.bias", 7);
        add_norm(m, t, &n, max, "final_norm.weight", "final_norm.bias", 3);
        if (!m->tied_embeddings) add(t, &n, max, "lm_head.weight", v * h, 1, 4, true);
        if (m->lm_head_bias) add(t, &n, max, "lm_head.bias", v, 1, 4, true);
        return n <= max ? n : -1;
    }
    /* Norms: pre-norm pairs, Gemma's four, a parallel block's one; a decoder block of an
     * encoder-decoder has one more, before its cross-attention. */
    int norms = m->block_norms > 0 ? m->block_norms : 2;
    bool cross = m->encoder_layers > 0 && kind == BLOCK_DENSE;
    if (cross) norms++;
    if (norms > 4) norms = 4;
    for (int k = 0; k < norms; k++) add_norm(m, t, &n, max, norm_w[k], norm_b[k], k);

    if (m->kv_lora_rank > 0)
        add_mla(m, t, &n, max);
    else
        add_qkvo(m, t, &n, max, false, 4);
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double hd = (double)m->head_dim;
    if (m->qk_norm != QKNORM_NONE) {
        /* LayerNorm q/k norms (Phi's qk_layernorm) carry a bias of the same width. */
        double qw = m->qk_norm == QKNORM_HEAD ? hd : q, kw = m->qk_norm == QKNORM_HEAD ? hd : kv;
        double copies = m->norm == NORM_LAYERNORM && m->norm_bias ? 2 : 1;
        add(t, &n, max, "attn.q_norm", qw, copies, 9, true);
        add(t, &n, max, "attn.k_norm", kw, copies, 10, true);
    }
    if (m->pos == POS_RELATIVE && m->rel_bias_every_layer) add(t, &n, max, "attn.rel_bias", rel, 1, 11, true);
    if (cross) add_qkvo(m, t, &n, max, true, 12);

    if (kind != BLOCK_MOE) {
        add_mlp(m, t, &n, max, mlp_nm, (double)m->intermediate_size, 1, 16, true);
        return n <= max ? n : -1;
    }
    /* MoE: a router, `num_experts` routed MLPs of which top-k are active per token, and
     * optionally shared experts every token passes through (DeepSeekMoE, Qwen2-MoE). */
    double e = (double)m->num_experts;
    add(t, &n, max, "moe.router.weight", h * e, 1, 20, true);
    if (m->router_bias) add(t, &n, max, "moe.router.bias", e, 1, 20, true);
    add_mlp(m, t, &n, max, exp_nm, (double)model_expert_width(m), e, 21, false);
    if (m->shared_intermediate_size > 0)
        add_mlp(m, t, &n, max, shr_nm, (double)m->shared_intermediate_size, 1, 24, true);
    if (m->shared_expert_gate) add(t, &n, max, "moe.shared_gate.weight", h, 1, 27, true);
    return n <= max ? n : -1;
}

/* Range checks in a table: each field, its bounds, and its HF name for messages. */
int model_validate(const model *m, zs_error *err)
{
    if (m->params_only) return ZS_OK;
    const struct {
        const char *field;
        int64_t value, min, max;
    } f[] = {
        {"hidden_size", m->hidden_size, 1, 1000000},
        {"num_hidden_layers", m->num_layers, 1, 100000},
        {"num_attention_heads", m->num_heads, 1, 100000},
        {"num_key_value_heads", m->num_kv_heads, 1, 100000},
        {"head_dim", m->head_dim, 1, 100000},
        {"intermediate_size", m->intermediate_size, 1, 10000000},
        {"vocab_size", m->vocab_size, 1, 100000000},
        {"max_position_embeddings", m->max_positions, 1, 100000000},
        {"num_local_experts", m->num_experts, 0, 100000},
        {"num_experts_per_tok", m->experts_per_token, 0, 100000},
        {"moe_intermediate_size", m->moe_intermediate_size, 0, 10000000},
        {"shared_expert_intermediate_size", m->shared_intermediate_size, 0, 10000000},
        {"q_lora_rank", m->q_lora_rank, 0, 1000000},
        {"kv_lora_rank", m->kv_lora_rank, 0, 1000000},
        {"qk_nope_head_dim", m->qk_nope_dim, 0, 100000},
        {"qk_rope_head_dim", m->qk_rope_dim, 0, 100000},
        {"v_head_dim", m->v_head_dim, 0, 100000},
        {"sliding_window", m->sliding_window, 0, 100000000},
        {"relative_attention_num_buckets", m->rel_buckets, 0, 100000},
        {"num_nextn_predict_layers", m->mtp_layers, 0, 1000},
        /* Upper bounds are num_layers, which plan_max_model scales: model_blocks clamps. */
        {"num_layers (encoder)", m->encoder_layers, 0, 100000},
        {"layers with experts", m->moe_layers, 0, 100000},
        {"layers with sliding-window attention", m->sliding_layers, 0, 100000},
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (f[k].value < f[k].min || f[k].value > f[k].max)
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %lld is out of range (expected %lld to %lld)",
                f[k].field, (long long)f[k].value, (long long)f[k].min, (long long)f[k].max);
    if (m->num_heads % m->num_kv_heads != 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"num_key_value_heads\": %lld does not divide num_attention_heads %lld",
            (long long)m->num_kv_heads, (long long)m->num_heads);
    if (m->num_experts > 0 && (m->experts_per_token < 1 || m->experts_per_token > m->num_experts))
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"num_experts_per_tok\": %lld must be between 1 and num_local_experts %lld",
            (long long)m->experts_per_token, (long long)m->num_experts);
    if (m->kv_lora_rank > 0 && (m->qk_nope_dim + m->qk_rope_dim < 1 || m->v_head_dim < 1))
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"v_head_dim\": Multi-head Latent Attention needs qk_nope_head_dim + qk_rope_head_dim >= "
            "1 and v_head_dim >= 1");
    if (!(m->capacity_factor >= 0 && m->capacity_factor <= 1000))
        return zs_fail(err, ZS_ERR_INPUT, "field \"capacity_factor\": expected 0 (dropless) to 1000");
    if (!(m->decoder_seq_ratio >= 0 && m->decoder_seq_ratio <= 1000))
        return zs_fail(err, ZS_ERR_INPUT, "field \"decoder_seq_ratio\": expected 0 to 1000");
    if (m->block_norms < 0 || m->block_norms > 4)
        return zs_fail(err, ZS_ERR_INPUT, "internal: %d norms per block (expected 0 to 4)", m->block_norms);
    return ZS_OK;
}

/* Sum tensors into totals; `active` counts expert tensors only top-k times. */
static void tally(const model *m, const model_tensor *t, int n, double thr, double *all, double *active,
    double *small, double *largest_module, double *largest_tensor)
{
    double module_sum[MAX_TENSORS] = {0};
    double k = (double)m->experts_per_token;
    *all = *active = *small = 0;
    for (int j = 0; j < n; j++) {
        *all += t[j].numel * t[j].count;
        *active += t[j].numel * (t[j].active_all ? t[j].count : k);
        if (thr > 0 && t[j].numel < thr) *small += t[j].numel * t[j].count;
        /* One module of a repeated (expert) tensor holds numel, not numel * count. */
        module_sum[t[j].module] += t[j].numel;
        if (t[j].numel > *largest_tensor) *largest_tensor = t[j].numel;
    }
    for (int j = 0; j < MAX_TENSORS; j++)
        if (module_sum[j] > *largest_module) *largest_module = module_sum[j];
}

int model_count(const model *m, double small_threshold, param_counts *pc, zs_error *err)
{
    if (model_validate(m, err)) return err ? err->code : ZS_ERR_INPUT;
    if (m->params_only) return ZS_OK; /* counts were set by model_from_params */
    memset(pc, 0, sizeof *pc);
    model_tensor gt[MAX_TENSORS];
    int ng = model_tensors(m, false, BLOCK_DENSE, gt, MAX_TENSORS);
    if (ng < 0) return zs_fail(err, ZS_ERR_INPUT, "internal: too many tensors");

    double g_all, g_active, largest_module = 0, largest_tensor = 0, L = (double)m->num_layers;
    tally(m, gt, ng, small_threshold, &g_all, &g_active, &pc->global_small_params, &largest_module,
        &largest_tensor);
    pc->total = g_all;
    pc->active = g_active;
    /* Each kind of block: its own tally times how many the model stacks. Sums over blocks
     * are exact; the per-layer fields are the largest block (memory of a pipeline stage) or
     * the mean over blocks (FLOPs, which multiply by num_layers). */
    for (int kind = 0; kind < BLOCK_KINDS; kind++) {
        double count = (double)model_blocks(m, (block_kind)kind);
        if (count <= 0) continue;
        model_tensor lt[MAX_TENSORS];
        int nl = model_tensors(m, true, (block_kind)kind, lt, MAX_TENSORS);
        if (nl < 0) return zs_fail(err, ZS_ERR_INPUT, "internal: too many tensors");
        double all, active, small;
        tally(m, lt, nl, small_threshold, &all, &active, &small, &largest_module, &largest_tensor);
        pc->blocks[kind] = all;
        pc->blocks_active[kind] = active;
        pc->total += all * count;
        pc->active += active * count;
        pc->per_layer = fmax(pc->per_layer, all);
        pc->per_layer_active += active * count / L;
        pc->layer_small_params = fmax(pc->layer_small_params, small);
        /* Distinct non-norm modules of a block, each repeated `count` times (experts). */
        double seen[MAX_TENSORS] = {0}, modules = 0;
        for (int j = 0; j < nl; j++)
            if (strncmp(lt[j].name, "norm", 4) != 0 && lt[j].module < MAX_TENSORS)
                seen[lt[j].module] = lt[j].count;
        for (int j = 0; j < MAX_TENSORS; j++) modules += seen[j];
        pc->modules_per_layer = fmax(pc->modules_per_layer, modules);
        for (int j = 0; j < nl; j++) {
            double x = lt[j].numel * lt[j].count * count / L;
            if (strncmp(lt[j].name, "attn.", 5) == 0 || strncmp(lt[j].name, "xattn.", 6) == 0)
                pc->attention_per_layer += x;
            else if (strncmp(lt[j].name, "norm", 4) == 0)
                pc->norm_per_layer += x;
            else
                pc->mlp_per_layer += x;
        }
    }
    pc->largest_module = largest_module;
    pc->largest_tensor = largest_tensor;
    pc->small_tensor_threshold = small_threshold;
    for (int j = 0; j < ng; j++) {
        const char *nm = gt[j].name;
        if (strncmp(nm, "embed.", 6) == 0)
            pc->embedding += gt[j].numel;
        else if (strncmp(nm, "final_norm", 10) == 0)
            pc->final_norm += gt[j].numel;
        else
            pc->lm_head += gt[j].numel;
    }
    /* DeepSeek-V3's multi-token-prediction module (its checkpoint's layer 61; HF's class
     * drops it): enorm, hnorm and the shared head's norm, the 2h x h eh_proj joining the next
     * token's embedding with the hidden state, and one more block of the last layer's kind.
     * Its embedding and head share the main model's (README_WEIGHTS.md: "11.5B unique"); the
     * checkpoint stores copies of both, 2 V h more. */
    if (m->mtp_layers > 0) {
        double h = (double)m->hidden_size;
        double block = pc->blocks[model_blocks(m, BLOCK_MOE) > 0 ? BLOCK_MOE : BLOCK_DENSE];
        pc->mtp = (double)m->mtp_layers * (3 * h + 2 * h * h + block);
    }
    for (int kind = 0; kind < BLOCK_KINDS; kind++) {
        pc->nblocks[kind] = (double)model_blocks(m, (block_kind)kind);
        pc->nlocal[kind] = model_blocks_local(m, (block_kind)kind);
        pc->seq_scale[kind] = model_seq_scale(m, (block_kind)kind);
    }
    return ZS_OK;
}

void model_from_params(model *m, param_counts *pc, double params, double largest_layer)
{
    memset(m, 0, sizeof *m);
    memset(pc, 0, sizeof *pc);
    snprintf(m->name, sizeof m->name, "%.4g parameters", params);
    snprintf(m->model_type, sizeof m->model_type, "params");
    snprintf(m->source, sizeof m->source, "--params");
    m->params_only = true;
    pc->total = pc->active = params;
    pc->largest_module = pc->largest_tensor = largest_layer;
}
