/* strat_zero2.c -- ZeRO stage 2: optimizer states and gradients sharded. */
#include <math.h>

#include "strategy.h"
#include "zero_common.h"

static bool zero2_memory(const sim_input *in, memory *mem, char *why, int whylen)
{
    (void)why; (void)whylen;
    memory_states(in, 2, mem);
    mem->comm_buffers = zero_bucket_bytes(in, &strat_zero2);
    return true;
}

/* As stage 1, but gradients are partitioned, so each micro-batch's gradients are
 * reduce-scattered as they are produced (DeepSpeed reduces every micro-batch in stage 2). */
static void zero2_comm(const sim_input *in, comm_plan *p)
{
    zero_grad_reduce(in, &strat_zero2, (double)in->t->grad_accum, p);
    zero_param_gather(in, p);
}

const strategy strat_zero2 = {"zero2", "ZeRO-2", 2, false, zero2_memory, zero2_comm};
