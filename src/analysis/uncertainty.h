/* uncertainty.h -- step-time intervals from a calibrated profile's parameter uncertainties. */
#ifndef ZS_UNCERTAINTY_H
#define ZS_UNCERTAINTY_H

#include <stdbool.h>

#include "core/hardware.h"
#include "core/sim.h"

struct strategy;

#define UNCERTAINTY_SAMPLES 400 /* Monte Carlo draws per interval */

/* True when the profile carries standard errors (from `zerosim calibrate`). */
bool uncertainty_available(const hardware *hw);

/* The central `level` interval (e.g. 0.9) of the step time of strategy s on the configuration
 * `in` was prepared for, propagating the profile's fitted parameters (latency and effective
 * bandwidth per link level, matmul and HBM efficiencies) by sampling them as independent
 * normals (truncated to valid values) with a fixed seed, so the same inputs give the same
 * interval. Writes lo <= point <= hi where the sample allows; returns false (lo = hi = the
 * point estimate) when the profile has no uncertainties. */
bool uncertainty_interval(
    const sim_input *in, const struct strategy *s, double level, double *lo, double *hi);

/* The 90% interval for r (a result of sc's training and r->strategy) into r->has_interval,
 * step_lo and step_hi; leaves r as it is when the profile has no uncertainties or the
 * training does not prepare. Never fails otherwise. */
void uncertainty_add(const scenario *sc, result *r);

#endif
