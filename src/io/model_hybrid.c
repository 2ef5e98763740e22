/* model_hybrid.c -- 2025-2026 families' own keys: layer patterns, hybrid SSM and linear attention, sinks. */
#include "io/model_arch.h"

#include <math.h>
#include <string.h>

#include "io/jsonutil.h"
#include "io/model_pattern.h"

/* Each layer's MLP: experts when (i + 1) % step == 0 and i is not listed in `only_key` (Qwen's
 * decoder_sparse_step and mlp_only_layers; Llama 4's interleave_moe_layer_step). */
static void plan_moe_step(layer_plan *p, const cJSON *j, const char *only_key, int64_t step)
{
    if (step < 1) step = 1;
    for (int64_t i = 0; i < p->n; i++) p->ffn[i] = (i + 1) % step == 0 ? BLOCK_MOE : BLOCK_DENSE;
    const cJSON *only = only_key ? cJSON_GetObjectItemCaseSensitive(j, only_key) : NULL, *e;
    cJSON_ArrayForEach(e, only) if (cJSON_IsNumber(e) && e->valuedouble >= 0 && e->valuedouble < (double)p->n)
        p->ffn[(int64_t)e->valuedouble] = BLOCK_DENSE;
}

/* Routed experts of DeepSeek-style MoE keys (n_routed_experts, moe_intermediate_size,
 * n_shared_experts shared ones of the same width) with the e_score_correction_bias that
 * noaux_tc routing keeps per expert: a buffer in the HF class, stored in the checkpoint and
 * counted by the Hub, so counted here (as for DeepSeek-V3). */
static int read_deepseek_moe(const cJSON *j, model *m, const char *shared_key, zs_error *err)
{
    int64_t shared = 0;
    if (read_int(j, "n_routed_experts", &m->num_experts, err)) return err->code;
    if (read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err)) return err->code;
    if (read_int(j, "n_shared_experts", &shared, err)) return err->code;
    if (shared < 0 || shared > 1000 || m->moe_intermediate_size > JSON_BIG / 1000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"n_shared_experts\": %lld is out of range (expected 0 to 1000)", (long long)shared);
    m->shared_intermediate_size = shared * m->moe_intermediate_size;
    if (shared_key && read_int(j, shared_key, &m->shared_intermediate_size, err)) return err->code;
    m->router_bias = true;
    return ZS_OK;
}

/* gpt-oss (HF GptOssConfig / GptOssModel): every layer routed experts with biases on
 * gate_up and down, a router with a bias, attention with biases and a learned sink logit per
 * head; layer_types alternates 128-token sliding and full attention (default: even layers
 * slide). The checkpoint stores the experts in MXFP4 (blocks + scales): the same count. */
int fam_gpt_oss(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    bool have;
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (!cJSON_GetObjectItemCaseSensitive(j, "num_experts_per_tok") &&
        json_get_int(j, "experts_per_token", -JSON_BIG, JSON_BIG, &m->experts_per_token, &have, err))
        return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.ffn[i] = BLOCK_MOE, p.local[i] = i % 2 == 0;
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    m->attn_sinks = m->router_bias = m->mlp_bias = true;
    return pattern_apply(&p, m, err);
}

/* Llama 4 text model (HF Llama4TextConfig / modeling_llama4.py): experts of intermediate_size
 * with one shared expert of the same width on layers (i + 1) % interleave_moe_layer_step == 0,
 * dense MLPs of intermediate_size_mlp elsewhere; no_rope_layers (1 = rotary, 0 = NoPE; default
 * every fourth layer NoPE); rotary layers attend within attention_chunk_size chunks, NoPE
 * layers globally; use_qk_norm is an L2 norm without weights. */
int fam_llama4(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    int64_t step = 1, interval = 4, mlp = 0, chunk = 0;
    bool have, qk = false;
    if (read_int(j, "interleave_moe_layer_step", &step, err) ||
        read_int(j, "intermediate_size_mlp", &mlp, err) ||
        read_int(j, "no_rope_layer_interval", &interval, err) ||
        read_int(j, "attention_chunk_size", &chunk, err))
        return err->code;
    if (json_get_bool(j, "use_qk_norm", &qk, &have, err)) return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    plan_moe_step(&p, j, NULL, step);
    for (int64_t i = 0; i < p.n; i++) p.nope[i] = interval > 0 && (i + 1) % interval == 0;
    /* Llama4TextConfig: "no_rope_layers == [] is invalid as we cannot have 0 layers"; an
     * empty list takes the default (no_rope_layers if no_rope_layers else default). */
    const cJSON *nope = cJSON_GetObjectItemCaseSensitive(j, "no_rope_layers");
    if (cJSON_IsArray(nope) && cJSON_GetArraySize(nope) > 0) {
        for (int64_t i = 0; i < p.n; i++) p.nope[i] = 0;
        if (pattern_read_nope(&p, j, "no_rope_layers", 0, err)) return err->code;
    }
    for (int64_t i = 0; i < p.n; i++) p.local[i] = chunk > 0 && !p.nope[i];
    m->moe_intermediate_size = m->shared_intermediate_size = m->intermediate_size;
    m->dense_intermediate_size = mlp;
    m->sliding_window = chunk;
    m->window_chunked = chunk > 0;
    if (qk) m->qk_norm = QKNORM_HEAD, m->qk_norm_weightless = true;
    return pattern_apply(&p, m, err);
}

/* Qwen3-Next and Qwen3.5's text model (HF Qwen3NextConfig): gated DeltaNet layers and, one
 * in full_attention_interval (default 4; layer_types when given), gated attention (q_proj
 * also makes the output gate) with per-head q/k norms; experts by decoder_sparse_step and
 * mlp_only_layers with a sigmoid-gated shared expert. The checkpoint adds mtp.* (one
 * multi-token-prediction layer, mtp_num_hidden_layers), counted apart. */
int fam_qwen3_next(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    int64_t interval = 4, step = 1;
    bool have, gate = true;
    if (read_int(j, "full_attention_interval", &interval, err) ||
        read_int(j, "decoder_sparse_step", &step, err) || read_int(j, "num_experts", &m->num_experts, err) ||
        read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err) ||
        read_int(j, "shared_expert_intermediate_size", &m->shared_intermediate_size, err) ||
        read_int(j, "linear_num_key_heads", &m->lin_k_heads, err) ||
        read_int(j, "linear_num_value_heads", &m->lin_v_heads, err) ||
        read_int(j, "linear_key_head_dim", &m->lin_k_dim, err) ||
        read_int(j, "linear_value_head_dim", &m->lin_v_dim, err) ||
        read_int(j, "linear_conv_kernel_dim", &m->lin_conv, err) ||
        read_int(j, "mtp_num_hidden_layers", &m->mtp_layers, err))
        return err->code;
    if (json_get_bool(j, "attn_output_gate", &gate, &have, err)) return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++)
        p.mixer[i] = interval > 0 && (i + 1) % interval == 0 ? MIX_ATTENTION : MIX_DELTANET;
    plan_moe_step(&p, j, "mlp_only_layers", step);
    if (m->num_experts <= 0)
        for (int64_t i = 0; i < p.n; i++) p.ffn[i] = BLOCK_DENSE;
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    m->shared_expert_gate = m->shared_intermediate_size > 0;
    m->attn_output_gate = gate;
    return pattern_apply(&p, m, err);
}

/* GLM-4.5 / 4.6 / 4.7 (HF Glm4MoeConfig): grouped-query attention with q/k/v biases
 * (attention_bias) but none on o_proj, per-head q/k norms when use_qk_norm, dense MLPs in the
 * first first_k_dense_replace layers and DeepSeek-style experts after; the checkpoint adds
 * num_nextn_predict_layers MTP layers (GLM-4.5 with its own embedding and head copies). */
int fam_glm4_moe(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    int64_t k = 1;
    bool have, qk = false;
    if (read_deepseek_moe(j, m, NULL, err) || read_int(j, "first_k_dense_replace", &k, err) ||
        read_int(j, "num_nextn_predict_layers", &m->mtp_layers, err))
        return err->code;
    if (json_get_bool(j, "use_qk_norm", &qk, &have, err)) return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.ffn[i] = i >= k ? BLOCK_MOE : BLOCK_DENSE;
    m->out_bias = false;
    if (qk) m->qk_norm = QKNORM_HEAD;
    return pattern_apply(&p, m, err);
}

/* MiniMax-M2 (HF MiniMaxM2Config): experts of intermediate_size in every layer, no shared
 * expert, sigmoid routing with a per-expert correction bias (use_routing_bias), q/k norms over
 * the whole projections, full attention everywhere. The config's MTP keys have no tensors in
 * the published checkpoint. */
int fam_minimax_m2(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have, routing = true;
    if (json_get_bool(j, "use_routing_bias", &routing, &have, err)) return err->code;
    m->router_bias = routing;
    m->qk_norm = QKNORM_FULL;
    m->moe_layers = m->num_layers;
    return ZS_OK;
}

/* ERNIE 4.5 (HF Ernie4_5Config / Ernie4_5_MoeConfig): Llama blocks with use_bias on every
 * linear; experts on layers moe_layer_start_index..moe_layer_end_index every
 * moe_layer_interval, moe_num_shared_experts shared experts of the experts' width, and the
 * router's correction bias (moe_statics). */
int fam_ernie(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    bool have, bias = false;
    if (json_get_bool(j, "use_bias", &bias, &have, err)) return err->code;
    m->qkv_bias = m->out_bias = m->mlp_bias = bias;
    if (!a->moe) return ZS_OK;
    int64_t start = 0, end = m->num_layers - 1, every = 1, shared = 0;
    if (read_int(j, "moe_num_experts", &m->num_experts, err) ||
        read_int(j, "moe_k", &m->experts_per_token, err) ||
        read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err) ||
        read_int(j, "moe_num_shared_experts", &shared, err) ||
        read_int(j, "moe_layer_start_index", &start, err) || read_int(j, "moe_layer_end_index", &end, err) ||
        read_int(j, "moe_layer_interval", &every, err))
        return err->code;
    if (every < 1 || shared < 0 || shared > 1000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"moe_layer_interval\" / \"moe_num_shared_experts\": %lld / %lld "
            "(expected 1 or more / 0 to 1000)",
            (long long)every, (long long)shared);
    if (end < 0) end = m->num_layers - 1;
    m->shared_intermediate_size = shared * m->moe_intermediate_size;
    m->router_bias = true;
    m->moe_layers = 0;
    for (int64_t i = start < 0 ? 0 : start; i <= end && i < m->num_layers && i < 100000; i++)
        if ((i - start) % every == 0) m->moe_layers++;
    return ZS_OK;
}

/* SmolLM3 (HF SmolLM3Config): Llama blocks; no_rope_layers (1 = rotary, 0 = NoPE; default
 * every no_rope_layer_interval-th layer NoPE) changes no shape, only rotary work. */
int fam_smollm3(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    int64_t interval = 4;
    if (read_int(j, "no_rope_layer_interval", &interval, err)) return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "no_rope_layers"))) {
        if (pattern_read_nope(&p, j, "no_rope_layers", 0, err)) return err->code;
    } else {
        for (int64_t i = 0; i < p.n; i++) p.nope[i] = interval > 0 && (i + 1) % interval == 0;
    }
    bool have, use = false;
    if (json_get_bool(j, "use_sliding_window", &use, &have, err)) return err->code;
    if (use && read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (use && pattern_read_types(&p, j, "layer_types", err)) return err->code;
    return pattern_apply(&p, m, err);
}

/* Sliding layers by layer_types, else by sliding_window_pattern: an integer (every pattern-th
 * layer global) or a string of L (local) and G (global) repeated (EXAONE 4's "LLLG"). */
static int plan_window_pattern(const cJSON *j, layer_plan *p, int64_t every, zs_error *err)
{
    const cJSON *pat = cJSON_GetObjectItemCaseSensitive(j, "sliding_window_pattern");
    if (cJSON_IsString(pat) && pat->valuestring[0]) {
        size_t len = strlen(pat->valuestring);
        for (int64_t i = 0; i < p->n; i++) p->local[i] = pat->valuestring[(size_t)i % len] == 'L';
    } else {
        if (read_int(j, "sliding_window_pattern", &every, err)) return err->code;
        for (int64_t i = 0; i < p->n; i++) p->local[i] = every > 0 && (i + 1) % every != 0;
    }
    return pattern_read_types(p, j, "layer_types", err);
}

/* EXAONE 4 (HF Exaone4Config): no input norm, post-attention and post-feedforward norms
 * (two a block), per-head q/k norms; 3 local : 1 global by layer_types or
 * sliding_window_pattern, the global layers without rotary (NoPE) when some slide. */
int fam_exaone4(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (pattern_init(&p, m, err) || plan_window_pattern(j, &p, 4, err)) return err->code;
    bool hybrid = false;
    for (int64_t i = 0; i < p.n; i++) hybrid |= p.local[i];
    for (int64_t i = 0; i < p.n; i++) p.nope[i] = hybrid && m->sliding_window > 0 && !p.local[i];
    return pattern_apply(&p, m, err);
}

/* OLMo 3 (HF Olmo3Config): OLMo-2's blocks and q/k norms over the whole projections; three
 * sliding layers to one full (layer_types; default full when (i + 1) % 4 == 0). */
int fam_olmo3(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.local[i] = (i + 1) % 4 != 0;
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    return pattern_apply(&p, m, err);
}

/* A decoder of unknown model_type (model_generic): the common MoE layouts (experts by
 * num_local_experts, num_experts or n_routed_experts; first_k_dense_replace or
 * decoder_sparse_step and mlp_only_layers; shared experts by width or by count; a correction
 * bias with n_routed_experts), per-head q/k norms with use_qk_norm, sliding windows by
 * layer_types or on every layer. */
int fam_generic(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    int64_t k = 0, step = 1, shared = 0;
    bool have, qk = false, use = true;
    if (m->num_experts <= 0 && read_int(j, "num_experts", &m->num_experts, err)) return err->code;
    if (m->num_experts <= 0 && cJSON_GetObjectItemCaseSensitive(j, "n_routed_experts")) {
        if (read_deepseek_moe(j, m, "shared_expert_intermediate_size", err)) return err->code;
    } else if (read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err) ||
        read_int(j, "shared_expert_intermediate_size", &m->shared_intermediate_size, err) ||
        read_int(j, "n_shared_experts", &shared, err)) {
        return err->code;
    }
    if (shared > 0 && m->shared_intermediate_size <= 0 && shared <= 1000 &&
        m->moe_intermediate_size < JSON_BIG / 1000)
        m->shared_intermediate_size = shared * m->moe_intermediate_size;
    if (read_int(j, "first_k_dense_replace", &k, err) || read_int(j, "decoder_sparse_step", &step, err) ||
        read_int(j, "sliding_window", &m->sliding_window, err))
        return err->code;
    if (json_get_bool(j, "use_qk_norm", &qk, &have, err) ||
        json_get_bool(j, "use_sliding_window", &use, &have, err))
        return err->code;
    if (qk) m->qk_norm = QKNORM_HEAD;
    if (!use) m->sliding_window = 0;
    if (pattern_init(&p, m, err)) return err->code;
    plan_moe_step(&p, j, "mlp_only_layers", step);
    for (int64_t i = 0; i < p.n; i++) {
        if (i < k || m->num_experts <= 0) p.ffn[i] = BLOCK_DENSE;
        p.local[i] = m->sliding_window > 0;
    }
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    return pattern_apply(&p, m, err);
}

/* A 0/1 list `key` into field[i] = (entry == 1 ? one : zero); absent: no change. */
static void plan_flags(layer_plan *p, const cJSON *j, const char *key, unsigned char *field,
    unsigned char one, unsigned char zero)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, key), *e;
    int64_t i = 0;
    if (!cJSON_IsArray(l)) return;
    cJSON_ArrayForEach(e, l)
    {
        if (i >= p->n) break;
        field[i++] = cJSON_IsNumber(e) && e->valuedouble == 1 ? one : zero;
    }
}

/* MiMo-V2-Flash (HF MiMoV2FlashConfig; XiaomiMiMo's config.json): full attention on layer 0
 * and every sixth layer, 128-token sliding attention elsewhere (hybrid_layer_pattern 1, or
 * layer_types), the sliding layers with their own heads and widths (swa_*; the HF class's
 * default is twice the key/value heads) and sink logits (add_swa_attention_sink_bias); values
 * narrower than keys (v_head_dim); a dense first layer and experts after (moe_layer_freq or
 * mlp_layer_types), sigmoid routing with a correction bias. */
int fam_mimo_v2(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    bool have, sink = true, full_sink = false;
    int64_t window = 0;
    if (read_int(j, "n_routed_experts", &m->num_experts, err) ||
        read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err) ||
        read_int(j, "v_head_dim", &m->v_head_dim, err) ||
        read_int(j, "sliding_window", &m->sliding_window, err) ||
        read_int(j, "sliding_window_size", &window, err))
        return err->code;
    if (window > 0) m->sliding_window = window;
    m->swa_heads = m->num_heads, m->swa_kv_heads = 2 * m->num_kv_heads, m->swa_head_dim = m->head_dim;
    m->swa_v_dim = m->v_head_dim;
    if (read_int(j, "swa_num_attention_heads", &m->swa_heads, err) ||
        read_int(j, "swa_num_key_value_heads", &m->swa_kv_heads, err) ||
        read_int(j, "swa_head_dim", &m->swa_head_dim, err) ||
        read_int(j, "swa_v_head_dim", &m->swa_v_dim, err))
        return err->code;
    if (json_get_bool(j, "add_swa_attention_sink_bias", &sink, &have, err) ||
        json_get_bool(j, "add_full_attention_sink_bias", &full_sink, &have, err))
        return err->code;
    if (m->swa_heads < 1 || m->swa_kv_heads < 1 || m->swa_head_dim < 1 || m->swa_heads > 100000 ||
        m->swa_kv_heads > 100000 || m->swa_head_dim > 100000 || m->swa_v_dim < 0 || m->swa_v_dim > 100000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"swa_num_attention_heads\": the sliding layers need heads, "
            "key/value heads and head_dim of 1 to 100000");
    m->swa_sinks = sink, m->attn_sinks = full_sink, m->router_bias = true;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) {
        p.local[i] = !(i == 0 || (i + 1) % 6 == 0);
        p.ffn[i] = i == 0 ? BLOCK_DENSE : BLOCK_MOE;
    }
    plan_flags(&p, j, "hybrid_layer_pattern", p.local, 1, 0);
    plan_flags(&p, j, "moe_layer_freq", p.ffn, BLOCK_MOE, BLOCK_DENSE);
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    const cJSON *mlt = cJSON_GetObjectItemCaseSensitive(j, "mlp_layer_types"), *e;
    int64_t i = 0;
    cJSON_ArrayForEach(e, mlt) if (i < p.n && cJSON_IsString(e)) p.ffn[i++] =
        strcmp(e->valuestring, "sparse") == 0 ? BLOCK_MOE : BLOCK_DENSE;
    return pattern_apply(&p, m, err);
}
