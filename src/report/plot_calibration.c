/* plot_calibration.c -- the calibration chart: measured collective times against their fits. */
#include <string.h>

#include "report/plot_chart.h"
#include "report/plot_gp.h"

/* The measured sets and their fits, as calibrate passes them. */
typedef struct calibration_data {
    const plot_fit_set *sets;
    int n_sets;
} calibration_data;

/* The fits as calibrate gives them; fails when there is none. */
static int calibration_compute(const scenario *s, const plot_request *q, void *data, zs_error *err)
{
    calibration_data *d = data;
    (void)s;
    d->sets = q->sets;
    d->n_sets = q->n_sets;
    if (d->n_sets > 0) return ZS_OK;
    return zs_fail(err, ZS_ERR_USAGE, "calibration chart: no collective fits to draw");
}

static void calibration_dat(FILE *f, const void *data)
{
    const calibration_data *d = data;
    fprintf(f,
        "# calibration.dat -- measured collective times and their alpha-beta fits (zerosim calibrate)\n"
        "# one block per collective set (gnuplot index i); fitted = latency + bytes * factor / busbw\n"
        "# columns: bytes measured_seconds fitted_seconds relative_residual\n");
    for (int k = 0; k < d->n_sets; k++) {
        const plot_fit_set *p = &d->sets[k];
        fprintf(f, "%s# set %d: ", k ? "\n\n" : "", k);
        dat_str(f, p->label);
        fprintf(f, " latency_seconds=%.9g busbw_bytes_per_second=%.9g factor=%.9g\n", p->latency, p->busbw,
            p->factor);
        for (int i = 0; i < p->n; i++) {
            double fit = p->latency + p->bytes[i] * p->factor / p->busbw;
            fprintf(f, "%.17g %.17g %.17g %.6g\n", p->bytes[i], p->seconds[i], fit, p->seconds[i] / fit - 1);
        }
    }
}

static void calibration_gp(FILE *f, const void *data, const plot_options *o)
{
    const calibration_data *d = data;
    gp_head(f, "calibration", "measured collective times against their alpha-beta fits");
    gp_title(f, "Collective time: measured (points) and fitted (lines)",
        "t = latency + size x busbw factor / bus bandwidth");
    fputs("set logscale xy\nset xlabel 'message size (bytes, log scale)'\n"
          "set ylabel 'time per collective (seconds, log scale)'\n"
          "set key outside right top vertical Left reverse box samplen 2\n" /* beside the plot: it hides no
                                                                               point */
          "set format x '%.0e'\nset format y '%.0e'\n",
        f);
    sbuf b = {{0}, 0};
    sb_add(&b, "plot ");
    for (int k = 0; k < d->n_sets; k++) {
        const char *c = plot_strat_color[k % 4];
        const char *label = d->sets[k].label;
        sb_add(&b, "%s'calibration.dat' index %d using 1:2 with points pt 7 ps 0.8 lc rgb '%s' title ",
            k ? ", \\\n     " : "", k, c);
        char t[128];
        snprintf(t, sizeof t, "%s (measured)", label);
        for (char *q = t; *q; q++)
            if (*q == '\'') *q = ' ';
        sb_add(&b,
            "'%s', \\\n     'calibration.dat' index %d using 1:3 with lines lw 2 lc rgb '%s' title '%s fit'",
            t, k, c, label);
    }
    sb_add(&b, "\n");
    gp_output(f, o, b.s);
}

const plot_chart_def plot_chart_calibration = {
    .name = "calibration",
    .needs = PLOT_NEEDS_FITS,
    .size = sizeof(calibration_data),
    .compute = calibration_compute,
    .dat = calibration_dat,
    .gp = calibration_gp,
};

int plot_calibration(
    const plot_options *o, const plot_fit_set *sets, int n, const char *gnuplot, zs_error *err)
{
    plot_request q;
    plot_request_init(&q);
    q.sets = sets;
    q.n_sets = n;
    return plot_chart_draw(plot_chart_parse(plot_chart_calibration.name), NULL, &q, o, gnuplot, err);
}
