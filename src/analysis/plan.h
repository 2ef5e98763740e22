/* plan.h -- searching the configuration space: fastest/cheapest feasible, minimum GPUs,
 * largest trainable model. */
#ifndef ZS_PLAN_H
#define ZS_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/framework.h"
#include "core/result.h"
#include "core/scenario.h"
#include "core/strategy.h"

typedef enum { RANK_TIME, RANK_COST, RANK_THROUGHPUT } plan_rank;

/* The space to search and the constraints. */
typedef struct plan_space {
    int64_t max_gpus;                               /* search whole nodes up to this many GPUs */
    int64_t min_gpus;                               /* smallest GPU count to consider (default 1) */
    int64_t global_batch;                           /* sequences per step (fixed across configurations) */
    double tokens;                                  /* training budget in tokens (0: none) */
    double budget_dollars;                          /* keep configurations that cost at most this (0: any) */
    double deadline_seconds;                        /* keep configurations that finish within this (0: any) */
    plan_rank rank;                                 /* what "best" means */
    bool strategies[STRATEGY_MAX];                  /* by strategy_index: which to consider */
    const framework *frameworks[FRAMEWORK_MAX + 1]; /* NULL-terminated; none = the training's */
    bool allow_offload;                             /* search optimizer/parameter offload */
    bool allow_pp;                                  /* search pipeline parallelism */
    bool allow_tp;                                  /* search tensor parallelism */
    bool allow_cp;           /* search context parallelism (sequences >= PLAN_CP_MIN_SEQ) */
    int64_t max_micro_batch; /* largest micro-batch tried (powers of two) */
    /* Dimensions the user fixed (flags given to plan): 0 (or false) = searched. */
    int64_t fixed_micro_batch, fixed_tp, fixed_pp, fixed_vstages, fixed_cp, fixed_ep;
    bool fixed_ckpt;    /* keep the training's checkpointing */
    bool fixed_offload; /* keep the training's offload choices */
    /* The caller reads only the answers (top, best, fewest GPUs), not the feasible count: a
     * configuration the time bound rules out is then not sized either (compare). */
    bool answers_only;
} plan_space;

/* One evaluated configuration: its training and the result. */
typedef struct plan_entry {
    training t;
    result r;
    double score; /* the rank key: lower is better; cost and throughput are
                     compared in 1% steps (closer is a tie, far inside the
                     model's error), ties go to the faster step */
} plan_entry;

#define PLAN_RULES 8 /* refusal rules counted apart; the rest are not */

/* What a search found. */
typedef struct plan_result {
    plan_entry *top; /* best first, at most top_n (heap; plan_result_free) */
    int n_top;
    plan_entry best_per_strategy[STRATEGY_MAX]; /* by strategy_index; valid where has_best[i] */
    bool has_best[STRATEGY_MAX];
    int64_t min_gpus[STRATEGY_MAX];     /* smallest GPU count at which the strategy fits; 0 = none */
    plan_entry min_entry[STRATEGY_MAX]; /* the best configuration at min_gpus (where non-zero) */
    uint64_t evaluated;                 /* configurations evaluated */
    uint64_t feasible;                  /* of which fit in memory and met the constraints */
    /* Configurations sim_prepare refused, by rule (zs_error.rule), the most common first
     * after plan_search; each with the first configuration it refused, to say it in words
     * (plan_refusals). prepared: those it accepted (once per framework, not per strategy). */
    uint64_t prepared, refused[PLAN_RULES];
    const char *rule[PLAN_RULES];
    training rule_t[PLAN_RULES];
    int n_rules;
} plan_result;

/* Progress callback: called now and then with done/total; may be NULL. */
typedef void (*plan_progress)(uint64_t done, uint64_t total, void *ctx);

/* Defaults: up to 64 GPUs, all strategies, offload, TP and PP searched, micro-batch <= 32. */
void plan_space_init(plan_space *sp);

/* Search the space for sc's model and hardware (sc->t gives the fixed parts: precision,
 * optimizer, seq_len, buckets, and whatever sp->fixed_* says; sc->chosen is not read:
 * sp->strategies says which), one thread per core over the GPU counts. Keeps the top_n best
 * feasible configurations (ties: faster step, then fewer GPUs, lower TP, then PP). Fails with ZS_ERR_USAGE on
 * an empty space (e.g. global batch smaller than any data-parallel degree), ZS_ERR_IO when out of memory;
 * never allocates on the evaluation path. */
int plan_search(const scenario *sc, const plan_space *sp, int top_n, plan_progress cb, void *ctx,
    plan_result *out, zs_error *err);

void plan_result_free(plan_result *r);

#define PLAN_MAX_THREADS 16

/* Sequences from this long on, plan also tries context parallelism 2, 4 and 8 (tokens). */
#define PLAN_CP_MIN_SEQ 16384

/* Largest expert-parallel degree plan tries for MoE models. */
#define PLAN_MAX_EP 64

/* Sequences per step the searches take (--global-batch's range in plan, compare and report):
 * a bound that keeps every batch product in int64, far above any published run's. */
#define PLAN_MAX_GLOBAL_BATCH 100000000

/* The largest model strategy st can train on `gpus` GPUs: with sc->m a real model, the most
 * layers (depth scaling, width fixed) for which some configuration (TP, PP, micro-batch 1,
 * any checkpointing, offload if sp allows) fits; without one, the largest bare parameter
 * count. Writes the parameter count (0 when even the smallest does not fit) and, for a real
 * model, the layer count. Pure apart from the search; fails like plan_search. */
int plan_max_model(const scenario *sc, const plan_space *sp, const strategy *st, int64_t gpus, double *params,
    int64_t *layers, zs_error *err);

/* plan_max_model that also says (*capped) when the search limit itself fit. */
int plan_max_model_capped(const scenario *sc, const plan_space *sp, const strategy *st, int64_t gpus,
    double *params, int64_t *layers, bool *capped, zs_error *err);

/* When nothing in sc fits, what single change would, as the planner finds it by evaluating
 * the candidates in order: --checkpointing full, CPU offload of the optimizer (and of the
 * parameters for ZeRO-3), TP up to a node, PP on the same GPUs, then twice, four times ... the GPUs (up to
 * 2^20, TP and PP kept), then full recompute with more GPUs. Writes a phrase such as "fits with
 * --checkpointing full (ZeRO-3: 71.20 GiB per GPU)" into buf, or "" when none does. Never fails. */
void plan_suggest(const scenario *sc, char *buf, size_t len);

/* The search's limits for plan_max_model: a real model is deepened to at most PLAN_MAX_LAYERS
 * (model_validate's num_hidden_layers bound), a bare count to PLAN_MAX_PARAMS; *capped says the
 * limit itself fit, so the answer is "at least". */
#define PLAN_MAX_LAYERS 100000
#define PLAN_MAX_PARAMS 1e16

/* plan_retry.c: what plan does around one search. */

/* plan_search, and when round_batch is set, nothing fits and sp has no budget or deadline: the
 * batches near sp->global_batch with ever more factors of two (rounded to a multiple of 2, 4,
 * 8, ..., nearest first) are searched in turn and the first with a feasible configuration is
 * kept, its batch written to sp->global_batch (a batch given in tokens is approximate: 4M
 * tokens at 4096 is 977 sequences, a prime). The retries report no progress. Fails like
 * plan_search; *out is then empty (nothing to free). */
int plan_search_rounded(const scenario *sc, plan_space *sp, int top_n, bool round_batch, plan_progress cb,
    void *ctx, plan_result *out, zs_error *err);

/* When nothing fits: when one rule refused more of the configurations searched than any other
 * reason (more than were accepted), "94% of the 2,040 configurations searched were refused:
 * RULE'S MESSAGE" into buf (its message for the first configuration it refused); else "".
 * Never fails. */
void plan_refusals(const scenario *sc, const plan_result *pr, char *buf, size_t len);

/* What plan_what_would_fit found. */
typedef enum {
    PLAN_HINT_BUDGET,    /* a budget or deadline is set: drop it to see what fits at all */
    PLAN_HINT_MORE_GPUS, /* entry fits with more GPUs (--max-gpus entry.t.gpus) */
    PLAN_HINT_OFFLOAD,   /* entry fits with offload (without --no-offload) */
    PLAN_HINT_NONE,      /* nothing up to 4096 GPUs, with offload either */
} plan_hint_kind;

typedef struct plan_hint {
    plan_hint_kind kind;
    plan_entry entry; /* the first configuration that fits (MORE_GPUS, OFFLOAD) */
    char refused[320]; /* plan_refusals: the rule that refused most of the search, or "" */
} plan_hint;

/* When a search of sp found nothing: search on, in doubling GPU ranges up to 4096 (only the
 * counts not yet searched), then with offload if it was off, and say what fits first. Never
 * fails (a failed search counts as nothing found). */
void plan_what_would_fit(const scenario *sc, const plan_space *sp, plan_hint *out);

#define PLAN_GRID_MAX 64

/* The largest trainable model per GPU count and strategy (plan --max-model). */
typedef struct plan_model_grid {
    int n;            /* GPU counts */
    int n_strategies; /* strategies[] in order */
    int64_t gpus[PLAN_GRID_MAX];
    double params[PLAN_GRID_MAX][STRATEGY_MAX]; /* parameters; 0 when nothing fits */
    bool capped[PLAN_GRID_MAX][STRATEGY_MAX];   /* the search limit itself fit: "at least" */
} plan_model_grid;

/* plan_max_model_capped for each of the n (<= PLAN_GRID_MAX) GPU counts gpus and every
 * strategy, into *g; cb (may be NULL) is called before each cell with its number from 1 and
 * the cell count. Fails like plan_max_model at the first cell that fails. */
int plan_max_model_grid(const scenario *sc, const plan_space *sp, const int64_t *gpus, int n,
    plan_progress cb, void *ctx, plan_model_grid *g, zs_error *err);

#endif
