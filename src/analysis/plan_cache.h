/* plan_cache.h -- what one search worker keeps between configurations: inputs and batch rates. */
#ifndef ZS_PLAN_CACHE_H
#define ZS_PLAN_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/scenario.h"

/* One worker's cache, for the configurations of one search: trainings equal to the scenario's
 * but for the dimensions plan searches (GPUs, TP, CP, PP, virtual stages and stage layers,
 * micro-batch, accumulation, recomputation, sequence parallelism, offload, EP, framework). */
typedef struct plan_cache plan_cache;

/* A new empty cache; NULL when out of memory (plan_cache_prepare then prepares afresh). */
plan_cache *plan_cache_new(void);
void plan_cache_free(plan_cache *c);

/* The key of t's batch rates in a search (framework index fi): the searched dimensions they
 * read (not the GPU count, the accumulation, offload, nor EP unless GEMMs are costed by
 * shape: sim_prepare_batch_from's contract), packed. False for values too large to pack (then
 * none are kept for t). Pure. */
typedef struct plan_key {
    uint64_t w[2];
} plan_key;
bool plan_cache_key(const training *t, int fi, plan_key *k);

/* sim_prepare_lazy(.., t) of sc's model and hardware, bit for bit: from a kept input that differs
 * only in the batch (sim_prepare_batch), with the batch rates of the same configuration at
 * another GPU count, accumulation, offload or EP where kept under k (sim_prepare_batch_from,
 * sim_prepare_lazy_from; k NULL: none kept). fi: the framework's index in the search. Returns
 * the prepared input (the cache's, or *scratch when c is NULL), valid until the next call, or
 * NULL with err set as sim_prepare_lazy sets it. */
sim_input *plan_cache_prepare(plan_cache *c, const scenario *sc, const plan_key *k, int fi, const training *t,
    sim_input *scratch, zs_error *err);

/* Where t's batch rates are kept under k (its configuration seen at another GPU count or
 * accumulation): a lower bound of every strategy's sim_time_bound for t, without preparing
 * it (steptime_batch_bound). False when not kept. */
bool plan_cache_bound(const plan_cache *c, const plan_key *k, const training *t, double *bound);

#endif
