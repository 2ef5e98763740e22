/* strat_zero1.c -- ZeRO stage 1: optimizer states sharded across data-parallel ranks. */
#include "core/zero_common.h"

/* ZeRO paper section 7.2.1: a reduce-scatter of the gradients and an all-gather of the
 * updated parameters, 2P in all; stage 1 keeps whole gradients, so it reduces once per step
 * (after accumulation). DeepSpeed overlap_comm defaults to false below stage 3
 * (deepspeed/runtime/zero/config.py). ZeRO-Offload moves the optimizer states; parameters
 * are offloaded only at stage 3 (DeepSpeed's offload_param is a stage-3 option). */
const strategy strat_zero1 = {
    .id = STRAT_ZERO1,
    .name = "zero1",
    .label = "ZeRO-1",
    .shards = {.optimizer = true},
    .grad_reduce = REDUCE_PER_STEP,
    .offload_optimizer = true,
    .buffers = zero_bucket_buffers,
    .comm = zero_bucket_comm,
};
