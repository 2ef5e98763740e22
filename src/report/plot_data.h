/* plot_data.h -- the computing half of `zerosim plot`: what each chart shows, from sim, plan and validate. */
#ifndef ZS_PLOT_DATA_H
#define ZS_PLOT_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "report/plot.h"
#include "analysis/validate.h"

/* Called between the points of a slow chart (max-model, validate): done of total evaluations. */
typedef void (*plot_progress)(plot_chart c, int done, int total, void *ctx);

/* What to compute beyond the scenario. */
typedef struct plot_request {
    int64_t gpus[PLOT_MAX_GPU_COUNTS]; /* GPU counts of the sweeps, ascending; n_gpus = 0: default */
    int n_gpus;
    const char *runs_path;    /* measured runs (CSV or JSON) for the validate chart */
    bool no_offload, no_tp, no_pp; /* max-model: leave these out of the search (as `plan`) */
    plot_progress progress;   /* may be NULL */
    void *progress_ctx;
} plot_request;

/* Defaults: no GPU list, no runs file, offload/TP/PP searched, no progress. Never fails. */
void plot_request_init(plot_request *q);

/* Parse a comma-separated list of GPU counts ("8,16,64") into q->gpus, sorted and without
 * duplicates. Fails with ZS_ERR_USAGE on an empty list, a count below 1 or above 1e7, or more
 * than PLOT_MAX_GPU_COUNTS entries. */
int plot_parse_gpus_list(const char *list, plot_request *q, zs_error *err);

/* The GPU counts a sweep chart uses for scenario s: q->gpus when given, else 1, 2, 4, .. up to
 * the node size, then whole nodes in powers of two up to max(s->t.gpus, 1024); counts that
 * are not a multiple of tp x pp are dropped. Writes at most `max` counts to out and their
 * number to *n. Fails with ZS_ERR_USAGE when no count remains. */
int plot_gpu_counts(const scenario *s, const plot_request *q, int64_t *out, int max, int *n, zs_error *err);

/* Compute what chart c draws into d (zeroed first): sim_run_scenario for memory, step and
 * comm; sim_run per GPU count for memory-vs-gpus; plan_max_model for max-model; validate_file
 * of q->runs_path for validate (kept in *val, which the caller frees with
 * validate_report_free). s may be NULL for validate. Fails with ZS_ERR_USAGE (a configuration
 * the simulator rejects at every GPU count, a chart that needs s without one, validate without
 * a runs file, the calibration chart), ZS_ERR_INPUT (a bad runs file or row). */
int plot_data_compute(plot_chart c, const scenario *s, const plot_request *q, plot_data *d, validate_report *val,
                      zs_error *err);

#endif
