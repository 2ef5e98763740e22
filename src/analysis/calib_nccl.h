/* calib_nccl.h -- NCCL's latency model inverted: the per-step latency a collective set's times imply. */
#ifndef ZS_CALIB_NCCL_H
#define ZS_CALIB_NCCL_H

#include <stdbool.h>

#include "analysis/calibrate.h"

/* The per-step Simple ring latency (seconds) of set s's link level for which NCCL's tuning model
 * (core/nccl.c at hw's nccl.version and channels, the links at hw's bandwidths and efficiencies
 * as coll_links builds them) best predicts s's measured times: least squares on log time over
 * s's points, searched from CALIB_NCCL_MIN_ALPHA to CALIB_MAX_ALPHA (or twice the set's
 * alpha-beta latency, when that is more). An inter-node set's
 * intra-node steps take intra_latency. Writes *at_bound when the best value is an end of that
 * range (the times do not pin the latency down), and the fit's root-mean-square log error to
 * *rms_log (0.1: times off by about 10%). Returns false, writing nothing, when hw has no
 * NCCL release, the collective is not one the model costs (all-reduce, reduce-scatter,
 * all-gather) or the set kept no points. Pure. */
bool calib_nccl_alpha(const calib_set *s, const hardware *hw, double intra_latency, double *alpha,
    bool *at_bound, double *rms_log);

#endif
