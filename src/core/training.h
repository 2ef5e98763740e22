/* training.h -- how a model is trained: parallelism, batch, precision, optimizer, offload, buckets. */
#ifndef ZS_TRAINING_H
#define ZS_TRAINING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* PREC_FP8: Transformer Engine-style FP8 GEMMs with bf16 everything else (fp32 master). */
typedef enum { PREC_FP32, PREC_FP16, PREC_BF16, PREC_BF16_PURE, PREC_FP8 } precision_kind;
/* The paged kinds (bitsandbytes' paged_adamw_32bit / paged_adamw_8bit) keep the same state as
 * their plain kinds; what paging changes (states that move to host memory under pressure) is
 * the fine-tuning memory model's. */
typedef enum {
    OPT_ADAM, OPT_ADAMW, OPT_SGD, OPT_ADAFACTOR, OPT_ADAM8BIT, OPT_PAGED_ADAMW, OPT_PAGED_ADAM8BIT
} optimizer_kind;
/* Bytes per parameter of bitsandbytes' 8-bit Adam states: two 1-byte states and, for each, one
 * fp32 absmax per 256-element block (bitsandbytes-foundation/bitsandbytes@95f9af30
 * bitsandbytes/optim/optimizer.py, Optimizer2State.init_state: blocksize 256, absmax1 and
 * absmax2 float32; tensors under min_8bit_size 4096 elements stay 32-bit and are ignored). */
#define ADAM8BIT_BYTES (2 + 2 * 4.0 / 256)
typedef enum { CKPT_NONE, CKPT_SELECTIVE, CKPT_FULL } ckpt_kind;
typedef enum { OFFLOAD_NONE, OFFLOAD_CPU, OFFLOAD_NVME } offload_kind;

struct framework;

typedef struct training {
    const struct framework *framework; /* what runs it (framework.h); NULL = generic */
    int64_t gpus;                      /* total GPUs */
    int64_t gpus_per_node;             /* 0: take the hardware profile's */
    int64_t tp;                        /* tensor-parallel degree t */
    int64_t pp;                        /* pipeline-parallel degree p */
    int64_t cp;                        /* context-parallel degree: the sequence split over cp ranks */
    int64_t ep;                        /* expert-parallel degree: routed experts split over ep ranks */
    int64_t etp;                       /* expert tensor-parallel degree: each expert's GEMMs split over
                                          etp ranks; 0 = the framework's (Megatron-Core: TP; else 1) */
    double moe_imbalance;              /* busiest expert rank's tokens / the mean (>= 1; 1 = balanced) */
    int64_t virtual_stages;            /* interleaved model chunks per pipeline stage; 1 = plain 1F1B */
    int64_t micro_batch;               /* b, sequences per GPU per micro-batch */
    int64_t seq_len;                   /* s, tokens per sequence */
    int64_t grad_accum;                /* m, micro-batches per step per data-parallel rank */
    precision_kind precision;
    optimizer_kind optimizer;
    int grad_bytes; /* bytes per gradient element; 0 = the precision's default */
    int reduce_bytes; /* bytes per gradient element as reduced (the wire dtype: DeepSpeed's
                         communication_data_type, FSDP's reduce_dtype); 0 = the framework's */
    int param_bytes; /* mixed precision's parameters: 0 = 16-bit copies beside an fp32 master;
                        4 = fp32 alone, cast to 16 bits per use by torch autocast */
    bool bf16_optimizer; /* DeepSpeed's BF16_Optimizer (its own ZeRO stage 1): fp32 gradients
                            accumulated whole beside the bf16 ones, all-reduced in 16 bits */
    ckpt_kind checkpointing;
    bool sequence_parallel; /* Megatron sequence parallelism (needs tp > 1 to matter) */
    bool flash_attention;   /* no s^2 attention matrix stored (default true) */
    offload_kind offload_optimizer;
    offload_kind offload_params;  /* ZeRO-3 only */
    bool nvme_pipeline_read;      /* DeepSpeed offload_optimizer.pipeline_read: overlap the next
                                     sub-group's NVMe read with the CPU step (default false) */
    bool nvme_pipeline_write;     /* offload_optimizer.pipeline_write: overlap the previous
                                     sub-group's NVMe write with the CPU step (default false) */
    double sub_group_size;        /* elements; DeepSpeed zero_optimization.sub_group_size, the
                                     unit the optimizer steps (and swaps) at a time */
    double reduce_bucket;         /* elements; DeepSpeed reduce_bucket_size */
    double allgather_bucket;      /* elements; DeepSpeed allgather_bucket_size */
    double prefetch_bucket;       /* elements; DeepSpeed stage3_prefetch_bucket_size */
    double max_live_params;       /* elements; DeepSpeed stage3_max_live_parameters */
    double persistence_threshold; /* elements; DeepSpeed stage3_param_persistence_threshold */
    int overlap_comm;             /* -1: DeepSpeed's default for the stage, else 0/1 */
    double ddp_bucket_bytes;      /* PyTorch DDP bucket_cap_mb, in bytes */
    bool ddp_bucket_view;         /* PyTorch DDP gradient_as_bucket_view */
    int64_t shard_group;          /* ranks that shard the states (HSDP, MiCS mics_shard_size);
                                     0 = the whole data-parallel group */
    int64_t hpz_group;            /* ZeRO++ hpZ secondary parameter partition (ranks); 0 or 1 = off,
                                     as DeepSpeed's zero_hpz_partition_size 1 (its default) */
    bool quant_weights;           /* ZeRO++ qwZ: parameter all-gathers in int8 */
    bool quant_grads;             /* ZeRO++ qgZ: gradient reduce-scatters in int4 */
    int finetune;                 /* finetune_kind (finetune.h): full, lora, qlora */
    int64_t lora_rank;            /* LoRA r (default 16) */
    int lora_targets;             /* LORA_ATTN | LORA_MLP (default all linear layers) */
    double step_overhead;         /* the framework's per-step overhead overridden (seconds; < 0 =
                                     the framework's) */
    double gemm_efficiency;       /* the framework's GEMM efficiency overridden (--gemm-efficiency,
                                     calibration); 0 = the framework's */
    int loss;                     /* loss_kind (below): how the loss keeps its logits; 0 = the
                                     framework's (framework.loss) */
    int adapter_bytes;            /* bytes per LoRA adapter element (2 bf16, 4 fp32); 0 = the
                                     recipe's default (finetune_adapter_bytes) */
    int64_t recompute_layers;     /* full checkpointing of N layers per pipeline stage (Megatron
                                     --recompute-num-layers); 0 = every layer */
    int recompute_method;         /* recompute_method_kind: how those N are chosen */
    bool offload_activations;     /* checkpointed layer inputs kept in host memory, copied over PCIe
                                     (Axolotl gradient_checkpointing: offload, torchtitan) */
    int offload_act_sync;         /* those copies block the compute stream: -1 the framework's
                                     (DeepSpeed's cpu_checkpointing), else 0/1 */
    int ckpt_in_unit;             /* full recomputation's checkpoint inside the sharding unit
                                     (FSDP(checkpoint(block))) 1, around it 0 (checkpoint(FSDP(
                                     block)): the recompute gathers again); -1 the framework's */
    int64_t doc_len;              /* packed sequences: mean document length in tokens, attention
                                     masked per document (flash-attention varlen); 0 = one document
                                     per sequence */
    int64_t pp_first_layers;      /* layers on the first pipeline stage (Megatron's
                                     --decoder-first-pipeline-num-layers); 0 = the even split */
    int64_t pp_last_layers;       /* layers on the last stage (--decoder-last-pipeline-num-layers) */
    int tp_comm_overlap;          /* TP comm / GEMM overlap (Megatron --tp-comm-overlap): -1 the
                                     framework's default, else 0/1 */
    int qlora_stack;              /* qlora_stack_kind (finetune.h): whose QLoRA code path; 0 =
                                     transformers + PEFT on today's bitsandbytes */
    int attention_kernel;         /* attn_kernel (kernels.h): --attention-kernel; 0 = the
                                     framework's */
    int64_t microbatch_group;     /* interleaved schedule: contiguous micro-batches per virtual
                                     stage (Megatron's --microbatch-group-size-per-virtual-
                                     pipeline-stage); 0 = its default, the pipeline degree */
    int gemm_shapes;              /* --gemm-shapes: 1 = each GEMM at its shape's measured rate
                                     where the GPU has a table (gemm.c); 0 = one efficiency */
} training;

/* How the loss holds the logits and their gradient (memory.c, memory_loss_bytes). */
typedef enum {
    LOSS_DEFAULT,      /* the framework's */
    LOSS_EAGER,        /* logits upcast to fp32, then F.cross_entropy (HF ForCausalLMLoss, torchtitan) */
    LOSS_CHUNKED,      /* cross entropy chunk by chunk in the compute dtype (LitGPT) */
    LOSS_CHUNKED_FP32, /* chunk by chunk, each chunk upcast to fp32 (torchtune CEWithChunkedOutputLoss) */
    LOSS_FUSED,        /* fused vocab-parallel cross entropy, softmax and gradient in place (Megatron) */
    LOSS_FUSED_LINEAR, /* LM head and loss fused by chunks, no whole logits (Liger, Cut Cross-Entropy) */
    LOSS_COMPILED,     /* chunked, each chunk's loss torch.compile'd (torchtune compile=True) */
    LOSS_FLASH,        /* flash-attn's CrossEntropyLoss on the logits as they are (LLM Foundry's MPT) */
} loss_kind;

/* Megatron-Core's --recompute-method (NVIDIA/Megatron-LM@d98e8a64 megatron/core/recompute.py,
 * _checkpointed_forward): uniform checkpoints every layer in chunks of N and stores one input per
 * chunk; block checkpoints the first N layers of the stage and stores the rest whole. */
typedef enum { RECOMPUTE_UNIFORM, RECOMPUTE_BLOCK } recompute_method_kind;

/* The byte cost of one parameter's model states (ZeRO paper section 3.1 generalised). */
typedef struct byte_table {
    double param;     /* bytes of a parameter as stored (the working copy's; FSDP: its shard's) */
    double grad;      /* bytes of a gradient element as stored */
    double master;    /* bytes of the fp32 master copy (mixed precision only) */
    double moments;   /* bytes of optimizer moments (Adam: m and v) */
    double act;       /* bytes of one activation element */
    const char *what; /* one-line description for --explain */
    double reduce;    /* bytes of a gradient element as reduced (its wire dtype): grad, but
                         16 bits under --param-dtype fp32 (FSDP's reduce_dtype) */
    double gather;    /* bytes of a parameter as gathered and computed on (the unsharded
                         copy): param, but 16 bits where FSDP stores the fp32 master as the
                         parameter itself (sim_prepare: framework.flat_params) */
} byte_table;

/* Defaults: 1 GPU, no model parallelism, micro-batch 1, seq 2048, bf16 mixed precision Adam,
 * no checkpointing, flash attention, DeepSpeed's and PyTorch's bucket defaults. Never fails. */
void training_init(training *t);

/* Data-parallel degree gpus / (tp * pp). */
int64_t training_dp(const training *t);

/* Check ranges and divisibility (tp * pp divides gpus; offload_params needs nothing else
 * here). Fails with ZS_ERR_USAGE naming the flag and what was expected. */
int training_validate(const training *t, zs_error *err);

/* training_validate's verdict on t, given that a training differing from t only in
 * micro_batch, grad_accum and checkpointing passes it: only those fields' rows are checked, in
 * the same order, so the same rule refuses (a search's inner loop). Fails as training_validate. */
int training_validate_batch(const training *t, zs_error *err);

/* Hybrid sharding's and hpZ's groups tile the DP x CP = dpc ranks (FSDP2's HSDP mesh is replicate
 * x shard; DeepSpeed asserts the data-parallel size divisible by mics_shard_size): a group of
 * `group` ranks (<= 0: none) must divide dpc and not exceed it. Fails with `code`, the message
 * naming `what` (a flag or a ds_config key), the group and dpc. */
int training_check_group(int64_t group, int64_t dpc, const char *what, int code, zs_error *err);

/* The byte table for a precision, optimizer and gradient width. Never fails. */
byte_table training_bytes(const training *t);

/* One named value of a flag: "fp8" is PREC_FP8. */
typedef struct flag_choice {
    const char *name;
    int value;
} flag_choice;

/* The named values of offload (offload_kind) and fine-tuning (finetune_kind), in enum order;
 * each ends with a NULL name (the other flags' tables are training.c's own). */
extern const flag_choice offload_choices[], finetune_choices[];

/* How a training flag's value is read and checked. */
typedef enum {
    FLAG_WHOLE,  /* a whole number (units_parse_int) in [min, max], int64_t; also validated */
    FLAG_ELEMS,  /* a count of elements (units_parse_count), double; [min, max] validated */
    FLAG_FACTOR, /* a count, double, in [min, max] (min excluded if min_open) when read */
    FLAG_CHOICE, /* one of choices, its value stored as an int */
    FLAG_ON,     /* a switch: the bool becomes true */
    FLAG_OFF,    /* a switch: the bool becomes false */
} flag_kind;

/* One training flag: everything its parsing, help, checks and the ds_config merge read. */
typedef struct flag_desc {
    const char *name; /* "micro-batch" for --micro-batch; NULL for no flag */
    const char *arg;  /* metavariable ("N"), NULL for a switch */
    const char *help; /* --help line; a FLAG_CHOICE's follows its generated names */
    flag_kind kind;
    size_t offset, size;        /* the training field it sets (offsetof, sizeof) */
    double min, max;            /* FLAG_WHOLE, FLAG_ELEMS, FLAG_FACTOR: accepted values */
    bool min_open;              /* FLAG_FACTOR: min itself is refused */
    bool zero_unset;            /* FLAG_WHOLE: 0 is the field's "not set" default, valid */
    bool tokens_binary;         /* FLAG_WHOLE: a sequence length, where "4k context" means 4,096:
                                   k and M are 2^10 and 2^20 (units_parse_seq) */
    const char *expect;         /* FLAG_FACTOR: what its message says is expected */
    const flag_choice *choices; /* FLAG_CHOICE: NULL-name terminated */
    int listed;                 /* FLAG_CHOICE: names help and messages show (the first);
                                   0 = all, the rest are accepted aliases */
    bool names_first;           /* FLAG_CHOICE: help begins with the names */
    bool sweep;                 /* `zerosim sweep` takes lists and ranges of it */
} flag_desc;

/* The training flags' ids, in --help order: from 500, clear of the commands' own option ids
 * (small numbers) and of setup's (from 1000). */
typedef enum {
    OPT_GPUS = 500,
    OPT_GPN,
    OPT_SHARD_GROUP,
    OPT_HPZ,
    OPT_QWZ,
    OPT_QGZ,
    OPT_GEMM_EFF,
    OPT_PRECISION,
    OPT_OPTIMIZER,
    OPT_GRAD_DTYPE,
    OPT_MICRO,
    OPT_SEQ,
    OPT_ACCUM,
    OPT_TP,
    OPT_PP,
    OPT_CP,
    OPT_EP,
    OPT_ETP,
    OPT_MOE_IMBALANCE,
    OPT_VSTAGES,
    OPT_CKPT,
    OPT_SP,
    OPT_EAGER,
    OPT_FINETUNE,
    OPT_LORA_RANK,
    OPT_LORA_TARGETS,
    OPT_OFF_OPT,
    OPT_OFF_PARAM,
    OPT_REDUCE_BUCKET,
    OPT_AG_BUCKET,
    OPT_PREFETCH,
    OPT_MAX_LIVE,
    OPT_PERSIST,
    OPT_OVERLAP,
    OPT_BUCKET_VIEW,
    OPT_LOSS,
    OPT_ADAPTER_DTYPE,
    OPT_RECOMPUTE_LAYERS,
    OPT_RECOMPUTE_METHOD,
    OPT_OFFLOAD_ACT,
    OPT_DOC_LEN,
    OPT_PP_FIRST,
    OPT_PP_LAST,
    OPT_TP_OVERLAP,
    OPT_QLORA_STACK,
    OPT_ATTN_KERNEL,
    OPT_MB_GROUP,
    OPT_GEMM_SHAPES,
    OPT_OFFLOAD_ACT_SYNC,
    OPT_CKPT_PLACEMENT,
    OPT_PARAM_DTYPE,
    OPT_REDUCE_DTYPE,
    OPT_BF16_OPTIMIZER,
    TRAINING_FLAG_END /* one past the last id */
} training_flag_id;

#define TRAINING_FLAG_FIRST OPT_GPUS
#define TRAINING_FLAG_COUNT (TRAINING_FLAG_END - TRAINING_FLAG_FIRST)

/* The rows, one per training flag: flag id's is training_flags[id - TRAINING_FLAG_FIRST]. */
extern const flag_desc training_flags[TRAINING_FLAG_COUNT];

/* The indexes into training_flags of the rows with a range (FLAG_WHOLE, FLAG_ELEMS), which
 * training_validate checks, and their number. */
extern const unsigned char training_ranged_rows[];
extern const int training_ranged_count;

/* The row of flag id; NULL when id is no training flag. Never fails. */
const flag_desc *training_flag(int id);

/* Set flag d on t from its text v. Fails with ZS_ERR_USAGE naming the flag, the value and
 * what was expected. */
int training_flag_set(training *t, const flag_desc *d, const char *v, zs_error *err);

/* Copy flag d's field from src to dst (a flag given wins over a ds_config). Never fails. */
void training_flag_copy(training *dst, const training *src, const flag_desc *d);

/* "a|b|c": the first `listed` names of choices (0: all) into buf (len bytes, cut short when
 * full). Returns buf. Never fails. */
const char *flag_choice_names(const flag_choice *choices, int listed, char *buf, size_t len);

/* Names <-> enums for flags and JSON ("bf16-pure", "adamw", "selective", "nvme"...).
 * *_parse return -1 for an unknown name. */
const char *precision_name(precision_kind p);
const char *optimizer_name(optimizer_kind o);
const char *ckpt_name(ckpt_kind c);
const char *offload_name(offload_kind o);
const char *loss_name(loss_kind l);
int precision_parse(const char *s);
int ckpt_parse(const char *s);
int offload_parse(const char *s);

#endif
