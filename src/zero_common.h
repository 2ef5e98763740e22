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

#endif
