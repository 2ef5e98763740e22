/* result.h -- what one evaluation gives: memory, communication, step time, throughput and cost. */
#ifndef ZS_RESULT_H
#define ZS_RESULT_H

#include <stdbool.h>

#include "core/comm.h"
#include "core/memory.h"

struct strategy;
struct framework;

/* Where a step's time goes, in seconds (per GPU, every GPU alike). */
typedef struct step_time {
    double compute;      /* forward + backward + recompute of all micro-batches */
    double contention;   /* of compute: its slowdown where it overlaps collectives (NCCL's SMs) */
    double comm_exposed; /* collectives not hidden under compute */
    double exposed_ep;   /* of comm_exposed: the experts' all-to-all (never hidden) */
    double exposed_cp;   /* of comm_exposed: CP's K/V ring beyond the attention it hides under */
    double optimizer;    /* optimizer step (on the GPU, or CPU Adam with offload) */
    double bubble;       /* pipeline fill and drain */
    double offload;      /* PCIe transfers not hidden under compute */
    double overhead;     /* the framework's per-step host work (fitted) */
    double total;
} step_time;

/* Cost of training for a token budget (zero when no budget was given). */
typedef struct train_cost {
    double tokens;  /* tokens to train on */
    double seconds; /* wall-clock time */
    double gpu_hours;
    double dollars;
    double kwh; /* GPU energy at TDP */
} train_cost;

typedef struct result {
    const struct strategy *strategy;
    const struct framework *framework;
    bool applicable; /* false when the strategy cannot run this configuration */
    char why[128];   /* reason when not applicable */
    memory mem;
    bool fits;         /* GPU and host memory both fit */
    comm_plan plan;    /* the collectives of one step */
    comm_summary comm; /* bytes per GPU per step by level and kind */
    step_time step;
    double tokens_per_second; /* whole cluster */
    double tflops_per_gpu;    /* model FLOPs per second per GPU, in 1e12, attention counted whole as
                                 PaLM appendix B and Megatron/NeMo's published tables count it */
    double mfu;               /* model FLOPs utilisation, attention counted as computed (causal:
                                 half), as the compute time counts it: 0 < mfu <= hfu < 1 */
    double mfu_published;     /* MFU and HFU with attention counted whole (PaLM appendix B), the
                                 convention of published MFU/HFU tables: validate compares these */
    double hfu_published;
    double hfu;               /* hardware FLOPs utilisation: recompute counted */
    train_cost cost;
    bool has_interval;       /* the profile had fitted uncertainties */
    double step_lo, step_hi; /* seconds: central 90% interval of step.total */
} result;

#endif
