/* model_json.c -- HuggingFace config.json (and our own JSON) to a model. */
#include "io/model_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonutil.h"

#define JSON_BIG ((int64_t)1 << 53) /* wide bounds; model_validate applies the real ones */

typedef struct arch arch;
/* A family's own keys, read after the common ones (MoE layout, MLA, Falcon's variants). */
typedef int (*family_fn)(const cJSON *j, const arch *a, model *m, zs_error *err);

/* What each HF model_type implies; the config's own keys may override the *_default fields.
 * Sources: the HF transformers configuration_*.py (defaults) and modeling_*.py (tensor
 * shapes) of each type, read at v4.57. */
struct arch {
    const char *type;
    bool gated_mlp;
    norm_kind norm;
    bool norm_bias;
    pos_kind pos;
    bool fused_qkv;
    bool qkv_bias, out_bias, mlp_bias; /* defaults; llama-family configs override with
                                          attention_bias / mlp_bias */
    bool tied_default;                 /* the config class's tie_word_embeddings default */
    bool embedding_norm;
    bool moe;        /* reads num_local_experts / num_experts_per_tok */
    bool bias_keys;  /* honours attention_bias and mlp_bias keys */
    int block_norms; /* h-wide norms per block (0: 2) */
    qknorm_kind qk_norm;
    family_fn family;     /* the family's own keys; NULL for none */
    const char *defaults; /* JSON object: the config class's defaults for keys a
                             published config may leave out */
};

static int fam_sliding(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_qwen2(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_gemma2(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_gemma3(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_phi(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_falcon(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_olmo(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_cohere(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_cohere2(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_qwen_moe(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_deepseek(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_t5(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_olmoe(const cJSON *j, const arch *a, model *m, zs_error *err);
static int fam_phimoe(const cJSON *j, const arch *a, model *m, zs_error *err);

/* Rows name their fields; one left out is false (flags), QKNORM_NONE or NULL. */
#define RMS NORM_RMSNORM
#define LN NORM_LAYERNORM
/* One row per model type, as written (clang-format keeps them). */
/* clang-format off */
static const arch archs[] = {
    {.type = "llama", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2},
    {.type = "mistral", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2, .family = fam_sliding},
    {.type = "mixtral", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .family = fam_sliding},
    {.type = "qwen2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .qkv_bias = true, .block_norms = 2,
     .family = fam_qwen2},
    /* GPT2Config: dropout probabilities default to 0.1 */
    {.type = "gpt2", .norm = LN, .norm_bias = true, .pos = POS_LEARNED, .fused_qkv = true, .qkv_bias = true,
     .out_bias = true, .mlp_bias = true, .tied_default = true, .block_norms = 2,
     .defaults = "{\"attn_pdrop\":0.1,\"resid_pdrop\":0.1,\"embd_pdrop\":0.1,\"n_positions\":1024}"},
    {.type = "gpt_neox", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .qkv_bias = true, .out_bias = true, .mlp_bias = true, .block_norms = 2},
    {.type = "bloom", .norm = LN, .norm_bias = true, .pos = POS_ALIBI, .fused_qkv = true, .qkv_bias = true,
     .out_bias = true, .mlp_bias = true, .tied_default = true, .embedding_norm = true, .block_norms = 2},
    {.type = "transformer", .norm = LN, .norm_bias = true, .pos = POS_LEARNED, .fused_qkv = true,
     .tied_default = true, .moe = true, .bias_keys = true, .block_norms = 2},
    /* Llama-shaped families: the same tensors, plus q/k norms (Qwen3) or Granite's multipliers
     * (which change no shape). Phi-3 fuses qkv_proj (one module; the count is the same). */
    {.type = "granite", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true,
     .block_norms = 2},
    {.type = "qwen3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .qk_norm = QKNORM_HEAD, .family = fam_qwen2, .defaults = "{\"head_dim\":128}"},
    {.type = "phi3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .fused_qkv = true, .block_norms = 2,
     .family = fam_sliding},
    {.type = "starcoder2", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .qkv_bias = true,
     .out_bias = true, .mlp_bias = true, .tied_default = true, .block_norms = 2, .family = fam_sliding},
    {.type = "olmo", .gated_mlp = true, .norm = LN, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .family = fam_olmo},
    {.type = "olmo2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .bias_keys = true, .block_norms = 2,
     .qk_norm = QKNORM_FULL},
    {.type = "gemma", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 2, .defaults = "{\"head_dim\":256}"},
    {.type = "gemma2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .family = fam_gemma2,
     .defaults = "{\"head_dim\":256,\"sliding_window\":4096,\"attn_logit_softcapping\":50.0,"
                 "\"final_logit_softcapping\":30.0}"},
    /* Gemma3TextConfig defaults: the multimodal configs' text_config leaves most keys out. */
    {.type = "gemma3_text", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .qk_norm = QKNORM_HEAD, .family = fam_gemma3,
     .defaults = "{\"vocab_size\":262208,\"hidden_size\":2304,\"intermediate_size\":9216,"
                 "\"num_hidden_layers\":26,\"num_attention_heads\":8,\"num_key_value_heads\":4,"
                 "\"head_dim\":256,\"max_position_embeddings\":131072,\"sliding_window\":4096,"
                 "\"sliding_window_pattern\":6}"},
    {.type = "gemma3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 4, .qk_norm = QKNORM_HEAD, .family = fam_gemma3},
    {.type = "phi", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .qkv_bias = true, .out_bias = true,
     .mlp_bias = true, .block_norms = 1, .family = fam_phi},
    {.type = "falcon", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .tied_default = true, .block_norms = 1, .family = fam_falcon},
    /* Falcon's configs before its transformers port: RefinedWebModel (7B) and RefinedWeb
     * (40B, the new decoder architecture; FalconConfig maps it so). */
    {.type = "RefinedWebModel", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .tied_default = true, .block_norms = 1, .family = fam_falcon},
    {.type = "RefinedWeb", .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .fused_qkv = true,
     .tied_default = true, .block_norms = 1, .family = fam_falcon,
     .defaults = "{\"new_decoder_architecture\":true}"},
    {.type = "cohere", .gated_mlp = true, .norm = LN, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 1, .family = fam_cohere},
    /* Cohere2Config defaults: a 4096-token window on three layers of every four. */
    {.type = "cohere2", .gated_mlp = true, .norm = LN, .pos = POS_ROTARY, .tied_default = true,
     .bias_keys = true, .block_norms = 1, .family = fam_cohere2,
     .defaults = "{\"sliding_window\":4096,\"sliding_window_pattern\":4}"},
    {.type = "qwen2_moe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .qkv_bias = true, .moe = true,
     .block_norms = 2, .family = fam_qwen_moe},
    {.type = "qwen3_moe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .qk_norm = QKNORM_HEAD, .family = fam_qwen_moe, .defaults = "{\"head_dim\":128}"},
    {.type = "deepseek_v2", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_deepseek,
     .defaults = "{\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,"
                 "\"kv_lora_rank\":512,\"q_lora_rank\":1536}"},
    {.type = "deepseek_v3", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_deepseek,
     .defaults = "{\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,\"v_head_dim\":128,"
                 "\"kv_lora_rank\":512,\"q_lora_rank\":1536,\"first_k_dense_replace\":3,"
                 "\"moe_layer_freq\":1,\"n_shared_experts\":1,\"n_routed_experts\":256,"
                 "\"num_experts_per_tok\":8}"},
    /* Mixtral-shaped MoE families (every MLP top-k of E SwiGLU experts, a bias-free h x E router,
     * no shared experts). OLMoE: OLMo-2's RMS q/k norms over the whole q and k projections,
     * experts keyed num_experts. GraniteMoE: Granite's multipliers change no shape; its fused
     * input_linear (E x 2i x h) and output_linear (E x h x i) hold the same numbers as E gated
     * MLPs. PhiMoE: LayerNorms with bias, attention_bias and lm_head_bias keys. Defaults: the
     * OlmoeConfig / GraniteMoeConfig / PhimoeConfig class defaults. */
    {.type = "olmoe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .qk_norm = QKNORM_FULL, .family = fam_olmoe,
     .defaults = "{\"num_local_experts\":64,\"num_experts_per_tok\":8}"},
    {.type = "granitemoe", .gated_mlp = true, .norm = RMS, .pos = POS_ROTARY, .moe = true, .bias_keys = true,
     .block_norms = 2, .defaults = "{\"num_local_experts\":8,\"num_experts_per_tok\":2}"},
    {.type = "phimoe", .gated_mlp = true, .norm = LN, .norm_bias = true, .pos = POS_ROTARY, .moe = true,
     .bias_keys = true, .block_norms = 2, .family = fam_phimoe,
     .defaults = "{\"num_local_experts\":16,\"num_experts_per_tok\":2}"},
    /* T5Config / MT5Config / UMT5Config defaults (t5-small's shape; dropout_rate 0.1). */
    {.type = "t5", .norm = RMS, .pos = POS_RELATIVE, .tied_default = true, .block_norms = 2,
     .family = fam_t5,
     .defaults = "{\"vocab_size\":32128,\"d_model\":512,\"d_kv\":64,\"d_ff\":2048,\"num_layers\":6,"
                 "\"num_heads\":8,\"relative_attention_num_buckets\":32,\"dropout_rate\":0.1,"
                 "\"feed_forward_proj\":\"relu\",\"n_positions\":512}"},
    {.type = "mt5", .norm = RMS, .pos = POS_RELATIVE, .block_norms = 2, .family = fam_t5,
     .defaults = "{\"vocab_size\":250112,\"d_model\":512,\"d_kv\":64,\"d_ff\":1024,\"num_layers\":8,"
                 "\"num_heads\":6,\"relative_attention_num_buckets\":32,\"dropout_rate\":0.1,"
                 "\"feed_forward_proj\":\"gated-gelu\",\"n_positions\":512}"},
    {.type = "umt5", .norm = RMS, .pos = POS_RELATIVE, .tied_default = true, .block_norms = 2,
     .family = fam_t5,
     .defaults = "{\"vocab_size\":250112,\"d_model\":512,\"d_kv\":64,\"d_ff\":1024,\"num_layers\":8,"
                 "\"num_heads\":6,\"relative_attention_num_buckets\":32,\"dropout_rate\":0.1,"
                 "\"feed_forward_proj\":\"gated-gelu\",\"n_positions\":512}"},
};
/* clang-format on */
#undef RMS
#undef LN

/* HF spells the same quantity differently per model type. */
static const char *const K_HIDDEN[] = {"hidden_size", "n_embd", "n_embed", "d_model", NULL};
static const char *const K_LAYERS[] = {"num_hidden_layers", "n_layer", "n_layers", "num_layers", NULL};
static const char *const K_HEADS[] = {"num_attention_heads", "n_head", "n_heads", "num_heads", NULL};
static const char *const K_FFN[] = {"intermediate_size", "n_inner", "ffn_hidden_size", NULL};
static const char *const K_POS[] = {
    "max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length", NULL};
static const char *const K_DROPOUT[] = {"attention_dropout", "hidden_dropout", "attn_pdrop", "resid_pdrop",
    "embd_pdrop", "hidden_dropout_prob", "attention_probs_dropout_prob", "residual_dropout",
    "embedding_dropout", "dropout_rate", "resid_dropout", "emb_dropout", NULL};

static int get_int_alias(const cJSON *j, const char *const *keys, int64_t *out, bool required, zs_error *err)
{
    const char *k = json_first_key(j, keys);
    if (!k) {
        if (!required) return ZS_OK;
        return zs_fail(err, ZS_ERR_INPUT, "missing field \"%s\" (a positive whole number)", keys[0]);
    }
    bool have;
    /* Wide bounds here; model_validate applies the real ranges with the HF field name. */
    return json_get_int(j, k, -JSON_BIG, JSON_BIG, out, &have, err);
}

static int parse_enum(
    const cJSON *j, const char *key, const char *const *names, const int *values, int *out, zs_error *err)
{
    char s[32];
    bool have;
    if (json_get_string(j, key, s, sizeof s, &have, err)) return err->code;
    if (!have) return ZS_OK;
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = values[i];
            return ZS_OK;
        }
    char list[128] = "";
    for (int i = 0; names[i]; i++) {
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": \"%s\" is not one of %s", key, s, list);
}

/* The supported model_type values, "a, b or c", for messages. */
static const char *type_list(char *list, size_t len)
{
    list[0] = '\0';
    size_t n = sizeof archs / sizeof archs[0];
    for (size_t i = 0; i < n; i++) {
        strncat(list, i == 0 ? "" : i + 1 == n ? " or " : ", ", len - strlen(list) - 1);
        strncat(list, archs[i].type, len - strlen(list) - 1);
    }
    return list;
}

/* Layers whose layer_types entry names sliding attention (Gemma-2/3, newer HF configs);
 * -1 when the config has no layer_types list. */
static int64_t count_layer_types(const cJSON *j, const char *what)
{
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(j, "layer_types");
    if (!cJSON_IsArray(lt)) return -1;
    int64_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, lt) if (cJSON_IsString(e) && strcmp(e->valuestring, what) == 0) n++;
    return n;
}

static int read_int(const cJSON *j, const char *key, int64_t *out, zs_error *err)
{
    bool have;
    return json_get_int(j, key, -JSON_BIG, JSON_BIG, out, &have, err);
}

/* Mistral, Mixtral, Phi-3, StarCoder2: a sliding_window (when not null) applies to every
 * layer (HF MistralAttention passes config.sliding_window to every layer). StarCoder2's
 * use_bias switches every linear bias (Starcoder2Config default true). */
static int fam_sliding(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_qwen2(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_gemma2(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int read_pattern(const cJSON *j, model *m, int64_t pattern, zs_error *err)
{
    if (read_int(j, "sliding_window", &m->sliding_window, err)) return err->code;
    if (read_int(j, "sliding_window_pattern", &pattern, err)) return err->code;
    int64_t n = count_layer_types(j, "sliding_attention");
    if (n < 0) n = pattern > 0 ? m->num_layers - m->num_layers / pattern : 0;
    m->sliding_layers = m->sliding_window > 0 ? n : 0;
    return ZS_OK;
}

/* Gemma-3: five local layers to one global. */
static int fam_gemma3(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    if (read_softcaps(j, m, err)) return err->code;
    return read_pattern(j, m, 6, err);
}

/* Phi-1/1.5/2 (PhiForCausalLM): one input LayerNorm shared by parallel attention and MLP,
 * biases everywhere including the LM head; qk_layernorm adds LayerNorm(head_dim) to q and k. */
static int fam_phi(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_falcon(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_olmo(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_cohere(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_cohere2(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    m->parallel_block = true;
    return read_pattern(j, m, 4, err);
}

/* Qwen2-MoE / Qwen3-MoE: layer i has experts unless listed in mlp_only_layers, when
 * (i + 1) % decoder_sparse_step == 0; Qwen2-MoE adds one gated shared expert. */
static int fam_qwen_moe(const cJSON *j, const arch *a, model *m, zs_error *err)
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
static int fam_deepseek(const cJSON *j, const arch *a, model *m, zs_error *err)
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
    if (json_get_string(j, "topk_method", method, sizeof method, &have, err)) return err->code;
    if (freq < 1)
        return zs_fail(
            err, ZS_ERR_INPUT, "field \"moe_layer_freq\": %lld (expected 1 or more)", (long long)freq);
    if (shared < 0 || shared > 1000 || m->moe_intermediate_size > JSON_BIG / 1000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"n_shared_experts\": %lld is out of range (expected 0 to 1000)", (long long)shared);
    m->shared_intermediate_size = shared * m->moe_intermediate_size;
    m->router_bias = strcmp(a->type, "deepseek_v3") == 0 || strcmp(method, "noaux_tc") == 0;
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
static int fam_olmoe(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    return read_int(j, "num_experts", &m->num_experts, err);
}

/* PhiMoE (PhimoeForCausalLM): nn.Linear(h, V, bias=lm_head_bias); a sliding_window, when set,
 * applies to every layer as in Mixtral. */
static int fam_phimoe(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    bool have;
    if (json_get_bool(j, "lm_head_bias", &m->lm_head_bias, &have, err)) return err->code;
    return fam_sliding(j, a, m, err);
}

/* T5/MT5/UMT5 (T5ForConditionalGeneration): num_layers encoder blocks and num_decoder_layers
 * (default num_layers) decoder blocks with cross-attention; d_kv per head; weight-only RMS
 * norms, no biases; gated-gelu feed-forward (v1.1, mT5, Flan) has wi_0 and wi_1. */
static int fam_t5(const cJSON *j, const arch *a, model *m, zs_error *err)
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

/* A copy of `j` with the family's class defaults added for the keys it leaves out. */
static cJSON *with_defaults(const cJSON *j, const char *defaults)
{
    cJSON *c = cJSON_Duplicate(j, 1);
    cJSON *d = defaults ? cJSON_Parse(defaults) : NULL;
    if (c && d) {
        const cJSON *e;
        cJSON_ArrayForEach(e, d)
        {
            /* A key present as null keeps its null: DeepSeek-V2-Lite's q_lora_rank: null
             * means no q compression, not the class default. */
            if (cJSON_GetObjectItemCaseSensitive(c, e->string)) continue;
            cJSON_AddItemToObject(c, e->string, cJSON_Duplicate(e, 1));
        }
    }
    cJSON_Delete(d);
    return c;
}

static int from_json_arch(const cJSON *j, const arch *a, model *m, zs_error *err);

static int from_json(const cJSON *j, model *m, zs_error *err)
{
    memset(m, 0, sizeof *m);
    bool have;
    if (json_get_string(j, "model_type", m->model_type, sizeof m->model_type, &have, err)) return err->code;
    char types[512];
    if (!have)
        return zs_fail(
            err, ZS_ERR_INPUT, "missing field \"model_type\" (%s)", type_list(types, sizeof types));
    const arch *a = NULL;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(archs[i].type, m->model_type) == 0) a = &archs[i];
    if (!a)
        return zs_fail(err, ZS_ERR_INPUT, "field \"model_type\": \"%s\" is not supported (expected %s)",
            m->model_type, type_list(types, sizeof types));
    /* Gemma-3's multimodal config nests the language model in text_config (Gemma3TextConfig
     * defaults); the vision tower is not counted. */
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(j, "text_config");
    if (strcmp(a->type, "gemma3") == 0 && cJSON_IsObject(text)) {
        for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
            if (strcmp(archs[i].type, "gemma3_text") == 0) a = &archs[i];
        cJSON *c = with_defaults(text, a->defaults);
        if (!c) return zs_fail(err, ZS_ERR_INPUT, "out of memory");
        int rc = from_json_arch(c, a, m, err);
        cJSON_Delete(c);
        if (rc) {
            zs_error_prefix(err, "text_config");
            return rc;
        }
        if (json_get_string(j, "name", m->name, sizeof m->name, &have, err)) return err->code;
        if (json_get_string(j, "source", m->source, sizeof m->source, &have, err)) return err->code;
        if (!have && json_get_string(j, "_name_or_path", m->source, sizeof m->source, &have, err))
            return err->code;
        snprintf(m->model_type, sizeof m->model_type, "gemma3");
        return ZS_OK;
    }
    cJSON *c = with_defaults(j, a->defaults);
    if (!c) return zs_fail(err, ZS_ERR_INPUT, "out of memory");
    int rc = from_json_arch(c, a, m, err);
    cJSON_Delete(c);
    return rc;
}

/* The sizes under any of their HF spellings: hidden, layers, heads, vocabulary, key/value
 * heads, head width, MLP width, positions. */
static int arch_sizes(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    bool have;
    if (get_int_alias(j, K_HIDDEN, &m->hidden_size, true, err)) return err->code;
    if (get_int_alias(j, K_LAYERS, &m->num_layers, true, err)) return err->code;
    if (get_int_alias(j, K_HEADS, &m->num_heads, true, err)) return err->code;
    if (json_get_int(j, "vocab_size", -JSON_BIG, JSON_BIG, &m->vocab_size, &have, err)) return err->code;
    if (!have) return zs_fail(err, ZS_ERR_INPUT, "missing field \"vocab_size\" (a positive whole number)");
    if (m->num_heads <= 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"num_attention_heads\": %lld is out of range (expected 1 to 100000)",
            (long long)m->num_heads);

    m->num_kv_heads = m->num_heads;
    if (json_get_int(j, "num_key_value_heads", -JSON_BIG, JSON_BIG, &m->num_kv_heads, &have, err))
        return err->code;
    bool mqa = false;
    if (json_get_bool(j, "multi_query", &mqa, &have, err)) return err->code;
    if (mqa) m->num_kv_heads = 1;

    if (json_get_int(j, "head_dim", -JSON_BIG, JSON_BIG, &m->head_dim, &have, err)) return err->code;
    if (!have && a->family != fam_t5 && a->family != fam_deepseek) {
        if (m->hidden_size % m->num_heads != 0)
            return zs_fail(err, ZS_ERR_INPUT,
                "field \"num_attention_heads\": %lld does not divide hidden_size %lld (or give head_dim)",
                (long long)m->num_heads, (long long)m->hidden_size);
        m->head_dim = m->hidden_size / m->num_heads;
    }
    m->intermediate_size = 4 * m->hidden_size; /* GPT-2/NeoX/BLOOM default: n_inner = 4 h */
    if (get_int_alias(j, K_FFN, &m->intermediate_size, false, err)) return err->code;
    double ratio;
    if (json_get_number(j, "expansion_ratio", 0, 1e4, &ratio, &have, err)) return err->code;
    if (have) {
        /* hidden_size is range-checked only in model_validate: keep the product castable */
        double ffn = ratio * (double)m->hidden_size;
        m->intermediate_size = fabs(ffn) < (double)JSON_BIG ? (int64_t)ffn : JSON_BIG;
    }

    m->max_positions = 2048;
    if (get_int_alias(j, K_POS, &m->max_positions, a->pos == POS_LEARNED, err)) return err->code;
    return ZS_OK;
}

/* Our own "transformer" type spells the block shape out: norm and position kinds, gated MLP,
 * norm bias, fused QKV, embedding norm. */
static int arch_generic(const cJSON *j, model *m, zs_error *err)
{
    static const char *const norms[] = {"layernorm", "rmsnorm", NULL};
    static const int normv[] = {NORM_LAYERNORM, NORM_RMSNORM};
    static const char *const poss[] = {"rotary", "learned", "alibi", NULL};
    static const int posv[] = {POS_ROTARY, POS_LEARNED, POS_ALIBI};
    bool have;
    int v = m->norm;
    if (parse_enum(j, "norm_type", norms, normv, &v, err)) return err->code;
    m->norm = (norm_kind)v;
    v = m->pos;
    if (parse_enum(j, "position_embedding_type", poss, posv, &v, err)) return err->code;
    m->pos = (pos_kind)v;
    if (json_get_bool(j, "gated_mlp", &m->gated_mlp, &have, err)) return err->code;
    if (json_get_bool(j, "norm_bias", &m->norm_bias, &have, err)) return err->code;
    if (json_get_bool(j, "fused_qkv", &m->fused_qkv, &have, err)) return err->code;
    if (json_get_bool(j, "embedding_norm", &m->embedding_norm, &have, err)) return err->code;
    if (m->norm == NORM_RMSNORM) m->norm_bias = false;
    if (m->pos == POS_LEARNED && !json_first_key(j, K_POS))
        return zs_fail(err, ZS_ERR_INPUT,
            "missing field \"max_position_embeddings\" (learned positions need the table size)");
    return ZS_OK;
}

/* Block shape from the architecture, then the keys that override it. */
static int arch_shape(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    bool have;
    m->gated_mlp = a->gated_mlp;
    m->norm = a->norm;
    m->norm_bias = a->norm_bias;
    m->pos = a->pos;
    m->fused_qkv = a->fused_qkv;
    m->qkv_bias = a->qkv_bias;
    m->out_bias = a->out_bias;
    m->mlp_bias = a->mlp_bias;
    m->tied_embeddings = a->tied_default;
    m->embedding_norm = a->embedding_norm;
    if (json_get_bool(j, "tie_word_embeddings", &m->tied_embeddings, &have, err)) return err->code;
    if (a->bias_keys) {
        bool ab = m->qkv_bias;
        if (json_get_bool(j, "attention_bias", &ab, &have, err)) return err->code;
        if (have) m->qkv_bias = m->out_bias = ab;
        if (json_get_bool(j, "mlp_bias", &m->mlp_bias, &have, err)) return err->code;
    }
    if (strcmp(a->type, "transformer") == 0 && arch_generic(j, m, err)) return err->code;
    m->block_norms = a->block_norms;
    m->qk_norm = a->qk_norm;
    return ZS_OK;
}

static int from_json_arch(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    bool have;
    snprintf(m->model_type, sizeof m->model_type, "%s", a->type);
    if (json_get_string(j, "name", m->name, sizeof m->name, &have, err)) return err->code;
    if (json_get_string(j, "source", m->source, sizeof m->source, &have, err)) return err->code;
    if (!have && json_get_string(j, "_name_or_path", m->source, sizeof m->source, &have, err))
        return err->code;
    if (arch_sizes(j, a, m, err) || arch_shape(j, a, m, err)) return err->code;
    if (a->moe) {
        if (json_get_int(j, "num_local_experts", -JSON_BIG, JSON_BIG, &m->num_experts, &have, err))
            return err->code;
        if (json_get_int(j, "num_experts_per_tok", -JSON_BIG, JSON_BIG, &m->experts_per_token, &have, err))
            return err->code;
        m->moe_layers = m->num_layers; /* Mixtral: every MLP is experts; families refine */
    }
    if (a->family && a->family(j, a, m, err)) return err->code;
    if (m->num_experts <= 0 || m->moe_layers <= 0) {
        /* No layer has experts: a dense model (negative counts fail in model_validate). */
        if (m->num_experts == 0 || m->moe_layers == 0) m->num_experts = m->experts_per_token = 0;
        m->moe_layers = 0;
        m->moe_intermediate_size = m->shared_intermediate_size = 0;
        m->shared_expert_gate = m->router_bias = false;
    }
    if (json_get_number(j, "capacity_factor", 0, 1000, &m->capacity_factor, &have, err)) return err->code;
    if (json_get_number(j, "decoder_seq_ratio", 0, 1000, &m->decoder_seq_ratio, &have, err)) return err->code;
    for (const char *const *k = K_DROPOUT; *k; k++) {
        double p = 0;
        if (json_get_number(j, *k, 0, 1, &p, &have, err)) return err->code;
        if (p > 0) m->dropout = true;
    }
    return model_validate(m, err);
}

int model_from_json(const cJSON *root, const char *origin, model *m, zs_error *err)
{
    int rc = from_json(root, m, err);
    if (rc) zs_error_prefix(err, origin);
    return rc;
}

void model_name_from_path(const char *path, const char *name_or_path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0) n -= 5;
    if (!(n == 6 && strncmp(base, "config", 6) == 0)) {
        snprintf(out, len, "%.*s", (int)n, base);
        return;
    }
    /* "config.json": the checkpoint's _name_or_path ("google/gemma-2-9b" -> "gemma-2-9b"),
     * else the folder holding it ("ckpt/Qwen2.5-72B/config.json" -> "Qwen2.5-72B"). */
    if (name_or_path && *name_or_path) {
        size_t l = strlen(name_or_path);
        while (l > 1 && name_or_path[l - 1] == '/') l--;
        /* A local path to the file itself ("/ckpt/15b/config.json"): its folder. */
        if (l > 12 && strncmp(name_or_path + l - 12, "/config.json", 12) == 0) l -= 12;
        const char *s = name_or_path + l;
        while (s > name_or_path && s[-1] != '/') s--;
        if (name_or_path + l > s) {
            snprintf(out, len, "%.*s", (int)(name_or_path + l - s), s);
            return;
        }
    }
    const char *end = base > path ? base - 1 : path; /* the '/' before config.json */
    const char *dir = end;
    while (dir > path && dir[-1] != '/') dir--;
    if (end > dir && !(end - dir == 1 && *dir == '.'))
        snprintf(out, len, "%.*s", (int)(end - dir), dir);
    else
        snprintf(out, len, "config");
}

int model_load(const char *path, model *m, zs_error *err)
{
    cJSON *root;
    if (json_load_object(path, &root, err)) return err->code;
    int rc = model_from_json(root, path, m, err);
    if (rc == ZS_OK && m->name[0] == '\0') {
        /* Name an unnamed file after itself, dots kept: "dir/qwen2.5-72b.json" -> "qwen2.5-72b". */
        const cJSON *np = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
        model_name_from_path(path, cJSON_IsString(np) ? np->valuestring : NULL, m->name, sizeof m->name);
    }
    cJSON_Delete(root);
    return rc;
}
