/* strategy.h -- the table of functions each data-parallel strategy plugs into the simulator. */
#ifndef ZS_STRATEGY_H
#define ZS_STRATEGY_H

#include <stdbool.h>

#include "sim.h"

typedef struct strategy {
    const char *name;      /* "ddp", "zero1", "zero2", "zero3": flags and JSON */
    const char *label;     /* "DDP", "ZeRO-1", ...: tables and charts */
    int zero_stage;        /* 0 for DDP */
    bool overlap_default;  /* DeepSpeed's overlap_comm default for this stage */
    /* Fill mem->parameters .. comm_buffers/gathered_params; the harness adds activations,
     * overhead and totals. Returns false (and sets why) when the configuration does not
     * apply to this strategy, e.g. optimizer offload under plain DDP. */
    bool (*memory)(const sim_input *in, memory *mem, char *why, int whylen);
    /* Append the data-parallel collectives of one step (the harness adds TP, PP and offload
     * traffic, which every strategy shares). */
    void (*comm)(const sim_input *in, comm_plan *plan);
} strategy;

extern const strategy strat_ddp, strat_zero1, strat_zero2, strat_zero3;

/* All strategies in order ddp, zero1, zero2, zero3; NULL-terminated. */
extern const strategy *const strategies[];

/* Look a strategy up by name; NULL when unknown. */
const strategy *strategy_find(const char *name);

/* The overlap_comm this run uses under strategy s (the flag's, else DeepSpeed's default). */
bool strategy_overlap(const sim_input *in, const strategy *s);

#endif
