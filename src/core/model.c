/* model.c -- parameter tensors of a transformer, exact counts, and shape validation. */
#include "core/model.h"
#include "core/minmax.h"
#include "core/mixer.h"
#include "core/model_tensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Appends with the old signature, over a tensor_list: the embedding, head, norm and MLP lists
 * below keep their shape. */
static void add(model_tensor *t, int *n, int max, const char *name, double numel, double count, int module,
    bool active_all)
{
    tensor_list l = {t, *n, max, false};
    tensor_add(&l, name, numel, count, module, active_all);
    *n = l.n;
}

/* A linear's weight, in x out, an MLP's to --lora-targets (model_tensor.h). */
static void add_mlp_linear(model_tensor *t, int *n, int max, const char *name, double in, double out,
    double count, int module, bool active_all)
{
    tensor_list l = {t, *n, max, false};
    tensor_add_linear(&l, name, in, out, count, module, active_all, TENSOR_LORA_MLP);
    *n = l.n;
}

static void add_norm(
    const model *m, model_tensor *t, int *n, int max, const char *w, const char *b, int module)
{
    tensor_list l = {t, *n, max, false};
    tensor_add_norm(m, &l, w, b, module, (double)m->hidden_size);
    *n = l.n;
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
    /* A hybrid layer: one after its mixer (parallel mixers sum first), one after its MLP. */
    for (int c = 0; c < m->nclass; c++) {
        const layer_class *lc = &m->classes[c];
        sum +=
            model_class_layers(m, c) * ((lc->mixer != MIX_NONE ? 1 : 0) + (lc->ffn != BLOCK_NOFFN ? 1 : 0));
    }
    if (m->nclass > 0) return sum / L;
    for (int kind = 0; kind < BLOCK_KINDS; kind++) {
        double n = (double)model_blocks(m, (block_kind)kind);
        double per = m->parallel_block ? 1 : 2;
        if (m->encoder_layers > 0 && kind == BLOCK_DENSE) per += 1;
        sum += n * per * model_seq_scale(m, (block_kind)kind);
    }
    return sum / L;
}

/* One MLP of width w: gate/up/down (gated) or fc/down, with biases if the model has them. */
static void add_mlp(const model *m, model_tensor *t, int *n, int max, const char *const *nm, double w,
    double copies, int base, bool active_all)
{
    double h = (double)m->hidden_size;
    if (m->gated_mlp && m->fused_gate_up) { /* one gate|up linear, h -> 2w */
        add_mlp_linear(t, n, max, nm[0], h, 2 * w, copies, base, active_all);
        if (m->mlp_bias) add(t, n, max, nm[3], 2 * w, copies, base, active_all);
    } else if (m->gated_mlp) {
        add_mlp_linear(t, n, max, nm[0], h, w, copies, base, active_all);
        add_mlp_linear(t, n, max, nm[1], h, w, copies, base + 1, active_all);
        if (m->mlp_bias) {
            add(t, n, max, nm[3], w, copies, base, active_all);
            add(t, n, max, nm[4], w, copies, base + 1, active_all);
        }
    } else {
        add_mlp_linear(t, n, max, nm[1], h, w, copies, base, active_all);
        if (m->mlp_bias) add(t, n, max, nm[4], w, copies, base, active_all);
    }
    add_mlp_linear(t, n, max, nm[2], w, h, copies, base + 2, active_all);
    if (m->mlp_bias) add(t, n, max, nm[5], h, copies, base + 2, active_all);
}

/* Gemma 3n / Gemma 4's model-level tensors beside the token embedding (Gemma3nTextModel,
 * Gemma4TextModel): the per-layer input table embed_tokens_per_layer (vocab_size_per_layer_input
 * x L P, a lookup: "embed." so FLOPs do not take it for a matmul), per_layer_model_projection
 * (L P x h) and per_layer_projection_norm (P); Gemma 3n's AltUp altup_projections and
 * altup_unembed_projections, A - 1 of h x h each. Their scales are non-persistent buffers. */
static void add_model_extras(const model *m, tensor_list *l)
{
    double h = (double)m->hidden_size, L = (double)m->num_layers, p = (double)m->ple_dim;
    if (m->ple_dim > 0) {
        tensor_add(l, "embed.tokens_per_layer", (double)m->ple_vocab * L * p, 1, 8, true);
        tensor_add(l, "ple.model_projection.weight", L * p * h, 1, 9, true);
        tensor_add(l, "ple.projection_norm.weight", p, 1, 10, true);
    }
    if (m->altup_inputs > 1) {
        tensor_add(l, "altup.projections", h * h, (double)(m->altup_inputs - 1), 11, true);
        tensor_add(l, "altup.unembed_projections", h * h, (double)(m->altup_inputs - 1), 12, true);
    }
}

/* Gemma 3n / Gemma 4's per-block tensors that are not the token mixer's or the MLP's
 * (Gemma3nTextDecoderLayer, Gemma4TextDecoderLayer). AltUp: altup.correct_output_scale (h),
 * correction_coefs (A x A), prediction_coefs (A^2 x A), modality_router (A x h),
 * router_norm (h; router_input_scale is a buffer). LAuReL: laurel.linear_left (r x h),
 * linear_right (h x r), post_laurel_norm (h). Per-layer input: per_layer_input_gate (P x h),
 * per_layer_projection (h x P), post_per_layer_input_norm (h). Gemma 4's layer_scalar ([1]
 * a layer) is a persistent buffer, in the checkpoint but not a parameter: not counted. */
static void add_layer_extras(const model *m, tensor_list *l)
{
    double h = (double)m->hidden_size, a = (double)m->altup_inputs, r = (double)m->laurel_rank;
    double p = (double)m->ple_dim;
    if (m->altup_inputs > 0) {
        tensor_add(l, "altup.correct_output_scale", h, 1, 50, true);
        tensor_add(l, "altup.correction_coefs.weight", a * a, 1, 51, true);
        tensor_add(l, "altup.prediction_coefs.weight", a * a * a, 1, 52, true);
        tensor_add(l, "altup.modality_router.weight", a * h, 1, 53, true);
        tensor_add(l, "norm.altup_router.weight", h, 1, 54, true);
    }
    if (m->laurel_rank > 0) {
        tensor_add(l, "laurel.linear_left.weight", r * h, 1, 55, true);
        tensor_add(l, "laurel.linear_right.weight", h * r, 1, 56, true);
        tensor_add(l, "norm.post_laurel.weight", h, 1, 57, true);
    }
    if (m->ple_dim > 0) {
        tensor_add(l, "ple.per_layer_input_gate.weight", p * h, 1, 58, true);
        tensor_add(l, "ple.per_layer_projection.weight", h * p, 1, 59, true);
        tensor_add(l, "norm.post_per_layer_input.weight", h, 1, 60, true);
    }
}

/* Fill `t` (capacity max) with the tensors of one block of class c of pc (layer = true) or the
 * model's embedding/head tensors (layer = false, c ignored). Returns the number written, or
 * -1 when max is too small. */
static int model_tensors(const model *m, const param_counts *pc, bool layer, int c, model_tensor *t, int max)
{
    static const char *const norm_w[] = {"norm1.weight", "norm2.weight", "norm3.weight", "norm4.weight"};
    static const char *const norm_b[] = {"norm1.bias", "norm2.bias", "norm3.bias", "norm4.bias"};
    static const char *const norm_moe[] = {"norm.moe1.weight", "norm.moe2.weight", "norm.moe3.weight"};
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
        tensor_list g = {t, n, max, false};
        add_model_extras(m, &g);
        return g.n <= max ? g.n : -1;
    }
    /* Norms first (pc->cls_norms: pre-norm pairs, Gemma's four, a parallel block's one, one
     * more before a cross-attention; a hybrid layer's one per sub-block), then the mixers'
     * own tensors from their ops rows, then the MLP. */
    int norms = (int)pc->cls_norms[c];
    for (int k = 0; k < norms && k < 4; k++) add_norm(m, t, &n, max, norm_w[k], norm_b[k], k);
    tensor_list l = {t, n, max, pc->kv_shared[c]};
    if (pc->mixer[c] != MIX_NONE) mixer_table[pc->mixer[c]]->tensors(m, &l, 30);
    if (pc->mixer2[c] != MIX_NONE) mixer_table[pc->mixer2[c]]->tensors(m, &l, 40);
    add_layer_extras(m, &l);
    n = l.n;
    block_kind kind = pc->kind[c];
    if (kind == BLOCK_NOFFN) return n <= max ? n : -1;
    if (kind != BLOCK_MOE) {
        double w = m->dense_intermediate_size > 0 ? (double)m->dense_intermediate_size
                                                  : (double)m->intermediate_size;
        if (pc->kv_shared[c] && m->kv_shared_intermediate_size > 0)
            w = (double)m->kv_shared_intermediate_size;
        add_mlp(m, t, &n, max, mlp_nm, w, 1, 16, true);
        return n <= max ? n : -1;
    }
    /* MoE: a router, `num_experts` routed MLPs of which top-k are active per token, and
     * optionally shared experts every token passes through (DeepSeekMoE, Qwen2-MoE). */
    double e = (double)m->num_experts;
    add_mlp_linear(t, &n, max, "moe.router.weight", h, e, 1, 20, true);
    if (m->router_bias) add(t, &n, max, "moe.router.bias", e, 1, 20, true);
    add_mlp(m, t, &n, max, exp_nm, (double)model_expert_width(m), e, 21, false);
    if (m->shared_intermediate_size > 0)
        add_mlp(m, t, &n, max, shr_nm, (double)m->shared_intermediate_size, 1, 24, true);
    if (m->shared_expert_gate) add_mlp_linear(t, &n, max, "moe.shared_gate.weight", h, 1, 1, 27, true);
    /* Gemma 4's Gemma4TextRouter: scale (h) and per_expert_scale (E) beside proj; its block's
     * pre_feedforward_layernorm_2, post_feedforward_layernorm_1 and _2 (moe_norms of them). */
    if (m->router_scales) {
        add(t, &n, max, "moe.router.scale", h, 1, 20, true);
        add(t, &n, max, "moe.router.per_expert_scale", e, 1, 20, true);
    }
    for (int k = 0; k < m->moe_norms && k < 3; k++) add(t, &n, max, norm_moe[k], h, 1, 61 + k, true);
    return n <= max ? n : -1;
}

/* The range of each checked field, by its HF name (the values are model_validate's, in the
 * same order). */
static const struct {
    const char *field;
    int64_t min, max;
} field_bounds[] = {
    {"hidden_size", 1, 1000000},
    {"num_hidden_layers", 1, 100000},
    {"num_attention_heads", 1, 100000},
    {"num_key_value_heads", 1, 100000},
    {"head_dim", 1, 100000},
    {"intermediate_size", 1, 10000000},
    {"vocab_size", 1, 100000000},
    {"max_position_embeddings", 1, 100000000},
    {"num_local_experts", 0, 100000},
    {"num_experts_per_tok", 0, 100000},
    {"moe_intermediate_size", 0, 10000000},
    {"shared_expert_intermediate_size", 0, 10000000},
    {"q_lora_rank", 0, 1000000},
    {"kv_lora_rank", 0, 1000000},
    {"qk_nope_head_dim", 0, 100000},
    {"qk_rope_head_dim", 0, 100000},
    {"v_head_dim", 0, 100000},
    {"sliding_window", 0, 100000000},
    {"relative_attention_num_buckets", 0, 100000},
    {"num_nextn_predict_layers", 0, 1000},
    {"num_layers (encoder)", 0, 100000},
    {"layers with experts", 0, 100000},
    {"layers with sliding-window attention", 0, 100000},
};

#define N_FIELD_BOUNDS (sizeof field_bounds / sizeof field_bounds[0])

bool model_field_bounds(const char *field, int64_t *min, int64_t *max)
{
    for (size_t k = 0; k < N_FIELD_BOUNDS; k++)
        if (strcmp(field_bounds[k].field, field) == 0) {
            *min = field_bounds[k].min;
            *max = field_bounds[k].max;
            return true;
        }
    return false;
}

/* Range checks in a table: each field, its bounds, and its HF name for messages. */
int model_validate(const model *m, zs_error *err)
{
    if (m->params_only) return ZS_OK;
    /* Upper bounds of the last three are num_layers, which plan_max_model scales: model_blocks
     * clamps. */
    const int64_t value[] = {
        m->hidden_size,
        m->num_layers,
        m->num_heads,
        m->num_kv_heads,
        m->head_dim,
        m->intermediate_size,
        m->vocab_size,
        m->max_positions,
        m->num_experts,
        m->experts_per_token,
        m->moe_intermediate_size,
        m->shared_intermediate_size,
        m->q_lora_rank,
        m->kv_lora_rank,
        m->qk_nope_dim,
        m->qk_rope_dim,
        m->v_head_dim,
        m->sliding_window,
        m->rel_buckets,
        m->mtp_layers,
        m->encoder_layers,
        m->moe_layers,
        m->sliding_layers,
    };
    _Static_assert(sizeof value / sizeof value[0] == N_FIELD_BOUNDS, "a value per bounded field");
    for (size_t k = 0; k < N_FIELD_BOUNDS; k++)
        if (value[k] < field_bounds[k].min || value[k] > field_bounds[k].max)
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %lld is out of range (expected %lld to %lld)",
                field_bounds[k].field, (long long)value[k], (long long)field_bounds[k].min,
                (long long)field_bounds[k].max);
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
    /* Sliding layers shaped apart (Gemma 4's and MiMo's swa_* shape, copied from the config's
     * heads and head_dim before the full layers' replace them): the same bounds. */
    if (m->swa_heads > 0 && (m->swa_heads > 100000 || m->swa_kv_heads < 1 || m->swa_kv_heads > 100000 ||
                                m->swa_head_dim < 1 || m->swa_head_dim > 100000 || m->swa_v_dim < 0 ||
                                m->swa_v_dim > 100000))
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"head_dim\" / \"num_key_value_heads\" of the sliding layers: %lld / %lld (expected 1 to "
            "100000)",
            (long long)m->swa_head_dim, (long long)m->swa_kv_heads);
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

/* The block an MTP module repeats: an attention block with experts if the model has one (the
 * last layer's kind in DeepSeek-V3, GLM-4.5, Qwen3-Next), else with a dense MLP. */
static int mtp_class(const param_counts *pc)
{
    int best = 0;
    for (int c = 0; c < pc->nclass; c++)
        if (pc->nblocks[c] > 0 && pc->mixer[c] == MIX_ATTENTION && pc->kind[c] == BLOCK_MOE) return c;
    for (int c = 0; c < pc->nclass; c++)
        if (pc->nblocks[c] > 0 && pc->mixer[c] == MIX_ATTENTION && pc->kind[c] == BLOCK_DENSE) best = c;
    return best;
}

/* The block classes: a classic model's BLOCK_KINDS (every decoder block attention, T5's decoder
 * blocks cross-attending too), or a hybrid pattern's layer classes, with how many blocks,
 * how many of them attend locally, their token scale and their norms. */
static void model_classes(const model *m, param_counts *pc)
{
    if (m->nclass <= 0) {
        pc->nclass = BLOCK_ENCODER + 1;
        int norms = m->block_norms > 0 ? m->block_norms : 2;
        for (int k = 0; k < pc->nclass; k++) {
            bool cross = m->encoder_layers > 0 && k == BLOCK_DENSE;
            pc->kind[k] = (block_kind)k;
            pc->mixer[k] = MIX_ATTENTION;
            pc->mixer2[k] = cross ? MIX_CROSS : MIX_NONE;
            pc->cls_norms[k] = cross && norms < 4 ? norms + 1 : norms;
            pc->nblocks[k] = (double)model_blocks(m, (block_kind)k);
            pc->nlocal[k] = model_blocks_local(m, (block_kind)k);
            pc->seq_scale[k] = model_seq_scale(m, (block_kind)k);
        }
        return;
    }
    /* Sliding or chunked layers are attention layers: spread over the attention classes. */
    double attn = 0;
    for (int c = 0; c < m->nclass; c++)
        if (m->classes[c].mixer == MIX_ATTENTION) attn += model_class_layers(m, c);
    double swa = 0;
    for (int c = 0; c < m->nclass; c++)
        if (m->classes[c].mixer == MIX_SWA) swa += model_class_layers(m, c);
    double frac = attn > 0 && m->sliding_window > 0
        ? zs_fmax(0, zs_fmin(1, ((double)m->sliding_layers - swa) / attn))
        : 0;
    bool exact = false; /* the pattern placed its sliding layers (layer_class.local) */
    for (int c = 0; c < m->nclass; c++) exact |= m->classes[c].local > 0;
    pc->nclass = m->nclass;
    for (int c = 0; c < m->nclass; c++) {
        const layer_class *lc = &m->classes[c];
        pc->kind[c] = lc->ffn;
        pc->mixer[c] = lc->mixer;
        pc->mixer2[c] = lc->mixer2;
        pc->cls_norms[c] = (lc->mixer != MIX_NONE ? 1 : 0) + (lc->ffn != BLOCK_NOFFN ? 1 : 0);
        /* Gemma's pre and post norms around both sub-blocks (Gemma 4's layer classes). */
        if (m->block_norms == 4 && pc->cls_norms[c] == 2) pc->cls_norms[c] = 4;
        pc->kv_shared[c] = lc->kv_shared;
        pc->nblocks[c] = model_class_layers(m, c);
        /* A pattern that says which class each sliding layer is in (Llama 4: the chunked layers
         * are the rotary ones, and the NoPE ones all have experts) keeps it. */
        if (lc->mixer == MIX_SWA)
            pc->nlocal[c] = pc->nblocks[c];
        else if (lc->mixer != MIX_ATTENTION)
            pc->nlocal[c] = 0;
        else if (exact)
            pc->nlocal[c] = lc->count > 0 ? (double)lc->local * pc->nblocks[c] / (double)lc->count : 0;
        else
            pc->nlocal[c] = frac * pc->nblocks[c];
        pc->seq_scale[c] = 1;
    }
}

int model_count(const model *m, double small_threshold, param_counts *pc, zs_error *err)
{
    if (model_validate(m, err)) return err ? err->code : ZS_ERR_INPUT;
    if (m->params_only) return ZS_OK; /* counts were set by model_from_params */
    memset(pc, 0, sizeof *pc);
    model_classes(m, pc);
    model_tensor gt[MAX_TENSORS];
    int ng = model_tensors(m, pc, false, 0, gt, MAX_TENSORS);
    if (ng < 0) return zs_fail(err, ZS_ERR_INPUT, "internal: too many tensors");

    double g_all, g_active, largest_module = 0, largest_tensor = 0, L = (double)m->num_layers;
    tally(m, gt, ng, small_threshold, &g_all, &g_active, &pc->global_small_params, &largest_module,
        &largest_tensor);
    pc->total = g_all;
    pc->active = g_active;
    /* Each kind of block: its own tally times how many the model stacks. Sums over blocks
     * are exact; the per-layer fields are the largest block (memory of a pipeline stage) or
     * the mean over blocks (FLOPs, which multiply by num_layers). */
    for (int kind = 0; kind < pc->nclass; kind++) {
        double count = pc->nblocks[kind];
        if (count <= 0) continue;
        model_tensor lt[MAX_TENSORS];
        int nl = model_tensors(m, pc, true, kind, lt, MAX_TENSORS);
        if (nl < 0) return zs_fail(err, ZS_ERR_INPUT, "internal: too many tensors");
        double all, active, small;
        tally(m, lt, nl, small_threshold, &all, &active, &small, &largest_module, &largest_tensor);
        pc->blocks[kind] = all;
        pc->blocks_active[kind] = active;
        pc->total += all * count;
        pc->active += active * count;
        pc->per_layer = zs_fmax(pc->per_layer, all);
        pc->per_layer_active += active * count / L;
        pc->layer_small_params = zs_fmax(pc->layer_small_params, small);
        /* Distinct non-norm modules of a block, each repeated `count` times (experts). */
        double seen[MAX_TENSORS] = {0}, modules = 0;
        for (int j = 0; j < nl; j++)
            if (strncmp(lt[j].name, "norm", 4) != 0 && lt[j].module < MAX_TENSORS)
                seen[lt[j].module] = lt[j].count;
        for (int j = 0; j < MAX_TENSORS; j++) modules += seen[j];
        pc->modules_per_layer = zs_fmax(pc->modules_per_layer, modules);
        for (int j = 0; j < nl; j++) {
            /* Norms, the MLP or experts, and the rest: the mixers' (attention, SSM). */
            double x = lt[j].numel * lt[j].count * count / L;
            double f = lt[j].fan * lt[j].count * count / L;
            if (lt[j].lora & TENSOR_LORA_MIXER) pc->lora_fan_mixer += f;
            if (lt[j].lora & TENSOR_LORA_QV) pc->lora_fan_qv += f;
            if (lt[j].lora & TENSOR_LORA_MLP) pc->lora_fan_mlp += f;
            if (strncmp(lt[j].name, "norm", 4) == 0)
                pc->norm_per_layer += x;
            else if (strncmp(lt[j].name, "mlp.", 4) == 0 || strncmp(lt[j].name, "moe.", 4) == 0)
                pc->mlp_per_layer += x;
            else
                pc->attention_per_layer += x;
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
        else if (strncmp(nm, "lm_head", 7) == 0)
            pc->lm_head += gt[j].numel;
        else
            pc->embedding += gt[j].numel * gt[j].count; /* Gemma's per-layer input, AltUp */
    }
    /* DeepSeek-V3's multi-token-prediction module (its checkpoint's layer 61; HF's class
     * drops it): enorm, hnorm and the shared head's norm, the 2h x h eh_proj joining the next
     * token's embedding with the hidden state, and one more block of the last layer's kind.
     * Its embedding and head share the main model's (README_WEIGHTS.md: "11.5B unique"); the
     * checkpoint stores copies of both, 2 V h more. */
    if (m->mtp_layers > 0) {
        double h = (double)m->hidden_size;
        pc->mtp = (double)m->mtp_layers * (3 * h + 2 * h * h + pc->blocks[mtp_class(pc)]);
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
