/* strat_zero1.c -- ZeRO stage 1: optimizer states sharded across data-parallel ranks. */
#include <math.h>

#include "strategy.h"
#include "zero_common.h"

static bool zero1_memory(const sim_input *in, memory *mem, char *why, int whylen)
{
    (void)why; (void)whylen;
    memory_states(in, 1, mem);
    mem->comm_buffers = zero_bucket_bytes(in, &strat_zero1);
    return true;
}

/* ZeRO paper section 7.2.1: a reduce-scatter of the gradients and an all-gather of the
 * updated parameters, 2P in all; stage 1 reduces once per step (after accumulation). */
static void zero1_comm(const sim_input *in, comm_plan *p)
{
    zero_grad_reduce(in, &strat_zero1, 1, p);
    zero_param_gather(in, p);
}

/* DeepSpeed overlap_comm defaults to false below stage 3 (deepspeed/runtime/zero/config.py). */
const strategy strat_zero1 = {"zero1", "ZeRO-1", 1, false, zero1_memory, zero1_comm};
