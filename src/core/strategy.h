/* strategy.h -- the descriptor each data-parallel strategy plugs into the simulator. */
#ifndef ZS_STRATEGY_H
#define ZS_STRATEGY_H

#include <stdbool.h>

#include "core/comm.h"
#include "core/memory.h"
#include "core/scenario.h"

/* When a strategy sends the gradients over the data-parallel group. */
typedef enum {
    REDUCE_PER_STEP,        /* once per step, after accumulation (DDP no_sync, ZeRO-1) */
    REDUCE_PER_MICRO_BATCH, /* every micro-batch, as backward produces them (ZeRO-2/3) */
} reduce_schedule;

/* Each strategy's id: its position in strategies[] and the key of per-strategy tables
 * (a framework's runs), so a new strategy shifts no other's entries. */
typedef enum { STRAT_DDP, STRAT_ZERO1, STRAT_ZERO2, STRAT_ZERO3, STRAT_COUNT } strategy_id;

/* A strategy declares what it is; the harness (sim.c, memory.c, comm.c, plan.c) reads these
 * fields and never asks which strategy it has. A new strategy is one file with one of these
 * and one line in the table in strategy.c. */
typedef struct strategy {
    strategy_id id;    /* its row in strategies[] */
    const char *name;  /* "ddp", "zero1", ...: flags, JSON and CSV */
    const char *label; /* "DDP", "ZeRO-1", ...: tables and charts */
    shard_set shards;  /* model states partitioned over the data-parallel group */
    reduce_schedule grad_reduce;
    bool offload_optimizer; /* may keep optimizer states on the host/NVMe (ZeRO-Offload) */
    bool offload_params;    /* may keep parameters there too (ZeRO-Infinity) */
    bool overlap_default;   /* DeepSpeed's overlap_comm default for this stage */
    /* Buffers beyond the model states (buckets, gathered parameters); the harness fills the
     * states, activations, overhead and totals. */
    void (*buffers)(const struct strategy *s, const sim_input *in, memory *mem);
    /* Append the data-parallel collectives of one step (the harness adds TP, PP and offload
     * traffic, which every strategy shares). */
    void (*comm)(const struct strategy *s, const sim_input *in, comm_plan *plan);
} strategy;

/* Room for every strategy: arrays indexed by strategy_index are this long. */
#define STRATEGY_MAX 8

extern const strategy strat_ddp, strat_zero1, strat_zero2, strat_zero3;

/* All strategies by id, weakest sharding first; NULL-terminated, at most STRATEGY_MAX. */
extern const strategy *const strategies[];

/* Look a strategy up by name; NULL when unknown. */
const strategy *strategy_find(const char *name);

/* The strategy that shards exactly `shards`; NULL when none does. */
const strategy *strategy_find_shards(shard_set shards);

/* Position of s in strategies[] (its id, 0 .. STRATEGY_MAX-1); -1 when it is not there. */
int strategy_index(const strategy *s);

/* "ddp|zero1|zero2|zero3": the names for usage messages. Never fails. */
const char *strategy_names(void);

/* The overlap_comm this run uses under strategy s (the flag's, else DeepSpeed's default). */
bool strategy_overlap(const sim_input *in, const strategy *s);

/* Whether s can run with the training's offload settings; writes the reason when not. */
bool strategy_allows(const strategy *s, const training *t, char *why, int whylen);

/* The ZeRO paper's per-GPU volume of s (section 7): gradients all-reduced (2P) without
 * sharding, reduce-scattered plus parameters all-gathered (2P) with optimizer or gradient
 * sharding, and parameters gathered twice (3P) with parameter sharding; in bytes. */
double strategy_ideal_bytes(const strategy *s, const sim_input *in);

#endif
