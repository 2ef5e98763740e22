/* model_family.c -- the classic families' own config keys (sliding windows, MoE layouts, MLA, T5). */
#include "io/model_arch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonutil.h"

/* Layers whose layer_types entry names sliding attention (Gemma-2/3, newer HF configs);
 * -1 when the config has no layer_types list. */
int64_t count_layer_types(const cJSON *j, const char *what)
{
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(j, "layer_types");
    if (!cJSON_IsArray(lt)) return -1;
    int64_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, lt) if (cJSON_IsString(e) && strcmp(e->valuestring, what) == 0) n++;
    return n;
}

int read_int_as(const cJSON *j, const char *key, const char *field, int64_t *out, zs_error *err)
{
    bool have;
    /* Wide bounds here (model_validate applies the real ones), but a value past them is
     * refused now: said with the real range when there is one, and the value as written. */
    if (!json_get_int(j, key, -JSON_BIG, JSON_BIG, out, &have, err)) return ZS_OK;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
    double x = cJSON_IsNumber(v) ? v->valuedouble : cJSON_IsString(v) ? strtod(v->valuestring, NULL) : 0;
    if (!(fabs(x) > (double)JSON_BIG)) return err->code;
    int64_t lo, hi;
    char t[48];
    json_number_text(x, t, sizeof t);
    if (model_field_bounds(field, &lo, &hi))
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %s is out of range (expected %lld to %lld)", key, t,
            (long long)lo, (long long)hi);
    return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %s is out of range (too large for a count)", key, t);
}

int read_int(const cJSON *j, const char *key, int64_t *out, zs_error *err)
{
    return read_int_as(j, key, key, out, err);
}

/* Mistral, Mixtral, Phi-3, StarCoder2: a sliding_window (when not null) applies to every
 * layer (HF MistralAttention passes config.sliding_window to every layer). StarCoder2's
 * use_bias switches every linear bias (Starcoder2Config default true). */
int fam_sliding(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have, bias;
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (m->sliding_window > 0) m->sliding_layers = m->num_layers;
    if (json_get_bool(j, "use_bias", &bias, &have, err)) return err->code;
    if (have) m->qkv_bias = m->out_bias = m->mlp_bias = bias;
    return ZS_OK;
}

/* Qwen2/Qwen3: sliding windows only with use_sliding_window, on layers from max_window_layers
 * up (HF Qwen2Attention; newer configs list layer_types instead). */
int fam_qwen2(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have, use = false;
    int64_t from = m->num_layers;
    if (json_get_bool(j, "use_sliding_window", &use, &have, err)) return err->code;
    if (!use) return ZS_OK;
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (read_int(j, "max_window_layers", &from, err)) return err->code;
    int64_t n = count_layer_types(j, "sliding_attention");
    m->sliding_layers = n >= 0 ? n : from < m->num_layers ? m->num_layers - (from > 0 ? from : 0) : 0;
    if (m->sliding_window <= 0) m->sliding_layers = 0;
    return ZS_OK;
}

static int read_softcaps(const cJSON *j, model *m, zs_error *err)
{
    bool have;
    if (json_get_number(j, "attn_logit_softcapping", 0, 1e9, &m->attn_softcap, &have, err)) return err->code;
    if (json_get_number(j, "final_logit_softcapping", 0, 1e9, &m->final_softcap, &have, err))
        return err->code;
    return ZS_OK;
}

/* Gemma-2: every other layer (even indices) is local (HF Gemma2DecoderLayer is_sliding). */
int fam_gemma2(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    if (read_int(j, "sliding_window", &m->sliding_window, err) || read_softcaps(j, m, err)) return err->code;
    int64_t n = count_layer_types(j, "sliding_attention");
    m->sliding_layers = m->sliding_window > 0 ? (n >= 0 ? n : (m->num_layers + 1) / 2) : 0;
    return ZS_OK;
}

/* Local layers by sliding_window_pattern (default `pattern`): layer i is global when
 * (i + 1) % pattern == 0 and slides otherwise, L - floor(L / pattern) of them (HF Gemma3 and
 * Cohere2 configs); a layer_types list, when given, names each layer instead. */
int read_pattern(const cJSON *j, model *m, int64_t pattern, zs_error *err)
{
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (read_int(j, "sliding_window_pattern", &pattern, err)) return err->code;
    int64_t n = count_layer_types(j, "sliding_attention");
    if (n < 0) n = pattern > 0 ? m->num_layers - m->num_layers / pattern : 0;
    m->sliding_layers = m->sliding_window > 0 ? n : 0;
    return ZS_OK;
}

/* Gemma-3: five local layers to one global. */
int fam_gemma3(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    if (read_softcaps(j, m, err)) return err->code;
    return read_pattern(j, m, 6, err);
}

/* Phi-1/1.5/2 (PhiForCausalLM): one input LayerNorm shared by parallel attention and MLP,
 * biases everywhere including the LM head; qk_layernorm adds LayerNorm(head_dim) to q and k. */
int fam_phi(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have, qkln = false;
    m->parallel_block = true;
    m->lm_head_bias = true;
    if (json_get_bool(j, "qk_layernorm", &qkln, &have, err)) return err->code;
    if (qkln) m->qk_norm = QKNORM_HEAD; /* weight only counted; bias of head_dim each below */
    return ZS_OK;
}

/* Falcon (FalconConfig / modeling_falcon.py): the old decoder (7B) is multi-query with one
 * input LayerNorm for parallel attention + MLP; new_decoder_architecture (40B, 180B) has
 * num_kv_heads groups and two norms (ln_attn, ln_mlp); without parallel_attn (RW-1B) a
 * second norm sits before the MLP. `bias` switches every linear bias; alibi replaces rotary. */
int fam_falcon(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have, nda = false, parallel = true, bias = false, alibi = false, mqa = true;
    int64_t nln = 0;
    if (json_get_bool(j, "new_decoder_architecture", &nda, &have, err)) return err->code;
    if (json_get_bool(j, "parallel_attn", &parallel, &have, err)) return err->code;
    if (json_get_bool(j, "bias", &bias, &have, err)) return err->code;
    if (json_get_bool(j, "alibi", &alibi, &have, err)) return err->code;
    if (json_get_bool(j, "multi_query", &mqa, &have, err)) return err->code;
    if (read_int(j, "num_ln_in_parallel_attn", &nln, err)) return err->code;
    if (nda) {
        m->num_kv_heads = m->num_heads;
        if (read_int(j, "num_kv_heads", &m->num_kv_heads, err)) return err->code;
        if (read_int(j, "n_head_kv", &m->num_kv_heads, err)) return err->code;
    } else {
        m->num_kv_heads = mqa ? 1 : m->num_heads;
    }
    m->parallel_block = parallel;
    m->block_norms = (nda && (nln == 0 || nln == 2)) ? 2 : parallel ? 1 : 2;
    m->qkv_bias = m->out_bias = m->mlp_bias = bias;
    m->pos = alibi ? POS_ALIBI : POS_ROTARY;
    return ZS_OK;
}

/* OLMo: the HF port (OlmoForCausalLM) has LayerNorms without parameters. The original
 * hf_olmo config.json (d_model, n_layers, mlp_ratio, ...) pads the vocabulary to
 * embedding_size, fuses the SwiGLU input projection (mlp_hidden_size is both halves), and
 * switches biases, affine norms and tying with include_bias / layer_norm_with_affine /
 * weight_tying (OLMo ModelConfig defaults: true, true, true). */
int fam_olmo(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have;
    m->norm_weightless = true;
    if (!cJSON_GetObjectItemCaseSensitive(j, "d_model")) return ZS_OK;
    bool bias = true, affine = true, tied = true;
    int64_t ffn = 0, ratio = 4;
    if (json_get_bool(j, "include_bias", &bias, &have, err)) return err->code;
    if (json_get_bool(j, "layer_norm_with_affine", &affine, &have, err)) return err->code;
    if (json_get_bool(j, "weight_tying", &tied, &have, err)) return err->code;
    if (read_int(j, "embedding_size", &m->vocab_size, err)) return err->code;
    if (read_int(j, "n_kv_heads", &m->num_kv_heads, err)) return err->code;
    if (read_int(j, "mlp_ratio", &ratio, err)) return err->code;
    if (read_int(j, "mlp_hidden_size", &ffn, err)) return err->code;
    m->intermediate_size = (ffn > 0 ? ffn : ratio * m->hidden_size) / 2;
    m->qkv_bias = m->out_bias = m->mlp_bias = bias;
    m->norm_weightless = !affine;
    m->norm_bias = affine && bias;
    m->tied_embeddings = tied;
    m->fused_qkv = true;
    return ZS_OK;
}

/* Cohere (Command-R): one weight-only LayerNorm before parallel attention and MLP;
 * use_qk_norm adds weight-only LayerNorms over (heads, head_dim) on q and k. */
int fam_cohere(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    bool have, qk = false;
    m->parallel_block = true;
    if (json_get_bool(j, "use_qk_norm", &qk, &have, err)) return err->code;
    if (qk) m->qk_norm = QKNORM_FULL;
    return ZS_OK;
}

/* Cohere2 (Command R7B, Command A; HF modeling_cohere2.py): Command-R's parallel block (one
 * weight-only LayerNorm, gated MLP, tied head, logit_scale) without q/k norms, GQA, and three
 * of every four layers sliding over sliding_window keys (Cohere2DecoderLayer.is_sliding:
 * (i + 1) % sliding_window_pattern != 0; Cohere2Config's BC default pattern 4). Only the
 * sliding layers rotate q and k (Cohere2Attention); the global ones have no position
 * embedding, which has no parameters, so pos stays rotary: compute.c's rotary traffic term
 * (2 e (q + kv) bytes a token) then also counts the global quarter of the layers. */
int fam_cohere2(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    m->parallel_block = true;
    return read_pattern(j, m, 4, err);
}

/* Qwen2-MoE / Qwen3-MoE: layer i has experts unless listed in mlp_only_layers, when
 * (i + 1) % decoder_sparse_step == 0; Qwen2-MoE adds one gated shared expert. */
int fam_qwen_moe(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    int64_t step = 1;
    if (read_int(j, "num_experts", &m->num_experts, err)) return err->code;
    if (read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err)) return err->code;
    if (read_int(j, "decoder_sparse_step", &step, err)) return err->code;
    if (strcmp(a->type, "qwen2_moe") == 0) {
        if (read_int(j, "shared_expert_intermediate_size", &m->shared_intermediate_size, err))
            return err->code;
        m->shared_expert_gate = m->shared_intermediate_size > 0;
    }
    if (step < 1)
        return zs_fail(
            err, ZS_ERR_INPUT, "field \"decoder_sparse_step\": %lld (expected 1 or more)", (long long)step);
    const cJSON *only = cJSON_GetObjectItemCaseSensitive(j, "mlp_only_layers");
    m->moe_layers = 0;
    if (m->num_layers < 1 || m->num_layers > 100000) return ZS_OK; /* model_validate names it */
    /* One pass over the list (each listed layer once), one over the layers. */
    bool *dense = calloc((size_t)m->num_layers, sizeof *dense);
    if (!dense) return zs_fail(err, ZS_ERR_INPUT, "out of memory");
    const cJSON *e;
    cJSON_ArrayForEach(e, only) if (cJSON_IsNumber(e) && e->valuedouble >= 0 &&
        e->valuedouble < (double)m->num_layers) dense[(int64_t)e->valuedouble] = true;
    for (int64_t i = 0; i < m->num_layers; i++)
        if (!dense[i] && (i + 1) % step == 0) m->moe_layers++;
    free(dense);
    return fam_qwen2(j, a, m, err);
}

/* DeepSeek-V2/V3: Multi-head Latent Attention, and experts in layer i when
 * i >= first_k_dense_replace and i % moe_layer_freq == 0 (n_shared_experts shared ones of the
 * same width); V3's noaux_tc router keeps an e_score_correction_bias per expert. */
int fam_deepseek(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    int64_t k = 0, freq = 1, shared = 0;
    char method[32] = "";
    bool have;
    if (read_int(j, "n_routed_experts", &m->num_experts, err)) return err->code;
    if (read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err)) return err->code;
    if (read_int(j, "n_shared_experts", &shared, err)) return err->code;
    if (read_int(j, "first_k_dense_replace", &k, err)) return err->code;
    if (read_int(j, "moe_layer_freq", &freq, err)) return err->code;
    if (read_int(j, "q_lora_rank", &m->q_lora_rank, err)) return err->code;
    if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "q_lora_rank")))
        m->q_lora_rank = 0; /* null: V2-Lite */
    if (read_int(j, "kv_lora_rank", &m->kv_lora_rank, err)) return err->code;
    if (read_int(j, "qk_nope_head_dim", &m->qk_nope_dim, err)) return err->code;
    if (read_int(j, "qk_rope_head_dim", &m->qk_rope_dim, err)) return err->code;
    if (read_int(j, "v_head_dim", &m->v_head_dim, err)) return err->code;
    if (read_int(j, "num_nextn_predict_layers", &m->mtp_layers, err)) return err->code;
    if (strcmp(a->type, "deepseek_v32") == 0 &&
        (read_int(j, "index_n_heads", &m->idx_heads, err) ||
            read_int(j, "index_head_dim", &m->idx_head_dim, err) ||
            read_int(j, "index_topk", &m->idx_topk, err)))
        return err->code;
    if (json_get_string(j, "topk_method", method, sizeof method, &have, err)) return err->code;
    if (freq < 1)
        return zs_fail(
            err, ZS_ERR_INPUT, "field \"moe_layer_freq\": %lld (expected 1 or more)", (long long)freq);
    if (shared < 0 || shared > 1000 || m->moe_intermediate_size > JSON_BIG / 1000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"n_shared_experts\": %lld is out of range (expected 0 to 1000)", (long long)shared);
    m->shared_intermediate_size = shared * m->moe_intermediate_size;
    m->router_bias = strcmp(a->type, "deepseek_v2") != 0 || strcmp(method, "noaux_tc") == 0;
    m->moe_layers = 0;
    for (int64_t i = k < 0 ? 0 : k; i < m->num_layers && i < 100000; i++)
        if (i % freq == 0) m->moe_layers++;
    /* Attention widths for the shared code paths: q/k heads of nope + rope, all heads keyed. */
    m->num_kv_heads = m->num_heads;
    m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
    return ZS_OK;
}

/* OLMoE: published configs spell the experts' count num_experts; OlmoeConfig's attribute_map
 * accepts num_local_experts too (read by the common MoE keys, default 64), which this overrides. */
int fam_olmoe(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    return read_int(j, "num_experts", &m->num_experts, err);
}

/* PhiMoE (PhimoeForCausalLM): nn.Linear(h, V, bias=lm_head_bias); a sliding_window, when set,
 * applies to every layer as in Mixtral. */
int fam_phimoe(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    bool have;
    if (json_get_bool(j, "lm_head_bias", &m->lm_head_bias, &have, err)) return err->code;
    return fam_sliding(j, a, m, err);
}

/* T5/MT5/UMT5 (T5ForConditionalGeneration): num_layers encoder blocks and num_decoder_layers
 * (default num_layers) decoder blocks with cross-attention; d_kv per head; weight-only RMS
 * norms, no biases; gated-gelu feed-forward (v1.1, mT5, Flan) has wi_0 and wi_1. */
int fam_t5(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    int64_t enc = 0, dec = -1;
    char ff[32] = "relu";
    bool have;
    if (read_int(j, "num_layers", &enc, err)) return err->code;
    if (read_int(j, "num_decoder_layers", &dec, err)) return err->code;
    if (read_int(j, "d_kv", &m->head_dim, err)) return err->code;
    if (read_int(j, "d_ff", &m->intermediate_size, err)) return err->code;
    if (read_int(j, "relative_attention_num_buckets", &m->rel_buckets, err)) return err->code;
    if (json_get_string(j, "feed_forward_proj", ff, sizeof ff, &have, err)) return err->code;
    if (dec < 0) dec = enc;
    if (enc < 1 || dec < 1 || enc > 100000 || dec > 100000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"num_layers\": %lld encoder and %lld decoder layers (expected 1 to 100000 each)",
            (long long)enc, (long long)dec);
    m->encoder_layers = enc;
    m->num_layers = enc + dec;
    m->gated_mlp = strncmp(ff, "gated-", 6) == 0;
    m->rel_bias_every_layer = strcmp(a->type, "umt5") == 0;
    return ZS_OK;
}
