/* strat_zero3.c -- ZeRO stage 3: parameters, gradients and optimizer states all sharded. */
#include <math.h>
#include <stdbool.h>

#include "strategy.h"

static void zero3_buffers(const strategy *s, const sim_input *in, memory *mem)
{
    (void)s;
    const training *t = in->t;
    /* Gradients of a module arrive whole before their reduce-scatter: one reduce bucket,
     * never more than the rank's parameters. */
    mem->comm_buffers = in->bt.grad * fmin(t->reduce_bucket, in->local_params);
    /* Working set: the module being computed, gathered whole (the largest one bounds it),
     * plus what the prefetcher has fetched ahead, capped by stage3_max_live_parameters. */
    double live = fmin(t->max_live_params, in->local_largest + t->prefetch_bucket);
    live = fmin(fmax(live, in->local_largest), in->local_params);
    mem->gathered_params = in->bt.param * live;
}

/* ZeRO paper section 7.2.2: parameters are all-gathered for forward and again for backward,
 * and gradients reduce-scattered: 3P per micro-batch. A full recompute gathers once more.
 * The prefetcher hides gathers under compute; the first module's gather cannot hide. */
static void zero3_comm(const strategy *s, const sim_input *in, comm_plan *p)
{
    const training *t = in->t;
    double m = (double)t->grad_accum;
    double sharded = in->local_params - in->local_small;
    /* One all-gather per module (the first one's cannot hide), one reduce-scatter per
     * reduce bucket: per-call latency matters at scale. */
    double modules = in->m->params_only ? 1 : fmax(1, in->pc->modules_per_layer * (double)in->stage_layers + 2);
    double params = in->bt.param * sharded / modules, first = in->bt.param * fmin(in->local_largest, sharded);
    bool overlap = strategy_overlap(in, s);
    overlap_kind fwd = overlap ? OVERLAP_FORWARD : OVERLAP_NONE;
    overlap_kind bwd = overlap ? OVERLAP_BACKWARD : OVERLAP_NONE;
    comm_add(p, (comm_op){COLL_ALL_GATHER, GROUP_DP, params, m * modules, true, fwd, first, "parameter all-gather (forward)", 0, 0});
    double again = t->checkpointing == CKPT_FULL ? 2 : 1;
    comm_add(p, (comm_op){COLL_ALL_GATHER, GROUP_DP, params, again * m * modules, true, bwd, 0,
                          t->checkpointing == CKPT_FULL ? "parameter all-gather (recompute + backward)" : "parameter all-gather (backward)", 0, 0});
    double grads = in->bt.grad * in->local_params;
    double bucket = in->bt.grad * fmin(t->reduce_bucket, in->local_params);
    double buckets = ceil(grads / bucket);
    comm_add(p, (comm_op){COLL_REDUCE_SCATTER, GROUP_DP, grads / buckets, m * buckets, true, bwd, bucket, "gradient reduce-scatter", 0, 0});
}

/* DeepSpeed turns overlap_comm on by default for stage 3 (deepspeed/runtime/zero/config.py);
 * offload_param exists only at stage 3 (ZeRO-Infinity, arXiv 2104.07857). */
const strategy strat_zero3 = {
    .name = "zero3", .label = "ZeRO-3",
    .shards = {.optimizer = true, .gradients = true, .parameters = true},
    .grad_reduce = REDUCE_PER_MICRO_BATCH,
    .offload_optimizer = true, .offload_params = true,
    .overlap_default = true,
    .buffers = zero3_buffers, .comm = zero3_comm,
};
