/* plot_validate.c -- the validate chart: predicted against measured step time of the runs in a file. */
#include <math.h>
#include <string.h>

#include "analysis/validate.h"
#include "report/plot_chart.h"
#include "report/plot_gp.h"

/* The predicted runs of a file. */
typedef struct validate_data {
    const char *runs_path;
    validate_report val; /* freed by validate_release */
} validate_data;

/* The measured and predicted step time of a run, in seconds; false when it has none to plot
 * (for rows with only an MFU/HFU, the step time that MFU implies: predicted / (1 + error)). */
static bool val_point(const outcome *o, double *meas, double *pred)
{
    if (o->refused[0]) return false;
    bool step = strcmp(o->metric, "step_seconds") == 0;
    *pred = o->r.step.total;
    *meas = step ? o->measured : *pred / (1 + o->error);
    return *meas > 0 && *pred > 0 && isfinite(*meas);
}

/* Whether some run of d->val has a step time to draw. */
static bool has_points(const validate_data *d)
{
    double m, p;
    for (int j = 0; j < d->val.n; j++)
        if (val_point(&d->val.o[j], &m, &p)) return true;
    return false;
}

/* validate_file of the runs file: each run predicted; fails when none has a point to draw. */
static int validate_compute(const scenario *s, const plot_request *q, void *data, zs_error *err)
{
    validate_data *d = data;
    (void)s;
    if (validate_file(q->runs_path, NULL, NULL, q->progress, q->progress_ctx, &d->val, err)) return err->code;
    d->runs_path = q->runs_path;
    if (!has_points(d))
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: no run with a measured step time or MFU to plot", d->runs_path);
    return ZS_OK;
}

static void validate_release(void *data)
{
    validate_data *d = data;
    validate_report_free(&d->val);
}

static void validate_dat(FILE *f, const void *data)
{
    const validate_data *d = data;
    const validate_report *v = &d->val;
    fprintf(f, "# validate.dat -- predicted against measured step time of the runs in %s\n", d->runs_path);
    fputs("# unit: seconds per step. measured: measured_step_seconds, else global_batch x seq_len /\n"
          "# measured_tokens_per_second; for rows with only an MFU/HFU, the step time that MFU implies\n"
          "# (predicted / (1 + error)). error = predicted / measured - 1, as `zerosim validate` prints.\n"
          "# Rows grouped by strategy (ddp, zero1, zero2, zero3); the chart picks them by column 2.\n"
          "# columns: name strategy gpus measured_step_seconds predicted_step_seconds error metric\n",
        f);
    for (int k = 0; strategies[k]; k++) {
        for (int j = 0; j < v->n; j++) {
            const outcome *o = &v->o[j];
            double meas, pred;
            if (o->r.strategy != strategies[k] || !val_point(o, &meas, &pred)) continue;
            dat_str(f, o->run->name);
            fprintf(f, " %s %lld %.17g %.17g %.17g %s\n", strategies[k]->name, (long long)o->run->gpus, meas,
                pred, o->error, o->metric);
        }
    }
}

static void validate_gp(FILE *f, const void *data, const plot_options *o)
{
    const validate_data *d = data;
    const validate_report *v = &d->val;
    double lo = INFINITY, hi = 0;
    int count[STRATEGY_MAX] = {0}, total = 0;
    for (int j = 0; j < v->n; j++) {
        double meas, pred;
        if (!val_point(&v->o[j], &meas, &pred)) continue;
        lo = fmin(lo, fmin(meas, pred));
        hi = fmax(hi, fmax(meas, pred));
        count[plot_strat_index(v->o[j].r.strategy)]++;
        total++;
    }
    gp_head(f, "validate", "predicted against measured step time, one point style per strategy");
    lo /= 1.5;
    hi *= 1.5;
    const char *base = strrchr(d->runs_path, '/');
    char t[512];
    snprintf(t, sizeof t, "%d runs from %s: mean absolute error %.1f%%", total,
        base ? base + 1 : d->runs_path, 100 * v->mape);
    gp_title(f, "Predicted vs measured step time", t);
    fprintf(f,
        "set xlabel 'measured step time (seconds, log scale)'\n"
        "set ylabel 'predicted step time (seconds, log scale)'\n"
        "set logscale xy 10\nset format x '%%g'\nset format y '%%g'\n"
        "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\nset size ratio -1\n"
        "set grid xtics ytics mxtics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
        "set key inside left top vertical Left reverse box opaque samplen 2\nset samples 400\n"
        "set style fill transparent solid 0.18 noborder\n",
        lo, hi, lo, hi);
    static const int pts[STRATEGY_MAX] = {7, 5, 9, 11, 13, 6, 8, 10};
    sbuf p = {.n = 0};
    sb_add(&p,
        "plot [%.6g:%.6g] '+' using 1:(0.8*$1):(1.2*$1) with filledcurves lc rgb '#888888' title '+/-20%% "
        "band', \\\n"
        "     x with lines lw 1.5 lc rgb '#333333' title 'y = x'",
        lo, hi);
    for (int k = 0; strategies[k]; k++)
        if (count[k])
            sb_add(&p,
                ", \\\n     'validate.dat' using 4:(strcol(2) eq '%s' ? $5 : NaN) with points pt %d ps 1.4 "
                "lc rgb '%s' title '%s (%d run%s)'",
                strategies[k]->name, pts[k], plot_strat_color[k], strategies[k]->label, count[k],
                count[k] == 1 ? "" : "s");
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
}

const plot_chart_def plot_chart_validate = {
    .name = "validate",
    .help = "predicted vs measured step time of --runs FILE (only with --runs)",
    .needs = PLOT_NEEDS_RUNS,
    .size = sizeof(validate_data),
    .compute = validate_compute,
    .dat = validate_dat,
    .gp = validate_gp,
    .release = validate_release,
};
