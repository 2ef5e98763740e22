/* plot_bars.c -- the bar charts of one configuration: memory, step time, communication per strategy. */
#include <math.h>
#include <string.h>

#include "core/sim.h"
#include "report/plot_chart.h"
#include "report/plot_gp.h"
#include "report/report.h"

/* The bar charts' data: each of s's chosen strategies at s's own configuration. */
typedef struct bars_data {
    const scenario *s;
    result r[STRATEGY_MAX];
    int n;
} bars_data;

/* sim_run_scenario: every chosen strategy at the given configuration. */
static int bars_compute(const scenario *s, const plot_request *q, void *data, zs_error *err)
{
    bars_data *d = data;
    (void)q;
    d->s = s;
    if (sim_run_scenario(s, d->r, &d->n, err)) return err->code;
    return d->n > 0 ? ZS_OK : zs_fail(err, ZS_ERR_USAGE, "no strategy to draw");
}

/* Colours of the stacked memory parts (Tableau 10, in its order). */
static const char *const part_color[10] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* Room left and right of n bars (x = 0 .. n-1): more when there are few, so they stay slim. */
static double bar_pad(int n)
{
    return n <= 2 ? 1.2 : 0.6;
}

/* A row's first columns: strategy, label (marked when not applicable, and with mark_fit when
 * it does not fit), applicable. */
static void bar_row_head(FILE *f, const result *r, bool mark_fit)
{
    char label[64];
    snprintf(label, sizeof label, "%s%s", r->strategy->label,
        !r->applicable             ? " (n/a)"
            : mark_fit && !r->fits ? " (does not fit)"
                                   : "");
    fprintf(f, "%s ", r->strategy->name);
    dat_str(f, label);
    fprintf(f, " %d", r->applicable ? 1 : 0);
}

/* A bar chart's data file: head, the column description, then one row per strategy (the row
 * head, then what cols writes, ending the line). */
static void bar_dat(FILE *f, const bars_data *d, const char *name, const char *what, const char *columns,
    bool mark_fit, void (*cols)(FILE *f, const result *r))
{
    char desc[512];
    describe(d->s, DESC_RUN, desc, sizeof desc);
    dat_head(f, name, what, d->s, desc);
    fputs(columns, f);
    for (int i = 0; i < d->n; i++) {
        bar_row_head(f, &d->r[i], mark_fit);
        cols(f, &d->r[i]);
    }
}

/* Stacked-bar styles, the legend below in maxcols columns. */
static void bar_style(FILE *f, const char *ylabel, int maxcols)
{
    fprintf(f,
        "set ylabel '%s'\n"
        "set style data histograms\nset style histogram rowstacked\n"
        "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6 relative\n"
        "set key outside bottom center horizontal Left reverse maxcols %d samplen 2\n",
        ylabel, maxcols);
}

static void bar_xrange(FILE *f, int n)
{
    fprintf(f, "set xrange [%.1f:%.1f]\n", -bar_pad(n), n - 1 + bar_pad(n));
}

/* A bar chart's script up to the plot command: head, title, styles, axes up to ytop (in the
 * chart's unit). */
static void bar_chart(FILE *f, const bars_data *d, const char *name, const char *what, const char *title,
    const char *ylabel, int maxcols, double ytop)
{
    gp_head(f, name, what);
    char desc[512];
    describe(d->s, DESC_RUN, desc, sizeof desc);
    gp_title(f, title, desc);
    bar_style(f, ylabel, maxcols);
    bar_xrange(f, d->n);
    fprintf(f, "set yrange [0:%.6g]\n", ytop);
}

/* ---- memory -------------------------------------------------------------------------------- */

static double field_of(const memory *m, const mem_field *f)
{
    return *(const double *)((const char *)m + f->offset);
}

static bool is_sum(const mem_field *mf)
{
    return strcmp(mf->key, "model_states") == 0 || strcmp(mf->key, "total") == 0;
}

static void memory_dat(FILE *f, const void *data)
{
    const bars_data *d = data;
    char desc[512];
    describe(d->s, DESC_RUN, desc, sizeof desc);
    dat_head(f, "memory", "memory per GPU by component, one row per strategy", d->s, desc);
    fputs("# unit: bytes (the chart divides by 1 GiB = 2^30 bytes); the same numbers as\n"
          "# `zerosim estimate --format json` results[].memory_bytes for the same flags.\n"
          "# applicable = 0: the strategy cannot run this configuration (all parts 0).\n"
          "# columns: strategy label applicable",
        f);
    for (const mem_field *mf = mem_fields; mf->key; mf++) fprintf(f, " %s", mf->key);
    fputc('\n', f);
    for (int i = 0; i < d->n; i++) {
        const result *r = &d->r[i];
        bar_row_head(f, r, false);
        for (const mem_field *mf = mem_fields; mf->key; mf++)
            fprintf(f, " %.17g", r->applicable ? field_of(&r->mem, mf) : 0.0);
        fputc('\n', f);
    }
}

static void memory_gp(FILE *f, const void *data, const plot_options *o)
{
    const bars_data *d = data;
    int n = d->n, total_col = 3;
    for (const mem_field *mf = mem_fields; mf->key && strcmp(mf->key, "total") != 0; mf++) total_col++;
    total_col++;
    double top = 0;
    for (int i = 0; i < n; i++)
        if (d->r[i].applicable && d->r[i].mem.total > top) top = d->r[i].mem.total;
    /* Bars far above the HBM line are clipped so the line and the bars that fit stay readable. */
    double hbm = d->s->hw->hbm_bytes, ymax = fmax(top, hbm) * 1.15;
    bool clipped = top > 3 * hbm;
    if (clipped) ymax = 2.5 * hbm;
    gp_head(f, "memory", "memory per GPU by component, one stacked bar per strategy");
    char desc[512];
    describe(d->s, DESC_RUN, desc, sizeof desc);
    fprintf(f, "hbm = %.17g    # bytes: the GPU's memory\nymax = %.17g   # bytes: top of the y axis%s\n", hbm,
        ymax, clipped ? " (taller bars are clipped; their totals are labelled)" : "");
    fputs("# Changing ymax? Keep only the label clauses that have bars to label: gnuplot 5.4 crashes\n"
          "# on a labels plot whose points are all undefined.\n",
        f);
    gp_title(f, "Memory per GPU by component", desc);
    bar_style(f, "memory per GPU (GiB = 2^30 bytes)", 4);
    fputs("set style textbox opaque noborder\n", f);
    bar_xrange(f, n);
    fputs("set yrange [0:ymax/GiB]\n", f);
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    int col = 4, part = 0;
    for (const mem_field *mf = mem_fields; mf->key; mf++, col++) {
        if (is_sum(mf) || !mem_field_shown(mf, d->r, d->n)) continue;
        sb_add(&p, "'memory.dat' using ($%d/GiB)%s title '%s' lc rgb '%s', \\\n     ", col,
            part ? "" : ":xtic(2)", mf->label, part_color[part % 10]);
        part++;
    }
    sb_add(&p, "hbm/GiB with lines dt 2 lw 2.5 lc rgb '#c00000' title sprintf('GPU HBM %%.4g GiB', hbm/GiB)");
    /* Each labels clause only when some bar has such a label: gnuplot 5.4 crashes on a labels
     * plot whose points are all undefined. */
    int n_clipped = 0;
    for (int i = 0; i < n; i++) n_clipped += d->r[i].applicable && d->r[i].mem.total > ymax;
    if (n_clipped < n)
        sb_add(&p,
            ", \\\n     'memory.dat' using 0:($%d > ymax ? NaN : $%d/GiB):"
            "(column(3) > 0 ? sprintf('%%.1f GiB', $%d/GiB) : 'not applicable') with labels offset 0,0.8 "
            "notitle",
            total_col, total_col, total_col);
    if (n_clipped)
        sb_add(&p,
            ", \\\n     'memory.dat' using 0:($%d > ymax ? ymax/GiB : NaN):(sprintf(\"%%.0f GiB\\n(off "
            "scale)\", $%d/GiB)) "
            "with labels offset 0,-1.6 boxed notitle",
            total_col, total_col);
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
}

/* Whether any applicable strategy has a positive value: the EP and CP parts are drawn only
 * where some configuration has them. */
static bool any_positive(const bars_data *d, double (*get)(const result *))
{
    for (int i = 0; i < d->n; i++)
        if (d->r[i].applicable && get(&d->r[i]) > 0) return true;
    return false;
}
static double exposed_ep(const result *r)
{
    return r->step.exposed_ep;
}
static double exposed_cp(const result *r)
{
    return r->step.exposed_cp;
}
static double bytes_ep(const result *r)
{
    return r->comm.bytes_group[GROUP_EP];
}
static double bytes_cp(const result *r)
{
    return r->comm.bytes_group[GROUP_CP];
}

/* ---- step time ----------------------------------------------------------------------------- */

/* The step chart's columns after the row head. */
static void step_cols(FILE *f, const result *r)
{
    const step_time *t = &r->step;
    fprintf(f, " %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %d %.17g %.17g\n", t->compute,
        t->comm_exposed, t->optimizer, t->bubble, t->offload, t->total, r->tokens_per_second, r->mfu,
        r->applicable && r->fits, t->exposed_ep, t->exposed_cp);
}

static void step_dat(FILE *f, const void *data)
{
    bar_dat(f, data, "step", "step time breakdown per strategy",
        "# unit: seconds per step (tokens_per_second: whole cluster; mfu: fraction); as\n"
        "# `zerosim estimate --format json` reports them for the same flags.\n"
        "# fits = 0: GPU or host memory does not hold it; the times are what it would take if it did.\n"
        "# comm_exposed_ep (experts' all-to-all) and comm_exposed_cp (CP K/V ring) are parts of "
        "comm_exposed.\n"
        "# columns: strategy label applicable compute comm_exposed optimizer bubble offload total "
        "tokens_per_second mfu fits"
        " comm_exposed_ep comm_exposed_cp\n",
        true, step_cols);
}

static void step_gp(FILE *f, const void *data, const plot_options *o)
{
    const bars_data *d = data;
    double top = 0;
    for (int i = 0; i < d->n; i++) top = fmax(top, d->r[i].step.total);
    bar_chart(f, d, "step", "step time breakdown, one stacked bar per strategy", "Step time breakdown",
        "time per step (seconds)", 3, top > 0 ? top * 1.25 : 1.0);
    static const char *const parts[5] = {"compute (fwd + bwd + recompute)", "exposed communication",
        "optimizer step", "pipeline bubble", "exposed offload (PCIe)"};
    static const char *const colors[5] = {"#4e79a7", "#e15759", "#59a14f", "#bab0ac", "#b07aa1"};
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    /* Expert and context parallelism's exposed time, parts of the exposed communication, get
     * their own segments where any strategy has them. */
    bool ep = any_positive(d, exposed_ep), cp = any_positive(d, exposed_cp);
    for (int k = 0; k < 5; k++) {
        if (k == 1 && (ep || cp)) {
            sb_add(&p,
                "'step.dat' using ($5-$13-$14) title 'exposed communication (other)' lc rgb '%s', \\\n     ",
                colors[k]);
            if (ep)
                sb_add(&p, "'step.dat' using 13 title 'exposed EP all-to-all' lc rgb '#f28e2b', \\\n     ");
            if (cp) sb_add(&p, "'step.dat' using 14 title 'exposed CP K/V ring' lc rgb '#edc948', \\\n     ");
            continue;
        }
        sb_add(&p, "'step.dat' using %d%s title '%s' lc rgb '%s', \\\n     ", 4 + k, k ? "" : ":xtic(2)",
            parts[k], colors[k]);
    }
    /* What does not fit is hatched over and labelled so: its time is hypothetical. */
    int n_nofit = 0;
    for (int i = 0; i < d->n; i++) n_nofit += d->r[i].applicable && !d->r[i].fits;
    if (n_nofit)
        sb_add(&p,
            "'step.dat' using 0:(column(3) > 0 && column(12) < 1 ? $9 : NaN):(0.6) with boxes fill pattern 4 "
            "transparent "
            "border lc rgb '#c00000' lc rgb '#c00000' title 'does not fit in memory (time if it did)', \\\n  "
            "   ");
    sb_add(&p,
        "'step.dat' using 0:9:(column(3) > 0 ? (column(12) > 0 ? sprintf(\"%%.2f s\\nMFU %%.1f%%%%\", $9, "
        "100*$11) : "
        "sprintf(\"%%.2f s\\ndoes not fit\", $9)) : 'not applicable') with labels offset 0,1.7 notitle\n");
    gp_output(f, o, p.s);
}

/* ---- communication ------------------------------------------------------------------------- */

/* The communication chart's columns after the row head. */
static void comm_cols(FILE *f, const result *r)
{
    const comm_summary *c = &r->comm;
    fprintf(f, " %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", c->bytes_level[LEVEL_INTRA],
        c->bytes_level[LEVEL_INTER], c->bytes_level[LEVEL_HOST], c->bytes_total, c->ideal_bytes,
        c->bytes_group[GROUP_EP], c->bytes_group[GROUP_CP]);
}

static void comm_dat(FILE *f, const void *data)
{
    bar_dat(f, data, "comm", "bytes each GPU sends per step, by link level, per strategy",
        "# unit: bytes (the chart divides by 1 GB = 1e9 bytes); the same numbers as\n"
        "# `zerosim estimate --format json` results[].communication_bytes_per_gpu.\n"
        "# intra_node = NVLink/NVSwitch, inter_node = network, host_link = PCIe (offload);\n"
        "# ideal_zero_paper: the ZeRO paper's volume (2P, or 3P for stage 3, times (n-1)/n);\n"
        "# expert_all_to_all (EP dispatch/combine) and context_parallel_kv (CP ring) are parts of total.\n"
        "# columns: strategy label applicable intra_node inter_node host_link total ideal_zero_paper"
        " expert_all_to_all context_parallel_kv\n",
        false, comm_cols);
}

static void comm_gp(FILE *f, const void *data, const plot_options *o)
{
    const bars_data *d = data;
    double top = 0;
    for (int i = 0; i < d->n; i++) top = fmax(top, fmax(d->r[i].comm.bytes_total, d->r[i].comm.ideal_bytes));
    bar_chart(f, d, "comm", "bytes sent per GPU per step by link level, one stacked bar per strategy",
        "Communication volume per GPU per step", "sent per GPU per step (GB = 10^9 bytes)", 4,
        top > 0 ? top / 1e9 * 1.18 : 1.0);
    static const char plot[] =
        "plot 'comm.dat' using ($4/GB):xtic(2) title 'NVLink (intra-node)' lc rgb '#76b7b2', \\\n"
        "     '' using ($5/GB) title 'network (inter-node)' lc rgb '#4e79a7', \\\n"
        "     '' using ($6/GB) title 'PCIe (host offload)' lc rgb '#b07aa1', \\\n"
        "     '' using 0:(column(3) > 0 ? $8/GB : NaN) with points pt 9 ps 1.8 lc rgb '#c00000' "
        "title 'ZeRO paper ideal (data-parallel traffic only)', \\\n"
        "     '' using 0:(($7 > $8 ? $7 : $8)/GB):(column(3) > 0 ? sprintf('%.1f GB', $7/GB) : 'not "
        "applicable') "
        "with labels offset 0,1.3 notitle";
    /* Expert and context parallelism's own traffic, parts of the bars above, marked where any
     * strategy has it: the all-to-all and the K/V ring are what EP and CP add. */
    bool ep = any_positive(d, bytes_ep), cp = any_positive(d, bytes_cp);
    sbuf p = {.n = 0};
    sb_add(&p, "%s", plot);
    if (ep)
        sb_add(&p,
            ", \\\n     '' using 0:(column(3) > 0 && $9 > 0 ? $9/GB : NaN) with points pt 7 ps 1.5 "
            "lc rgb '#f28e2b' title 'of which expert all-to-all (EP)'");
    if (cp)
        sb_add(&p,
            ", \\\n     '' using 0:(column(3) > 0 && $10 > 0 ? $10/GB : NaN) with points pt 5 ps 1.5 "
            "lc rgb '#59a14f' title 'of which CP ring K/V exchange'");
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
}

const plot_chart_def plot_chart_memory = {
    .name = "memory",
    .help = "memory per GPU by component, one stacked bar per strategy, HBM line",
    .needs = PLOT_NEEDS_SCENARIO,
    .size = sizeof(bars_data),
    .compute = bars_compute,
    .dat = memory_dat,
    .gp = memory_gp,
};

const plot_chart_def plot_chart_step = {
    .name = "step",
    .help = "step time breakdown per strategy",
    .needs = PLOT_NEEDS_SCENARIO,
    .size = sizeof(bars_data),
    .compute = bars_compute,
    .dat = step_dat,
    .gp = step_gp,
};

const plot_chart_def plot_chart_comm = {
    .name = "comm",
    .help = "bytes sent per GPU per step by link level, with the ZeRO paper's ideal",
    .needs = PLOT_NEEDS_SCENARIO,
    .size = sizeof(bars_data),
    .compute = bars_compute,
    .dat = comm_dat,
    .gp = comm_gp,
};
