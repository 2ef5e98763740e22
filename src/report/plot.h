/* plot.h -- charts of computed results as gnuplot data (.dat) and scripts (.gp), rendered to PNG/SVG. */
#ifndef ZS_PLOT_H
#define ZS_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/scenario.h"

#define PLOT_MAX_GPU_COUNTS 64
#define PLOT_MAX_CHARTS 32 /* room in the chart table */

/* What a chart is computed from, the bits of plot_chart_needs: the scenario (a model and its
 * flags), a runs file (plot_request.runs_path), collective fits (plot_request.sets, which only
 * `zerosim calibrate --plot` has). */
enum { PLOT_NEEDS_SCENARIO = 1, PLOT_NEEDS_RUNS = 2, PLOT_NEEDS_FITS = 4 };

/* Where and in which formats charts are drawn. */
typedef struct plot_options {
    const char *dir; /* output directory (must exist: plot_dir_prepare) */
    bool png, svg;   /* which images the .gp script draws */
} plot_options;

/* One measured collective set and its fit, for the calibration chart. */
typedef struct plot_fit_set {
    char label[96];        /* legend: "all_reduce, 8 ranks" */
    const double *bytes;   /* measured sizes, bytes */
    const double *seconds; /* measured times, seconds */
    int n;
    double latency; /* fitted: t = latency + bytes * factor / busbw (seconds) */
    double busbw;   /* bytes/s */
    double factor;  /* nccl-tests bus bandwidth factor */
} plot_fit_set;

/* Called between the points of a slow chart (max-model, validate): done of total evaluations. */
typedef void (*plot_progress)(int done, int total, void *ctx);

/* What the charts are computed from beyond the scenario. */
typedef struct plot_request {
    int64_t gpus[PLOT_MAX_GPU_COUNTS]; /* GPU counts of the sweeps, ascending; n_gpus = 0: default */
    int n_gpus;
    const char *runs_path;         /* measured runs (CSV or JSON) for the validate chart; NULL: none */
    bool no_offload, no_tp, no_pp; /* max-model: leave these out of the search (as `plan`) */
    const plot_fit_set *sets;      /* the calibration chart's fits; NULL: none (`zerosim plot` has none) */
    int n_sets;
    plot_progress progress; /* may be NULL */
    void *progress_ctx;
} plot_request;

/* The number of charts in the table; charts are numbered 0 .. count-1 in drawing order. */
int plot_chart_count(void);

/* Chart c's name as the command line spells it ("memory-vs-gpus"); "?" for no chart. Never fails. */
const char *plot_chart_name(int c);

/* Chart c's --help description, or NULL for a chart `zerosim plot` does not draw (calibration,
 * drawn by `zerosim calibrate --plot`) and for no chart. Never fails. */
const char *plot_chart_help(int c);

/* The chart called `name`, or -1 when there is none. */
int plot_chart_parse(const char *name);

/* What chart c is computed from: PLOT_NEEDS_* bits (0 for no chart). Never fails. */
unsigned plot_chart_needs(int c);

/* Defaults: png and svg; dir as given. Never fails. */
void plot_options_init(plot_options *o, const char *dir);

/* Defaults: no GPU list, no runs file, no fits, offload/TP/PP searched, no progress. Never fails. */
void plot_request_init(plot_request *q);

/* Parse a comma-separated list of GPU counts ("8,16,64") into q->gpus, sorted and without
 * duplicates. Fails with ZS_ERR_USAGE on an empty list, a count below 1 or above 1e7, or more
 * than PLOT_MAX_GPU_COUNTS entries. */
int plot_parse_gpus_list(const char *list, plot_request *q, zs_error *err);

/* Make sure dir is a writable directory, creating it and missing parents (mkdir -p). Fails
 * with ZS_ERR_IO naming the path when it (or a parent) is a file, or cannot be created or
 * written. */
int plot_dir_prepare(const char *dir, zs_error *err);

/* Compute chart c from s (used only by a chart that needs a scenario; may be NULL otherwise)
 * and q, then write it as o->dir/NAME.dat and NAME.gp and, when gnuplot is not NULL, run it to
 * draw NAME.png / NAME.svg. All of a chart's files are made in a private directory inside
 * o->dir and renamed into place only when every one of them is complete, so a failure leaves
 * the chart's previous files as they were; an existing file keeps its permission bits, and a
 * read-only one is refused (ZS_ERR_IO) before anything is replaced. While it runs, SIGINT,
 * SIGTERM and SIGHUP stop gnuplot and remove the private directory before the signal's
 * default action. Fails with ZS_ERR_USAGE when what the chart needs is missing (no scenario,
 * no runs file, no fits) or it has nothing to draw (no strategy, no set), with the chart's
 * own error when computing it fails (ZS_ERR_INPUT: a bad runs file), ZS_ERR_IO when a file
 * cannot be written or gnuplot fails (quoting its first error line). */
int plot_chart_draw(int c, const scenario *s, const plot_request *q, const plot_options *o,
    const char *gnuplot, zs_error *err);

/* Find gnuplot: $GNUPLOT when set (a path, or a name looked up on PATH), else "gnuplot" on
 * PATH. Writes the program to path and returns true when it exists and is executable;
 * returns false (path holding what was looked for) otherwise. Never fails otherwise. */
bool plot_find_gnuplot(char *path, size_t len);

/* The calibration chart as `zerosim calibrate --plot` draws it: plot_chart_draw of the n sets
 * (gnuplot NULL: data and script only). Fails like plot_chart_draw. */
int plot_calibration(
    const plot_options *o, const plot_fit_set *sets, int n, const char *gnuplot, zs_error *err);

#endif
