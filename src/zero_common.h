/* zero_common.h -- what ZeRO stages 1 and 2 share: DeepSpeed's bucket buffers. */
#ifndef ZS_ZERO_COMMON_H
#define ZS_ZERO_COMMON_H

#include <math.h>

#include "strategy.h"

/* Bytes of DeepSpeed's reduce and all-gather buckets for stages 1 and 2. With overlap_comm
 * DeepSpeed documents "4.5x the allgather_bucket_size and reduce_bucket_size values ... 5e8 x
 * 2 Bytes x 2 x 4.5" (DeepSpeed configuration docs, zero_optimization.overlap_comm). A bucket
 * never exceeds the rank's parameters. */
static inline double zero_bucket_bytes(const sim_input *in, const strategy *s)
{
    double p = in->local_params;
    double bytes = in->bt.grad * fmin(in->t->reduce_bucket, p) +
                   in->bt.param * fmin(in->t->allgather_bucket, p);
    return strategy_overlap(in, s) ? 4.5 * bytes : bytes;
}

/* Gradient reduce-scatter over the DP group, `calls` times per step, hidden under backward
 * bucket by bucket only with overlap_comm; the last reduce bucket is exposed. */
static inline void zero_grad_reduce(const sim_input *in, const strategy *s, double calls,
                                    comm_plan *p)
{
    double grads = in->bt.grad * in->local_params;
    double tail = in->bt.grad * fmin(in->t->reduce_bucket, in->local_params);
    double buckets = ceil(grads / tail);
    comm_add(p, (comm_op){COLL_REDUCE_SCATTER, GROUP_DP, grads / buckets, calls * buckets, calls > 1,
                          strategy_overlap(in, s) ? OVERLAP_BACKWARD : OVERLAP_NONE, tail,
                          "gradient reduce-scatter", 0, 0});
}

/* All-gather of the updated 16-bit parameters after the optimizer step: nothing to hide it. */
static inline void zero_param_gather(const sim_input *in, comm_plan *p)
{
    double params = in->bt.param * in->local_params;
    double buckets = ceil(params / (in->bt.param * fmin(in->t->allgather_bucket, in->local_params)));
    comm_add(p, (comm_op){COLL_ALL_GATHER, GROUP_DP, params / buckets, buckets, false,
                          OVERLAP_NONE, 0, "parameter all-gather (after step)", 0, 0});
}

#endif
