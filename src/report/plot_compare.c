/* plot_compare.c -- the compare chart: four panels a design document can quote (memory, largest batch, fewest
 * GPUs, cost). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/plan.h"
#include "core/units.h"
#include "report/plot_chart.h"
#include "report/plot_gp.h"
#include "report/report.h"

/* One row per strategy (and framework), as `zerosim compare` computes them. */
typedef struct compare_data {
    const scenario *s;
    compare_row cmp[COMPARE_MAX_ROWS];
    int n_cmp;
} compare_data;

/* As `zerosim compare` with its defaults: searches up to max(64, GPUs) with the batch the
 * given settings train. */
static int compare_compute(const scenario *s, const plot_request *q, void *data, zs_error *err)
{
    compare_data *d = data;
    (void)q;
    d->s = s;
    plan_space sp;
    plan_space_init(&sp);
    sp.max_gpus = s->t->gpus > 64 ? s->t->gpus : 64;
    /* In double: the flags' largest values overflow int64 (compare's own check, cmd_compare.c). */
    double gb = (double)s->t->micro_batch * (double)s->t->grad_accum * (double)training_dp(s->t);
    if (gb > PLAN_MAX_GLOBAL_BATCH)
        return zs_fail(err, ZS_ERR_USAGE,
            "the run's global batch (micro-batch x grad-accum x DP) is above 1e8 sequences, compare's limit");
    sp.global_batch = (int64_t)gb;
    sp.tokens = s->tokens;
    if (compare_run(s, &sp, NULL, d->cmp, COMPARE_MAX_ROWS, &d->n_cmp, err)) return err->code;
    return d->n_cmp > 0 ? ZS_OK : zs_fail(err, ZS_ERR_USAGE, "compare: no strategy to draw");
}

static void compare_dat(FILE *f, const void *data)
{
    const compare_data *d = data;
    char desc[512];
    describe(d->s, DESC_RUN, desc, sizeof desc);
    dat_head(f, "compare", "the strategy decision: one row per strategy, as `zerosim compare` gives it", d->s,
        desc);
    fputs("# units: bytes, sequences, GPUs, seconds, dollars; NaN where the strategy has no value\n"
          "# (does not fit, nothing within the search, no --tokens). Same numbers as\n"
          "# `zerosim compare --format json` for the same flags.\n"
          "# columns: strategy label memory_bytes fits max_micro_batch max_micro_batch_with_recompute "
          "min_gpus best_step_seconds best_dollars min_gpus_offload\n"
          "# (min_gpus_offload: what the fewest-GPU configuration offloads, as plan's offload column)\n",
        f);
    for (int i = 0; i < d->n_cmp; i++) {
        const compare_row *r = &d->cmp[i];
        char lab[96];
        framework_strategy_label(r->fw, r->s, lab, sizeof lab);
        fprintf(f, "%s ", r->s->name);
        dat_str(f, lab);
        fprintf(f, " %.17g %d %.17g %.17g %.17g %.17g %.17g", r->given.applicable ? r->given.mem.total : NAN,
            r->given.fits ? 1 : 0, r->max_micro_batch > 0 ? (double)r->max_micro_batch : NAN,
            r->max_micro_batch_recompute > 0 ? (double)r->max_micro_batch_recompute : NAN,
            r->min_gpus > 0 ? (double)r->min_gpus : NAN, r->has_best ? r->best.r.step.total : NAN,
            r->has_best && r->best.r.cost.tokens > 0 ? r->best.r.cost.dollars : NAN);
        fputc(' ', f);
        dat_str(f, r->min_gpus > 0 ? report_offload_name(&r->min_entry.t) : "-");
        fputc('\n', f);
    }
}

/* The top of a panel's y range: its largest value (get over the rows; NAN: none) with room
 * above for the value labels (lines of them), so no label touches the frame; 1 when the panel
 * has no value. */
static double panel_top(const compare_data *d, double (*get)(const compare_row *r), int lines)
{
    double top = 0;
    for (int i = 0; i < d->n_cmp; i++) {
        double v = get(&d->cmp[i]);
        if (!isnan(v)) top = fmax(top, v);
    }
    return top > 0 ? top * (1 + 0.14 * lines) : 1;
}

static double v_mb(const compare_row *r)
{
    return (double)(r->max_micro_batch > r->max_micro_batch_recompute ? r->max_micro_batch
                                                                      : r->max_micro_batch_recompute);
}
static double v_gpus(const compare_row *r)
{
    return r->min_gpus > 0 ? (double)r->min_gpus : NAN;
}
static double v_step(const compare_row *r)
{
    return r->has_best ? r->best.r.step.total : NAN;
}
static double v_usd(const compare_row *r)
{
    return r->has_best && r->best.r.cost.tokens > 0 ? r->best.r.cost.dollars : NAN;
}

/* The memory panel: bars clipped at ymax (far above the HBM line) keep their value, written
 * inside the bar below the frame; the others have it above the bar. */
static void memory_panel(sbuf *p)
{
    sb_add(p,
        "set title 'memory per GPU (dashed: the GPU; bars past the top are cut)'\nset ylabel 'GiB'\n"
        "set yrange [0:ymax/GiB]\n"
        "plot 'compare.dat' using ($3/GiB):xtic(2) with boxes lc rgb '#4e79a7', "
        "hbm/GiB with lines dt 2 lw 2.5 lc rgb '#c00000', "
        "'' using 0:($3 > ymax/1.1 ? NaN : $3/GiB):(sprintf('%%.1f', $3/GiB)) with labels offset 0,0.7 "
        "font ',9', "
        "'' using 0:($3 > ymax/1.1 ? ymax/GiB*0.9 : NaN):(sprintf('%%.1f', $3/GiB)) with labels "
        "tc rgb 'white' font ',9'\n");
}

/* The other three panels, each with its y axis named and room for its labels. */
static void other_panels(sbuf *p, const compare_data *d, bool cost)
{
    sb_add(p,
        "set title 'largest micro-batch (hatched: with full recompute)'\nset ylabel 'sequences per GPU'\n"
        "set yrange [0:%.17g]\nset boxwidth 0.35\n"
        "plot 'compare.dat' using ($0-0.18):5 with boxes lc rgb '#59a14f', "
        "'' using ($0+0.18):6:xtic(2) with boxes fs pattern 4 lc rgb '#59a14f', "
        "'' using ($0-0.18):5:(sprintf('%%g', $5)) with labels offset 0,0.7 font ',9', "
        "'' using ($0+0.18):6:(sprintf('%%g', $6)) with labels offset 0,0.7 font ',9'\nset boxwidth 0.7\n",
        panel_top(d, v_mb, 1));
    /* The fewest GPUs with what that configuration offloads: 1 GPU may need CPU offload. */
    sb_add(p,
        "set title 'fewest GPUs that fit (and what they offload)'\nset ylabel 'GPUs'\nset yrange [0:%.17g]\n"
        "plot 'compare.dat' using 7:xtic(2) with boxes lc rgb '#f28e2b', '' using "
        "0:7:(sprintf(\"%%g\\n%%s\", "
        "$7, strcol(10) eq 'none' ? 'no offload' : strcol(10))) with labels offset 0,1.6 font ',9'\n",
        panel_top(d, v_gpus, 2));
    if (cost)
        sb_add(p,
            "set title 'dollars for the tokens, fastest config'\nset ylabel 'dollars'\nset yrange [0:%.17g]\n"
            "set format y '%%.2s%%c'\n"
            "plot 'compare.dat' using 9:xtic(2) with boxes lc rgb '#e15759', '' using 0:9:('$'.gprintf("
            "'%%.3s%%c', $9)) with labels offset 0,0.7 font ',9'\nset format y '%%g'\n",
            panel_top(d, v_usd, 1));
    else
        sb_add(p,
            "set title 'step time of the fastest config'\nset ylabel 'seconds'\nset yrange [0:%.17g]\n"
            "plot 'compare.dat' using 8:xtic(2) with boxes lc rgb '#e15759', '' using 0:8:(sprintf('%%.3g', "
            "$8)) with labels offset 0,0.7 font ',9'\n",
            panel_top(d, v_step, 1));
}

static void compare_gp(FILE *f, const void *data, const plot_options *o)
{
    const compare_data *d = data;
    bool cost = d->n_cmp > 0 && d->s->tokens > 0;
    double hbm = d->s->hw->hbm_bytes, top = hbm;
    for (int i = 0; i < d->n_cmp; i++)
        if (d->cmp[i].given.applicable) top = fmax(top, d->cmp[i].given.mem.total);
    /* Bars far above the HBM line are clipped so the line stays readable. */
    double ymax = fmin(top, 4 * hbm) * 1.15;
    gp_head(f, "compare", "the strategy decision in four panels");
    char desc[512];
    describe(d->s, DESC_RUN, desc, sizeof desc);
    fprintf(f, "hbm = %.17g    # bytes: the GPU's memory\nymax = %.17g   # bytes: top of the memory panel\n",
        hbm, ymax);
    fputs("set style data histograms\nset style fill solid 0.85 border -1\nset boxwidth 0.7\n"
          "set xtics rotate by -20 scale 0 font ',9'\nset key off\nset grid ytics lc rgb '#dddddd'\n",
        f);
    sbuf p = {.n = 0};
    sb_add(&p, "set multiplot layout 2,2 title ");
    /* The title: the configuration's first line (model, hardware, GPUs); the .dat has the rest. */
    sbuf q = {.n = 0};
    sb_add(&q, "Which strategy? %.*s", (int)strcspn(desc, "\n"), desc);
    for (char *c = q.s; *c; c++)
        if (*c == '\'') *c = ' ';
    /* As much room right of the last bar as left of the first. */
    sb_add(&p, "'%s' font ',11'\nset xrange [-0.6:%d.6]\n", q.s, d->n_cmp - 1);
    memory_panel(&p);
    other_panels(&p, d, cost);
    sb_add(&p, "unset multiplot\n");
    /* A multiplot cannot be replotted: each format draws it whole. */
    plot_options png = *o, svg = *o;
    png.svg = false;
    svg.png = false;
    if (o->png) gp_output(f, &png, p.s);
    if (o->svg) gp_output(f, &svg, p.s);
}

const plot_chart_def plot_chart_compare = {
    .name = "compare",
    .help = "the strategy decision: memory with the HBM line, largest micro-batch,\n"
            "                  fewest GPUs, cost of --tokens (as `zerosim compare`)",
    .needs = PLOT_NEEDS_SCENARIO,
    .size = sizeof(compare_data),
    .compute = compare_compute,
    .dat = compare_dat,
    .gp = compare_gp,
};
