/* model.h -- a transformer's shape (decoder-only, MoE, MLA, encoder-decoder) and exact parameter counts. */
#ifndef ZS_MODEL_H
#define ZS_MODEL_H

#include <stdbool.h>
#include <math.h>
#include <stdint.h>

#include "core/error.h"

typedef enum { NORM_LAYERNORM, NORM_RMSNORM } norm_kind;
typedef enum { POS_ROTARY, POS_LEARNED, POS_ALIBI, POS_RELATIVE } pos_kind;
/* Norms on q and k before attention: none, one head_dim-wide weight shared by all heads
 * (Qwen3, Gemma-3), or one weight per head channel, i.e. q and kv widths (OLMo-2, Cohere). */
typedef enum { QKNORM_NONE, QKNORM_HEAD, QKNORM_FULL } qknorm_kind;

/* The kinds of block a model stacks, by what follows the token mixer; model_blocks() says how
 * many of each. */
typedef enum {
    BLOCK_DENSE,   /* decoder block with a dense MLP (with cross-attention in an encoder-decoder) */
    BLOCK_MOE,     /* decoder block whose MLP is routed experts (plus shared experts) */
    BLOCK_ENCODER, /* encoder block of an encoder-decoder (T5) */
    BLOCK_NOFFN,   /* a mixer alone, no MLP (Nemotron-H's Mamba-2 and attention layers) */
    BLOCK_KINDS
} block_kind;

/* Token mixers, the other half of a block: each is one file (src/core/mix_*.c) plugging a row
 * of mixer_ops[] (core/mixer.h) that gives its tensors, FLOPs and activations. */
typedef enum {
    MIX_ATTENTION, /* softmax attention: MHA/GQA/MQA or MLA; global, sliding or chunked */
    MIX_DELTANET,  /* gated DeltaNet linear attention (Qwen3-Next, Qwen3.5) */
    MIX_MAMBA2,    /* Mamba-2 selective state space (SSD) */
    MIX_MAMBA1,    /* Mamba-1 selective scan (Jamba) */
    MIX_SWA,       /* sliding-window attention with its own heads and widths (MiMo-V2-Flash) */
    MIX_CROSS,     /* cross-attention over an encoder's tokens (T5's decoder, beside attention) */
    MIX_NONE,      /* no mixer: a block that is only an MLP (Nemotron-H's "-" and "E" layers) */
    MIX_KINDS
} mixer_kind;

/* One class of layer in a hybrid stack: which mixer (and a second one in parallel, Falcon-H1),
 * which kind of MLP, and how many layers of the pattern are of it. */
typedef struct layer_class {
    mixer_kind mixer;  /* MIX_NONE: no token mixer */
    mixer_kind mixer2; /* a second mixer reading the same input (Falcon-H1); MIX_NONE: none */
    block_kind ffn;    /* BLOCK_DENSE, BLOCK_MOE or BLOCK_NOFFN */
    int64_t count;     /* layers of this class in the config's pattern */
    int64_t local;     /* of them, sliding-window or chunked attention layers (0: sliding_layers
                          spread over the attention classes) */
    bool kv_shared;    /* the layers reuse an earlier layer's keys and values and hold no k/v
                          projections or k norm (Gemma 4's last num_kv_shared_layers) */
} layer_class;
#define LAYER_CLASSES_MAX 6

typedef struct model {
    char name[64];        /* catalog name or the file's "name" */
    char model_type[32];  /* HF model_type: llama, mistral, mixtral, qwen2, gpt2, gpt_neox, bloom, transformer
                           */
    char source[256];     /* where the description comes from (URL or paper) */
    int64_t hidden_size;  /* h */
    int64_t num_layers;   /* L, transformer blocks */
    int64_t num_heads;    /* a, query heads */
    int64_t num_kv_heads; /* key/value heads: a for MHA, fewer for GQA, 1 for MQA */
    int64_t head_dim;     /* width of one head; h / a unless the config says otherwise */
    int64_t intermediate_size; /* FFN inner width (of one expert for MoE) */
    int64_t vocab_size;        /* V */
    int64_t max_positions;     /* context length; rows of the learned position table */
    int64_t num_experts;       /* routed experts per layer; 0 for a dense model */
    int64_t experts_per_token; /* top-k routing; 0 for a dense model */
    bool gated_mlp;            /* SwiGLU-style: gate, up and down projections */
    bool tied_embeddings;      /* LM head shares the token embedding */
    bool fused_qkv;            /* one QKV module (gpt2, neox, bloom, Megatron) instead of q, k, v */
    bool fused_gate_up;        /* a gated MLP's gate and up as one module (Phi-3's gate_up_proj) */
    bool qkv_bias;             /* biases on q, k, v */
    bool out_bias;             /* bias on the attention output projection */
    bool mlp_bias;             /* biases on the MLP projections */
    bool norm_bias;            /* LayerNorm with beta (RMSNorm never has one) */
    bool embedding_norm;       /* a norm right after the token embedding (BLOOM) */
    bool dropout;              /* any dropout probability > 0: Korthikanti's masks are stored */
    bool params_only;          /* built from --params: no shape, model states only */
    norm_kind norm;
    pos_kind pos;

    /* Block layout beyond the classic two pre-norms (HF modeling_*.py of each family). */
    int block_norms;      /* h-wide norms per block: 2 (pre-norm), 1 (one shared input norm
                             of a parallel block: Falcon-7B, Phi, Cohere), 4 (Gemma-2/3 pre
                             and post norms); 0 from a loader means 2 */
    bool norm_weightless; /* OLMo-1's LayerNorm has no affine parameters */
    bool parallel_block;  /* attention and MLP read the same input (GPT-J, Falcon, Phi, Cohere) */
    qknorm_kind qk_norm;
    bool lm_head_bias;      /* Phi's LM head has a bias */
    int64_t sliding_window; /* tokens a local-attention layer sees; 0 = every layer global */
    int64_t sliding_layers; /* how many of the L layers use the window (Gemma-2: half) */
    double attn_softcap;    /* Gemma-2 tanh soft-cap of attention logits; 0 = none */
    double final_softcap;   /* the same on the LM head's logits */

    /* Multi-head Latent Attention (DeepSeek-V2/V3); kv_lora_rank > 0 turns it on. */
    int64_t q_lora_rank;  /* 0: q is one h x a(nope+rope) projection (V2-Lite) */
    int64_t kv_lora_rank; /* compressed KV latent width, the part the KV cache keeps */
    int64_t qk_nope_dim;  /* per-head q/k width without rotary */
    int64_t qk_rope_dim;  /* per-head rotary width; the rotary key is shared by all heads */
    int64_t v_head_dim;   /* per-head value width (also softmax attention's when it differs from
                             head_dim, MiMo-V2-Flash; 0 = head_dim) */

    /* Mixture of experts beyond Mixtral's "every MLP is top-k of E". */
    int64_t moe_intermediate_size;    /* one routed expert's width; 0 = intermediate_size */
    int64_t shared_intermediate_size; /* all shared experts together (DeepSeek n_shared x width,
                                         Qwen2-MoE shared_expert_intermediate_size); 0 = none */
    bool shared_expert_gate;          /* Qwen2-MoE's sigmoid gate (h -> 1) on the shared expert */
    bool router_bias;                 /* DeepSeek-V3's e_score_correction_bias: E per MoE layer */
    int64_t moe_layers;               /* blocks with experts; the other L - moe_layers are dense */
    double capacity_factor;           /* expert capacity = cf * tokens * k / E; 0 = dropless */
    int64_t mtp_layers;               /* DeepSeek-V3 multi-token-prediction modules: in the checkpoint,
                                         not in the HF class; counted apart (param_counts.mtp) */

    /* Encoder-decoder (T5); num_layers then counts encoder and decoder blocks together. */
    int64_t encoder_layers;    /* 0 for a decoder-only model */
    int64_t rel_buckets;       /* relative-attention buckets (a bucket x head bias table) */
    bool rel_bias_every_layer; /* UMT5: every self-attention has its own table; T5: the first */
    double decoder_seq_ratio;  /* decoder tokens per encoder token; 0 = 1 */

    /* Hybrid stacks (read from the config's layer pattern). nclass 0: every decoder layer is
     * attention followed by its MLP, the classic layout the fields above describe. */
    int nclass;
    layer_class classes[LAYER_CLASSES_MAX];
    bool vision_tower;   /* the config has a vision tower (vision_config), not counted */
    bool window_chunked; /* sliding_window is a chunk: queries see their chunk only (Llama 4) */
    int64_t nope_layers; /* attention layers without rotary embedding (SmolLM3, Llama 4) */
    bool attn_sinks;     /* a learned sink logit per head (gpt-oss): num_heads per layer */
    /* Sliding layers shaped apart from the full ones (MiMo-V2-Flash's swa_*); swa_heads 0: the
     * sliding layers share the full layers' shape. */
    int64_t swa_heads, swa_kv_heads, swa_head_dim, swa_v_dim;
    bool swa_sinks;          /* the sliding layers' sink logits (add_swa_attention_sink_bias) */
    bool attn_output_gate;   /* q_proj also makes a sigmoid gate of the output (Qwen3-Next) */
    bool qk_norm_weightless; /* q/k norms without parameters (Llama 4's L2 norm) */
    /* DeepSeek-V3.2's sparse attention: a lightning indexer scores every earlier token and the
     * attention runs over the top idx_topk (DeepSeek-V3.2-Exp report, section 2.1). */
    int64_t idx_heads, idx_head_dim; /* indexer heads and their width; 0: dense attention */
    int64_t idx_topk;                /* keys each query attends to */
    int64_t dense_intermediate_size; /* dense blocks' MLP width when it differs from
                                        intermediate_size (Llama 4's intermediate_size_mlp); 0 = same */
    /* Gated DeltaNet (Yang et al. 2024, arXiv 2412.06464; HF Qwen3NextGatedDeltaNet). */
    int64_t lin_k_heads, lin_v_heads; /* key and value heads */
    int64_t lin_k_dim, lin_v_dim;     /* their widths */
    int64_t lin_conv;                 /* short causal convolution width */
    /* Mamba (Gu and Dao 2024, arXiv 2405.21060; HF Mamba2Mixer, JambaMambaMixer). */
    int64_t ssm_inner;   /* d_inner = expand x h (Mamba-2: heads x head_dim) */
    int64_t ssm_state;   /* d_state, N */
    int64_t ssm_heads;   /* Mamba-2 heads H (head_dim = ssm_inner / H) */
    int64_t ssm_groups;  /* Mamba-2 B/C groups G */
    int64_t ssm_conv;    /* convolution width d_conv */
    int64_t ssm_chunk;   /* SSD chunk length Q (scan FLOPs) */
    int64_t ssm_dt_rank; /* Mamba-1 dt projection rank */
    bool ssm_conv_bias;  /* conv1d has a bias */
    bool ssm_proj_bias;  /* in_proj / out_proj have biases */
    bool ssm_norm;       /* Mamba-2's gated RMSNorm over d_inner (Mamba-1: Jamba's dt/B/C norms) */
    /* Gemma 3n / Gemma 4 (HF modeling_gemma3n.py, modeling_gemma4.py): per-layer features that
     * are not token mixers, their tensors added per block by model.c. */
    int64_t ple_dim;     /* hidden_size_per_layer_input: per-layer input width P (0: none) */
    int64_t ple_vocab;   /* vocab_size_per_layer_input: rows of the per-layer embedding table */
    int64_t altup_inputs; /* Gemma 3n AltUp's altup_num_inputs A (0: no AltUp) */
    int64_t laurel_rank; /* Gemma 3n LAuReL's low-rank residual width r (0: none) */
    bool attn_k_eq_v;    /* Gemma 4's attention_k_eq_v: full layers have no v_proj (V is K) */
    int64_t kv_shared_intermediate_size; /* MLP width of KV-shared layers (Gemma 4's
                                            use_double_wide_mlp: 2 x intermediate_size); 0 = same */
    bool router_scales;  /* Gemma 4's router: scale [h] and per_expert_scale [E] */
    int moe_norms;       /* h-wide norms an expert block adds (Gemma 4: 3) */
} model;

#define PC_CLASSES 8 /* >= BLOCK_KINDS and >= LAYER_CLASSES_MAX */

/* Parameter counts. Doubles hold integers exactly up to 2^53 (9e15), far above any model. */
typedef struct param_counts {
    double total;                  /* every parameter, tied ones once */
    double active;                 /* parameters one token passes through (MoE: top-k experts) */
    double embedding;              /* token + learned position embeddings + embedding norm, and
                                      the other model-level tensors before the blocks (Gemma
                                      3n/4's per-layer input table and projection, AltUp's) */
    double lm_head;                /* untied output projection; 0 when tied */
    double final_norm;             /* the last norm before the LM head */
    double per_layer;              /* the largest block, every expert (every block for a uniform
                                      model): a pipeline stage's worst case */
    double per_layer_active;       /* mean over blocks of one block as one token sees it */
    double attention_per_layer;    /* mean over blocks: q, k, v, o (or MLA) and their biases */
    double mlp_per_layer;          /* mean over blocks: MLP or all experts plus router */
    double norm_per_layer;         /* mean over blocks: the block's norms */
    /* Mean over blocks of the in + out features of a block's linears (model_tensor.fan), experts
     * each: a rank-r LoRA on them holds r x this per layer. The mixer's linears (attention, SSM,
     * linear attention), of which the query and value projections, and the MLP's. */
    double lora_fan_mixer, lora_fan_qv, lora_fan_mlp;
    double largest_module;         /* largest module's own parameters: what DeepSpeed calls the
                                      largest layer, gathered whole by ZeRO-3 */
    double largest_tensor;         /* largest single parameter tensor */
    double layer_small_params;     /* per block: parameters in tensors below
                                      small_tensor_threshold elements (ZeRO-3 persistence) */
    double global_small_params;    /* the same outside the blocks */
    double small_tensor_threshold; /* elements; the threshold the two fields above used */
    double modules_per_layer;      /* linear modules in a block (experts counted each): the units
                                      ZeRO-3 gathers one at a time */
    double mtp;                    /* DeepSeek-V3 multi-token-prediction modules' own parameters
                                      (embedding and head shared): not in total */
    /* The model's blocks by class, computed once here for the evaluation path. A classic model
     * has the BLOCK_KINDS classes, class c of kind c with attention; a hybrid stack has its
     * layer classes. The FLOP, memory and explain loops walk classes and never switch on a
     * model family. */
    int nclass;
    block_kind kind[PC_CLASSES];      /* what follows the mixer: dense MLP, experts, none */
    mixer_kind mixer[PC_CLASSES];     /* the token mixer (MIX_NONE: none) */
    mixer_kind mixer2[PC_CLASSES];    /* a parallel second mixer (MIX_NONE: none) */
    double blocks[PC_CLASSES];        /* parameters of one block of each class */
    double blocks_active[PC_CLASSES]; /* the same as one token sees it */
    double nblocks[PC_CLASSES];       /* blocks of the class (fractional for a scaled pattern) */
    double nlocal[PC_CLASSES];        /* of them, sliding-window or chunked attention */
    double seq_scale[PC_CLASSES];     /* tokens per input token (model_seq_scale) */
    double cls_norms[PC_CLASSES];     /* h-wide norms a block of the class applies */
    bool kv_shared[PC_CLASSES];       /* the class's layers reuse earlier keys and values */
} param_counts;

/* Layers of class c of a hybrid stack, its pattern's count scaled to num_layers (plan's depth
 * search changes num_layers). Never fails. */
static inline double model_class_layers(const model *m, int c)
{
    double sum = 0;
    for (int k = 0; k < m->nclass; k++) sum += (double)m->classes[k].count;
    return sum > 0 && m->num_layers > 0 ? (double)m->classes[c].count * (double)m->num_layers / sum : 0;
}

/* How many blocks of `kind` the model stacks (they sum to num_layers). Inline: the
 * evaluation path asks for it per block kind on every configuration. */
static inline int64_t model_blocks(const model *m, block_kind kind)
{
    if (m->nclass > 0) {
        double n = 0;
        for (int c = 0; c < m->nclass; c++)
            if (m->classes[c].ffn == kind) n += model_class_layers(m, c);
        return (int64_t)llround(n);
    }
    if (kind == BLOCK_NOFFN) return 0;
    int64_t L = m->num_layers > 0 ? m->num_layers : 0;
    int64_t enc = m->encoder_layers < 0 ? 0 : m->encoder_layers < L ? m->encoder_layers : L;
    int64_t moe = m->num_experts > 0 ? (m->moe_layers > 0 ? m->moe_layers : L - enc) : 0;
    if (moe > L - enc) moe = L - enc;
    switch (kind) {
    case BLOCK_ENCODER: return enc;
    case BLOCK_MOE: return moe;
    case BLOCK_DENSE: return L - enc - moe;
    default: return 0;
    }
}

/* Expert width: moe_intermediate_size, or intermediate_size when that is 0 (Mixtral). */
int64_t model_expert_width(const model *m);

/* Of the blocks of `kind`, how many use sliding-window attention (sliding_layers spread over
 * the decoder blocks in proportion; never encoder blocks). May be fractional. Never fails. */
static inline double model_blocks_local(const model *m, block_kind kind)
{
    if (kind == BLOCK_ENCODER || m->sliding_window <= 0 || m->sliding_layers <= 0) return 0;
    double dec = (double)(model_blocks(m, BLOCK_DENSE) + model_blocks(m, BLOCK_MOE));
    if (dec <= 0) return 0;
    double frac = fmin(1, (double)m->sliding_layers / dec);
    return frac * (double)model_blocks(m, kind);
}

/* Megatron tensor-parallel all-reduces of the s b h activations per block in forward, mean over
 * the model's blocks (as many again in backward): 2 for a sequential block (after attention,
 * after the MLP), 1 for a parallel block (Falcon, Phi, Cohere: one after their sum), 3 for a
 * decoder block with cross-attention, each weighted by model_seq_scale. Never fails. */
double model_tp_allreduces(const model *m);

/* Tokens a block of `kind` processes per input (encoder) token: decoder_seq_ratio for the
 * decoder blocks of an encoder-decoder, else 1. Never fails. */
double model_seq_scale(const model *m, block_kind kind);

/* Check that a model is internally consistent: sizes in range, heads dividing the hidden size
 * (unless head_dim is given), kv heads dividing the heads, top-k <= experts. Fails with
 * ZS_ERR_INPUT naming the field and what was expected. */
int model_validate(const model *m, zs_error *err);

/* The range model_validate accepts for a field, by its HF name ("num_hidden_layers": 1 to
 * 100000): true with *min and *max set, or false for a field it does not bound. Never fails. */
bool model_field_bounds(const char *field, int64_t *min, int64_t *max);

/* Count parameters exactly. `small_threshold` is ZeRO-3's persistence threshold in elements
 * (DeepSpeed default 1e5); pass 0 to skip that part. Fails (ZS_ERR_INPUT) only when the model
 * does not validate. Pure: no I/O. */
int model_count(const model *m, double small_threshold, param_counts *out, zs_error *err);

/* A model that is only a parameter count (--params), with an optional largest layer. Its
 * counts carry no activation information. */
void model_from_params(model *m, param_counts *pc, double params, double largest_layer);

#endif
