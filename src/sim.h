/* sim.h -- one evaluation: model x hardware x training x strategy -> memory (and later time). */
#ifndef ZS_SIM_H
#define ZS_SIM_H

#include <stdbool.h>
#include <stdint.h>

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
} sim_input;

typedef struct result {
    const struct strategy *strategy;
    bool applicable;          /* false when the strategy cannot run this configuration */
    char why[128];            /* reason when not applicable */
    memory mem;
    bool fits;                /* GPU and host memory both fit */
} result;

/* Derive the shared quantities. Fails (ZS_ERR_USAGE/ZS_ERR_INPUT) when the training does not
 * validate or does not suit the model (e.g. more pipeline stages than layers, tensor
 * parallelism that does not divide the heads). */
int sim_prepare(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
                const training *t, zs_error *err);

/* Evaluate one strategy. Pure and allocation-free; never fails (an unsuitable combination
 * comes back with applicable = false and a reason). */
void sim_run(const sim_input *in, const struct strategy *s, result *r);

#endif
