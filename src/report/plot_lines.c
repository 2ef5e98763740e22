/* plot_lines.c -- the charts over GPU counts: memory-vs-gpus and max-model (the largest trainable model). */
#include <math.h>
#include <string.h>

#include "analysis/plan.h"
#include "core/sim.h"
#include "core/units.h"
#include "report/plot_chart.h"
#include "report/plot_gp.h"

/* memory-vs-gpus: one row per GPU count, one column per chosen strategy. */
typedef struct sweep_data {
    const scenario *s;
    int64_t gpus[PLOT_MAX_GPU_COUNTS];
    int n_gpus;
    double mem_total[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX]; /* bytes; NaN: not applicable or rejected */
    double mem_floor[PLOT_MAX_GPU_COUNTS];               /* bytes: the smallest non-sharded part; NaN: none */
} sweep_data;

/* max-model: one row per GPU count, one column per chosen strategy. */
typedef struct max_model_data {
    const scenario *s;
    int64_t gpus[PLOT_MAX_GPU_COUNTS];
    int n_gpus;
    double max_params[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX]; /* parameters; 0: not even the smallest fits */
    int64_t max_layers[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX];
    bool searched_offload, searched_tp, searched_pp; /* what the search allowed */
} max_model_data;

/* The log-log axes of a sweep over GPU counts, y from lo to hi. */
static void sweep_axes(FILE *f, const int64_t *gpus, int n_gpus, const char *ylabel, double lo, double hi)
{
    fprintf(f,
        "set xlabel 'GPUs (log scale)'\nset ylabel '%s'\n"
        "set logscale x 2\nset logscale y 10\nset format y '%%g'\n"
        "set xrange [%g:%g]\nset yrange [%.6g:%.6g]\n"
        "set grid xtics ytics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
        "set key outside right top vertical Left reverse samplen 3\n",
        ylabel, (double)gpus[0] / 1.3, (double)gpus[n_gpus - 1] * 1.3, lo, hi);
}

/* One strategy's line of a sweep chart; the first line drawn carries the x tics. */
static void sweep_line(sbuf *p, const char *file, const char *ycol, bool ticks, const strategy *st)
{
    int k = plot_strat_index(st);
    sb_add(p, "'%s' using 1:(%s)%s with linespoints lw 2 pt %d ps 1.2 lc rgb '%s' title '%s'", file, ycol,
        ticks ? "" : ":xtic(1)", 5 + 2 * k, plot_strat_color[k], st->label);
}

/* ---- memory vs GPUs ------------------------------------------------------------------------ */

/* Memory per GPU of each chosen strategy at each GPU count, and the part sharding never
 * removes (activations, logits, buffers, gathered parameters, CUDA context). */
static int sweep_compute(const scenario *s, const plot_request *q, void *data, zs_error *err)
{
    sweep_data *d = data;
    d->s = s;
    if (plot_gpu_counts(s, q, d->gpus, PLOT_MAX_GPU_COUNTS, &d->n_gpus, err)) return err->code;
    int ns = plot_n_chosen(s), good = 0;
    zs_error first = {0};
    for (int i = 0; i < d->n_gpus; i++) {
        training t = *s->t;
        t.gpus = d->gpus[i];
        sim_input in;
        zs_error e = {0};
        d->mem_floor[i] = NAN;
        for (int k = 0; k < ns; k++) d->mem_total[i][k] = NAN;
        if (sim_prepare(&in, s->m, s->pc, s->hw, &t, &e)) {
            if (!first.code) first = e;
            continue;
        }
        for (int k = 0; k < ns; k++) {
            result r;
            sim_run(&in, s->chosen[k], 0, &r);
            if (!r.applicable) continue;
            const memory *m = &r.mem;
            double fl = m->activations + m->logits + m->comm_buffers + m->gathered_params + m->cuda_context;
            d->mem_total[i][k] = m->total;
            d->mem_floor[i] = isnan(d->mem_floor[i]) ? fl : fmin(d->mem_floor[i], fl);
            good++;
        }
    }
    if (good) return ZS_OK;
    if (first.code) {
        *err = first;
        return err->code;
    }
    return zs_fail(err, ZS_ERR_USAGE, "memory-vs-gpus: no strategy applies at any GPU count");
}

static void sweep_dat(FILE *f, const void *data)
{
    const sweep_data *d = data;
    int ns = plot_n_chosen(d->s);
    char desc[512];
    describe(d->s, DESC_SWEEP, desc, sizeof desc);
    dat_head(f, "memory-vs-gpus",
        "memory per GPU (total) against the number of GPUs, one column per strategy", d->s, desc);
    fputs("# unit: bytes (the chart divides by 1 GiB = 2^30 bytes); ? = not applicable or rejected.\n"
          "# non_sharded_floor: activations + logits + communication buffers + ZeRO-3 gathered\n"
          "# parameters + CUDA context, the smallest over the strategies: what sharding never removes.\n"
          "# columns: gpus",
        f);
    for (int k = 0; k < ns; k++) fprintf(f, " %s", d->s->chosen[k]->name);
    fputs(" non_sharded_floor hbm\n", f);
    for (int i = 0; i < d->n_gpus; i++) {
        fprintf(f, "%lld", (long long)d->gpus[i]);
        for (int k = 0; k <= ns; k++) {
            double v = k < ns ? d->mem_total[i][k] : d->mem_floor[i];
            if (isfinite(v))
                fprintf(f, " %.17g", v);
            else
                fputs(" ?", f);
        }
        fprintf(f, " %.17g\n", d->s->hw->hbm_bytes);
    }
}

static void sweep_gp(FILE *f, const void *data, const plot_options *o)
{
    const sweep_data *d = data;
    const scenario *s = d->s;
    int ns = plot_n_chosen(s);
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
    describe(s, DESC_SWEEP, desc, sizeof desc);
    gp_title(f, "Memory per GPU vs number of GPUs", desc);
    sweep_axes(f, d->gpus, d->n_gpus, "memory per GPU (GiB = 2^30 bytes, log scale)", lo / GiB / 1.5,
        hi / GiB * 1.5);
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
    sb_add(&p,
        "'memory-vs-gpus.dat' using 1:($%d/GiB) with lines dt 2 lw 2 lc rgb '#555555' title 'non-sharded "
        "floor', \\\n"
        "     'memory-vs-gpus.dat' using 1:($%d/GiB) with lines dt 4 lw 2.5 lc rgb '#c00000' title "
        "sprintf('GPU HBM %%.4g GiB', %.17g/GiB)\n",
        ns + 2, ns + 3, s->hw->hbm_bytes);
    gp_output(f, o, p.s);
}

/* ---- largest trainable model --------------------------------------------------------------- */

static const char *yes_no(bool b)
{
    return b ? "searched" : "not searched";
}

/* plan_max_model for each chosen strategy at each GPU count. */
static int max_model_compute(const scenario *s, const plot_request *q, void *data, zs_error *err)
{
    max_model_data *d = data;
    d->s = s;
    if (plot_gpu_counts(s, q, d->gpus, PLOT_MAX_GPU_COUNTS, &d->n_gpus, err)) return err->code;
    int ns = plot_n_chosen(s), done = 0;
    d->searched_offload = !q->no_offload;
    d->searched_tp = !q->no_tp;
    d->searched_pp = !q->no_pp;
    for (int i = 0; i < d->n_gpus; i++) {
        plan_space sp;
        plan_space_init(&sp);
        sp.max_gpus = d->gpus[i];
        sp.allow_offload = d->searched_offload;
        sp.allow_tp = d->searched_tp;
        sp.allow_pp = d->searched_pp;
        for (int k = 0; k < ns; k++) {
            if (plan_max_model(
                    s, &sp, s->chosen[k], d->gpus[i], &d->max_params[i][k], &d->max_layers[i][k], err)) {
                zs_error_prefix(err, "max-model");
                return err->code;
            }
            if (q->progress) q->progress(++done, d->n_gpus * ns, q->progress_ctx);
        }
    }
    return ZS_OK;
}

/* "TP/PP/offload" split into what the search allowed and what it did not. */
static void searched(const max_model_data *d, char *yes, char *no, size_t len)
{
    const char *names[3] = {"TP", "PP", "offload"};
    bool on[3] = {d->searched_tp, d->searched_pp, d->searched_offload};
    yes[0] = no[0] = '\0';
    for (int i = 0; i < 3; i++) {
        char *out = on[i] ? yes : no;
        size_t l = strlen(out);
        snprintf(out + l, len - l, "%s%s", l ? "/" : "", names[i]);
    }
}

/* Two lines for titles: the configuration's first, then how the model was scaled and what the
 * search allowed. */
static void describe_max_model(const max_model_data *d, char *buf, size_t len)
{
    const scenario *s = d->s;
    const training *t = s->t;
    int n = describe_head(s, DESC_SWEEP, buf, len);
    if (n < 0 || (size_t)n >= len) return;
    char yes[64], no[64], shape[96] = "";
    searched(d, yes, no, sizeof yes);
    if (!s->m->params_only)
        snprintf(shape, sizeof shape, ", seq %lld, micro-batch 1, full recompute", (long long)t->seq_len);
    snprintf(buf + n, len - (size_t)n, "%s%s %s%s; searched: %s%s%s",
        s->m->params_only ? "" : "depth scaled; ", precision_name(t->precision), optimizer_name(t->optimizer),
        shape, yes[0] ? yes : "nothing", no[0] ? "; not searched: " : "", no);
}

static void max_model_dat(FILE *f, const void *data)
{
    const max_model_data *d = data;
    const scenario *s = d->s;
    int ns = plot_n_chosen(s);
    char desc[512];
    describe_max_model(d, desc, sizeof desc);
    dat_head(f, "max-model", "largest trainable model against the number of GPUs, per strategy", s, desc);
    fprintf(f,
        "# plan_max_model per strategy and GPU count (as `zerosim plan --max-model` with the same\n"
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
            if (d->max_params[i][k] > 0)
                fprintf(f, " %.17g %lld", d->max_params[i][k], (long long)d->max_layers[i][k]);
            else
                fputs(" ? ?", f);
        }
        fputc('\n', f);
    }
}

static void max_model_gp(FILE *f, const void *data, const plot_options *o)
{
    const max_model_data *d = data;
    const scenario *s = d->s;
    int ns = plot_n_chosen(s);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < d->n_gpus; i++)
        for (int k = 0; k < ns; k++)
            if (d->max_params[i][k] > 0) {
                lo = fmin(lo, d->max_params[i][k]);
                hi = fmax(hi, d->max_params[i][k]);
            }
    gp_head(f, "max-model", "largest trainable model against the number of GPUs, one line per strategy");
    char desc[512];
    describe_max_model(d, desc, sizeof desc);
    if (!(hi > 0)) lo = hi = 1e9;
    gp_title(f, "Largest trainable model vs number of GPUs", desc);
    sweep_axes(f, d->gpus, d->n_gpus, "largest model (billions of parameters, log scale)", lo / 1e9 / 2,
        hi / 1e9 * 2);
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

const plot_chart_def plot_chart_memory_vs_gpus = {
    .name = "memory-vs-gpus",
    .help = "memory per GPU vs number of GPUs, with the non-sharded floor",
    .needs = PLOT_NEEDS_SCENARIO,
    .size = sizeof(sweep_data),
    .compute = sweep_compute,
    .dat = sweep_dat,
    .gp = sweep_gp,
};

const plot_chart_def plot_chart_max_model = {
    .name = "max-model",
    .help = "largest trainable model vs number of GPUs per strategy",
    .needs = PLOT_NEEDS_SCENARIO,
    .size = sizeof(max_model_data),
    .compute = max_model_compute,
    .dat = max_model_dat,
    .gp = max_model_gp,
};
