/* compare.h -- the strategy decision in one pass: per strategy (and framework) memory, largest
 * micro-batch, fewest GPUs, fastest configuration, cost, and what each saves. */
#ifndef ZS_COMPARE_H
#define ZS_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/framework.h"
#include "analysis/plan.h"
#include "core/result.h"
#include "core/scenario.h"
#include "core/strategy.h"

#define COMPARE_MAX_ROWS (STRATEGY_MAX * FRAMEWORK_MAX)

/* What one strategy under one framework gives for a scenario. */
typedef struct compare_row {
    const strategy *s;
    const framework *fw;
    result given;                      /* at the scenario's own settings (estimate) */
    int64_t max_micro_batch;           /* largest micro-batch that fits at the scenario's GPUs, layout
                                          and checkpointing; 0 when not even 1 fits */
    int64_t max_micro_batch_recompute; /* the same with full recomputation */
    int64_t max_seq_len;               /* longest --seq-len (tokens, a multiple of 128 x CP) that fits
                                          at the given micro-batch, layout and checkpointing; 0 = none */
    training at_max_t;                 /* the scenario's training at max_micro_batch */
    result at_max;                     /* its result (valid when max_micro_batch > 0) */
    int64_t min_gpus;                  /* fewest GPUs with which some configuration fits (plan); 0 = none */
    plan_entry min_entry;              /* that configuration (valid when min_gpus > 0) */
    bool has_best;                     /* a configuration fits within the plan space */
    plan_entry best;                   /* the fastest (or cheapest: sp->rank) within the plan space */
    /* Against the baseline row (DDP of the same framework when it fits anywhere, else the
     * weakest strategy that does); NAN where either side has no value. */
    const struct compare_row *baseline;
    double saved_gpus;         /* baseline min_gpus - this min_gpus */
    double saved_memory_bytes; /* per GPU at the given settings */
    double saved_step_seconds; /* fastest configurations' step times */
    double saved_dollars;      /* fastest configurations' cost of the token budget */
} compare_row;

/* Evaluate every strategy of sc under its framework (or, with frameworks non-empty, under
 * each framework listed) that the framework runs: estimate at the given settings, the largest
 * micro-batch with and without full recomputation, and one plan_search over sp per framework
 * for the fewest GPUs and the fastest configuration; then the savings against the baseline.
 * Writes at most max rows and their number to *n. Fails like sim_prepare for a scenario the
 * simulator rejects and like plan_search for an empty plan space. */
int compare_run(const scenario *sc, const plan_space *sp, const framework *const *frameworks,
    compare_row *rows, int max, int *n, zs_error *err);

#endif
