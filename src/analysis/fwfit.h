/* fwfit.h -- a framework's GEMM efficiency fitted to measured runs, judged on held-out runs. */
#ifndef ZS_FWFIT_H
#define ZS_FWFIT_H

#include "core/error.h"
#include "core/framework.h"
#include "core/hardware.h"
#include "io/runs.h"

/* What the fit found for one framework. The declared halves: among the runs of the framework
 * whose metric is time-like (step time, throughput, MFU or HFU) and that are not marked
 * excluded, in file order, the 1st, 3rd, 5th ... train and the 2nd, 4th ... are held out. */
typedef struct fwfit_result {
    const framework *fw;
    int n_train, n_held;
    double builtin;          /* the framework's gemm_efficiency as shipped */
    double builtin_overhead; /* and its step_overhead, seconds */
    double efficiency;       /* fitted: minimises the mean squared log error on the train half */
    double eff_max;          /* its search's top: FWFIT_EFF_MAX, or just under 1 / the largest
                                matmul fraction of the runs' profiles (no GEMM above the peak) */
    double stderr_eff;       /* its standard error (curvature of the objective) */
    double overhead;         /* fitted step_overhead, seconds */
    double stderr_overhead;
    double mape_train_builtin, mape_held_builtin; /* mean |error| with the shipped value */
    double mape_train, mape_held;                 /* with the fitted value */
    double worst_held_builtin;                    /* largest |error| held out, shipped value */
    int n_refused;         /* runs of the framework it refuses (validate's outcome.refused): left out */
    char refused[240];     /* the first: "line N: rule" ("" when none) */
    char used[200];        /* lines of the runs fitted, "2, 3, 6" (cut short with "...") */
    const char *at_bound;  /* "gemm_efficiency" or "step_overhead" when the fit ended on its search
                              bound (FWFIT_*): the runs do not determine it; NULL otherwise */
} fwfit_result;

/* The searches' bounds: gemm_efficiency in (FWFIT_EFF_MIN, FWFIT_EFF_MAX), step_overhead in
 * (0, FWFIT_OVERHEAD_MAX) seconds. A fit within FWFIT_BOUND_TOL of the efficiency's bounds or the
 * overhead's upper one has hit the wall, not a minimum (0 s of overhead is a real value:
 * Megatron's fits give it). */
#define FWFIT_EFF_MIN 0.2
#define FWFIT_EFF_MAX 2.0
#define FWFIT_OVERHEAD_MAX 5.0
#define FWFIT_BOUND_TOL 1e-3

/* Fit fw's GEMM efficiency and per-step overhead to the runs of that framework
 * (run_record.framework) in runs[0..n): coordinate descent, golden-section searches over
 * (0.2, 2.0) and (0, 5) seconds. hw_override as validate_run. Fails like
 * validate_run on a run that does not predict, and with ZS_ERR_INPUT when the framework has
 * fewer than 2 time-like runs. runs are not modified. */
int fwfit_efficiency(const run_record *runs, int n, const framework *fw, const char *hw_override,
    fwfit_result *out, zs_error *err);

/* The same with every run in the fit (no held-out half: a user calibrating on their own runs)
 * and, when hw is not NULL, every run predicted on that profile (a calibration candidate)
 * instead of its own. n_held is 0 and the held-out figures 0. */
int fwfit_all(
    const run_record *runs, int n, const framework *fw, const hardware *hw, fwfit_result *out, zs_error *err);

#endif
