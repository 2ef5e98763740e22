/* strat_zero2.c -- ZeRO stage 2: optimizer states and gradients sharded. */
#include <math.h>

#include "strategy.h"
#include "zero_common.h"

static bool zero2_memory(const sim_input *in, memory *mem, char *why, int whylen)
{
    (void)why; (void)whylen;
    double n = (double)in->dp;
    memory_states(in, 1, n, n, mem);
    mem->comm_buffers = zero_bucket_bytes(in, &strat_zero2);
    return true;
}

const strategy strat_zero2 = {"zero2", "ZeRO-2", 2, false, zero2_memory};
