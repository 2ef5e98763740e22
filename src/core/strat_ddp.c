/* strat_ddp.c -- plain data parallelism (PyTorch DDP): every rank holds all model states. */
#include <math.h>

#include "core/minmax.h"
#include "core/strategy.h"

/* DDP copies gradients into its all-reduce buckets unless gradient_as_bucket_view makes the
 * gradients views of them (PyTorch DistributedDataParallel documentation: the saving "will be
 * equal to the total gradients size"). */
static void ddp_buffers(const strategy *s, const sim_input *in, memory *mem)
{
    (void)s;
    /* One process: no DDP wrapper and no buckets (HF Trainer wraps the model in
     * DistributedDataParallel only when distributed, transformers Trainer._wrap_model; QLoRA's
     * single-GPU recipe runs unwrapped). A distributed run with one data-parallel rank (TP x PP
     * = the world) is still wrapped, and keeps its buckets. */
    if (in->t->gpus <= 1) {
        mem->comm_buffers = 0;
        return;
    }
    mem->comm_buffers = in->t->ddp_bucket_view ? 0 : mem->gradients;
}

/* One all-reduce of the gradients per step: with gradient accumulation DDP's no_sync()
 * skips the earlier micro-batches. Buckets (bucket_cap_mb) overlap the backward pass; the
 * last bucket waits for the last gradient (Li et al. 2020, PyTorch Distributed, VLDB). */
static void ddp_comm(const strategy *s, const sim_input *in, comm_plan *p)
{
    (void)s;
    double grads = in->bt.reduce * in->trainable;
    double bucket = zs_fmin(in->t->ddp_bucket_bytes, grads), buckets = ceil(grads / bucket);
    comm_add(p,
        (comm_op){COLL_ALL_REDUCE, GROUP_DP, grads / buckets, buckets, false, OVERLAP_BACKWARD, bucket,
            "gradient all-reduce", 0, 0, 0, 0});
}

const strategy strat_ddp = {
    .id = STRAT_DDP,
    .name = "ddp",
    .label = "DDP",
    .grad_reduce = REDUCE_PER_STEP,
    .buffers = ddp_buffers,
    .comm = ddp_comm,
};
