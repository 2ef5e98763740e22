/* strat_ddp.c -- plain data parallelism (PyTorch DDP): every rank holds all model states. */
#include <math.h>
#include <stdio.h>

#include "strategy.h"

static bool ddp_memory(const sim_input *in, memory *mem, char *why, int whylen)
{
    if (in->t->offload_optimizer != OFFLOAD_NONE || in->t->offload_params != OFFLOAD_NONE) {
        snprintf(why, (size_t)whylen, "offload needs ZeRO");
        return false;
    }
    memory_states(in, 1, 1, 1, mem);
    /* DDP copies gradients into its all-reduce buckets unless gradient_as_bucket_view makes
     * the gradients views of them (PyTorch DistributedDataParallel documentation: the saving
     * "will be equal to the total gradients size"). */
    mem->comm_buffers = in->t->ddp_bucket_view ? 0 : mem->gradients;
    return true;
}

const strategy strat_ddp = {"ddp", "DDP", 0, false, ddp_memory};
