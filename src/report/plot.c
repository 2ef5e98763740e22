/* plot.c -- the chart table, and drawing a chart: needs checked, data computed, files written. */
#include "report/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/plot_chart.h"
#include "report/plot_stage.h"

/* The chart table, in drawing order: one line a chart, X(NAME) for the plot_chart_NAME its
 * file defines (name, needs, data, compute and writers: plot_chart.h). A new chart is its
 * file and its line here. */
#define CHARTS(X)     \
    X(memory)         \
    X(memory_vs_gpus) \
    X(step)           \
    X(comm)           \
    X(max_model)      \
    X(validate)       \
    X(calibration)    \
    X(compare)        \
    /* end of the table */

#define DECLARE(n) extern const plot_chart_def plot_chart_##n;
CHARTS(DECLARE)
#define ROW(n) &plot_chart_##n,
static const plot_chart_def *const charts[] = {CHARTS(ROW)};
#define N_CHARTS (int)(sizeof charts / sizeof charts[0])
_Static_assert(sizeof charts / sizeof charts[0] <= PLOT_MAX_CHARTS, "PLOT_MAX_CHARTS is too small");

int plot_chart_count(void)
{
    return N_CHARTS;
}

const char *plot_chart_name(int c)
{
    return c >= 0 && c < N_CHARTS ? charts[c]->name : "?";
}

int plot_chart_parse(const char *name)
{
    for (int i = 0; i < N_CHARTS; i++)
        if (strcmp(name, charts[i]->name) == 0) return i;
    return -1;
}

const char *plot_chart_help(int c)
{
    return c >= 0 && c < N_CHARTS ? charts[c]->help : NULL;
}

unsigned plot_chart_needs(int c)
{
    return c >= 0 && c < N_CHARTS ? charts[c]->needs : 0;
}

void plot_options_init(plot_options *o, const char *dir)
{
    memset(o, 0, sizeof *o);
    o->dir = dir;
    o->png = o->svg = true;
}

int plot_dir_prepare(const char *dir, zs_error *err)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return zs_fail(err, ZS_ERR_IO, "%s: exists and is not a directory", dir);
    } else {
        /* mkdir -p: each missing component in turn. */
        char path[4096];
        if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
            return zs_fail(err, ZS_ERR_IO, "%s: path too long", dir);
        for (char *p = path + 1;; p++) {
            if (*p != '/' && *p != '\0') continue;
            char c = *p;
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return zs_fail(
                    err, ZS_ERR_IO, "%s: cannot create the output directory: %s", path, strerror(errno));
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
                return zs_fail(err, ZS_ERR_IO, "%s: exists and is not a directory", path);
            *p = c;
            if (!c) break;
        }
    }
    if (access(dir, W_OK | X_OK) != 0)
        return zs_fail(err, ZS_ERR_IO, "%s: output directory is not writable: %s", dir, strerror(errno));
    return ZS_OK;
}

/* Write one of the chart's files with its writer. */
static int stage_write(const plot_stage *st, const char *ext, const plot_chart_def *cd, const void *data,
    const plot_options *o, zs_error *err)
{
    FILE *f = plot_stage_file(st, ext, err);
    if (!f) return err->code;
    if (strcmp(ext, "dat") == 0)
        cd->dat(f, data);
    else
        cd->gp(f, data, o);
    return plot_stage_file_close(st, f, ext, err);
}

/* The chart's files from its computed data, all or none. */
static int write_chart(
    const plot_chart_def *cd, const void *data, const plot_options *o, const char *gnuplot, zs_error *err)
{
    plot_stage st;
    if (plot_stage_open(&st, o->dir, cd->name, err)) return err->code;
    int rc = stage_write(&st, "dat", cd, data, o, err);
    if (!rc) rc = stage_write(&st, "gp", cd, data, o, err);
    if (!rc && gnuplot) rc = plot_stage_render(&st, gnuplot, o, err);
    if (!rc) rc = plot_stage_commit(&st, o, gnuplot != NULL, err);
    plot_stage_close(&st);
    return rc;
}

/* ZS_OK when s and q hold what the chart needs, else the error that says what is missing. */
static int check_needs(const plot_chart_def *cd, const scenario *s, const plot_request *q, zs_error *err)
{
    if ((cd->needs & PLOT_NEEDS_FITS) && !q->sets)
        return zs_fail(
            err, ZS_ERR_USAGE, "%s: this chart comes from 'zerosim calibrate --plot DIR'", cd->name);
    if ((cd->needs & PLOT_NEEDS_RUNS) && !q->runs_path)
        return zs_fail(err, ZS_ERR_USAGE, "%s: needs --runs FILE", cd->name);
    if ((cd->needs & PLOT_NEEDS_SCENARIO) && !s)
        return zs_fail(err, ZS_ERR_USAGE, "%s: needs a model (--model or --params)", cd->name);
    return ZS_OK;
}

int plot_chart_draw(int c, const scenario *s, const plot_request *q, const plot_options *o,
    const char *gnuplot, zs_error *err)
{
    if (c < 0 || c >= N_CHARTS) return zs_fail(err, ZS_ERR_USAGE, "unknown chart %d", c);
    const plot_chart_def *cd = charts[c];
    if (check_needs(cd, s, q, err)) return err->code;
    /* Compute, then write: the writers only format what this step computed. */
    void *data = calloc(1, cd->size);
    if (!data) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    int rc = cd->compute(cd->needs & PLOT_NEEDS_SCENARIO ? s : NULL, q, data, err);
    if (!rc) rc = write_chart(cd, data, o, gnuplot, err);
    if (cd->release) cd->release(data);
    free(data);
    return rc;
}
