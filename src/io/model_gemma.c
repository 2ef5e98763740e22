/* model_gemma.c -- Gemma 3n and Gemma 4's own keys: per-layer inputs, AltUp, LAuReL, KV sharing. */
#include "io/model_arch.h"

#include "io/jsonutil.h"
#include "io/model_pattern.h"

/* The per-layer input (both families), AltUp and LAuReL (Gemma 3n) widths, range-checked by
 * their HF names; the final logits' soft-cap and the window. */
static int read_gemma_extras(const cJSON *j, model *m, zs_error *err)
{
    bool have;
    if (read_int(j, "hidden_size_per_layer_input", &m->ple_dim, err) ||
        read_int(j, "vocab_size_per_layer_input", &m->ple_vocab, err) ||
        read_int(j, "altup_num_inputs", &m->altup_inputs, err) ||
        read_int(j, "laurel_rank", &m->laurel_rank, err) ||
        read_int(j, "sliding_window", &m->sliding_window, err))
        return err->code;
    if (json_get_number(j, "final_logit_softcapping", 0, 1e9, &m->final_softcap, &have, err))
        return err->code;
    const struct {
        const char *field;
        int64_t value, min, max;
    } f[] = {
        {"hidden_size_per_layer_input", m->ple_dim, 0, 1000000},
        {"vocab_size_per_layer_input", m->ple_vocab, m->ple_dim > 0 ? 1 : 0, 100000000},
        {"altup_num_inputs", m->altup_inputs, 0, 64},
        {"laurel_rank", m->laurel_rank, 0, 1000000},
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (f[k].value < f[k].min || f[k].value > f[k].max)
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %lld is out of range (expected %lld to %lld)",
                f[k].field, (long long)f[k].value, (long long)f[k].min, (long long)f[k].max);
    return ZS_OK;
}

/* Gemma 3n's text model (HF Gemma3nTextConfig / modeling_gemma3n.py): Gemma-3 blocks (four
 * norms, per-head q/k norms; v_norm has no weight) plus, per block, AltUp, LAuReL and the
 * per-layer input gate and projection, and at the model level the per-layer embedding table,
 * its projection and AltUp's projections (model.c). Four sliding layers to one full (layer_types;
 * default full when (i + 1) % 5 == 0), all of one shape. The last num_kv_shared_layers reuse
 * earlier keys and values but still hold k_proj, v_proj and k_norm (the forward skips them):
 * counted, so they are no class of their own. */
int fam_gemma3n(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    if (read_gemma_extras(j, m, err) || pattern_init(&p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.local[i] = (i + 1) % 5 != 0;
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    return pattern_apply(&p, m, err);
}

/* Gemma 4's experts (enable_moe_block): num_experts of moe_intermediate_size, top_k_experts a
 * token, the dense MLP kept beside them as a shared expert of intermediate_size, the router's
 * scale and per_expert_scale, and three more norms a block. */
static int read_gemma4_moe(const cJSON *j, layer_plan *p, model *m, zs_error *err)
{
    bool have, moe = false;
    if (json_get_bool(j, "enable_moe_block", &moe, &have, err)) return err->code;
    if (!moe) {
        m->num_experts = m->experts_per_token = 0;
        return ZS_OK;
    }
    if (read_int(j, "num_experts", &m->num_experts, err) ||
        read_int(j, "top_k_experts", &m->experts_per_token, err) ||
        read_int(j, "moe_intermediate_size", &m->moe_intermediate_size, err))
        return err->code;
    for (int64_t i = 0; i < p->n; i++) p->ffn[i] = BLOCK_MOE;
    m->shared_intermediate_size = m->intermediate_size;
    m->router_scales = true;
    m->moe_norms = 3;
    return ZS_OK;
}

/* Gemma 4's text model (HF Gemma4TextConfig / modeling_gemma4.py): five sliding layers to one
 * full (layer_types; default full when (i + 1) % 6 == 0), the last layer always full. The
 * sliding layers have the config's heads, key/value heads and head_dim (the swa_* shape); the
 * full ones global_head_dim and, with attention_k_eq_v, num_global_key_value_heads (default
 * num_key_value_heads) and no v_proj. The last num_kv_shared_layers (when some layer comes
 * before them) hold no k_proj, v_proj or k_norm, and with use_double_wide_mlp an MLP twice
 * intermediate_size wide. The per-layer input as Gemma 3n's; no AltUp, no LAuReL. */
int fam_gemma4(const cJSON *j, const arch *a, model *m, zs_error *err)
{
    (void)a;
    layer_plan p;
    bool have, keqv = false, wide = false;
    int64_t ghd = 0, gkv = 0, shared = 0;
    if (read_gemma_extras(j, m, err) || read_int(j, "global_head_dim", &ghd, err) ||
        read_int(j, "num_global_key_value_heads", &gkv, err) ||
        read_int(j, "num_kv_shared_layers", &shared, err))
        return err->code;
    if (json_get_bool(j, "attention_k_eq_v", &keqv, &have, err) ||
        json_get_bool(j, "use_double_wide_mlp", &wide, &have, err))
        return err->code;
    if (ghd < 0 || ghd > 100000 || gkv < 0 || gkv > 100000 || shared < 0 || shared > m->num_layers)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"global_head_dim\" / \"num_global_key_value_heads\" / \"num_kv_shared_layers\": "
            "%lld / %lld / %lld (expected 0 to 100000, 0 to 100000, 0 to num_hidden_layers)",
            (long long)ghd, (long long)gkv, (long long)shared);
    m->swa_heads = m->num_heads, m->swa_kv_heads = m->num_kv_heads, m->swa_head_dim = m->head_dim;
    if (ghd > 0) m->head_dim = ghd;
    if (keqv && gkv > 0) m->num_kv_heads = gkv;
    m->attn_k_eq_v = keqv;
    int64_t first = m->num_layers - shared; /* HF: layer_idx >= first_kv_shared_layer_idx > 0 */
    if (pattern_init(&p, m, err) || read_gemma4_moe(j, &p, m, err)) return err->code;
    for (int64_t i = 0; i < p.n; i++) p.local[i] = (i + 1) % 6 != 0;
    if (pattern_read_types(&p, j, "layer_types", err)) return err->code;
    p.local[p.n - 1] = 0;
    for (int64_t i = 0; i < p.n; i++) p.shared[i] = shared > 0 && first > 0 && i >= first;
    if (wide && shared > 0 && first > 0) m->kv_shared_intermediate_size = 2 * m->intermediate_size;
    return pattern_apply(&p, m, err);
}
