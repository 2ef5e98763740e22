/* model.h -- a decoder-only transformer's shape, and exact parameter counts derived from it. */
#ifndef ZS_MODEL_H
#define ZS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

typedef enum { NORM_LAYERNORM, NORM_RMSNORM } norm_kind;
typedef enum { POS_ROTARY, POS_LEARNED, POS_ALIBI } pos_kind;

typedef struct model {
    char name[64];            /* catalog name or the file's "name" */
    char model_type[32];      /* HF model_type: llama, mistral, mixtral, qwen2, gpt2, gpt_neox, bloom, transformer */
    char source[256];         /* where the description comes from (URL or paper) */
    int64_t hidden_size;      /* h */
    int64_t num_layers;       /* L, transformer blocks */
    int64_t num_heads;        /* a, query heads */
    int64_t num_kv_heads;     /* key/value heads: a for MHA, fewer for GQA, 1 for MQA */
    int64_t head_dim;         /* width of one head; h / a unless the config says otherwise */
    int64_t intermediate_size;/* FFN inner width (of one expert for MoE) */
    int64_t vocab_size;       /* V */
    int64_t max_positions;    /* context length; rows of the learned position table */
    int64_t num_experts;      /* routed experts per layer; 0 for a dense model */
    int64_t experts_per_token;/* top-k routing; 0 for a dense model */
    bool gated_mlp;           /* SwiGLU-style: gate, up and down projections */
    bool tied_embeddings;     /* LM head shares the token embedding */
    bool fused_qkv;           /* one QKV module (gpt2, neox, bloom, Megatron) instead of q, k, v */
    bool qkv_bias;            /* biases on q, k, v */
    bool out_bias;            /* bias on the attention output projection */
    bool mlp_bias;            /* biases on the MLP projections */
    bool norm_bias;           /* LayerNorm with beta (RMSNorm never has one) */
    bool embedding_norm;      /* a norm right after the token embedding (BLOOM) */
    bool dropout;             /* any dropout probability > 0: Korthikanti's masks are stored */
    bool params_only;         /* built from --params: no shape, model states only */
    norm_kind norm;
    pos_kind pos;
} model;

/* Parameter counts. Doubles hold integers exactly up to 2^53 (9e15), far above any model. */
typedef struct param_counts {
    double total;              /* every parameter, tied ones once */
    double active;             /* parameters one token passes through (MoE: top-k experts) */
    double embedding;          /* token + learned position embeddings + embedding norm */
    double lm_head;            /* untied output projection; 0 when tied */
    double final_norm;         /* the last norm before the LM head */
    double per_layer;          /* one transformer block, every expert */
    double per_layer_active;   /* one block as one token sees it */
    double attention_per_layer;/* q, k, v, o and their biases */
    double mlp_per_layer;      /* MLP or all experts plus router */
    double norm_per_layer;     /* the block's norms */
    double largest_module;     /* largest module's own parameters: what DeepSpeed calls the
                                  largest layer, gathered whole by ZeRO-3 */
    double largest_tensor;     /* largest single parameter tensor */
    double layer_small_params; /* per block: parameters in tensors below
                                  small_tensor_threshold elements (ZeRO-3 persistence) */
    double global_small_params;/* the same outside the blocks */
    double small_tensor_threshold; /* elements; the threshold the two fields above used */
    double modules_per_layer;  /* linear modules in a block (experts counted each): the units
                                  ZeRO-3 gathers one at a time */
} param_counts;

/* One parameter tensor of a block or of the model's ends. */
typedef struct model_tensor {
    const char *name;   /* e.g. "mlp.up.weight" */
    double numel;       /* elements */
    double count;       /* how many of this tensor per block (experts) or in the model */
    int module;         /* tensors with the same module id belong to one nn.Module */
    bool active_all;    /* false for expert tensors: only top-k of `count` are used per token */
} model_tensor;

/* Fill `out` (capacity max) with the per-block tensors (layer = true) or the model's
 * embedding/head tensors (layer = false). Returns the number written, or -1 when max is too small. */
int model_tensors(const model *m, bool layer, model_tensor *out, int max);

/* Check that a model is internally consistent: sizes in range, heads dividing the hidden size
 * (unless head_dim is given), kv heads dividing the heads, top-k <= experts. Fails with
 * ZS_ERR_INPUT naming the field and what was expected. */
int model_validate(const model *m, zs_error *err);

/* Count parameters exactly. `small_threshold` is ZeRO-3's persistence threshold in elements
 * (DeepSpeed default 1e5); pass 0 to skip that part. Fails (ZS_ERR_INPUT) only when the model
 * does not validate. Pure: no I/O. */
int model_count(const model *m, double small_threshold, param_counts *out, zs_error *err);

/* A model that is only a parameter count (--params), with an optional largest layer. Its
 * counts carry no activation information. */
void model_from_params(model *m, param_counts *pc, double params, double largest_layer);

#endif
