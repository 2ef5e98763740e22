/* compat_megatron.h -- Megatron-LM compatibility mode: reproduces theoretical_memory_usage.py's report
 * exactly. */
#ifndef ZS_COMPAT_MEGATRON_H
#define ZS_COMPAT_MEGATRON_H

#include <stddef.h>
#include <stdint.h>

/*
 * What this reproduces
 * --------------------
 * megatron/training/theoretical_memory_usage.py on NVIDIA/Megatron-LM main as of
 * commit d98e8a64 (2026-08-22; the file's last change is 1bcb3b9e, 2026-06-16,
 * "Fix LatentMoE theoretical memory estimate", after a7c9e8c4, 2026-05-13, which
 * split parameters into TP-sharded / replicated / expert-sharded groups):
 *   compute_weight_and_optimizer_memory(args)
 *   compute_activation_memory(args, num_microbatches)            (SP branch)
 *   compute_activation_memory_without_sp(args, num_microbatches) (other branch)
 *   report_theoretical_memory(): prints
 *   "Theoretical memory footprints: weight and optimizer=%.2f MB, activation=%.2f MB,
 *    total=%.2f MB" where MB = 1024*1024 bytes and total = weight_mb + activation_mb.
 * report_theoretical_memory uses compute_activation_memory only when
 * sequence_parallel is set AND recompute_granularity == 'selective'; every other
 * combination (including no recompute and full recompute) uses
 * compute_activation_memory_without_sp. Nothing is rejected for the recompute
 * choice: that is what Megatron main does (the 2023 version returned early instead).
 *
 * Vocabulary padding
 * ------------------
 * Megatron pads the tokenizer's vocabulary before building the model
 * (vocab_size_with_padding / calculate_padded_vocab_size):
 *   multiple = make_vocab_size_divisible_by (default 128) * tensor_model_parallel_size
 *   padded   = ceil(vocab / multiple) * multiple
 * e.g. GPT-2's 50257 tokens at TP=1 -> 50304; 32000 at TP=4 -> 32256. The
 * formulas read args.padded_vocab_size, so callers pass the padded value
 * (compat_megatron_padded_vocab computes it).
 *
 * Argument defaults Megatron fills in before the formulas run
 * -----------------------------------------------------------
 * compat_megatron_memory applies the same defaulting that Megatron's
 * validate_args() performs, so a field left at its "unset" value behaves as on
 * the command line: ffn_hidden_size 0 -> 4*h (or int(4*h*2/3/64)*64 with
 * swiglu); kv_channels 0 -> h / num_attention_heads; num_experts 0 -> None;
 * moe_ffn_hidden_size 0 -> ffn_hidden_size; expert_tensor_parallel_size 0 ->
 * tensor_model_parallel_size; sequence_parallel is turned off when
 * tensor_model_parallel_size == 1.
 *
 * Arithmetic
 * ----------
 * Python ints are exact and '/' is true division; the C code keeps Megatron's
 * operation order and int/float mix, using 64-bit integers where Python has ints
 * and doubles where Python has floats, so results are bit-identical while integer
 * intermediates stay below 2^53 (any real model is far below that).
 */

typedef enum megatron_normalization {
    MEGATRON_NORM_LAYERNORM = 0, /* --normalization LayerNorm (default): weight + bias, 2 params/channel */
    MEGATRON_NORM_RMSNORM = 1    /* --normalization RMSNorm: weight only, 1 param/channel */
} megatron_normalization;

typedef enum megatron_recompute {
    MEGATRON_RECOMPUTE_NONE = 0,      /* --recompute-granularity unset (None) */
    MEGATRON_RECOMPUTE_SELECTIVE = 1, /* --recompute-granularity selective (or --recompute-activations) */
    MEGATRON_RECOMPUTE_FULL = 2       /* --recompute-granularity full */
} megatron_recompute;

/* Mirror of the Megatron args the formulas read. Each field names its Megatron
 * attribute (args.<name>) and command-line flag. "0 = None" marks Optional args. */
typedef struct megatron_args {
    /* --- model shape --- */
    int64_t num_layers;          /* args.num_layers, --num-layers: transformer layers */
    int64_t hidden_size;         /* args.hidden_size, --hidden-size: h, channels */
    int64_t ffn_hidden_size;     /* args.ffn_hidden_size, --ffn-hidden-size: channels; 0 = Megatron default */
    int64_t num_attention_heads; /* args.num_attention_heads, --num-attention-heads: heads */
    int64_t kv_channels;         /* args.kv_channels, --kv-channels: channels per head; 0 = h / heads */
    int group_query_attention;   /* args.group_query_attention, --group-query-attention: 1/0 */
    int64_t num_query_groups; /* args.num_query_groups, --num-query-groups: KV groups (default 1); read only
                                 with GQA */
    int swiglu;               /* args.swiglu, --swiglu: 1/0; gated MLP (x 3/2 parameters) */
    int untie_embeddings_and_output_weights; /* args.untie_embeddings_and_output_weights: 1/0 */
    int normalization;   /* args.normalization, --normalization: a megatron_normalization */
    int add_bias_linear; /* args.add_bias_linear: 1 (default) / 0 with --disable-bias-linear; router bias */
    int64_t
        padded_vocab_size; /* args.padded_vocab_size: tokens, already padded (compat_megatron_padded_vocab) */
    int64_t seq_length;    /* args.seq_length, --seq-length: tokens per sample */
    int64_t micro_batch_size; /* args.micro_batch_size, --micro-batch-size: samples per micro-batch */

    /* --- mixture of experts --- */
    int64_t num_experts;          /* args.num_experts, --num-experts: routed experts; 0 = None (dense) */
    int64_t moe_router_topk;      /* args.moe_router_topk, --moe-router-topk: experts per token (default 2) */
    int64_t moe_ffn_hidden_size;  /* args.moe_ffn_hidden_size, --moe-ffn-hidden-size: channels; 0 =
                                     ffn_hidden_size */
    int64_t moe_layer_freq;       /* args.moe_layer_freq (int form), --moe-layer-freq: every k-th layer is MoE
                                     (default 1) */
    const int *moe_layer_pattern; /* args.moe_layer_freq (list form): num_layers entries of 0/1; NULL = use
                                     moe_layer_freq */
    int64_t moe_layer_pattern_len;               /* entries in moe_layer_pattern (must equal num_layers) */
    int64_t moe_shared_expert_intermediate_size; /* args.moe_shared_expert_intermediate_size: channels; 0 =
                                                    None */
    int moe_shared_expert_gate; /* args.moe_shared_expert_gate, --moe-shared-expert-gate: 1/0 */
    int64_t moe_latent_size;    /* args.moe_latent_size, --moe-latent-size: channels; 0 = None */
    int64_t
        mtp_num_layers; /* args.mtp_num_layers, --mtp-num-layers: multi-token-prediction layers; 0 = None */

    /* --- multi-latent attention (MLA) --- */
    int multi_latent_attention;  /* args.multi_latent_attention, --multi-latent-attention: 1/0 */
    int64_t q_lora_rank;         /* args.q_lora_rank, --q-lora-rank: rank; 0 = None (default) */
    int64_t kv_lora_rank;        /* args.kv_lora_rank, --kv-lora-rank: rank (default 32) */
    int64_t qk_head_dim;         /* args.qk_head_dim, --qk-head-dim: channels (default 128) */
    int64_t qk_pos_emb_head_dim; /* args.qk_pos_emb_head_dim, --qk-pos-emb-head-dim: channels (default 64) */
    int64_t v_head_dim;          /* args.v_head_dim, --v-head-dim: channels (default 128) */

    /* --- parallelism and training --- */
    int64_t tensor_model_parallel_size;           /* args.tensor_model_parallel_size: TP ranks */
    int64_t pipeline_model_parallel_size;         /* args.pipeline_model_parallel_size: PP stages */
    int64_t virtual_pipeline_model_parallel_size; /* args.virtual_pipeline_model_parallel_size: chunks per
                                                     stage; 0 = None */
    int64_t expert_model_parallel_size;           /* args.expert_model_parallel_size: EP ranks (default 1) */
    int64_t expert_tensor_parallel_size;          /* args.expert_tensor_parallel_size: ETP ranks; 0 = TP */
    int64_t world_size;                           /* args.world_size: total GPUs (= DP * TP * PP * CP) */
    int64_t data_parallel_size;    /* args.data_parallel_size: DP ranks (= world_size // (TP * PP * CP)) */
    int use_distributed_optimizer; /* args.use_distributed_optimizer: 1/0; 6 + 12/DP bytes/param instead of 18
                                    */
    int sequence_parallel;         /* args.sequence_parallel, --sequence-parallel: 1/0 */
    int recompute_granularity;     /* args.recompute_granularity: a megatron_recompute */
    int64_t num_microbatches;      /* micro-batches per step (get_num_microbatches()); 0 = None, as
                                      tools/report_theoretical_memory.py passes */
} megatron_args;

/* Sets every field to Megatron's command-line default. Shape fields with no
 * default (num_layers, hidden_size, num_attention_heads, seq_length,
 * padded_vocab_size) are set to 0 and must be filled in; micro_batch_size = 1,
 * all parallel sizes = 1. Cannot fail. */
void compat_megatron_args_init(megatron_args *a);

typedef struct megatron_memory {
    double weight_and_optimizer_bytes; /* bytes on the most loaded rank: weights, grads, optimizer */
    double activation_bytes;           /* bytes of activations on the first pipeline stage */
    double total_bytes;                /* weight_and_optimizer_bytes + activation_bytes */
    double weight_and_optimizer_mb;    /* MiB, the "weight and optimizer=" value (bytes / 2^20) */
    double activation_mb;              /* MiB, the "activation=" value (bytes / 2^20) */
    double total_mb; /* MiB, the "total=" value: weight_mb + activation_mb, as Megatron sums it */
    double num_parameters_on_most_loaded_shard; /* parameters ("in most loaded shard") */
    double num_parameters_on_other_shards; /* parameters ("in other shards"); 0 when PP == 1 (not printed) */
    double num_parameters_in_transformer_block; /* parameters, whole model, excluding embeddings and MTP */
    double num_active_parameters_in_transformer_block; /* parameters, top-k experts only */
    double num_parameters_in_mtp_block;                /* parameters in MTP layers */
    double num_parameters_in_embedding_layers;         /* parameters: h*V, or 2*h*V untied */
    double num_total_parameters;                       /* parameters, whole model */
    double num_active_parameters;                      /* parameters, whole model, top-k experts only */
    double activation_per_layer_bytes; /* bytes, the "Activation memory footprint per transformer layer" value
                                          (divided by TP in the SP branch, as Megatron prints it) */
    int activation_with_sp;            /* 1 when compute_activation_memory (SP + selective) was used,
                                          0 for compute_activation_memory_without_sp */
    double interleaved_schedule_memory_penalty; /* factor; 1.0 when no virtual pipeline */
    int64_t in_flight_microbatches; /* micro-batches; 0 when Megatron prints none (PP == 1, no VPP) */
} megatron_memory;

/* Computes Megatron's theoretical memory report for `a` into `out`.
 * Returns 0, or -1 with a one-line message in err (errlen bytes, always
 * NUL-terminated when errlen > 0; err may be NULL) when an argument is invalid
 * or unsupported: non-positive shape or parallel sizes, an unknown
 * normalization/recompute value, GQA together with MLA (Megatron asserts),
 * a moe_layer_pattern whose length differs from num_layers (Megatron asserts),
 * hidden_size not divisible by num_attention_heads when kv_channels is unset,
 * or a zero (expert) data-parallel size with the distributed optimizer
 * (Python would divide by zero). `out` is untouched on failure.
 * Pure: no I/O, no exit. */
int compat_megatron_memory(const megatron_args *a, megatron_memory *out, char *err, size_t errlen);

/* Megatron's padded vocabulary: ceil(vocab / (divisible_by * tp)) * (divisible_by * tp).
 * Returns -1 when vocab, divisible_by or tp is <= 0 (Megatron raises ValueError). */
int64_t compat_megatron_padded_vocab(int64_t vocab, int64_t divisible_by, int64_t tp);

#endif
