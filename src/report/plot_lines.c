/* plot_lines.c -- the charts over GPU counts or runs: memory-vs-gpus, max-model, validate, calibration. */
#include <math.h>
#include <string.h>

#include "report/plot_gp.h"
#include "core/units.h"
#include "analysis/validate.h"

/* Number of chosen strategies: the columns of the sweep charts. */
static int n_chosen(const scenario *s)
{
    int n = 0;
    while (s->chosen[n]) n++;
    return n;
}

/* The log-log axes of a sweep over GPU counts, y from lo to hi. */
static void sweep_axes(FILE *f, const plot_data *d, const char *ylabel, double lo, double hi)
{
    fprintf(f, "set xlabel 'GPUs (log scale)'\nset ylabel '%s'\n"
               "set logscale x 2\nset logscale y 10\nset format y '%%g'\n"
               "set xrange [%g:%g]\nset yrange [%.6g:%.6g]\n"
               "set grid xtics ytics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
               "set key outside right top vertical Left reverse samplen 3\n",
            ylabel, (double)d->gpus[0] / 1.3, (double)d->gpus[d->n_gpus - 1] * 1.3, lo, hi);
}

/* One strategy's line of a sweep chart; the first line drawn carries the x tics. */
static void sweep_line(sbuf *p, const char *file, const char *ycol, bool ticks, const strategy *st)
{
    int k = plot_strat_index(st);
    sb_add(p, "'%s' using 1:(%s)%s with linespoints lw 2 pt %d ps 1.2 lc rgb '%s' title '%s'", file, ycol,
           ticks ? "" : ":xtic(1)", 5 + 2 * k, plot_strat_color[k], st->label);
}

/* ---- memory vs GPUs ------------------------------------------------------------------------ */

void plot_memory_sweep_dat(FILE *f, const plot_data *d)
{
    int ns = n_chosen(d->s);
    dat_head(f, "memory-vs-gpus", "memory per GPU (total) against the number of GPUs, one column per strategy", d, DESC_SWEEP);
    fputs("# unit: bytes (the chart divides by 1 GiB = 2^30 bytes); ? = not applicable or rejected.\n"
          "# non_sharded_floor: activations + logits + communication buffers + ZeRO-3 gathered\n"
          "# parameters + CUDA context, the smallest over the strategies: what sharding never removes.\n"
          "# columns: gpus", f);
    for (int k = 0; k < ns; k++) fprintf(f, " %s", d->s->chosen[k]->name);
    fputs(" non_sharded_floor hbm\n", f);
    for (int i = 0; i < d->n_gpus; i++) {
        fprintf(f, "%lld", (long long)d->gpus[i]);
        for (int k = 0; k <= ns; k++) {
            double v = k < ns ? d->mem_total[i][k] : d->mem_floor[i];
            if (isfinite(v)) fprintf(f, " %.17g", v);
            else fputs(" ?", f);
        }
        fprintf(f, " %.17g\n", d->s->hw->hbm_bytes);
    }
}

void plot_memory_sweep_gp(FILE *f, const plot_data *d, const plot_options *o)
{
    const scenario *s = d->s;
    int ns = n_chosen(s);
    bool seen[STRATEGY_MAX] = {false};
    double lo = s->hw->hbm_bytes, hi = s->hw->hbm_bytes;
    for (int i = 0; i < d->n_gpus; i++) {
        for (int k = 0; k < ns; k++) {
            if (!isfinite(d->mem_total[i][k])) continue;
            seen[k] = true;
            lo = fmin(lo, d->mem_total[i][k]);
            hi = fmax(hi, d->mem_total[i][k]);
        }
        if (isfinite(d->mem_floor[i])) lo = fmin(lo, d->mem_floor[i]);
    }
    gp_head(f, "memory-vs-gpus", "memory per GPU against the number of GPUs, one line per strategy");
    char desc[512];
    describe(d, DESC_SWEEP, desc, sizeof desc);
    gp_title(f, "Memory per GPU vs number of GPUs", desc);
    sweep_axes(f, d, "memory per GPU (GiB = 2^30 bytes, log scale)", lo / GiB / 1.5, hi / GiB * 1.5);
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    bool ticks = false;
    for (int k = 0; k < ns; k++) {
        if (!seen[k]) continue; /* a strategy that never applies: no line, no legend entry */
        char col[32];
        snprintf(col, sizeof col, "$%d/GiB", k + 2);
        sweep_line(&p, "memory-vs-gpus.dat", col, ticks, s->chosen[k]);
        sb_add(&p, ", \\\n     ");
        ticks = true;
    }
    sb_add(&p, "'memory-vs-gpus.dat' using 1:($%d/GiB) with lines dt 2 lw 2 lc rgb '#555555' title 'non-sharded floor', \\\n"
               "     'memory-vs-gpus.dat' using 1:($%d/GiB) with lines dt 4 lw 2.5 lc rgb '#c00000' title sprintf('GPU HBM %%.4g GiB', %.17g/GiB)\n",
           ns + 2, ns + 3, s->hw->hbm_bytes);
    gp_output(f, o, p.s);
}

/* ---- largest trainable model --------------------------------------------------------------- */

static const char *yes_no(bool b)
{
    return b ? "searched" : "not searched";
}

void plot_max_model_dat(FILE *f, const plot_data *d)
{
    const scenario *s = d->s;
    int ns = n_chosen(s);
    dat_head(f, "max-model", "largest trainable model against the number of GPUs, per strategy", d, DESC_MAX_MODEL);
    fprintf(f, "# plan_max_model per strategy and GPU count (as `zerosim plan --max-model` with the same\n"
               "# flags): %s; offload %s, tensor parallelism %s, pipeline parallelism %s.\n"
               "# unit: parameters (the chart divides by 1e9); ? = even the smallest model does not fit.\n"
               "# columns: gpus",
            s->m->params_only ? "the largest bare parameter count" : "the most layers at the model's width",
            yes_no(d->searched_offload), yes_no(d->searched_tp), yes_no(d->searched_pp));
    for (int k = 0; k < ns; k++) fprintf(f, " %s_params %s_layers", s->chosen[k]->name, s->chosen[k]->name);
    fputc('\n', f);
    for (int i = 0; i < d->n_gpus; i++) {
        fprintf(f, "%lld", (long long)d->gpus[i]);
        for (int k = 0; k < ns; k++) {
            if (d->max_params[i][k] > 0) fprintf(f, " %.17g %lld", d->max_params[i][k], (long long)d->max_layers[i][k]);
            else fputs(" ? ?", f);
        }
        fputc('\n', f);
    }
}

void plot_max_model_gp(FILE *f, const plot_data *d, const plot_options *o)
{
    const scenario *s = d->s;
    int ns = n_chosen(s);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < d->n_gpus; i++)
        for (int k = 0; k < ns; k++)
            if (d->max_params[i][k] > 0) {
                lo = fmin(lo, d->max_params[i][k]);
                hi = fmax(hi, d->max_params[i][k]);
            }
    gp_head(f, "max-model", "largest trainable model against the number of GPUs, one line per strategy");
    char desc[512];
    describe(d, DESC_MAX_MODEL, desc, sizeof desc);
    if (!(hi > 0)) lo = hi = 1e9;
    gp_title(f, "Largest trainable model vs number of GPUs", desc);
    sweep_axes(f, d, "largest model (billions of parameters, log scale)", lo / 1e9 / 2, hi / 1e9 * 2);
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    int drawn = 0;
    for (int k = 0; k < ns; k++) {
        bool any = false;
        for (int i = 0; i < d->n_gpus; i++) any |= d->max_params[i][k] > 0;
        if (!any) continue; /* fits nowhere: no line, no legend entry */
        char col[32];
        snprintf(col, sizeof col, "$%d/1e9", 2 + 2 * k);
        if (drawn) sb_add(&p, ", \\\n     ");
        sweep_line(&p, "max-model.dat", col, drawn > 0, s->chosen[k]);
        drawn++;
    }
    if (!drawn) sb_add(&p, "NaN title 'no strategy fits even the smallest model'");
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
}

/* ---- validation ---------------------------------------------------------------------------- */

/* The measured and predicted step time of a run, in seconds; false when it has none to plot
 * (for rows with only an MFU/HFU, the step time that MFU implies: predicted / (1 + error)). */
static bool val_point(const outcome *o, double *meas, double *pred)
{
    bool step = strcmp(o->metric, "step_seconds") == 0;
    *pred = o->r.step.total;
    *meas = step ? o->measured : *pred / (1 + o->error);
    return *meas > 0 && *pred > 0 && isfinite(*meas);
}

bool plot_validate_has_points(const plot_data *d)
{
    double m, p;
    for (int j = 0; j < d->val->n; j++)
        if (val_point(&d->val->o[j], &m, &p)) return true;
    return false;
}

void plot_validate_dat(FILE *f, const plot_data *d)
{
    const validate_report *v = d->val;
    fprintf(f, "# validate.dat -- predicted against measured step time of the runs in %s\n", d->runs_path);
    fputs("# unit: seconds per step. measured: measured_step_seconds, else global_batch x seq_len /\n"
          "# measured_tokens_per_second; for rows with only an MFU/HFU, the step time that MFU implies\n"
          "# (predicted / (1 + error)). error = predicted / measured - 1, as `zerosim validate` prints.\n"
          "# Rows grouped by strategy (ddp, zero1, zero2, zero3); the chart picks them by column 2.\n"
          "# columns: name strategy gpus measured_step_seconds predicted_step_seconds error metric\n", f);
    for (int k = 0; strategies[k]; k++) {
        for (int j = 0; j < v->n; j++) {
            const outcome *o = &v->o[j];
            double meas, pred;
            if (o->r.strategy != strategies[k] || !val_point(o, &meas, &pred)) continue;
            dat_str(f, o->run->name);
            fprintf(f, " %s %lld %.17g %.17g %.17g %s\n", strategies[k]->name, (long long)o->run->gpus, meas, pred,
                    o->error, o->metric);
        }
    }
}

void plot_validate_gp(FILE *f, const plot_data *d, const plot_options *o)
{
    const validate_report *v = d->val;
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
    snprintf(t, sizeof t, "%d runs from %s: mean absolute error %.1f%%", total, base ? base + 1 : d->runs_path,
             100 * v->mape);
    gp_title(f, "Predicted vs measured step time", t);
    fprintf(f, "set xlabel 'measured step time (seconds, log scale)'\n"
               "set ylabel 'predicted step time (seconds, log scale)'\n"
               "set logscale xy 10\nset format x '%%g'\nset format y '%%g'\n"
               "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\nset size ratio -1\n"
               "set grid xtics ytics mxtics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
               "set key inside left top vertical Left reverse box opaque samplen 2\nset samples 400\n"
               "set style fill transparent solid 0.18 noborder\n",
            lo, hi, lo, hi);
    static const int pts[STRATEGY_MAX] = {7, 5, 9, 11, 13, 6, 8, 10};
    sbuf p = {.n = 0};
    sb_add(&p, "plot [%.6g:%.6g] '+' using 1:(0.8*$1):(1.2*$1) with filledcurves lc rgb '#888888' title '+/-20%% band', \\\n"
               "     x with lines lw 1.5 lc rgb '#333333' title 'y = x'", lo, hi);
    for (int k = 0; strategies[k]; k++)
        if (count[k])
            sb_add(&p, ", \\\n     'validate.dat' using 4:(strcol(2) eq '%s' ? $5 : NaN) with points pt %d ps 1.4 "
                       "lc rgb '%s' title '%s (%d run%s)'",
                   strategies[k]->name, pts[k], plot_strat_color[k], strategies[k]->label, count[k],
                   count[k] == 1 ? "" : "s");
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
}

/* ---- calibration --------------------------------------------------------------------------- */

void plot_calibration_dat(FILE *f, const plot_data *d)
{
    fprintf(f, "# calibration.dat -- measured collective times and their alpha-beta fits (zerosim calibrate)\n"
               "# one block per collective set (gnuplot index i); fitted = latency + bytes * factor / busbw\n"
               "# columns: bytes measured_seconds fitted_seconds relative_residual\n");
    for (int k = 0; k < d->n_sets; k++) {
        const plot_fit_set *p = &d->sets[k];
        fprintf(f, "%s# set %d: ", k ? "\n\n" : "", k);
        dat_str(f, p->label);
        fprintf(f, " latency_seconds=%.9g busbw_bytes_per_second=%.9g factor=%.9g\n", p->latency, p->busbw, p->factor);
        for (int i = 0; i < p->n; i++) {
            double fit = p->latency + p->bytes[i] * p->factor / p->busbw;
            fprintf(f, "%.17g %.17g %.17g %.6g\n", p->bytes[i], p->seconds[i], fit, p->seconds[i] / fit - 1);
        }
    }
}

void plot_calibration_gp(FILE *f, const plot_data *d, const plot_options *o)
{
    gp_head(f, "calibration", "measured collective times against their alpha-beta fits");
    gp_title(f, "Collective time: measured (points) and fitted (lines)", "t = latency + size x busbw factor / bus bandwidth");
    fputs("set logscale xy\nset xlabel 'message size (bytes, log scale)'\n"
          "set ylabel 'time per collective (seconds, log scale)'\n"
          "set key outside right top vertical Left reverse box samplen 2\n" /* beside the plot: it hides no point */
          "set format x '%.0e'\nset format y '%.0e'\n", f);
    sbuf b = {{0}, 0};
    sb_add(&b, "plot ");
    for (int k = 0; k < d->n_sets; k++) {
        const char *c = plot_strat_color[k % 4];
        const char *label = d->sets[k].label;
        sb_add(&b, "%s'calibration.dat' index %d using 1:2 with points pt 7 ps 0.8 lc rgb '%s' title ", k ? ", \\\n     " : "", k, c);
        char t[128];
        snprintf(t, sizeof t, "%s (measured)", label);
        for (char *q = t; *q; q++)
            if (*q == '\'') *q = ' ';
        sb_add(&b, "'%s', \\\n     'calibration.dat' index %d using 1:3 with lines lw 2 lc rgb '%s' title '%s fit'", t, k, c, label);
    }
    sb_add(&b, "\n");
    gp_output(f, o, b.s);
}
