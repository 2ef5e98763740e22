/* model_pattern.c -- per-layer kinds from layer_types, hybrid_override_pattern and no_rope_layers. */
#include "io/model_pattern.h"

#include <string.h>

int pattern_init(layer_plan *p, const model *m, zs_error *err)
{
    if (m->num_layers < 1 || m->num_layers > PATTERN_MAX_LAYERS)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"num_hidden_layers\": %lld is out of range (expected 1 to %d)", (long long)m->num_layers,
            PATTERN_MAX_LAYERS);
    p->n = m->num_layers;
    for (int64_t i = 0; i < p->n; i++) {
        p->mixer[i] = MIX_ATTENTION;
        p->mixer2[i] = MIX_NONE;
        p->ffn[i] = BLOCK_DENSE;
        p->local[i] = p->nope[i] = p->shared[i] = 0;
    }
    return ZS_OK;
}

/* One entry of a layer_types / layers_block_type list: which fields it sets. */
typedef struct layer_word {
    const char *word;
    int mixer; /* mixer_kind, or -1: keep */
    int ffn;   /* block_kind, or -1: keep */
    int local; /* 1 sliding, 0 global, -1 keep */
} layer_word;

static const layer_word words[] = {
    {"full_attention", MIX_ATTENTION, -1, 0},
    {"attention", MIX_ATTENTION, -1, 0},
    {"sliding_attention", MIX_ATTENTION, -1, 1},
    {"chunked_attention", MIX_ATTENTION, -1, 1},
    {"linear_attention", MIX_DELTANET, -1, 0},
    {"mamba", MIX_MAMBA2, -1, 0},
    {"mamba2", MIX_MAMBA2, -1, 0},
    {"mlp", MIX_NONE, BLOCK_DENSE, 0},
    {"moe", MIX_NONE, BLOCK_MOE, 0},
};

int pattern_read_types(layer_plan *p, const cJSON *j, const char *key, zs_error *err)
{
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!lt || cJSON_IsNull(lt)) return ZS_OK;
    if (!cJSON_IsArray(lt))
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected a list of layer kinds", key);
    int64_t n = cJSON_GetArraySize(lt);
    if (n != p->n)
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %lld entries for %lld layers (expected one a layer)",
            key, (long long)n, (long long)p->n);
    int64_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, lt)
    {
        const layer_word *w = NULL;
        for (size_t k = 0; cJSON_IsString(e) && k < sizeof words / sizeof words[0]; k++)
            if (strcmp(e->valuestring, words[k].word) == 0) w = &words[k];
        if (!w)
            return zs_fail(err, ZS_ERR_INPUT,
                "field \"%s\"[%lld]: \"%s\" is not a layer kind zerosim knows (full_attention, "
                "sliding_attention, chunked_attention, linear_attention, attention, mamba, mlp, moe)",
                key, (long long)i, cJSON_IsString(e) ? e->valuestring : "?");
        if (w->mixer >= 0) p->mixer[i] = (unsigned char)w->mixer;
        if (w->ffn >= 0) p->ffn[i] = (unsigned char)w->ffn;
        /* A word naming a mixer alone (Nemotron-H's lists) leaves the MLP as the family set it. */
        if (w->local >= 0) p->local[i] = (unsigned char)w->local;
        i++;
    }
    return ZS_OK;
}

int pattern_read_override(layer_plan *p, const cJSON *j, const char *key, zs_error *err)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!s || cJSON_IsNull(s)) return ZS_OK;
    if (!cJSON_IsString(s))
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected a string of M, *, - and E", key);
    int64_t n = (int64_t)strlen(s->valuestring);
    if (n != p->n)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"%s\": %lld characters for %lld layers (expected one a layer)", key, (long long)n,
            (long long)p->n);
    for (int64_t i = 0; i < n; i++) {
        char c = s->valuestring[i];
        p->local[i] = 0;
        switch (c) {
        case 'M': p->mixer[i] = MIX_MAMBA2, p->ffn[i] = BLOCK_NOFFN; break;
        case '*': p->mixer[i] = MIX_ATTENTION, p->ffn[i] = BLOCK_NOFFN; break;
        case '-': p->mixer[i] = MIX_NONE, p->ffn[i] = BLOCK_DENSE; break;
        case 'E': p->mixer[i] = MIX_NONE, p->ffn[i] = BLOCK_MOE; break;
        default:
            return zs_fail(err, ZS_ERR_INPUT,
                "field \"%s\": '%c' at position %lld is not M (Mamba-2), * (attention), - (MLP) or E "
                "(experts)",
                key, c, (long long)i);
        }
    }
    return ZS_OK;
}

int pattern_read_nope(layer_plan *p, const cJSON *j, const char *key, int nope_value, zs_error *err)
{
    (void)err;
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!cJSON_IsArray(l)) return ZS_OK;
    int64_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, l)
    {
        if (i >= p->n) break;
        if (cJSON_IsNumber(e) && e->valuedouble == (double)nope_value) p->nope[i] = 1;
        if (cJSON_IsBool(e) && cJSON_IsTrue(e) == (nope_value == 1)) p->nope[i] = 1;
        i++;
    }
    return ZS_OK;
}

/* Layer i's mixer: a sliding attention layer of a model whose sliding layers have their own
 * shape (swa_heads) is MIX_SWA. */
static mixer_kind mixer_at(const layer_plan *p, const model *m, int64_t i)
{
    if (p->mixer[i] == MIX_ATTENTION && p->local[i] && m->swa_heads > 0) return MIX_SWA;
    return (mixer_kind)p->mixer[i];
}

int pattern_apply(const layer_plan *p, model *m, zs_error *err)
{
    bool classic = true;
    int64_t moe = 0, local = 0, nope = 0, local_moe = 0;
    for (int64_t i = 0; i < p->n; i++) {
        local_moe += p->ffn[i] == BLOCK_MOE && p->mixer[i] == MIX_ATTENTION && p->local[i];
        if (mixer_at(p, m, i) != MIX_ATTENTION || p->mixer2[i] != MIX_NONE || p->ffn[i] == BLOCK_NOFFN ||
            p->shared[i])
            classic = false;
        moe += p->ffn[i] == BLOCK_MOE;
        local += p->mixer[i] == MIX_ATTENTION && p->local[i];
        nope += (p->mixer[i] == MIX_ATTENTION || p->mixer2[i] == MIX_ATTENTION) && p->nope[i];
    }
    /* The classic fields spread sliding layers over dense and MoE blocks in proportion: a
     * pattern that puts them elsewhere (Llama 4 Maverick) is kept as classes. */
    if (local_moe * p->n != local * moe) classic = false;
    m->moe_layers = moe;
    m->sliding_layers = m->sliding_window > 0 ? local : 0;
    m->nope_layers = nope;
    m->nclass = 0;
    if (classic) return ZS_OK;
    for (int64_t i = 0; i < p->n; i++) {
        int c = 0;
        mixer_kind mk = mixer_at(p, m, i);
        while (c < m->nclass &&
            !(m->classes[c].mixer == mk && m->classes[c].mixer2 == p->mixer2[i] &&
                m->classes[c].ffn == p->ffn[i] && m->classes[c].kv_shared == (p->shared[i] != 0)))
            c++;
        if (c == m->nclass) {
            if (m->nclass == LAYER_CLASSES_MAX)
                return zs_fail(
                    err, ZS_ERR_INPUT, "layer pattern: more than %d kinds of layer", LAYER_CLASSES_MAX);
            m->classes[c] =
                (layer_class){mk, (mixer_kind)p->mixer2[i], (block_kind)p->ffn[i], 0, 0, p->shared[i] != 0};
            m->nclass++;
        }
        m->classes[c].count++;
        m->classes[c].local += mk == MIX_ATTENTION && p->local[i] && m->sliding_window > 0;
    }
    return ZS_OK;
}
