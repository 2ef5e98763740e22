/* sim.h -- one evaluation: model x hardware x training x strategy -> memory, time and cost. */
#ifndef ZS_SIM_H
#define ZS_SIM_H

#include <stdbool.h>

#include "core/error.h"
#include "core/result.h"
#include "core/scenario.h"

struct strategy;

/* Derive the shared quantities. Fails (ZS_ERR_USAGE/ZS_ERR_INPUT) when the training does not
 * validate or does not suit the model (e.g. more pipeline stages than layers, tensor
 * parallelism that does not divide the heads). */
int sim_prepare(sim_input *in, const model *m, const param_counts *pc, const hardware *hw, const training *t,
    zs_error *err);

/* sim_prepare without the block activations (layer_act left 0, which memory then computes
 * on each call); sim_prepare_activations adds them, the two together being sim_prepare. For a
 * search that sizes few of the configurations it prepares. Fails as sim_prepare. */
int sim_prepare_lazy(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
    const training *t, zs_error *err);
void sim_prepare_activations(sim_input *in);

/* Make in, prepared (sim_prepare_lazy, ZS_OK) for a training equal to t but for micro_batch,
 * grad_accum and checkpointing, what sim_prepare_lazy(in, .., t) makes it, bit for bit,
 * redoing only what those fields decide (the rates; layer_act back to 0): a search's inner
 * loop. Fails as sim_prepare_lazy would for t, with the same rule, leaving in as it was. */
int sim_prepare_batch(sim_input *in, const training *t, zs_error *err);

/* What sim_prepare_batch computes, which depends on neither the GPU count, the accumulation
 * (the step FLOPs are redone from the micro-batch ones), offload nor EP (but for
 * --gemm-shapes, whose routed experts' GEMMs have T k EP / E rows split over ETP): a search
 * keeps it across them. */
typedef struct sim_batch {
    flops_tokens tok;
    flops fl;
    double gemm_efficiency;
    mb_time mb;
    double pipe_pace;
} sim_batch;

/* in's batch part (prepared in). Pure; never fails. */
sim_batch sim_batch_of(const sim_input *in);

/* sim_prepare_batch with the batch part given: b = sim_batch_of an input prepared for a
 * training equal to t but for gpus, grad_accum, offload and ep (ep only without --gemm-shapes);
 * in as for sim_prepare_batch. The same bytes as sim_prepare_batch; fails as it does. */
int sim_prepare_batch_from(sim_input *in, const training *t, const sim_batch *b, zs_error *err);

/* sim_prepare_lazy with the batch part given (b as for sim_prepare_batch_from, for a training
 * equal to t but for gpus, grad_accum, offload and ep, ep only without --gemm-shapes): the
 * same bytes; fails as it does. */
int sim_prepare_lazy_from(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
    const training *t, const sim_batch *b, zs_error *err);

/* Memory only (the cheap half of sim_run, for searches that prune on fit). Returns r->fits;
 * r->applicable false when the strategy cannot run the configuration. */
bool sim_run_memory(const sim_input *in, const struct strategy *s, result *r);

/* The rest of sim_run on a result sim_run_memory filled: communication, step time,
 * throughput and cost. */
void sim_run_time(const sim_input *in, const struct strategy *s, double tokens, result *r);

/* A lower bound of the r->step.total sim_run_time would give s on in (steptime_bound), for
 * searches that need only configurations faster than one they hold. Pure; never fails. */
double sim_time_bound(const sim_input *in, const struct strategy *s);

/* Evaluate one strategy: memory, communication, step time, throughput; and the cost of
 * `tokens` tokens when tokens > 0. Pure and allocation-free; never fails (an unsuitable
 * combination comes back with applicable = false and a reason). */
void sim_run(const sim_input *in, const struct strategy *s, double tokens, result *r);

/* Prepare sc and evaluate each of its chosen strategies into r (room for STRATEGY_MAX).
 * Writes the number evaluated to *n. Fails like sim_prepare. */
int sim_run_scenario(const scenario *sc, result *r, int *n, zs_error *err);

#endif
