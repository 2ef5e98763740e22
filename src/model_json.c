/* model_json.c -- HuggingFace config.json (and our own JSON) to a model. */
#include "model_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jsonutil.h"

#define JSON_BIG ((int64_t)1 << 53) /* wide bounds; model_validate applies the real ones */

/* What each HF model_type implies; the config's own keys may override the *_default fields.
 * Sources: the HF transformers modeling_*.py and configuration_*.py of each type. */
typedef struct arch {
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
    bool moe;                          /* reads num_local_experts / num_experts_per_tok */
    bool bias_keys;                    /* honours attention_bias and mlp_bias keys */
} arch;

static const arch archs[] = {
    /* type         gated norm            nbias pos          fused qkvb  outb  mlpb  tied  embn  moe   keys */
    {"llama",       true, NORM_RMSNORM,   false, POS_ROTARY,  false, false, false, false, false, false, false, true},
    {"mistral",     true, NORM_RMSNORM,   false, POS_ROTARY,  false, false, false, false, false, false, false, true},
    {"mixtral",     true, NORM_RMSNORM,   false, POS_ROTARY,  false, false, false, false, false, false, true,  true},
    {"qwen2",       true, NORM_RMSNORM,   false, POS_ROTARY,  false, true,  false, false, false, false, false, false},
    {"gpt2",        false, NORM_LAYERNORM, true, POS_LEARNED, true,  true,  true,  true,  true,  false, false, false},
    {"gpt_neox",    false, NORM_LAYERNORM, true, POS_ROTARY,  true,  true,  true,  true,  false, false, false, false},
    {"bloom",       false, NORM_LAYERNORM, true, POS_ALIBI,   true,  true,  true,  true,  true,  true,  false, false},
    {"transformer", false, NORM_LAYERNORM, true, POS_LEARNED, true,  false, false, false, true,  false, true,  true},
};

/* HF spells the same quantity differently per model type. */
static const char *const K_HIDDEN[] = {"hidden_size", "n_embd", "n_embed", "d_model", NULL};
static const char *const K_LAYERS[] = {"num_hidden_layers", "n_layer", "n_layers", "num_layers", NULL};
static const char *const K_HEADS[] = {"num_attention_heads", "n_head", "n_heads", NULL};
static const char *const K_FFN[] = {"intermediate_size", "n_inner", "ffn_hidden_size", NULL};
static const char *const K_POS[] = {"max_position_embeddings", "n_positions", "max_seq_len",
                                    "seq_length", NULL};
static const char *const K_DROPOUT[] = {"attention_dropout", "hidden_dropout", "attn_pdrop",
                                        "resid_pdrop", "embd_pdrop", "hidden_dropout_prob",
                                        "attention_probs_dropout_prob", NULL};

static int get_int_alias(const cJSON *j, const char *const *keys, int64_t *out, bool required,
                         zs_error *err)
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

static int parse_enum(const cJSON *j, const char *key, const char *const *names, const int *values,
                      int *out, zs_error *err)
{
    char s[32];
    bool have;
    if (json_get_string(j, key, s, sizeof s, &have, err)) return err->code;
    if (!have) return ZS_OK;
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) { *out = values[i]; return ZS_OK; }
    char list[128] = "";
    for (int i = 0; names[i]; i++) {
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": \"%s\" is not one of %s", key, s, list);
}

static int from_json(const cJSON *j, model *m, zs_error *err)
{
    memset(m, 0, sizeof *m);
    bool have;
    if (json_get_string(j, "model_type", m->model_type, sizeof m->model_type, &have, err)) return err->code;
    if (!have) return zs_fail(err, ZS_ERR_INPUT, "missing field \"model_type\" (llama, mistral, mixtral, qwen2, gpt2, gpt_neox, bloom or transformer)");
    const arch *a = NULL;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strcmp(archs[i].type, m->model_type) == 0) a = &archs[i];
    if (!a)
        return zs_fail(err, ZS_ERR_INPUT, "field \"model_type\": \"%s\" is not supported (expected llama, mistral, mixtral, qwen2, gpt2, gpt_neox, bloom or transformer)", m->model_type);
    if (json_get_string(j, "name", m->name, sizeof m->name, &have, err)) return err->code;
    if (json_get_string(j, "source", m->source, sizeof m->source, &have, err)) return err->code;
    if (!have && json_get_string(j, "_name_or_path", m->source, sizeof m->source, &have, err)) return err->code;

    if (get_int_alias(j, K_HIDDEN, &m->hidden_size, true, err)) return err->code;
    if (get_int_alias(j, K_LAYERS, &m->num_layers, true, err)) return err->code;
    if (get_int_alias(j, K_HEADS, &m->num_heads, true, err)) return err->code;
    if (json_get_int(j, "vocab_size", -JSON_BIG, JSON_BIG, &m->vocab_size, &have, err)) return err->code;
    if (!have) return zs_fail(err, ZS_ERR_INPUT, "missing field \"vocab_size\" (a positive whole number)");
    if (m->num_heads <= 0)
        return zs_fail(err, ZS_ERR_INPUT, "field \"num_attention_heads\": %lld is out of range (expected 1 to 100000)", (long long)m->num_heads);

    m->num_kv_heads = m->num_heads;
    if (json_get_int(j, "num_key_value_heads", -JSON_BIG, JSON_BIG, &m->num_kv_heads, &have, err)) return err->code;
    bool mqa = false;
    if (json_get_bool(j, "multi_query", &mqa, &have, err)) return err->code;
    if (mqa) m->num_kv_heads = 1;

    if (json_get_int(j, "head_dim", -JSON_BIG, JSON_BIG, &m->head_dim, &have, err)) return err->code;
    if (!have) {
        if (m->hidden_size % m->num_heads != 0)
            return zs_fail(err, ZS_ERR_INPUT, "field \"num_attention_heads\": %lld does not divide hidden_size %lld (or give head_dim)",
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

    /* Block shape from the architecture, then the keys that override it. */
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
    if (strcmp(a->type, "transformer") == 0) {
        static const char *const norms[] = {"layernorm", "rmsnorm", NULL};
        static const int normv[] = {NORM_LAYERNORM, NORM_RMSNORM};
        static const char *const poss[] = {"rotary", "learned", "alibi", NULL};
        static const int posv[] = {POS_ROTARY, POS_LEARNED, POS_ALIBI};
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
            return zs_fail(err, ZS_ERR_INPUT, "missing field \"max_position_embeddings\" (learned positions need the table size)");
    }
    if (a->moe) {
        if (json_get_int(j, "num_local_experts", -JSON_BIG, JSON_BIG, &m->num_experts, &have, err)) return err->code;
        if (json_get_int(j, "num_experts_per_tok", -JSON_BIG, JSON_BIG, &m->experts_per_token, &have, err)) return err->code;
        if (m->num_experts == 0) m->experts_per_token = 0;
    }
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

int model_load(const char *path, model *m, zs_error *err)
{
    cJSON *root;
    if (json_load_object(path, &root, err)) return err->code;
    int rc = model_from_json(root, path, m, err);
    cJSON_Delete(root);
    if (rc == ZS_OK && m->name[0] == '\0') {
        /* Name an unnamed file after itself: "dir/llama.json" -> "llama". */
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        snprintf(m->name, sizeof m->name, "%.*s", (int)strcspn(base, "."), base);
    }
    return rc;
}
