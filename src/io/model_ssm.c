/* model_ssm.c -- hybrid state-space families' keys: Nemotron-H, Falcon-H1, Jamba, Bamba, Granite 4.0-H. */
#include "io/model_arch.h"

#include <math.h>
#include <string.h>

#include "io/jsonutil.h"
#include "io/model_pattern.h"

/* Layer i is kind `a` when i % period == offset (Jamba's attn/expert_layer_period/_offset). */
static int plan_period(const cJSON *j, const char *period_key, const char *offset_key, int64_t period,
    int64_t offset, layer_plan *p, unsigned char *field, unsigned char yes, zs_error *err)
{
    if (read_int(j, period_key, &period, err) || read_int(j, offset_key, &offset, err)) return err->code;
    if (period < 1)
        return zs_fail(
            err, ZS_ERR_INPUT, "field \"%s\": %lld (expected 1 or more)", period_key, (long long)period);
    for (int64_t i = 0; i < p->n; i++)
        if (i % period == offset) field[i] = yes;
    return ZS_OK;
}

/* The names one family gives a Mamba mixer's sizes (NULL: the family has no such key). */
typedef struct ssm_keys {
    const char *heads, *head_dim, *state, *groups, *conv, *chunk, *expand, *inner, *conv_bias, *proj_bias;
} ssm_keys;

/* Read a Mamba-2 mixer's sizes: d_inner from `inner` (Falcon-H1's mamba_d_ssm) or heads x
 * head_dim when both are given (Nemotron-H: not expand x h), else expand x h. */
static int read_mamba2(const cJSON *j, const ssm_keys *k, model *m, zs_error *err)
{
    int64_t expand = 2, inner = 0, hd = 0;
    bool have;
    m->ssm_groups = 1, m->ssm_conv = 4, m->ssm_chunk = 256, m->ssm_state = 128;
    m->ssm_conv_bias = true, m->ssm_norm = true;
    if (read_int(j, k->heads, &m->ssm_heads, err) || read_int(j, k->head_dim, &hd, err) ||
        read_int(j, k->state, &m->ssm_state, err) || read_int(j, k->groups, &m->ssm_groups, err) ||
        read_int(j, k->conv, &m->ssm_conv, err) || read_int(j, k->chunk, &m->ssm_chunk, err) ||
        read_int(j, k->expand, &expand, err) || (k->inner && read_int(j, k->inner, &inner, err)))
        return err->code;
    if (json_get_bool(j, k->conv_bias, &m->ssm_conv_bias, &have, err)) return err->code;
    if (json_get_bool(j, k->proj_bias, &m->ssm_proj_bias, &have, err)) return err->code;
    if (m->hidden_size > JSON_BIG / 1000 || expand < 0 || expand > 1000)
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %lld is out of range (expected 0 to 1000)",
            k->expand, (long long)expand);
    /* Bounded before they multiply (a fuzzed config can hold 2^53 in each). */
    if (hd > 1000000 || m->ssm_heads > 1000000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"%s\" / \"%s\": %lld heads of %lld (expected 1 to 1000000 each)", k->heads, k->head_dim,
            (long long)m->ssm_heads, (long long)hd);
    m->ssm_inner = inner > 0         ? inner
        : hd > 0 && m->ssm_heads > 0 ? hd * m->ssm_heads
                                     : expand * m->hidden_size;
    if (m->ssm_heads <= 0 && hd > 0) m->ssm_heads = m->ssm_inner / hd;
    if (m->ssm_heads < 1 || m->ssm_state < 1 || m->ssm_groups < 1 || m->ssm_conv < 1 || m->ssm_inner < 1 ||
        m->ssm_heads > 1000000 || m->ssm_state > 1000000 || m->ssm_groups > 1000000 || m->ssm_conv > 1000 ||
        m->ssm_inner > 10000000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"%s\": a Mamba mixer needs heads, d_state, groups, d_conv and d_inner of 1 or more "
            "(got %lld, %lld, %lld, %lld, %lld)",
            k->heads, (long long)m->ssm_heads, (long long)m->ssm_state, (long long)m->ssm_groups,
            (long long)m->ssm_conv, (long long)m->ssm_inner);
    if (m->ssm_chunk < 1) m->ssm_chunk = 256;
    return ZS_OK;
}

/* Bamba, Granite 4.0-H and Falcon-H1 spell them mamba_*. */
static const ssm_keys MAMBA_KEYS = {"mamba_n_heads", "mamba_d_head", "mamba_d_state", "mamba_n_groups",
    "mamba_d_conv", "mamba_chunk_size", "mamba_expand", "mamba_d_ssm", "mamba_conv_bias", "mamba_proj_bias"};

/* Nemotron-H (HF NemotronHConfig): hybrid_override_pattern (or layers_block_type) gives each
 * layer one norm and one of a Mamba-2 mixer (M), attention (*), a squared-ReLU MLP (-) or
 * routed experts with a shared expert and a correction bias (E; Nemotron 3). */
int fam_nemotron_h(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    static const ssm_keys keys = {"mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups",
        "conv_kernel", "chunk_size", "expand", NULL, "use_conv_bias", "mamba_proj_bias"};
    layer_plan p;
    int64_t hd = 0;
    if (read_mamba2(j, &keys, m, err) || read_int(j, "attention_head_dim", &hd, err)) return err->code;
    if (hd > 0 && !cJSON_GetObjectItemCaseSensitive(j, "head_dim")) m->head_dim = hd;
    if (read_int(j, "n_routed_experts", &m->num_experts, err) ||
        read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err) ||
        read_int(j, "moe_shared_expert_intermediate_size", &m->shared_intermediate_size, err))
        return err->code;
    bool have, bias = false;
    if (json_get_bool(j, "use_bias", &bias, &have, err)) return err->code;
    if (have) m->ssm_proj_bias = bias;
    if (pattern_init(&p, m, err)) return err->code;
    if (pattern_read_override(&p, j, "hybrid_override_pattern", err)) return err->code;
    /* layers_block_type names one kind a layer: a mixer alone or an MLP alone. */
    const cJSON *lbt = cJSON_GetObjectItemCaseSensitive(j, "layers_block_type");
    if (cJSON_IsArray(lbt)) {
        for (int64_t i = 0; i < p.n; i++) p.ffn[i] = BLOCK_NOFFN;
        if (pattern_read_types(&p, j, "layers_block_type", err)) return err->code;
    }
    m->router_bias = m->num_experts > 0;
    m->gated_mlp = false; /* relu^2: up and down only */
    return pattern_apply(&p, m, err);
}

/* Falcon-H1 (HF FalconH1Config): every layer runs attention and a Mamba-2 mixer side by side
 * on one normed input, then a SwiGLU MLP; the mixer's gated norm only with mamba_rms_norm. */
int fam_falcon_h1(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    bool have, norm = false;
    if (read_mamba2(j, &MAMBA_KEYS, m, err)) return err->code;
    if (json_get_bool(j, "mamba_rms_norm", &norm, &have, err)) return err->code;
    m->ssm_norm = norm;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.mixer2[i] = MIX_MAMBA2;
    return pattern_apply(&p, m, err);
}

/* Bamba (HF BambaConfig): Mamba-2 layers except attn_layer_indices, each with a SwiGLU MLP. */
int fam_bamba(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    if (read_mamba2(j, &MAMBA_KEYS, m, err) || pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.mixer[i] = MIX_MAMBA2;
    const cJSON *idx = cJSON_GetObjectItemCaseSensitive(j, "attn_layer_indices"), *e;
    cJSON_ArrayForEach(e, idx) if (cJSON_IsNumber(e) && e->valuedouble >= 0 && e->valuedouble < (double)p.n)
        p.mixer[(int64_t)e->valuedouble] = MIX_ATTENTION;
    return pattern_apply(&p, m, err);
}

/* Granite 4.0-H (HF GraniteMoeHybridConfig): layer_types of mamba and attention, each layer
 * with routed experts (num_local_experts > 0) and a shared SwiGLU MLP of
 * shared_intermediate_size; no position embedding (position_embedding_type "nope"). */
int fam_granite_hybrid(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    char pos[16] = "";
    bool have;
    if (read_mamba2(j, &MAMBA_KEYS, m, err)) return err->code;
    if (read_int(j, "shared_intermediate_size", &m->shared_intermediate_size, err)) return err->code;
    if (json_get_string(j, "position_embedding_type", pos, sizeof pos, &have, err)) return err->code;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) {
        p.ffn[i] = m->num_experts > 0 ? BLOCK_MOE : BLOCK_DENSE;
        p.nope[i] = strcmp(pos, "nope") == 0;
    }
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    /* A dense Granite 4.0-H has only the shared MLP: its width is the dense MLP's. */
    if (m->num_experts <= 0 && m->shared_intermediate_size > 0) {
        m->intermediate_size = m->shared_intermediate_size;
        m->shared_intermediate_size = 0;
    }
    return pattern_apply(&p, m, err);
}

/* Jamba (HF JambaConfig): Mamba-1 layers with attention where i % attn_layer_period ==
 * attn_layer_offset (8, 4) and experts where i % expert_layer_period == expert_layer_offset
 * (2, 1); mamba_dt_rank "auto" is ceil(h / 16); Jamba's RMS norms on dt, B and C. */
int fam_jamba(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    int64_t expand = 2, period = 8, offset = 4, eperiod = 2, eoffset = 1;
    bool have;
    m->ssm_state = 16, m->ssm_conv = 4, m->ssm_conv_bias = true, m->ssm_norm = true;
    m->ssm_dt_rank = (m->hidden_size + 15) / 16;
    if (read_int(j, "num_experts", &m->num_experts, err) ||
        read_int(j, "mamba_d_state", &m->ssm_state, err) || read_int(j, "mamba_d_conv", &m->ssm_conv, err) ||
        read_int(j, "mamba_expand", &expand, err))
        return err->code;
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "mamba_dt_rank")) &&
        read_int(j, "mamba_dt_rank", &m->ssm_dt_rank, err))
        return err->code;
    if (json_get_bool(j, "mamba_conv_bias", &m->ssm_conv_bias, &have, err) ||
        json_get_bool(j, "mamba_proj_bias", &m->ssm_proj_bias, &have, err))
        return err->code;
    if (expand < 1 || expand > 1000 || m->hidden_size > JSON_BIG / 1000 || m->ssm_state < 1 ||
        m->ssm_conv < 1 || m->ssm_dt_rank < 1 || m->ssm_state > 1000000 || m->ssm_conv > 1000 ||
        m->ssm_dt_rank > 1000000)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"mamba_expand\": a Mamba mixer needs expand, d_state, d_conv and dt_rank of 1 or more");
    m->ssm_inner = expand * m->hidden_size;
    if (pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.mixer[i] = MIX_MAMBA1;
    if (plan_period(
            j, "attn_layer_period", "attn_layer_offset", period, offset, &p, p.mixer, MIX_ATTENTION, err) ||
        plan_period(
            j, "expert_layer_period", "expert_layer_offset", eperiod, eoffset, &p, p.ffn, BLOCK_MOE, err))
        return err->code;
    if (m->num_experts <= 1) {
        /* One "expert" is a dense MLP (Jamba's num_experts 1 configurations). */
        for (int64_t i = 0; i < p.n; i++) p.ffn[i] = BLOCK_DENSE;
        m->num_experts = 0;
    }
    /* A sliding_window key is Jamba's attention option, off (null) in the published configs. */
    m->sliding_window = 0;
    return pattern_apply(&p, m, err);
}
