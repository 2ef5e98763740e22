/* strat_zero2.c -- ZeRO stage 2: optimizer states and gradients sharded. */
#include "core/zero_common.h"

/* As stage 1, but gradients are partitioned, so each micro-batch's gradients are
 * reduce-scattered as they are produced (DeepSpeed reduces every micro-batch in stage 2). */
const strategy strat_zero2 = {
    .id = STRAT_ZERO2,
    .name = "zero2",
    .label = "ZeRO-2",
    .shards = {.optimizer = true, .gradients = true},
    .grad_reduce = REDUCE_PER_MICRO_BATCH,
    .offload_optimizer = true,
    .buffers = zero_bucket_buffers,
    .comm = zero_bucket_comm,
};
