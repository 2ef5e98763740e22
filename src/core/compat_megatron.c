/* compat_megatron.c -- our own C rendering of Megatron-LM's theoretical_memory_usage.py formulas. */
#include "core/compat_megatron.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MEGATRON_BYTES_IN_MB (1024.0 * 1024.0) /* NUM_BYTES_IN_MEGABYTE */

/* Writes a one-line error message; returns -1 for the caller to pass on. */
static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* math.ceil for the positive, moderate values the schedule penalty produces. */
static int64_t ceil_pos(double x)
{
    int64_t t = (int64_t)x;
    return ((double)t < x) ? t + 1 : t;
}

/* Megatron's command-line defaults (megatron/training/arguments.py); every other field 0. */
static const megatron_args megatron_defaults = {
    .num_query_groups = 1,
    .normalization = MEGATRON_NORM_LAYERNORM,
    .add_bias_linear = 1,
    .micro_batch_size = 1,
    .moe_router_topk = 2,
    .moe_layer_freq = 1,
    .kv_lora_rank = 32,
    .qk_head_dim = 128,
    .qk_pos_emb_head_dim = 64,
    .v_head_dim = 128,
    .tensor_model_parallel_size = 1,
    .pipeline_model_parallel_size = 1,
    .expert_model_parallel_size = 1,
    .world_size = 1,
    .data_parallel_size = 1,
    .recompute_granularity = MEGATRON_RECOMPUTE_NONE,
};

void compat_megatron_args_init(megatron_args *a)
{
    *a = megatron_defaults;
}

int64_t compat_megatron_padded_vocab(int64_t vocab, int64_t divisible_by, int64_t tp)
{
    if (vocab <= 0 || divisible_by <= 0 || tp <= 0) return -1;
    const int64_t multiple = divisible_by * tp;
    return (vocab + multiple - 1) / multiple * multiple;
}

/* The args after Megatron's validate_args() defaulting (see the header). */
typedef struct resolved {
    megatron_args a;
    int has_experts; /* args.num_experts is not None */
} resolved;

/* A lower bound on an int64_t field: "<name> must be >= <min><note>" when below it. */
typedef struct bound {
    const char *name;
    size_t offset; /* in megatron_args */
    int64_t min;
    const char *note;
} bound;

#define BOUND(f, min, note)                                                                    \
    {                                                                                          \
#f, _Generic(((megatron_args *)0)->f, int64_t : offsetof(megatron_args, f)), min, note \
    }
/* Checked in this order, before the enums. */
static const bound bounds[] = {
    BOUND(num_layers, 1, ""),
    BOUND(hidden_size, 1, ""),
    BOUND(num_attention_heads, 1, ""),
    BOUND(padded_vocab_size, 1, ""),
    BOUND(seq_length, 1, ""),
    BOUND(micro_batch_size, 1, ""),
    BOUND(ffn_hidden_size, 0, " (0 = default)"),
    BOUND(kv_channels, 0, " (0 = default)"),
    BOUND(tensor_model_parallel_size, 1, ""),
    BOUND(pipeline_model_parallel_size, 1, ""),
    BOUND(virtual_pipeline_model_parallel_size, 0, " (0 = None)"),
    BOUND(expert_model_parallel_size, 1, ""),
    BOUND(expert_tensor_parallel_size, 0, " (0 = TP)"),
    BOUND(world_size, 1, ""),
    BOUND(data_parallel_size, 1, ""),
    BOUND(num_microbatches, 0, " (0 = None)"),
    BOUND(num_experts, 0, " (0 = None)"),
    BOUND(moe_ffn_hidden_size, 0, ""),
    BOUND(moe_router_topk, 0, ""),
    BOUND(moe_shared_expert_intermediate_size, 0, " (0 = None)"),
    BOUND(moe_latent_size, 0, " (0 = None)"),
    BOUND(mtp_num_layers, 0, " (0 = None)"),
};
#undef BOUND

static int resolve_args(const megatron_args *in, resolved *r, char *err, size_t errlen)
{
    r->a = *in;
    megatron_args *a = &r->a;

    for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; k++)
        if (*(const int64_t *)((const char *)a + bounds[k].offset) < bounds[k].min)
            return fail(err, errlen, "%s must be >= %lld%s", bounds[k].name, (long long)bounds[k].min,
                bounds[k].note);
    if (a->normalization != MEGATRON_NORM_LAYERNORM && a->normalization != MEGATRON_NORM_RMSNORM)
        return fail(err, errlen, "normalization must be LayerNorm or RMSNorm");
    if (a->recompute_granularity != MEGATRON_RECOMPUTE_NONE &&
        a->recompute_granularity != MEGATRON_RECOMPUTE_SELECTIVE &&
        a->recompute_granularity != MEGATRON_RECOMPUTE_FULL)
        return fail(err, errlen, "recompute_granularity must be none, selective or full");
    if (a->group_query_attention && a->num_query_groups < 1)
        return fail(err, errlen, "num_query_groups must be >= 1 with group_query_attention");

    /* validate_args() defaults. */
    if (a->ffn_hidden_size == 0) {
        if (a->swiglu)
            a->ffn_hidden_size = (int64_t)((double)(4 * a->hidden_size * 2) / 3.0 / 64.0) * 64;
        else
            a->ffn_hidden_size = 4 * a->hidden_size;
    }
    if (a->kv_channels == 0) {
        if (a->hidden_size % a->num_attention_heads != 0)
            return fail(err, errlen,
                "hidden_size %lld is not divisible by num_attention_heads %lld "
                "(set kv_channels)",
                (long long)a->hidden_size, (long long)a->num_attention_heads);
        a->kv_channels = a->hidden_size / a->num_attention_heads;
    }
    r->has_experts = a->num_experts > 0;
    if (r->has_experts && a->moe_ffn_hidden_size == 0) a->moe_ffn_hidden_size = a->ffn_hidden_size;
    if (a->expert_tensor_parallel_size == 0) a->expert_tensor_parallel_size = a->tensor_model_parallel_size;
    if (a->tensor_model_parallel_size == 1) a->sequence_parallel = 0;

    /* Formula assertions / Python errors. */
    if (a->multi_latent_attention) {
        if (a->group_query_attention)
            return fail(err, errlen, "multi_latent_attention cannot be combined with group_query_attention");
        if (a->q_lora_rank < 0 || a->kv_lora_rank < 0 || a->qk_head_dim < 0 || a->qk_pos_emb_head_dim < 0 ||
            a->v_head_dim < 0)
            return fail(err, errlen, "MLA ranks and head dims must be >= 0");
    }
    if (r->has_experts) {
        if (a->moe_layer_pattern != NULL) {
            if (a->moe_layer_pattern_len != a->num_layers)
                return fail(err, errlen, "Invalid length of moe_layer_pattern: %lld, expected %lld",
                    (long long)a->moe_layer_pattern_len, (long long)a->num_layers);
            for (int64_t i = 0; i < a->num_layers; i++)
                if (a->moe_layer_pattern[i] != 0 && a->moe_layer_pattern[i] != 1)
                    return fail(err, errlen, "moe_layer_pattern entries must be 0 or 1");
        } else if (a->moe_layer_freq < 1) {
            return fail(err, errlen, "moe_layer_freq must be >= 1");
        }
    }
    return 0;
}

/* 1 if layer i is an MoE layer (Megatron's moe_layer_pattern[i]). */
static int is_moe_layer(const resolved *r, int64_t i)
{
    if (!r->has_experts) return 0;
    if (r->a.moe_layer_pattern != NULL) return r->a.moe_layer_pattern[i];
    return (i % r->a.moe_layer_freq) == 0;
}

/* Bytes per parameter: bf16 params, fp32 main grads, fp32 main params, fp32 Adam
 * states; the distributed optimizer shards the last 12 bytes over DP. */
static double bytes_per_parameter(int distributed, int64_t dp)
{
    return !distributed ? 18.0 : 6.0 + (12.0 / (double)dp);
}

/* Parameters of one layer's parts and how many layers of each kind, as
 * compute_weight_and_optimizer_memory names them. */
typedef struct layer_terms {
    int64_t num_dense_layers, num_moe_layers;                  /* layers of the main block */
    int64_t mtp_dense_layers, mtp_moe_layers;                  /* multi-token-prediction layers */
    int64_t embedding_size, final_layernorm, embedding_layers; /* parameters */
    double attention, dense_mlp, shared_expert;                /* parameters per layer */
    double routed_expert, active_routed_expert, latent_projection;
    double layernorm, router, shared_gate;
} layer_terms;

/* Self-attention parameters of one layer: MLA's LoRA projections, else Q, K, V and output. */
static double self_attention_params(const megatron_args *a, int64_t norm_size)
{
    const int64_t h = a->hidden_size;
    const int64_t heads = a->num_attention_heads;
    if (a->multi_latent_attention) {
        int64_t q_term;
        if (a->q_lora_rank == 0)
            q_term = h * heads * (a->qk_head_dim + a->qk_pos_emb_head_dim);
        else /* q LoRA + rope + q norm */
            q_term = a->q_lora_rank * (h + heads * (a->qk_head_dim + a->qk_pos_emb_head_dim) + norm_size);
        return (double)(q_term +
            a->kv_lora_rank * (h + heads * (a->qk_head_dim + a->v_head_dim) + norm_size) /* kv LoRA + norm */
            + h * a->qk_pos_emb_head_dim                                                 /* rope key */
            + (heads * a->v_head_dim) * h);                                              /* output proj */
    }
    /* Attention projection size. */
    const int64_t query_projection_size = a->kv_channels * heads;
    const double query_ratio = (double)query_projection_size / (double)h;
    const int64_t num_query_groups = a->group_query_attention ? a->num_query_groups : heads;
    return (double)(2 * h * h) * ((1.0 + ((double)num_query_groups / (double)heads)) * query_ratio);
}

static void layer_terms_of(const resolved *r, layer_terms *lt)
{
    const megatron_args *a = &r->a;
    const int64_t h = a->hidden_size;
    const int64_t num_experts = r->has_experts ? a->num_experts : 1;
    const double gated = a->swiglu ? 1.5 : 1.0; /* 3/2 for SwiGLU, int 1 otherwise */
    const int64_t shared_ffn = a->moe_shared_expert_intermediate_size;

    /* Dense / MoE layer split. */
    int64_t num_moe_layers = 0;
    for (int64_t i = 0; i < a->num_layers; i++) num_moe_layers += is_moe_layer(r, i);
    lt->num_moe_layers = num_moe_layers;
    lt->num_dense_layers = a->num_layers - num_moe_layers;
    const int64_t moe_ffn = r->has_experts ? a->moe_ffn_hidden_size : 0;
    lt->mtp_moe_layers = lt->mtp_dense_layers = 0;
    if (a->mtp_num_layers > 0) {
        const int64_t last_is_moe = is_moe_layer(r, a->num_layers - 1);
        lt->mtp_moe_layers = last_is_moe * a->mtp_num_layers;
        lt->mtp_dense_layers = (1 - last_is_moe) * a->mtp_num_layers;
    }

    /* RMSNorm has no bias; LayerNorm has. */
    const int64_t norm_size = a->normalization == MEGATRON_NORM_RMSNORM ? 1 : 2;
    lt->embedding_size = h * a->padded_vocab_size;
    lt->final_layernorm = norm_size * h;
    lt->embedding_layers =
        a->untie_embeddings_and_output_weights ? 2 * lt->embedding_size : lt->embedding_size;

    lt->attention = self_attention_params(a, norm_size);
    lt->dense_mlp = (double)(2 * h * a->ffn_hidden_size) * gated;
    lt->shared_expert = (double)(2 * h * shared_ffn) * gated;
    /* Latent MoE: routed experts work in moe_latent_size channels. */
    const int64_t routed_h = a->moe_latent_size > 0 ? a->moe_latent_size : h;
    lt->routed_expert = (double)(2 * routed_h * moe_ffn * num_experts) * gated;
    lt->active_routed_expert =
        r->has_experts ? (double)(2 * routed_h * moe_ffn * a->moe_router_topk) * gated : 0.0;
    lt->latent_projection =
        (r->has_experts && a->moe_latent_size > 0) ? (double)(2 * h * a->moe_latent_size) : 0.0;
    lt->layernorm = (double)(2 * h * norm_size);
    lt->router = r->has_experts ? (double)((h * num_experts) + (a->add_bias_linear ? num_experts : 0)) : 0.0;
    lt->shared_gate = (shared_ffn > 0 && a->moe_shared_expert_gate) ? (double)h : 0.0;
}

/* The model's parameter totals (block, active, MTP, embedding) into m. */
static void parameter_totals(const layer_terms *lt, megatron_memory *m)
{
    const double layer_dense = lt->attention + lt->dense_mlp + lt->layernorm;
    const double layer_moe = lt->attention + lt->shared_expert + lt->routed_expert + lt->latent_projection +
        lt->layernorm + lt->router + lt->shared_gate;
    const double layer_moe_active = lt->attention + lt->shared_expert + lt->active_routed_expert +
        lt->latent_projection + lt->layernorm + lt->router + lt->shared_gate;
    const double block = layer_dense * (double)lt->num_dense_layers + layer_moe * (double)lt->num_moe_layers +
        (double)lt->final_layernorm;
    const double block_active = layer_dense * (double)lt->num_dense_layers +
        layer_moe_active * (double)lt->num_moe_layers + (double)lt->final_layernorm;
    const double mtp_block =
        layer_dense * (double)lt->mtp_dense_layers + layer_moe * (double)lt->mtp_moe_layers;

    m->num_parameters_in_transformer_block = block;
    m->num_active_parameters_in_transformer_block = block_active;
    m->num_parameters_in_mtp_block = mtp_block;
    m->num_parameters_in_embedding_layers = (double)lt->embedding_layers;
    m->num_total_parameters = block + mtp_block + (double)lt->embedding_layers;
    m->num_active_parameters = block_active + mtp_block + (double)lt->embedding_layers;
}

/* compute_weight_and_optimizer_memory, plus the counts its verbose mode prints. */
static int weight_and_optimizer(const resolved *r, megatron_memory *m, char *err, size_t errlen)
{
    const megatron_args *a = &r->a;
    layer_terms lt;
    layer_terms_of(r, &lt);
    parameter_totals(&lt, m);
    const double attention = lt.attention, dense_mlp = lt.dense_mlp, shared_expert = lt.shared_expert;
    const double layernorm = lt.layernorm;
    const double num_dense_layers = (double)lt.num_dense_layers, num_moe_layers = (double)lt.num_moe_layers;
    const double mtp_dense_layers = (double)lt.mtp_dense_layers, mtp_moe_layers = (double)lt.mtp_moe_layers;
    const int64_t embedding_size = lt.embedding_size;

    const int64_t tp = a->tensor_model_parallel_size;
    const int64_t pp = a->pipeline_model_parallel_size;
    const int64_t etp = a->expert_tensor_parallel_size;
    const int64_t ep = a->expert_model_parallel_size;
    const int64_t expert_dp = a->world_size / (etp * ep * pp);

    /* Parameters by how a rank holds them: TP-sharded, replicated, or EP/ETP-sharded. */
    const double tp_block =
        (attention + dense_mlp) * num_dense_layers + (attention + shared_expert) * num_moe_layers;
    const double moe_replicated = layernorm + lt.latent_projection + lt.router + lt.shared_gate;
    const double repl_block =
        layernorm * num_dense_layers + moe_replicated * num_moe_layers + (double)lt.final_layernorm;
    const double expert_block = lt.routed_expert * num_moe_layers;
    const double tp_mtp =
        (attention + dense_mlp) * mtp_dense_layers + (attention + shared_expert) * mtp_moe_layers;
    const double repl_mtp = layernorm * mtp_dense_layers + moe_replicated * mtp_moe_layers;
    const double expert_mtp = lt.routed_expert * mtp_moe_layers;

    /* Most loaded shard: 1/PP of the block, the MTP block and the embedding. */
    double tp_on_shard = ((tp_block / (double)pp) + tp_mtp + (double)embedding_size) / (double)tp;
    const double repl_on_shard = (repl_block / (double)pp) + repl_mtp;
    const double expert_on_shard = ((expert_block / (double)pp) + expert_mtp) / (double)(etp * ep);
    double most_loaded = tp_on_shard + repl_on_shard + expert_on_shard;
    if (a->untie_embeddings_and_output_weights && pp == 1) {
        tp_on_shard += (double)embedding_size / (double)tp;
        most_loaded += (double)embedding_size / (double)tp;
    }
    m->num_parameters_on_most_loaded_shard = most_loaded;
    m->num_parameters_on_other_shards = 0.0;
    if (pp > 1)
        m->num_parameters_on_other_shards =
            tp_block / (double)(pp * tp) + repl_block / (double)pp + expert_block / (double)(pp * etp * ep);

    if (a->use_distributed_optimizer && expert_dp < 1)
        return fail(err, errlen, "expert data-parallel size world_size // (ETP*EP*PP) = %lld // %lld is 0",
            (long long)a->world_size, (long long)(etp * ep * pp));
    m->weight_and_optimizer_bytes = (tp_on_shard + repl_on_shard) *
            bytes_per_parameter(a->use_distributed_optimizer, a->data_parallel_size) +
        expert_on_shard * bytes_per_parameter(a->use_distributed_optimizer, expert_dp);
    return 0;
}

/* The pipeline-schedule part both activation formulas share; updates *act. */
static void pipeline_schedule(const megatron_args *a, double *act, megatron_memory *m)
{
    const int64_t pp = a->pipeline_model_parallel_size;
    m->interleaved_schedule_memory_penalty = 1.0;
    m->in_flight_microbatches = 0;
    if (a->virtual_pipeline_model_parallel_size > 0) {
        const double penalty =
            1.0 + ((double)(pp - 1) / (double)(pp * a->virtual_pipeline_model_parallel_size));
        m->interleaved_schedule_memory_penalty = penalty;
        m->in_flight_microbatches = ceil_pos(penalty * (double)pp);
        *act *= penalty;
    } else if (pp > 1) {
        /* Non-interleaved: fewer than PP micro-batches may be in flight. */
        if (a->num_microbatches > 0) {
            const double frac = (double)a->num_microbatches / (double)pp;
            *act *= (frac < 1.0) ? frac : 1.0; /* min(1, frac) */
            m->in_flight_microbatches = a->num_microbatches < pp ? a->num_microbatches : pp;
        } else {
            m->in_flight_microbatches = pp;
        }
    }
}

/* compute_activation_memory: Table 2 of Korthikanti et al. (SP + selective recompute). */
static double activation_with_sp(const megatron_args *a, megatron_memory *m)
{
    const int64_t sbh = a->seq_length * a->micro_batch_size * a->hidden_size;
    const int64_t pp = a->pipeline_model_parallel_size;
    const double tp = (double)a->tensor_model_parallel_size;

    double act = (double)sbh * (18.0 + (4.0 * ((double)a->ffn_hidden_size / (double)a->hidden_size)));
    m->activation_per_layer_bytes = act / tp;
    act *= (double)a->num_layers;
    act += (double)(8 * a->seq_length * a->micro_batch_size * pp); /* embedding input */
    act += (double)(sbh * pp);                                     /* embedding dropout */
    pipeline_schedule(a, &act, m);
    if (pp == 1) /* inputs to output layer and CE loss */
        act += (double)(sbh * 4) * (1.0 + ((double)a->padded_vocab_size / (double)a->hidden_size));
    return act / tp;
}

/* compute_activation_memory_without_sp. */
static double activation_without_sp(const megatron_args *a, megatron_memory *m)
{
    const int64_t sbh = a->seq_length * a->micro_batch_size * a->hidden_size;
    const int64_t pp = a->pipeline_model_parallel_size;
    const double tp = (double)a->tensor_model_parallel_size;

    const double per_layer = (double)sbh * (10.0 + (24.0 / tp));
    m->activation_per_layer_bytes = per_layer;
    double act = per_layer * (double)a->num_layers;
    act += (double)(8 * a->seq_length * a->micro_batch_size * pp);
    act += (double)(sbh * pp);
    pipeline_schedule(a, &act, m);
    if (pp == 1) {
        double logits = (double)(a->seq_length * a->micro_batch_size * a->padded_vocab_size);
        logits /= tp;
        const int64_t final_ln_output = a->seq_length * a->micro_batch_size * a->hidden_size;
        act += (logits + (double)final_ln_output) * 2.0;
    }
    act *= 1.05; /* optimizer and miscellaneous temporaries */
    return act;
}

int compat_megatron_memory(const megatron_args *a, megatron_memory *out, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (a == NULL || out == NULL) return fail(err, errlen, "NULL argument");

    resolved r;
    if (resolve_args(a, &r, err, errlen) != 0) return -1;

    megatron_memory m;
    memset(&m, 0, sizeof m);
    if (weight_and_optimizer(&r, &m, err, errlen) != 0) return -1;

    if (r.a.sequence_parallel && r.a.recompute_granularity == MEGATRON_RECOMPUTE_SELECTIVE) {
        m.activation_with_sp = 1;
        m.activation_bytes = activation_with_sp(&r.a, &m);
    } else {
        m.activation_with_sp = 0;
        m.activation_bytes = activation_without_sp(&r.a, &m);
    }
    m.total_bytes = m.weight_and_optimizer_bytes + m.activation_bytes;
    m.weight_and_optimizer_mb = m.weight_and_optimizer_bytes / MEGATRON_BYTES_IN_MB;
    m.activation_mb = m.activation_bytes / MEGATRON_BYTES_IN_MB;
    m.total_mb = m.weight_and_optimizer_mb + m.activation_mb;
    *out = m;
    return 0;
}
