/* plot.h -- charts of a configuration as gnuplot data (.dat) and scripts (.gp), rendered to PNG/SVG. */
#ifndef ZS_PLOT_H
#define ZS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "scenario.h"

typedef enum {
    PLOT_MEMORY,          /* memory per GPU by component, one stacked bar per strategy */
    PLOT_MEMORY_VS_GPUS,  /* memory per GPU against the GPU count, one line per strategy */
    PLOT_STEP,            /* step time breakdown per strategy */
    PLOT_COMM,            /* bytes sent per GPU per step by link level, with the ZeRO ideal */
    PLOT_MAX_MODEL,       /* largest trainable model against the GPU count (plan_max_model) */
    PLOT_VALIDATE,        /* predicted against measured step time of the runs in a file */
    PLOT_CALIBRATION,     /* measured collective times against their fits (zerosim calibrate --plot) */
    PLOT_COUNT
} plot_chart;

#define PLOT_MAX_GPU_COUNTS 64

/* Called between the points of a slow chart (max-model): done of total evaluations. */
typedef void (*plot_progress)(plot_chart c, int done, int total, void *ctx);

typedef struct plot_options {
    const char *dir;          /* output directory (must exist: plot_dir_prepare) */
    bool png, svg;            /* which images the .gp script draws */
    int64_t gpus[PLOT_MAX_GPU_COUNTS]; /* GPU counts of the sweeps, ascending; n_gpus = 0: default */
    int n_gpus;
    const char *runs_path;    /* measured runs (CSV or JSON) for the validate chart */
    bool no_offload, no_tp, no_pp; /* max-model: leave these out of the search (as `plan`) */
    plot_progress progress;   /* may be NULL */
    void *progress_ctx;
} plot_options;

/* The chart's name as the command line spells it ("memory-vs-gpus"). Never fails. */
const char *plot_chart_name(plot_chart c);

/* The chart called `name`, or -1 when there is none. */
int plot_chart_parse(const char *name);

/* Defaults: png and svg, no GPU list, no runs file, offload/TP/PP searched, no progress; dir
 * as given. Never fails. */
void plot_options_init(plot_options *o, const char *dir);

/* Parse a comma-separated list of GPU counts ("8,16,64") into o->gpus, sorted and without
 * duplicates. Fails with ZS_ERR_USAGE on an empty list, a count below 1 or above 1e7, or more
 * than PLOT_MAX_GPU_COUNTS entries. */
int plot_parse_gpus_list(const char *list, plot_options *o, zs_error *err);

/* The GPU counts a sweep chart uses for scenario s: o->gpus when given, else 1, 2, 4, .. up to
 * the node size, then whole nodes in powers of two up to max(s->t.gpus, 1024); counts that
 * are not a multiple of tp x pp are dropped. Writes at most `max` counts to out and their
 * number to *n. Fails with ZS_ERR_USAGE when no count remains. */
int plot_gpu_counts(const scenario *s, const plot_options *o, int64_t *out, int max, int *n,
                    zs_error *err);

/* Make sure dir is a writable directory, creating it and missing parents (mkdir -p). Fails
 * with ZS_ERR_IO naming the path when it (or a parent) is a file, or cannot be created or
 * written. */
int plot_dir_prepare(const char *dir, zs_error *err);

/* Compute chart c and write o->dir/NAME.dat and o->dir/NAME.gp, each atomically (a temporary
 * file renamed into place). s is the scenario (NULL allowed for PLOT_VALIDATE only).
 * The numbers are those sim_run, plan_max_model and validate_run give, in bytes and
 * seconds. Fails with ZS_ERR_USAGE (a configuration the simulator rejects, PLOT_VALIDATE
 * without a runs file, a chart that needs s without one), ZS_ERR_INPUT (a bad runs file or
 * row) or ZS_ERR_IO (a file that cannot be written); nothing is left half-written. */
int plot_write(plot_chart c, const scenario *s, const plot_options *o, zs_error *err);

/* One measured collective set and its fit, for the calibration chart. */
typedef struct plot_fit_set {
    char label[96];           /* legend: "all_reduce, 8 ranks" */
    const double *bytes;      /* measured sizes, bytes */
    const double *seconds;    /* measured times, seconds */
    int n;
    double latency;           /* fitted: t = latency + bytes * factor / busbw (seconds) */
    double busbw;             /* bytes/s */
    double factor;            /* nccl-tests bus bandwidth factor */
} plot_fit_set;

/* Write o->dir/calibration.dat (one block per set: size, measured, fitted, relative residual)
 * and calibration.gp (log-log points and fitted curves), atomically. Fails with ZS_ERR_IO when
 * a file cannot be written, ZS_ERR_USAGE when there is no set. */
int plot_write_calibration(const plot_options *o, const plot_fit_set *sets, int n, zs_error *err);

/* Find gnuplot: $GNUPLOT when set (a path, or a name looked up on PATH), else "gnuplot" on
 * PATH. Writes the program to path and returns true when it exists and is executable;
 * returns false (path holding what was looked for) otherwise. Never fails otherwise. */
bool plot_find_gnuplot(char *path, size_t len);

/* Run gnuplot (the program plot_find_gnuplot found) on NAME.gp inside o->dir, drawing to
 * temporary files that are renamed to NAME.png / NAME.svg only when gnuplot succeeds.
 * Fails with ZS_ERR_IO quoting gnuplot's first error line when it cannot be started or
 * exits with an error; temporary files are removed. */
int plot_render(plot_chart c, const char *gnuplot, const plot_options *o, zs_error *err);

#endif
