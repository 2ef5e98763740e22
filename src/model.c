/* model.c -- parameter tensors of a transformer, exact counts, and shape validation. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_TENSORS 32

/* Append one tensor; module ids group tensors into nn.Modules. */
static void add(model_tensor *t, int *n, int max, const char *name, double numel, double count,
                int module, bool active_all)
{
    if (*n < max) t[*n] = (model_tensor){name, numel, count, module, active_all};
    (*n)++;
}

/* A norm contributes a weight and, for LayerNorm with beta, a bias: two tensors, one module. */
static void add_norm(const model *m, model_tensor *t, int *n, int max, const char *w,
                     const char *b, int module)
{
    double h = (double)m->hidden_size;
    add(t, n, max, w, h, 1, module, true);
    if (m->norm == NORM_LAYERNORM && m->norm_bias) add(t, n, max, b, h, 1, module, true);
}

int model_tensors(const model *m, bool layer, model_tensor *t, int max)
{
    int n = 0;
    double h = (double)m->hidden_size, i = (double)m->intermediate_size;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double v = (double)m->vocab_size;
    if (!layer) {
        add(t, &n, max, "embed.tokens", v * h, 1, 0, true);
        if (m->pos == POS_LEARNED) add(t, &n, max, "embed.positions", (double)m->max_positions * h, 1, 1, true);
        if (m->embedding_norm) add_norm(m, t, &n, max, "embed.norm.weight", "embed.norm.bias", 2);
        add_norm(m, t, &n, max, "final_norm.weight", "final_norm.bias", 3);
        if (!m->tied_embeddings) add(t, &n, max, "lm_head.weight", v * h, 1, 4, true);
        return n <= max ? n : -1;
    }
    add_norm(m, t, &n, max, "norm1.weight", "norm1.bias", 0);
    add_norm(m, t, &n, max, "norm2.weight", "norm2.bias", 1);
    if (m->fused_qkv) {
        add(t, &n, max, "attn.qkv.weight", h * (q + 2 * kv), 1, 2, true);
        if (m->qkv_bias) add(t, &n, max, "attn.qkv.bias", q + 2 * kv, 1, 2, true);
    } else {
        add(t, &n, max, "attn.q.weight", h * q, 1, 2, true);
        add(t, &n, max, "attn.k.weight", h * kv, 1, 3, true);
        add(t, &n, max, "attn.v.weight", h * kv, 1, 4, true);
        if (m->qkv_bias) {
            add(t, &n, max, "attn.q.bias", q, 1, 2, true);
            add(t, &n, max, "attn.k.bias", kv, 1, 3, true);
            add(t, &n, max, "attn.v.bias", kv, 1, 4, true);
        }
    }
    add(t, &n, max, "attn.o.weight", q * h, 1, 5, true);
    if (m->out_bias) add(t, &n, max, "attn.o.bias", h, 1, 5, true);

    /* Dense: one MLP. MoE: a router and `num_experts` MLPs, top-k of them active per token. */
    bool moe = m->num_experts > 0;
    double copies = moe ? (double)m->num_experts : 1;
    if (moe) add(t, &n, max, "moe.router.weight", h * copies, 1, 6, true);
    if (m->gated_mlp) {
        add(t, &n, max, "mlp.gate.weight", h * i, copies, 7, !moe);
        add(t, &n, max, "mlp.up.weight", h * i, copies, 8, !moe);
        if (m->mlp_bias) {
            add(t, &n, max, "mlp.gate.bias", i, copies, 7, !moe);
            add(t, &n, max, "mlp.up.bias", i, copies, 8, !moe);
        }
    } else {
        add(t, &n, max, "mlp.fc.weight", h * i, copies, 7, !moe);
        if (m->mlp_bias) add(t, &n, max, "mlp.fc.bias", i, copies, 7, !moe);
    }
    add(t, &n, max, "mlp.down.weight", i * h, copies, 9, !moe);
    if (m->mlp_bias) add(t, &n, max, "mlp.down.bias", h, copies, 9, !moe);
    return n <= max ? n : -1;
}

/* Range checks in a table: each field, its bounds, and its HF name for messages. */
int model_validate(const model *m, zs_error *err)
{
    if (m->params_only) return ZS_OK;
    const struct { const char *field; int64_t value, min, max; } f[] = {
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
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (f[k].value < f[k].min || f[k].value > f[k].max)
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %lld is out of range (expected %lld to %lld)",
                           f[k].field, (long long)f[k].value, (long long)f[k].min,
                           (long long)f[k].max);
    if (m->num_heads % m->num_kv_heads != 0)
        return zs_fail(err, ZS_ERR_INPUT,
                       "field \"num_key_value_heads\": %lld does not divide num_attention_heads %lld",
                       (long long)m->num_kv_heads, (long long)m->num_heads);
    if (m->num_experts > 0 && (m->experts_per_token < 1 || m->experts_per_token > m->num_experts))
        return zs_fail(err, ZS_ERR_INPUT,
                       "field \"num_experts_per_tok\": %lld must be between 1 and num_local_experts %lld",
                       (long long)m->experts_per_token, (long long)m->num_experts);
    return ZS_OK;
}

/* Sum tensors into totals; `active` counts expert tensors only top-k times. */
static void tally(const model *m, const model_tensor *t, int n, double thr, double *all,
                  double *active, double *small, double *largest_module, double *largest_tensor)
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
    model_tensor lt[MAX_TENSORS], gt[MAX_TENSORS];
    int nl = model_tensors(m, true, lt, MAX_TENSORS);
    int ng = model_tensors(m, false, gt, MAX_TENSORS);
    if (nl < 0 || ng < 0) return zs_fail(err, ZS_ERR_INPUT, "internal: too many tensors");

    double g_all, g_active, largest_module = 0, largest_tensor = 0;
    tally(m, lt, nl, small_threshold, &pc->per_layer, &pc->per_layer_active,
          &pc->layer_small_params, &largest_module, &largest_tensor);
    tally(m, gt, ng, small_threshold, &g_all, &g_active, &pc->global_small_params,
          &largest_module, &largest_tensor);
    pc->largest_module = largest_module;
    pc->largest_tensor = largest_tensor;
    pc->small_tensor_threshold = small_threshold;

    double L = (double)m->num_layers;
    pc->total = pc->per_layer * L + g_all;
    pc->active = pc->per_layer_active * L + g_active;
    for (int j = 0; j < ng; j++) {
        const char *nm = gt[j].name;
        if (strncmp(nm, "embed.", 6) == 0) pc->embedding += gt[j].numel;
        else if (strncmp(nm, "final_norm", 10) == 0) pc->final_norm += gt[j].numel;
        else pc->lm_head += gt[j].numel;
    }
    /* Distinct non-norm modules of a block, each repeated `count` times (experts). */
    double seen[MAX_TENSORS] = {0};
    for (int j = 0; j < nl; j++)
        if (strncmp(lt[j].name, "norm", 4) != 0 && lt[j].module < MAX_TENSORS) seen[lt[j].module] = lt[j].count;
    for (int j = 0; j < MAX_TENSORS; j++) pc->modules_per_layer += seen[j];
    for (int j = 0; j < nl; j++) {
        double x = lt[j].numel * lt[j].count;
        if (strncmp(lt[j].name, "attn.", 5) == 0) pc->attention_per_layer += x;
        else if (strncmp(lt[j].name, "norm", 4) == 0) pc->norm_per_layer += x;
        else pc->mlp_per_layer += x;
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
