/* plot.h -- charts of computed results as gnuplot data (.dat) and scripts (.gp), rendered to PNG/SVG. */
#ifndef ZS_PLOT_H
#define ZS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/result.h"
#include "core/scenario.h"
#include "core/strategy.h"

struct validate_report;
struct compare_row;

typedef enum {
    PLOT_MEMORY,          /* memory per GPU by component, one stacked bar per strategy */
    PLOT_MEMORY_VS_GPUS,  /* memory per GPU against the GPU count, one line per strategy */
    PLOT_STEP,            /* step time breakdown per strategy */
    PLOT_COMM,            /* bytes sent per GPU per step by link level, with the ZeRO ideal */
    PLOT_MAX_MODEL,       /* largest trainable model against the GPU count (plan_max_model) */
    PLOT_VALIDATE,        /* predicted against measured step time of the runs in a file */
    PLOT_CALIBRATION,     /* measured collective times against their fits (zerosim calibrate --plot) */
    PLOT_COMPARE,         /* compare: memory with the HBM line, largest micro-batch, fewest GPUs, cost */
    PLOT_COUNT
} plot_chart;

#define PLOT_MAX_GPU_COUNTS 64

/* Where and in which formats charts are drawn. */
typedef struct plot_options {
    const char *dir;          /* output directory (must exist: plot_dir_prepare) */
    bool png, svg;            /* which images the .gp script draws */
} plot_options;

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

/* What a chart draws, computed beforehand (plot_data.h does it for `zerosim plot`): the chart
 * writers only format these numbers. Each chart reads its own fields. */
typedef struct plot_data {
    const scenario *s;        /* the configuration, for titles; NULL for validate and calibration */
    /* memory, step, comm: each of s's chosen strategies at s's own configuration */
    result r[STRATEGY_MAX];
    int n;
    /* memory-vs-gpus and max-model: one row per GPU count, one column per chosen strategy */
    int64_t gpus[PLOT_MAX_GPU_COUNTS];
    int n_gpus;
    double mem_total[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX]; /* bytes; NaN: not applicable or rejected */
    double mem_floor[PLOT_MAX_GPU_COUNTS];     /* bytes: the smallest non-sharded part; NaN: none */
    double max_params[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX]; /* parameters; 0: not even the smallest fits */
    int64_t max_layers[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX];
    bool searched_offload, searched_tp, searched_pp; /* what the max-model search allowed */
    /* validate: the predicted runs of a file */
    const char *runs_path;
    const struct validate_report *val;
    /* calibration */
    const plot_fit_set *sets;
    int n_sets;
    /* compare: one row per strategy (and framework), as `zerosim compare` computes them */
    const struct compare_row *cmp;
    int n_cmp;
} plot_data;

/* The chart's name as the command line spells it ("memory-vs-gpus"). Never fails. */
const char *plot_chart_name(plot_chart c);

/* The chart called `name`, or -1 when there is none. */
int plot_chart_parse(const char *name);

/* Defaults: png and svg; dir as given. Never fails. */
void plot_options_init(plot_options *o, const char *dir);

/* Make sure dir is a writable directory, creating it and missing parents (mkdir -p). Fails
 * with ZS_ERR_IO naming the path when it (or a parent) is a file, or cannot be created or
 * written. */
int plot_dir_prepare(const char *dir, zs_error *err);

/* Write chart c of d as o->dir/NAME.dat and NAME.gp and, when gnuplot is not NULL, run it to
 * draw NAME.png / NAME.svg. All of a chart's files are made in a private directory inside
 * o->dir and renamed into place only when every one of them is complete, so a failure leaves
 * the chart's previous files as they were; an existing file keeps its permission bits, and a
 * read-only one is refused (ZS_ERR_IO) before anything is replaced. While it runs, SIGINT,
 * SIGTERM and SIGHUP stop gnuplot and remove the private directory before the signal's
 * default action. Fails with ZS_ERR_USAGE on a chart without data (no strategy, no set),
 * ZS_ERR_IO when a file cannot be written or gnuplot fails (quoting its first error line). */
int plot_draw(plot_chart c, const plot_data *d, const plot_options *o, const char *gnuplot, zs_error *err);

/* Find gnuplot: $GNUPLOT when set (a path, or a name looked up on PATH), else "gnuplot" on
 * PATH. Writes the program to path and returns true when it exists and is executable;
 * returns false (path holding what was looked for) otherwise. Never fails otherwise. */
bool plot_find_gnuplot(char *path, size_t len);

/* The calibration chart as `zerosim calibrate --plot` draws it: plot_draw of the n sets
 * (gnuplot NULL: data and script only). Fails like plot_draw. */
int plot_calibration(const plot_options *o, const plot_fit_set *sets, int n, const char *gnuplot, zs_error *err);

#endif
