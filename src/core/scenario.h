/* scenario.h -- the question one evaluation answers, and what the simulator derives from it once. */
#ifndef ZS_SCENARIO_H
#define ZS_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/collective.h"
#include "core/comm.h"
#include "core/compute.h"
#include "core/hardware.h"
#include "core/model.h"
#include "core/pipeline.h"
#include "core/training.h"

struct strategy;
struct framework;

/* A question as plain structs, owned by the caller: the model and its counts, the hardware
 * (flag overrides such as --hbm and --price-per-gpu-hour already applied), the training, the
 * strategies to evaluate and a token budget. plan, report and plot read it; none of them sees
 * the command line. */
typedef struct scenario {
    const model *m;
    const param_counts *pc; /* model_count of m with t's persistence threshold */
    const hardware *hw;
    const training *t;
    const struct strategy *const *chosen; /* NULL-terminated strategies to evaluate */
    double tokens;                        /* training budget in tokens; 0 = none */
} scenario;

/* One pipeline stage's share of the model (sim_prepare fills one per pipe_split view):
 * the sim_input fields of the same names for that stage. */
typedef struct sim_stage {
    pipe_stage stage;
    double local_params, local_small, local_expert, trainable, param_bytes;
} sim_stage;

/* Everything an evaluation reads, with the derived quantities computed once by sim_prepare
 * so that a search can evaluate many strategies without recomputing them. */
typedef struct sim_input {
    const model *m;
    const param_counts *pc;
    const hardware *hw;
    const training *t;
    const struct framework *fw; /* framework_of(t) */
    byte_table bt;
    int64_t dp;                     /* data-parallel degree: replicas of the batch */
    int64_t shard_dp;               /* ranks that shard the states: dp, or the hybrid shard group */
    int64_t gpus_per_node;          /* effective: scenario_gpus_per_node */
    int64_t nodes;                  /* ceil(gpus / gpus_per_node) */
    int64_t domain_gpus;            /* effective: scenario_domain_gpus */
    int64_t stage_layers;           /* blocks on the most loaded pipeline stage (pipeline_split) */
    double local_params;            /* parameters one model-parallel rank holds (most loaded stage) */
    double local_small;             /* of which in tensors below the ZeRO-3 persistence threshold */
    double local_largest;           /* largest module on one rank (ZeRO-3 gathers it whole) */
    double trainable;               /* of local_params, those with gradients and optimizer states
                                       reduced over DP (all; LoRA: the adapters; EP: the dense ones) */
    double local_expert;            /* expert parallelism: the routed experts on this rank, reduced and
                                       sharded over the expert-data-parallel group; 0 without EP */
    int64_t edp;                    /* expert-data-parallel degree: DP x CP x TP / (EP x ETP) */
    int64_t etp;                    /* expert tensor-parallel degree in force (1 without EP) */
    double param_bytes;             /* bytes of the rank's parameters as stored (bf16; QLoRA: NF4
                                       block linears), adapters included */
    coll_link links[LEVEL_COUNT];   /* achieved alpha-beta per link level */
    coll_group groups[GROUP_COUNT]; /* DP (x CP: the gradient group), TP, PP, CP..: size and
                                       ranks per node */
    flops_tokens tok;               /* per-token FLOPs (compute_flops_tokens): the batch's rates
                                       are redone from them (sim_prepare_batch) */
    flops fl;                       /* FLOPs per token, per micro-batch, per step */
    double peak;                    /* dense FLOP/s for the precision */
    double gemm_efficiency;         /* achieved fraction of peak for this run's GEMMs */
    mb_time mb;                     /* seconds per micro-batch: forward, backward + recompute */
    double hbm_rate;                /* achieved HBM bytes/s for the optimizer step */
    double host_rate;               /* achieved host-memory bytes/s per GPU for CPU Adam */
    double step_overhead;           /* seconds of framework host work per step (flag, calibrated, shipped) */
    double fw_eff;                  /* the framework's GEMM efficiency factor in force (flag, calibrated,
                                       shipped) */
    pipe_split pipe;                /* the layers per pipeline stage (pipeline.h) */
    pipe_stage stage;               /* the stage the fields above describe: the one with the most
                                       parameters; memory evaluates every view (sim_run_memory) */
    sim_stage stages[PIPE_VIEWS];   /* each view's share, for the memory of every stage */
    double pipe_pace;               /* slowest stage's time per micro-batch over the mean stage's */
    double layer_act[2];            /* memory_layer_activations(in, keep = 0 / 1), once per
                                       prepare (every strategy and stage reads them); 0 = not yet */
    bool flat_params;               /* FSDP's own-dtype parameter shards (framework.flat_params)
                                       in force: bt.param is the shard as stored, bt.gather the
                                       unsharded copy; full training only */
} sim_input;

/* GPUs in one node of this run: --gpus-per-node when given, else the profile's. Never fails. */
int64_t scenario_node_size(const hardware *hw, const training *t);

/* GPUs per node as the run places them: scenario_node_size, but never more than the run's
 * GPUs (one node of 4 when the run has 4). Every layout, report and explanation uses this.
 * Never fails. */
int64_t scenario_gpus_per_node(const hardware *hw, const training *t);

/* GPUs of the run that share one NVLink domain: the profile's intra_node.domain_gpus when it
 * is larger than the node (GB200 NVL72: 72 GPUs in nodes of 4), else the node; never more
 * than the run's GPUs. A group whose ranks fit in one domain runs on the intra link even
 * when it spans nodes. Never fails. */
int64_t scenario_domain_gpus(const hardware *hw, const training *t);

#endif
