/* sim.h -- one evaluation: model x hardware x training x strategy -> memory (and later time). */
#ifndef ZS_SIM_H
#define ZS_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "comm.h"
#include "compute.h"
#include "error.h"
#include "hardware.h"
#include "memory.h"
#include "model.h"
#include "training.h"

struct strategy;

/* Everything an evaluation reads, with the derived quantities computed once by sim_prepare
 * so that a sweep can evaluate many strategies without recomputing them. */
typedef struct sim_input {
    const model *m;
    const param_counts *pc;
    const hardware *hw;
    const training *t;
    byte_table bt;
    int64_t dp;               /* data-parallel degree */
    int64_t gpus_per_node;    /* effective: the flag's or the profile's */
    int64_t nodes;            /* ceil(gpus / gpus_per_node) */
    int64_t stage_layers;     /* blocks on the most loaded pipeline stage: ceil(L / pp) */
    double local_params;      /* parameters one model-parallel rank holds (most loaded stage) */
    double local_small;       /* of which in tensors below the ZeRO-3 persistence threshold */
    double local_largest;     /* largest module on one rank (ZeRO-3 gathers it whole) */
    coll_link links[LEVEL_COUNT]; /* achieved alpha-beta per link level */
    coll_group groups[GROUP_COUNT]; /* DP, TP, PP groups: size and ranks per node */
    flops fl;                 /* FLOPs per token, per micro-batch, per step */
    double peak;              /* dense FLOP/s for the precision */
    double gemm_efficiency;   /* achieved fraction of peak for this run's GEMMs */
    mb_time mb;               /* seconds per micro-batch: forward, backward + recompute */
    double hbm_rate;          /* achieved HBM bytes/s for the optimizer step */
    double host_rate;         /* achieved host-memory bytes/s per GPU for CPU Adam */
    double price;             /* dollars per GPU-hour */
} sim_input;

/* Where a step's time goes, in seconds (per GPU, every GPU alike). */
typedef struct step_time {
    double compute;           /* forward + backward + recompute of all micro-batches */
    double comm_exposed;      /* collectives not hidden under compute */
    double optimizer;         /* optimizer step (on the GPU, or CPU Adam with offload) */
    double bubble;            /* pipeline fill and drain */
    double offload;           /* PCIe transfers not hidden under compute */
    double total;
} step_time;

/* Cost of training for a token budget (zero when no budget was given). */
typedef struct train_cost {
    double tokens;            /* tokens to train on */
    double seconds;           /* wall-clock time */
    double gpu_hours;
    double dollars;
    double kwh;               /* GPU energy at TDP */
} train_cost;

typedef struct result {
    const struct strategy *strategy;
    bool applicable;          /* false when the strategy cannot run this configuration */
    char why[128];            /* reason when not applicable */
    memory mem;
    bool fits;                /* GPU and host memory both fit */
    comm_plan plan;           /* the collectives of one step */
    comm_summary comm;        /* bytes per GPU per step by level and kind */
    step_time step;
    double tokens_per_second; /* whole cluster */
    double tflops_per_gpu;    /* model FLOPs (MFU numerator) per second per GPU, in 1e12 */
    double mfu;               /* model FLOPs utilisation (PaLM appendix B) */
    double hfu;               /* hardware FLOPs utilisation: recompute counted */
    train_cost cost;
    bool has_interval;        /* the profile had fitted uncertainties */
    double step_lo, step_hi;  /* seconds: central 90% interval of step.total */
} result;

/* Derive the shared quantities. Fails (ZS_ERR_USAGE/ZS_ERR_INPUT) when the training does not
 * validate or does not suit the model (e.g. more pipeline stages than layers, tensor
 * parallelism that does not divide the heads). */
int sim_prepare(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
                const training *t, zs_error *err);

/* Set the price per GPU-hour (default: the hardware profile's) used for costs. */
void sim_set_price(sim_input *in, double dollars_per_gpu_hour);

/* Memory only (the cheap half of sim_run, for searches that prune on fit). Returns r->fits;
 * r->applicable false when the strategy cannot run the configuration. */
bool sim_run_memory(const sim_input *in, const struct strategy *s, result *r);

/* The rest of sim_run on a result sim_run_memory filled: communication, step time,
 * throughput and cost. */
void sim_run_time(const sim_input *in, const struct strategy *s, double tokens, result *r);

/* Evaluate one strategy: memory, communication, step time, throughput; and the cost of
 * `tokens` tokens when tokens > 0. Pure and allocation-free; never fails (an unsuitable
 * combination comes back with applicable = false and a reason). */
void sim_run(const sim_input *in, const struct strategy *s, double tokens, result *r);

#endif
