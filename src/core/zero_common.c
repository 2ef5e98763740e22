/* zero_common.c -- DeepSpeed's bucketed gradient reduction and parameter gathering (ZeRO-1/2). */
#include "core/zero_common.h"

#include <math.h>

#include "core/framework.h"
#include "core/minmax.h"

/* Elements per bucket of DeepSpeed's buffered_allreduce_fallback, the reduction BF16_Optimizer
 * runs (MEMORY_OPT_ALLREDUCE_SIZE = 500000000, deepspeed/runtime/engine.py at v0.7.0 and at
 * deepspeedai/DeepSpeed@cf443004 v0.19.5). */
#define DS_ALLREDUCE_BUCKET_ELEMS 5e8

/* With overlap_comm DeepSpeed documents "4.5x the allgather_bucket_size and
 * reduce_bucket_size values ... 5e8 x 2 Bytes x 2 x 4.5" (DeepSpeed configuration docs,
 * zero_optimization.overlap_comm). A bucket never exceeds the rank's parameters. */
void zero_bucket_buffers(const strategy *s, const sim_input *in, memory *mem)
{
    double p = in->local_params;
    double bytes =
        in->bt.grad * zs_fmin(in->t->reduce_bucket, p) + in->bt.gather * zs_fmin(in->t->allgather_bucket, p);
    mem->comm_buffers = strategy_overlap(in, s) ? 4.5 * bytes : bytes;
}

/* Gradient reduce-scatter over the shard group, once per step or every micro-batch, hidden
 * under backward bucket by bucket only with overlap_comm; the last reduce bucket is exposed.
 * Then the updated 16-bit parameters are all-gathered after the optimizer step: exposed,
 * unless the framework overlaps that gather with the next forward (Megatron's
 * --overlap-param-gather). */
void zero_bucket_comm(const strategy *s, const sim_input *in, comm_plan *p)
{
    double calls = s->grad_reduce == REDUCE_PER_MICRO_BATCH ? (double)in->t->grad_accum : 1;
    double grads = in->bt.reduce * in->trainable; /* as reduced: the wire dtype */
    double tail = in->bt.reduce * zs_fmin(in->t->reduce_bucket, in->trainable);
    double buckets = ceil(grads / tail);
    if (in->t->bf16_optimizer) {
        /* BF16_Optimizer all-reduces its fp32 buffer at the boundary, after the last backward
         * (fw_deepspeed.c). */
        buckets = ceil(in->trainable / DS_ALLREDUCE_BUCKET_ELEMS);
        comm_add(p,
            (comm_op){COLL_ALL_REDUCE, GROUP_SHARD, grads / buckets, buckets, false, OVERLAP_NONE, 0,
                "gradient all-reduce (BF16_Optimizer)", 0, 0, 0, 0});
    } else {
        comm_add(p,
            (comm_op){COLL_REDUCE_SCATTER, GROUP_SHARD, grads / buckets, calls * buckets, calls > 1,
                strategy_overlap(in, s) ? OVERLAP_BACKWARD : OVERLAP_NONE, tail, "gradient reduce-scatter",
                0, 0, 0, 0});
    }
    /* Only what the optimizer updated is gathered: all parameters, or LoRA's adapters. */
    double params = in->bt.gather * in->trainable;
    double gathers = ceil(params / (in->bt.gather * zs_fmin(in->t->allgather_bucket, in->trainable)));
    bool hide = in->fw->overlap_param_gather && strategy_overlap(in, s);
    comm_add(p,
        (comm_op){COLL_ALL_GATHER, GROUP_SHARD, params / gathers, gathers, false,
            hide ? OVERLAP_FORWARD : OVERLAP_NONE, 0, "parameter all-gather (after step)", 0, 0, 0, 0});
}
