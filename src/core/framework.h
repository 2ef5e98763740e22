/* framework.h -- the descriptor each training framework (DeepSpeed, FSDP, Megatron-LM) plugs in. */
#ifndef ZS_FRAMEWORK_H
#define ZS_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/finetune.h"
#include "core/model.h"
#include "core/strategy.h"
#include "core/training.h"

/* What "selective" activation recomputation means in a framework. */
typedef enum {
    SELECTIVE_ATTENTION, /* Megatron-LM: recompute the attention core (Korthikanti et al. 2022) */
    SELECTIVE_OPS,       /* torchtitan op-level SAC: keep matmul outputs, recompute the rest */
    SELECTIVE_NONE,      /* only whole-block checkpointing */
} selective_kind;

/* Which offloads a framework offers. */
typedef enum {
    FW_OFFLOAD_ANY,      /* optimizer and (where the strategy allows) parameters, CPU or NVMe */
    FW_OFFLOAD_TOGETHER, /* parameters, gradients and optimizer together, to host memory only
                            (FSDP CPUOffload / CPUOffloadPolicy: the optimizer steps on CPU) */
    FW_OFFLOAD_NONE,
} fw_offload_kind;

/* How the updated parameters come back to the GPU after a CPU optimizer step (ZeRO-Offload):
 * what the framework's step code does with the fp32 partition it stepped. */
typedef enum {
    OFFLOAD_COPY_PINNED16, /* a 16-bit copy through a pinned buffer, at the host link's rate */
    OFFLOAD_COPY_PINNED32, /* the pinned fp32 partition moved whole, converted on the GPU */
    OFFLOAD_COPY_PAGEABLE, /* a blocking copy_ that converts on the CPU into a pageable tensor */
    OFFLOAD_COPY_FUSED,    /* CPU Adam writes 16-bit tiles to pinned buffers as it steps: the
                              copy runs beside the step */
} offload_copy_kind;

/* What the engine runs for bf16 mixed precision without sharding (DDP, DeepSpeed's stage 0). */
typedef enum {
    BF16_STAGE0_MIXED,    /* 16-bit copies beside an fp32 master, gradients all-reduced (DDP) */
    BF16_STAGE0_PURE,     /* the module cast to bf16 and the client's optimizer over it: no
                             fp32 master (--precision bf16-pure) */
    BF16_STAGE0_OPTIMIZER, /* BF16_Optimizer, its own ZeRO stage 1 (--bf16-optimizer) */
    BF16_STAGE0_PIPE_OPT, /* MIXED, but the pipeline engine takes BF16_Optimizer accumulating
                             in bf16 (--bf16-optimizer --grad-dtype 16-bit) */
} bf16_stage0_kind;

/* Which buffers a framework keeps beyond the model states. */
typedef enum {
    BUFFERS_STRATEGY, /* the strategy's own (DeepSpeed buckets, DDP bucket copy) */
    BUFFERS_VIEWS,    /* buckets are views of one contiguous gradient buffer (Megatron) */
    BUFFERS_UNITS,    /* FSDP: unsharded units in flight; one unit's gradients to reduce */
} buffers_kind;

/* A framework declares what it runs and how; the harness (sim.c, memory.c, comm.c, plan.c)
 * reads these fields and never asks which framework it has. A new framework is one file
 * with one of these and one line in FRAMEWORKS in framework.c. Every number carries its
 * source beside it in the framework's file. */
typedef struct framework {
    const char *name;   /* "deepspeed", ...: flags, JSON and CSV */
    const char *label;  /* "DeepSpeed": tables and messages */
    const char *prefix; /* before a strategy's name in labels ("FSDP"); "" for none */
    /* The framework's name for each strategy it runs, keyed by strategy id
     * ({[STRAT_ZERO3] = "FULL_SHARD"}); NULL = it cannot. */
    const char *runs[STRATEGY_MAX];
    bool tensor_parallel;        /* composes with TP */
    bool pipeline_parallel;      /* composes with PP */
    bool pipeline_sharded_grads; /* PP together with gradient/parameter sharding */
    bool interleaving;           /* interleaved (virtual) pipeline stages */
    bool context_parallel;       /* ring-attention context parallelism (--cp) */
    bool expert_sharded_params;  /* expert parallelism with parameter sharding: the experts
                                    sharded and gathered over the expert-data-parallel group */
    fw_offload_kind offload;
    bool hybrid_shard;         /* shard within a group, replicate across (HSDP, MiCS) */
    bool zeropp;               /* ZeRO++ hpZ/qwZ/qgZ */
    bool exact_layer_split;    /* layers must divide evenly into pp x virtual stages */
    bool interleave_divisible; /* interleaving needs micro-batches a multiple of pp */
    bool ep_tp_needs_sp;       /* expert with tensor parallelism needs sequence parallelism */
    bool expert_tp_free;       /* expert TP may be any degree ETP x EP x PP divides the world into
                                  (Megatron-Core), not only a divisor of TP */
    bool experts_skip_tp;      /* experts are not split by TP unless asked (DeepSpeed-MoE: expert
                                  slicing off; Megatron-Core's expert_tensor_parallel_size and the
                                  others split them as the dense weights) */
    selective_kind selective;
    buffers_kind buffers;
    int units_in_flight;       /* BUFFERS_UNITS: units gathered at once (current + prefetch) */
    bool fp32_grads;           /* 16-bit training accumulates and reduces gradients in fp32 */
    bool reduce_fp32;          /* 16-bit training reduces gradients in fp32 (their wire dtype,
                                  byte_table.reduce), stored as the strategy keeps them */
    bool flat_params;          /* parameters are stored as shards in the model's own dtype (fp32
                                  under mixed precision: the master itself, no separate 16-bit
                                  shard), cast to the compute dtype as they unshard, gradients
                                  cast back to it after the reduce; the shard is kept under
                                  SHARD_GRAD_OP too, beside the whole unsharded copy */
    bool no_shard_unit_copies; /* with flat_params, DDP is FSDP's NO_SHARD: each unit's 16-bit
                                  copy is cast before its forward, freed after it and cast again
                                  for its backward (FSDP2's replicate() is DDP: no copies) */
    bool ddp_alone;            /* DDP takes no TP, PP or CP beside it, and those without data
                                  parallelism run no mixed precision (torchtitan) */
    bool ddp_autocast;         /* DDP's mixed precision is torch autocast over the fp32
                                  parameters: every use casts (comm_add_common) */
    bool bf16_optimizer;       /* offers DeepSpeed's BF16_Optimizer (--bf16-optimizer) */
    bool no_bf16;              /* has no bf16 mode: --precision bf16 / bf16-pure are refused */
    int bf16_stage0;           /* bf16_stage0_kind: what DDP (no sharding) runs under bf16 */
    bool bf16_reduce_fp32;     /* bf16 training reduces gradients in fp32 (fp16 in fp16) */
    int overlap_comm;          /* -1: the strategy's (DeepSpeed) default; else 0/1 */
    bool overlap_param_gather; /* the after-step parameter all-gather hides under the next
                                  forward (Megatron distributed optimizer) */
    bool tp_comm_overlap;      /* TP comm / GEMM overlap (TE userbuffers) on by default (tpoverlap.c) */
    bool act_offload_sync;     /* --activation-offload's copies block the compute stream */
    /* The parameter copy after a CPU optimizer step: [0] for strategies that keep whole
     * parameters on the GPU (ZeRO-1/2), [1] for those that shard them (ZeRO-3); 0 (pinned
     * 16-bit) where the framework's file says nothing. */
    offload_copy_kind offload_copy[2];
    bool offload_grads_fp32;   /* optimizer offload sends the gradients to the host in fp32,
                                  converted on the GPU (else in the gradient dtype) */
    /* Sharded parameters (ZeRO-3) under optimizer offload: the gradient partition accumulates
     * in a host buffer of the gradient dtype that each micro-batch's partition goes down to
     * and straight back from, and the fp32 gradient goes down once at the accumulation
     * boundary, the host waiting for it; z3_boundary_fp32: in fp32 (else in the gradient
     * dtype, converted on the CPU). */
    bool z3_grads_host_accum;
    bool z3_boundary_fp32;
    double gather_overhead;    /* seconds of host work per parameter-gather call */
    /* A framework version (name@version): what its code does around each gather and
     * reduce-scatter, read from that version's code (the fw_*.c file names the commit). */
    const char *version;         /* "0.19.5": the default one is the framework's own descriptor */
    const char *first, *last;    /* the releases it stands for, by what their code does alike
                                    ("0.9.0" .. "0.14.0"; a last of two parts, "0.16", names
                                    its series); NULL last = and every later one */
    const struct framework *const *versions; /* other versions, NULL-terminated; NULL = none */
    double gather_per_rank;      /* seconds of host work per gather call per rank of the group
                                    (the list form of all_gather: one view and one copy a rank) */
    double gathers_per_module;   /* gather calls per fetched module (0 = 1: one coalesced call;
                                    2 = weight and bias each fetched alone) */
    bool sync_fetch;             /* each fetch waits for the GPU (torch.cuda.synchronize) and
                                    for its gather: gathers cannot hide under compute */
    double gather_per_rank_param; /* seconds of host work per gather call per rank per parameter
                                    it carries (splitting a coalesced buffer back into the
                                    module's parameters: a view and a record_stream a rank) */
    double fetch_hbm_passes;     /* HBM bytes the fetch's code moves per gathered byte, on the
                                    fetch's path (list-form all_gather's copies out of its flat
                                    buffer, or a torch.cat of the partitions: 2; a norm of each
                                    gathered parameter: 1) */
    bool recompute_in_unit;      /* full recomputation runs inside the sharding unit (the
                                    checkpoint wraps the block inside its unit): the unit's
                                    backward gather serves the recompute, no second gather; the
                                    recipe's default, --checkpoint-placement overrides it */
    bool own_16bit_params;       /* the engine casts the model's parameters to 16 bits itself
                                    under bf16/fp16: --param-dtype fp32 is refused */
    bool fetch_by_module_hooks;  /* parameters are fetched by each submodule's forward pre-hook,
                                    which a recomputed forward runs again wherever the checkpoint
                                    sits: --checkpoint-placement inside is refused */
    double unshard_copy_passes;  /* HBM bytes per gathered byte the framework copies on the
                                    compute stream after each forward and backward unshard
                                    (FSDP2's copy-out into each parameter: read + write, 2) */
    double reduce_overhead;      /* seconds of host work per gradient reduce-scatter call */
    double reduce_per_rank;      /* ... and per rank of the group (list-form reduce_scatter) */
    double reduce_per_rank_param; /* ... and per rank per gradient in the call (a coalesced
                                    bucket's per-rank slices of each gradient) */
    double reduces_per_module;   /* gradient reduce-scatters per module, one per parameter; 0 =
                                    the strategy's buckets (reduce_bucket_size) */
    double step_overhead;      /* seconds of host work per optimizer step that no GPU work
                                  hides (engine bookkeeping, launches, gradient clipping) */
    int loss;                  /* loss_kind (training.h): the loss implementation its model
                                  code runs by default (--loss overrides; memory_loss_bytes) */
    int attention_kernel;      /* attn_kernel (kernels.h) its attention runs by default; 0 = FA2 */
    double gemm_efficiency;    /* achieved GEMM rate relative to the hardware profile's
                                  matmul_max_fraction (1 = the profile's as fitted) */
} framework;

/* The two the commands name: the default, and the one a ds_config implies. */
extern const framework fw_generic, fw_deepspeed;

/* All frameworks, generic first; NULL-terminated, at most FRAMEWORK_MAX. */
#define FRAMEWORK_MAX 8
/* Versions of one framework, its default included, at most (framework_versions_text). */
#define FRAMEWORK_VERSIONS_MAX 16
extern const framework *const frameworks[];

/* Look a framework up by name, or name@version: the version whose string is or starts with
 * it at a dot ("deepspeed@0.3" names 0.3.13), else the one whose releases first..last hold it
 * ("deepspeed@0.12.6": 0.9.0-0.14.0; missing parts count 0); NULL when unknown or no version
 * covers it. */
const framework *framework_find(const char *name);

/* The releases each version of fw's family stands for, in release order, into buf (len
 * bytes): "0.3.0-0.3.x, 0.9.0-0.14.0, 0.14.1-0.16.x, 0.17.0-0.19.x (default)"; "" when it has
 * no versions. Returns buf. Never fails (truncates). */
const char *framework_versions_text(const framework *fw, char *buf, size_t len);

/* The releases one version descriptor stands for ("0.6.0-0.8.x"; its version string where it
 * names no range; "" for a framework without versions) into buf. Never fails. */
const char *framework_release_text(const framework *fw, char *buf, size_t len);

/* Fails with `code` saying, after `what` ("--framework"), why v names no framework: an
 * unknown name, a framework without versions, or a release no version covers (listing the
 * ones that exist). */
int framework_refuse(const char *what, const char *v, int code, zs_error *err);

/* "generic|deepspeed|...": names for usage messages. Never fails. */
const char *framework_names(void);

/* The framework of a training (generic when none was set). Never fails. */
const framework *framework_of(const training *t);

/* Whether fw runs training t of model m at all, whatever the strategy: TP/PP composition,
 * layer split, interleaving, recomputation, hybrid and ZeRO++ settings. Fails with
 * ZS_ERR_USAGE naming the framework's rule. */
int framework_check(const framework *fw, const model *m, const training *t, zs_error *err);

/* Whether s runs as torch autocast over fp32 parameters under fw and t: --param-dtype fp32, or
 * the DDP of a framework whose DDP's mixed precision is autocast (ddp_autocast) in 16-bit
 * training. Pure. */
static inline bool framework_autocast(const framework *fw, const strategy *s, const training *t)
{
    /* A fine-tuned base is loaded in 16 bits (finetune.c): nothing to cast. */
    return t->param_bytes == 4 ||
        (fw->ddp_autocast && s->id == STRAT_DDP && t->finetune == FT_FULL &&
            (t->precision == PREC_BF16 || t->precision == PREC_FP16));
}

/* Whether a full recompute under fw runs inside the sharding unit (t's --checkpoint-placement,
 * else the framework's recompute_in_unit). Inline: the strategies read it, and framework.c
 * reads them. Pure; never fails. */
static inline bool framework_recompute_in_unit(const framework *fw, const training *t)
{
    return t->ckpt_in_unit >= 0 ? t->ckpt_in_unit != 0 : fw->recompute_in_unit;
}

/* framework_check's verdict on t, given that a training differing from t only in micro_batch,
 * grad_accum and checkpointing passes it: only the rules reading those, in the same order, so
 * the same rule refuses. Fails as framework_check. */
int framework_check_batch(const framework *fw, const training *t, zs_error *err);

/* Whether fw runs strategy s with training t; writes the rule when not. Never fails
 * otherwise. */
bool framework_allows(const framework *fw, const strategy *s, const training *t, char *why, int whylen);

/* The label of s under fw ("FSDP FULL_SHARD"; s's own label under generic). Writes into buf
 * and returns it. Never fails. */
const char *framework_strategy_label(const framework *fw, const strategy *s, char *buf, int len);

/* The real frameworks: every one in frameworks[] but the abstract generic one, in that
 * order. Writes them to out (room for FRAMEWORK_MAX + 1) followed by NULL and returns how
 * many. Never fails. */
int frameworks_real(const framework **out);

#endif
