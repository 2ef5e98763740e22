/* validate.h -- predicting measured runs and comparing with what was measured. */
#ifndef ZS_VALIDATE_H
#define ZS_VALIDATE_H

#include "core/error.h"
#include "core/hardware.h"
#include "core/model.h"
#include "io/runs.h"
#include "core/sim.h"

typedef struct outcome {
    const run_record *run;
    double measured, predicted; /* in the metric's unit */
    double error;               /* predicted step time / measured - 1 */
    const char *metric;         /* "step_seconds", or "mfu"/"hfu" for throughput-only rows,
                                   "peak_memory_bytes", "tflops_per_gpu" */
    char refused[200];          /* why the run is not predicted (its framework's rule, a
                                   strategy that does not apply): listed, never scored; "" =
                                   predicted (error, r valid) */
    result r;                   /* the full prediction */
    double matmul_max_fraction; /* the run's profile's (variants applied): a trial gemm_efficiency
                                   times it may not pass 1 (fwfit.c) */
    double gemm_efficiency;     /* the framework factor it ran at (sim_input.fw_eff); 0 if refused */
} outcome;

/* Every run of one file, predicted: what `validate` prints and `plot validate` draws. */
typedef struct validate_report {
    run_record *runs; /* all runs of the file, file order (heap) */
    int n_runs;
    outcome *o; /* the runs the filter kept, file order (heap); o[i].run points into runs */
    int n;
    int n_refused; /* of o, refused (outcome.refused): out of mape and worst */
    double mape;   /* mean |error| over the predicted runs of o (a fraction) */
    int worst;   /* index in o of the largest |error|; -1 when n = 0 */
    char notes[1200]; /* warnings for the command, a line each: unknown columns per file */
} validate_report;

/* Called after each predicted run: done of total runs in the file. */
typedef void (*validate_progress)(int done, int total, void *ctx);

/* Load the runs file at path and predict every run whose name contains filter (NULL: all),
 * with the hardware profile hw_override (NULL: each run's own). Each model and hardware file is
 * loaded once per call, however many runs name it. cb may be NULL. Fails with ZS_ERR_INPUT
 * (a message starting with path: a bad file or row, an unknown model or profile, a
 * configuration the simulator rejects, every kept run refused), ZS_ERR_USAGE when the filter
 * keeps no run, or ZS_ERR_NOMEM; *rep is then empty (nothing to free). A run its framework does
 * not run is kept in o with outcome.refused set, out of mape and worst. */
int validate_file(const char *path, const char *hw_override, const char *filter, validate_progress cb,
    void *ctx, validate_report *rep, zs_error *err);

/* validate_file over several files (n_paths >= 1): their runs in order, as one report; a
 * message names the file of the run it is about. Fails like validate_file. */
int validate_files(const char *const *paths, int n_paths, const char *hw_override, const char *filter,
    validate_progress cb, void *ctx, validate_report *rep, zs_error *err);

/* Load the runs of n_paths files, in order, as one heap array (caller frees). When file_end is
 * not NULL it gets a heap array (caller frees): file_end[f] = index after file f's last run.
 * When notes is not NULL it gets the files' warnings (runs_load_noted), a line each, or "".
 * Fails like runs_load, or with ZS_ERR_NOMEM. */
int validate_load_runs(const char *const *paths, int n_paths, run_record **runs, int *n, int **file_end,
    char *notes, size_t notes_len, zs_error *err);

/* Free what validate_file allocated; leaves *rep empty. Never fails. */
void validate_report_free(validate_report *rep);

/* Predict one run, loading its model and its hardware (or hw_override) from their files.
 * Fails like validate_run_loaded, and with ZS_ERR_INPUT for an unknown model or profile. */
int validate_run(const run_record *run, const char *hw_override, outcome *o, zs_error *err);

/* The same with a hardware profile already in memory (a calibration candidate); loads the
 * model file on each call: a loop over many runs should use validate_run_cached. */
int validate_run_hw(const run_record *run, const hardware *hw, outcome *o, zs_error *err);

#endif
