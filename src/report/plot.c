/* plot.c -- the chart table (name, data writer, gnuplot script) and drawing one chart from computed data. */
#include "report/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/plot_gp.h"
#include "report/plot_stage.h"
#include "analysis/validate.h"

/* What a chart needs before anything is written: ZS_OK or an error. */
typedef int (*chart_check)(const plot_data *d, zs_error *err);

typedef struct chart_def {
    const char *name;         /* command-line name and file stem */
    chart_check check;        /* NULL: nothing beyond a scenario */
    bool needs_scenario;      /* titles describe d->s */
    void (*dat)(FILE *f, const plot_data *d);
    void (*gp)(FILE *f, const plot_data *d, const plot_options *o);
} chart_def;

static int check_bars(const plot_data *d, zs_error *err)
{
    return d->n > 0 ? ZS_OK : zs_fail(err, ZS_ERR_USAGE, "no strategy to draw");
}

static int check_sweep(const plot_data *d, zs_error *err)
{
    return d->n_gpus > 0 ? ZS_OK : zs_fail(err, ZS_ERR_USAGE, "no GPU count to draw");
}

static int check_validate(const plot_data *d, zs_error *err)
{
    if (!d->val || !d->runs_path) return zs_fail(err, ZS_ERR_USAGE, "validate: needs --runs FILE");
    if (!plot_validate_has_points(d))
        return zs_fail(err, ZS_ERR_INPUT, "%s: no run with a measured step time or MFU to plot", d->runs_path);
    return ZS_OK;
}

static int check_calibration(const plot_data *d, zs_error *err)
{
    return d->n_sets > 0 ? ZS_OK : zs_fail(err, ZS_ERR_USAGE, "calibration chart: no collective fits to draw");
}

static int check_compare(const plot_data *d, zs_error *err)
{
    return d->n_cmp > 0 ? ZS_OK : zs_fail(err, ZS_ERR_USAGE, "compare: no strategy to draw");
}

static const chart_def charts[PLOT_COUNT] = {
    [PLOT_COMPARE] = {"compare", check_compare, true, plot_compare_dat, plot_compare_gp},
    [PLOT_MEMORY] = {"memory", check_bars, true, plot_memory_dat, plot_memory_gp},
    [PLOT_MEMORY_VS_GPUS] = {"memory-vs-gpus", check_sweep, true, plot_memory_sweep_dat, plot_memory_sweep_gp},
    [PLOT_STEP] = {"step", check_bars, true, plot_step_dat, plot_step_gp},
    [PLOT_COMM] = {"comm", check_bars, true, plot_comm_dat, plot_comm_gp},
    [PLOT_MAX_MODEL] = {"max-model", check_sweep, true, plot_max_model_dat, plot_max_model_gp},
    [PLOT_VALIDATE] = {"validate", check_validate, false, plot_validate_dat, plot_validate_gp},
    [PLOT_CALIBRATION] = {"calibration", check_calibration, false, plot_calibration_dat, plot_calibration_gp},
};

const char *plot_chart_name(plot_chart c)
{
    return (unsigned)c < PLOT_COUNT ? charts[c].name : "?";
}

int plot_chart_parse(const char *name)
{
    for (int i = 0; i < PLOT_COUNT; i++)
        if (strcmp(name, charts[i].name) == 0) return i;
    return -1;
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
                return zs_fail(err, ZS_ERR_IO, "%s: cannot create the output directory: %s", path, strerror(errno));
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
static int stage_write(const plot_stage *st, const char *ext, const chart_def *cd, const plot_data *d,
                       const plot_options *o, zs_error *err)
{
    FILE *f = plot_stage_file(st, ext, err);
    if (!f) return err->code;
    if (strcmp(ext, "dat") == 0) cd->dat(f, d);
    else cd->gp(f, d, o);
    return plot_stage_file_close(st, f, ext, err);
}

int plot_draw(plot_chart c, const plot_data *d, const plot_options *o, const char *gnuplot, zs_error *err)
{
    if ((unsigned)c >= PLOT_COUNT) return zs_fail(err, ZS_ERR_USAGE, "unknown chart %d", (int)c);
    const chart_def *cd = &charts[c];
    if (cd->needs_scenario && !d->s) return zs_fail(err, ZS_ERR_USAGE, "%s: needs a model (--model or --params)", cd->name);
    if (cd->check && cd->check(d, err)) return err->code;
    plot_stage st;
    if (plot_stage_open(&st, o->dir, cd->name, err)) return err->code;
    int rc = stage_write(&st, "dat", cd, d, o, err);
    if (!rc) rc = stage_write(&st, "gp", cd, d, o, err);
    if (!rc && gnuplot) rc = plot_stage_render(&st, gnuplot, o, err);
    if (!rc) rc = plot_stage_commit(&st, o, gnuplot != NULL, err);
    plot_stage_close(&st);
    return rc;
}

int plot_calibration(const plot_options *o, const plot_fit_set *sets, int n, const char *gnuplot, zs_error *err)
{
    plot_data *d = calloc(1, sizeof *d);
    if (!d) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    d->sets = sets;
    d->n_sets = n;
    int rc = plot_draw(PLOT_CALIBRATION, d, o, gnuplot, err);
    free(d);
    return rc;
}
