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
    memory_states(in, 0, mem);
    /* DDP copies gradients into its all-reduce buckets unless gradient_as_bucket_view makes
     * the gradients views of them (PyTorch DistributedDataParallel documentation: the saving
     * "will be equal to the total gradients size"). */
    mem->comm_buffers = in->t->ddp_bucket_view ? 0 : mem->gradients;
    return true;
}

/* One all-reduce of the gradients per step: with gradient accumulation DDP's no_sync()
 * skips the earlier micro-batches. Buckets (bucket_cap_mb) overlap the backward pass; the
 * last bucket waits for the last gradient (Li et al. 2020, PyTorch Distributed, VLDB). */
static void ddp_comm(const sim_input *in, comm_plan *p)
{
    double grads = in->bt.grad * in->local_params;
    double bucket = fmin(in->t->ddp_bucket_bytes, grads), buckets = ceil(grads / bucket);
    comm_add(p, (comm_op){COLL_ALL_REDUCE, GROUP_DP, grads / buckets, buckets, false, OVERLAP_BACKWARD,
                          bucket, "gradient all-reduce", 0, 0});
}

const strategy strat_ddp = {"ddp", "DDP", 0, false, ddp_memory, ddp_comm};
