/* plot_chart.h -- a chart whole: its needs, data, compute and writers (internal to plot*.c). */
#ifndef ZS_PLOT_CHART_H
#define ZS_PLOT_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "report/plot.h"

/* A chart, whole: its file defines one of these as plot_chart_NAME and the table in plot.c
 * names it. The data is the chart's own type: plot_chart_draw allocates `size` zeroed bytes,
 * compute fills them, the writers only format them, release frees what compute allocated. */
typedef struct plot_chart_def {
    const char *name; /* command-line name and file stem */
    const char *help; /* its --help line; NULL: not drawn by `zerosim plot` */
    unsigned needs;   /* PLOT_NEEDS_*: checked before compute runs */
    size_t size;      /* bytes of the chart's data */
    /* Fill data from s (NULL unless the chart needs a scenario) and q. Fails with the chart's
     * error, ZS_ERR_USAGE when there is nothing to draw. */
    int (*compute)(const scenario *s, const plot_request *q, void *data, zs_error *err);
    /* The data file and the gnuplot script; write errors show in ferror(f). */
    void (*dat)(FILE *f, const void *data);
    void (*gp)(FILE *f, const void *data, const plot_options *o);
    void (*release)(void *data); /* NULL: compute allocates nothing */
} plot_chart_def;

/* The GPU counts a sweep chart uses for scenario s: q->gpus when given, else 1, 2, 4, .. up to
 * the node size, then whole nodes in powers of two up to max(s->t.gpus, 1024); counts that
 * are not a multiple of tp x pp are dropped. Writes at most `max` counts to out and their
 * number to *n. Fails with ZS_ERR_USAGE when no count remains. */
int plot_gpu_counts(const scenario *s, const plot_request *q, int64_t *out, int max, int *n, zs_error *err);

/* The number of strategies s has chosen: the columns of the sweep charts. Never fails. */
int plot_n_chosen(const scenario *s);

#endif
