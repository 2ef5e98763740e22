/* strat_zero3.c -- ZeRO stage 3: parameters, gradients and optimizer states all sharded. */
#include <math.h>

#include "strategy.h"

static bool zero3_memory(const sim_input *in, memory *mem, char *why, int whylen)
{
    (void)why; (void)whylen;
    const training *t = in->t;
    double n = (double)in->dp, pb = in->bt.param;
    memory_states(in, n, n, n, mem);
    /* Gradients of a module arrive whole before their reduce-scatter: one reduce bucket,
     * never more than the rank's parameters. */
    mem->comm_buffers = in->bt.grad * fmin(t->reduce_bucket, in->local_params);
    /* Working set: the module being computed, gathered whole (the largest one bounds it),
     * plus what the prefetcher has fetched ahead, capped by stage3_max_live_parameters. */
    double live = fmin(t->max_live_params, in->local_largest + t->prefetch_bucket);
    live = fmin(fmax(live, in->local_largest), in->local_params);
    mem->gathered_params = pb * live;
    return true;
}

/* DeepSpeed turns overlap_comm on by default for stage 3 (deepspeed/runtime/zero/config.py). */
const strategy strat_zero3 = {"zero3", "ZeRO-3", 3, true, zero3_memory};
