/* model_json.c -- HuggingFace config.json (and our own JSON) to a model. */
#include "io/model_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonutil.h"
#include "io/model_arch.h"

/* HF spells the same quantity differently per model type. */
static const char *const K_HIDDEN[] = {"hidden_size", "n_embd", "n_embed", "d_model", NULL};
/* The keys that give the experts each token is routed to (the families' own names too). */
static const char *const K_TOPK[] = {
    "num_experts_per_tok", "experts_per_token", "top_k_experts", "moe_k", NULL};
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
    /* Wide bounds here; model_validate applies the real ranges with the HF field name. */
    return read_int_as(j, k, keys[0], out, err);
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

/* Append one sentence to the notes (NULL: none kept). */
static void note(model_notes *n, const char *fmt, const char *a, const char *b)
{
    if (!n) return;
    size_t used = strlen(n->text);
    if (used + 2 >= sizeof n->text) return;
    snprintf(n->text + used, sizeof n->text - used, fmt, a, b);
    used = strlen(n->text);
    if (used + 1 < sizeof n->text) strcat(n->text, "\n");
}

/* A copy of `j` with the family's class defaults added for the keys it leaves out, each
 * named in the notes (a missing key that changes shapes is never a silent guess). */
static cJSON *with_defaults(const cJSON *j, const arch *a, model_notes *notes)
{
    cJSON *c = cJSON_Duplicate(j, 1);
    cJSON *d = a->defaults ? cJSON_Parse(a->defaults) : NULL;
    if (c && d) {
        const cJSON *e;
        cJSON_ArrayForEach(e, d)
        {
            /* A key present as null keeps its null: DeepSeek-V2-Lite's q_lora_rank: null
             * means no q compression, not the class default. */
            if (cJSON_GetObjectItemCaseSensitive(c, e->string)) continue;
            char *v = cJSON_PrintUnformatted(e);
            if (v && (strcmp(e->string, "intermediate_size") == 0 || strcmp(e->string, "head_dim") == 0))
                note(notes, "\"%s\" is missing: the configuration class's default %s is used", e->string, v);
            cJSON_free(v);
            cJSON_AddItemToObject(c, e->string, cJSON_Duplicate(e, 1));
        }
    }
    cJSON_Delete(d);
    return c;
}

static int from_json_arch(const cJSON *j, const arch *a, model *m, zs_error *err);

/* Read j with row a: defaults added, the row's keys and hook. */
static int from_row(const cJSON *j, const arch *a, model *m, model_notes *notes, zs_error *err)
{
    cJSON *c = with_defaults(j, a, notes);
    if (!c) return zs_fail(err, ZS_ERR_INPUT, "out of memory");
    int rc = from_json_arch(c, a, m, err);
    cJSON_Delete(c);
    return rc;
}

/* A wrapper (vision-language) config: the language model from text_config (read with the row
 * text_config's model_type names, else the wrapper's text row), or from the top level when the
 * published config is flat (Qwen2.5-VL); top-level tie_word_embeddings applies when
 * text_config leaves it out. The vision tower is stated, not counted. */
static int from_wrapper(const cJSON *j, const arch *wrap, model *m, model_notes *notes, zs_error *err)
{
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(j, "text_config");
    const arch *a = model_arch_find(wrap->text);
    if (!cJSON_IsObject(text)) {
        if (!a)
            return zs_fail(err, ZS_ERR_INPUT, "missing field \"text_config\" (the language model's keys)");
        return from_row(j, a, m, notes, err);
    }
    const cJSON *tt = cJSON_GetObjectItemCaseSensitive(text, "model_type");
    const arch *named = cJSON_IsString(tt) ? model_arch_find(tt->valuestring) : NULL;
    if (named && !named->text) a = named;
    if (!a) return zs_fail(err, ZS_ERR_INPUT, "internal: no text row for \"%s\"", wrap->type);
    cJSON *c = cJSON_Duplicate(text, 1);
    if (!c) return zs_fail(err, ZS_ERR_INPUT, "out of memory");
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(j, "tie_word_embeddings");
    if (tie && !cJSON_GetObjectItemCaseSensitive(c, "tie_word_embeddings"))
        cJSON_AddItemToObject(c, "tie_word_embeddings", cJSON_Duplicate(tie, 1));
    int rc = from_row(c, a, m, notes, err);
    cJSON_Delete(c);
    if (rc) {
        zs_error_prefix(err, "text_config");
        return rc;
    }
    return ZS_OK;
}

static int from_json(const cJSON *j, bool strict, model *m, model_notes *notes, zs_error *err)
{
    memset(m, 0, sizeof *m);
    bool have;
    char type[64];
    if (json_get_string(j, "model_type", type, sizeof type, &have, err)) return err->code;
    if (!have)
        return zs_fail(err, ZS_ERR_INPUT,
            "missing field \"model_type\" (the family a HF config.json names, e.g. \"llama\", \"qwen3_moe\" "
            "or \"deepseek_v3\"; `zerosim list families` lists them)");
    const arch *a = model_arch_find(type);
    if (!a && strict)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"model_type\": \"%s\" is not a family zerosim knows, and --strict refuses it (without "
            "--strict a config with the standard decoder keys loads as a generic decoder, with a warning)",
            type);
    /* An unknown wrapper (vision-language, audio) whose text_config has the standard keys: its
     * language model as a generic decoder. */
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(j, "text_config");
    bool in_text = !a && !model_generic_fits(j) && cJSON_IsObject(tc) && model_generic_fits(tc);
    if (!a && !model_generic_fits(j) && !in_text)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"model_type\": \"%s\" is not a family zerosim knows, and the config lacks the standard "
            "decoder keys (hidden_size, num_hidden_layers, num_attention_heads, vocab_size) to read it as a "
            "generic decoder",
            type);
    if (!a) {
        int rc = model_generic(in_text ? tc : j, type, m, notes, err);
        if (rc) {
            if (in_text) zs_error_prefix(err, "text_config");
            return rc;
        }
        if (notes) notes->approximate = true;
        if (in_text) {
            note(notes, "%s: the language model in text_config is counted; the other towers are not%s", type,
                "");
            m->vision_tower = true;
        }
        return ZS_OK;
    }
    /* Gemma-3's multimodal config nests the language model in text_config (Gemma3TextConfig
     * defaults); the vision tower is not counted. */
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(j, "text_config");
    if (strcmp(a->type, "gemma3") == 0 && cJSON_IsObject(text)) {
        if (from_row(text, model_arch_find("gemma3_text"), m, notes, err)) {
            zs_error_prefix(err, "text_config");
            return err->code;
        }
    } else if (a->text) {
        if (from_wrapper(j, a, m, notes, err)) return err->code;
    } else {
        return from_row(j, a, m, notes, err);
    }
    /* Stated where the counts are shown (estimate's model line and JSON), not counted. */
    m->vision_tower = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "vision_config"));
    if (json_get_text(j, "name", m->name, sizeof m->name, &have, err)) return err->code;
    if (json_get_text(j, "source", m->source, sizeof m->source, &have, err)) return err->code;
    if (!have && json_get_text(j, "_name_or_path", m->source, sizeof m->source, &have, err))
        return err->code;
    snprintf(m->model_type, sizeof m->model_type, "%s", a->type);
    return ZS_OK;
}

/* The MLP width: one number under any of its spellings, or a per-layer list of
 * intermediate_size (Gemma 3n) whose entries agree; differing widths are refused by name. */
static int read_ffn(const cJSON *j, int64_t *out, zs_error *err)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "intermediate_size"), *e;
    if (!cJSON_IsArray(l)) return get_int_alias(j, K_FFN, out, false, err);
    int64_t i = 0;
    cJSON_ArrayForEach(e, l)
    {
        double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (!(v >= 1 && v <= (double)JSON_BIG && v == floor(v)))
            return zs_fail(err, ZS_ERR_INPUT,
                "field \"intermediate_size\"[%lld]: expected a positive whole number", (long long)i);
        if (i > 0 && (int64_t)v != *out)
            return zs_fail(err, ZS_ERR_INPUT,
                "field \"intermediate_size\": the per-layer widths differ (entry %lld is %lld, entry 0 is "
                "%lld); zerosim models one MLP width",
                (long long)i, (long long)v, (long long)*out);
        *out = (int64_t)v;
        i++;
    }
    if (i == 0) return zs_fail(err, ZS_ERR_INPUT, "field \"intermediate_size\": an empty list");
    return ZS_OK;
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
    if (read_ffn(j, &m->intermediate_size, err)) return err->code;
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
    if (json_get_bool(j, "fused_gate_up", &m->fused_gate_up, &have, err)) return err->code;
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
    m->fused_gate_up = a->fused_gate_up;
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
    if (json_get_text(j, "name", m->name, sizeof m->name, &have, err)) return err->code;
    if (json_get_text(j, "source", m->source, sizeof m->source, &have, err)) return err->code;
    if (!have && json_get_text(j, "_name_or_path", m->source, sizeof m->source, &have, err))
        return err->code;
    if (arch_sizes(j, a, m, err) || arch_shape(j, a, m, err)) return err->code;
    if (a->moe) {
        if (read_int(j, "num_local_experts", &m->num_experts, err) ||
            read_int(j, "num_experts_per_tok", &m->experts_per_token, err))
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
    /* Experts without the number each token is routed to: the key is missing, not 0. */
    if (m->num_experts > 0 && m->moe_layers > 0 && m->experts_per_token == 0 && !json_first_key(j, K_TOPK))
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"num_experts_per_tok\" is missing: an MoE config (%lld experts) needs the experts per "
            "token",
            (long long)m->num_experts);
    if (json_get_number(j, "capacity_factor", 0, 1000, &m->capacity_factor, &have, err)) return err->code;
    if (json_get_number(j, "decoder_seq_ratio", 0, 1000, &m->decoder_seq_ratio, &have, err)) return err->code;
    for (const char *const *k = K_DROPOUT; *k; k++) {
        double p = 0;
        if (json_get_number(j, *k, 0, 1, &p, &have, err)) return err->code;
        if (p > 0) m->dropout = true;
    }
    return model_validate(m, err);
}

/* Keys the generic decoder reads (fam_generic and the common keys). */
static const char *const GENERIC_READ[] = {"model_type", "hidden_size", "num_hidden_layers",
    "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size",
    "tie_word_embeddings", "max_position_embeddings", "attention_bias", "mlp_bias", "num_local_experts",
    "num_experts", "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size",
    "shared_expert_intermediate_size", "n_shared_experts", "first_k_dense_replace", "decoder_sparse_step",
    "mlp_only_layers", "sliding_window", "use_sliding_window", "layer_types", "use_qk_norm", "name", "source",
    "_name_or_path", "capacity_factor", "attention_dropout", "hidden_dropout", NULL};
/* Keys that set no shape: token ids, dtypes, rotary and norm constants, router options. */
static const char *const GENERIC_HARMLESS[] = {"architectures", "auto_map", "bos_token_id", "eos_token_id",
    "pad_token_id", "torch_dtype", "dtype", "transformers_version", "rope_theta", "rope_scaling",
    "rope_parameters", "partial_rotary_factor", "rms_norm_eps", "layer_norm_eps", "norm_eps",
    "layer_norm_epsilon", "initializer_range", "use_cache", "hidden_act", "quantization_config",
    "router_aux_loss_coef", "output_router_logits", "norm_topk_prob", "routed_scaling_factor", "scoring_func",
    "topk_method", "n_group", "topk_group", "max_window_layers", "pretraining_tp", "tokenizer_class",
    "num_logits_to_keep", "logits_to_keep", "router_jitter_noise", "attn_implementation", NULL};

static bool listed(const char *const *l, const char *k)
{
    for (; *l; l++)
        if (strcmp(*l, k) == 0) return true;
    return false;
}

bool model_generic_fits(const cJSON *j)
{
    static const char *const need[] = {
        "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, need[i]))) return false;
    const cJSON *ed = cJSON_GetObjectItemCaseSensitive(j, "is_encoder_decoder");
    return !cJSON_IsTrue(ed);
}

int model_generic(const cJSON *j, const char *type, model *m, model_notes *notes, zs_error *err)
{
    static const arch generic = {.type = "generic",
        .gated_mlp = true,
        .norm = NORM_RMSNORM,
        .pos = POS_ROTARY,
        .moe = true,
        .bias_keys = true,
        .block_norms = 2,
        .family = fam_generic};
    char unknown[600] = "";
    const cJSON *e;
    cJSON_ArrayForEach(e, j)
    {
        if (!e->string || listed(GENERIC_READ, e->string) || listed(GENERIC_HARMLESS, e->string)) continue;
        size_t used = strlen(unknown);
        snprintf(unknown + used, sizeof unknown - used, "%s%s", used ? ", " : "", e->string);
    }
    note(notes,
        "model_type \"%s\" is not one zerosim knows: read as a generic decoder (Llama-shaped: "
        "gated MLP, RMSNorm, rotary, the usual MoE and sliding-window keys); counts are approximate until "
        "--weights confirms them (--strict refuses instead)%s",
        type, "");
    if (unknown[0]) note(notes, "keys not understood (they may change shapes): %s%s", unknown, "");
    if (!cJSON_GetObjectItemCaseSensitive(j, "intermediate_size"))
        note(notes, "\"intermediate_size\" is missing: %s%s", "LlamaConfig's default 11008 is used", "");
    cJSON *c = cJSON_Duplicate(j, 1);
    if (!c) return zs_fail(err, ZS_ERR_INPUT, "out of memory");
    if (!cJSON_GetObjectItemCaseSensitive(c, "intermediate_size"))
        cJSON_AddNumberToObject(c, "intermediate_size", 11008);
    int rc = from_json_arch(c, &generic, m, err);
    cJSON_Delete(c);
    if (rc == ZS_OK) snprintf(m->model_type, sizeof m->model_type, "%s", type);
    return rc;
}

int model_from_json_ex(
    const cJSON *root, const char *origin, bool strict, model *m, model_notes *notes, zs_error *err)
{
    if (notes) memset(notes, 0, sizeof *notes);
    int rc = from_json(root, strict, m, notes, err);
    if (rc) zs_error_prefix(err, origin);
    return rc;
}

int model_from_json(const cJSON *root, const char *origin, model *m, zs_error *err)
{
    return model_from_json_ex(root, origin, false, m, NULL, err);
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
    return model_load_ex(path, false, m, NULL, err);
}

int model_load_ex(const char *path, bool strict, model *m, model_notes *notes, zs_error *err)
{
    cJSON *root;
    if (json_load_object(path, &root, err)) return err->code;
    int rc = model_from_json_ex(root, path, strict, m, notes, err);
    if (rc == ZS_OK && m->name[0] == '\0') {
        /* Name an unnamed file after itself, dots kept: "dir/qwen2.5-72b.json" -> "qwen2.5-72b". */
        const cJSON *np = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
        model_name_from_path(path, cJSON_IsString(np) ? np->valuestring : NULL, m->name, sizeof m->name);
    }
    cJSON_Delete(root);
    return rc;
}
