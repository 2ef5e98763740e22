/* validate.h -- predicting one measured run and comparing with what was measured. */
#ifndef ZS_VALIDATE_H
#define ZS_VALIDATE_H

#include "error.h"
#include "hardware.h"
#include "runs.h"
#include "sim.h"

typedef struct outcome {
    const run_record *run;
    double measured, predicted; /* in the metric's unit */
    double error;               /* predicted step time / measured - 1 */
    const char *metric;         /* "step_seconds", or "mfu"/"hfu" for throughput-only rows */
    result r;                   /* the full prediction */
} outcome;

/* Predict one run (its model, hardware or hw_override, parallelism, batch, precision,
 * checkpointing) and compare. Fails with ZS_ERR_INPUT naming the line: an unknown model or
 * profile, a strategy or precision not recognised, a batch that does not divide. */
int validate_run(const run_record *run, const char *hw_override, outcome *o, zs_error *err);

/* The same with a hardware profile already in memory (a calibration candidate). */
int validate_run_hw(const run_record *run, const hardware *hw, outcome *o, zs_error *err);

#endif
