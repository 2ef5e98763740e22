/* zero_common.h -- what the bucketed ZeRO stages (1 and 2) share: DeepSpeed's reduce and
 * all-gather buckets, the gradient reduce-scatter and the parameter all-gather after the step. */
#ifndef ZS_ZERO_COMMON_H
#define ZS_ZERO_COMMON_H

#include "core/strategy.h"

/* Bytes of DeepSpeed's reduce and all-gather buckets (4.5x with overlap_comm). Pure. */
void zero_bucket_buffers(const strategy *s, const sim_input *in, memory *mem);

/* A gradient reduce-scatter per s->grad_reduce and an all-gather of the updated parameters
 * (ZeRO paper section 7.2.1: 2P in all). Pure. */
void zero_bucket_comm(const strategy *s, const sim_input *in, comm_plan *p);

#endif
