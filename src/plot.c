/* plot.c -- charts as gnuplot .dat/.gp pairs written atomically, rendered by running gnuplot. */
#include "plot.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomicfile.h"
#include "plan.h"
#include "report.h"
#include "runs.h"
#include "sim.h"
#include "strategy.h"
#include "units.h"
#include "validate.h"

static const char *const chart_names[PLOT_COUNT] = {
    "memory", "memory-vs-gpus", "step", "comm", "max-model", "validate", "calibration",
};

const char *plot_chart_name(plot_chart c)
{
    return (unsigned)c < PLOT_COUNT ? chart_names[c] : "?";
}

int plot_chart_parse(const char *name)
{
    for (int i = 0; i < PLOT_COUNT; i++)
        if (strcmp(name, chart_names[i]) == 0) return i;
    return -1;
}

void plot_options_init(plot_options *o, const char *dir)
{
    memset(o, 0, sizeof *o);
    o->dir = dir;
    o->png = o->svg = true;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int plot_parse_gpus_list(const char *list, plot_options *o, zs_error *err)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        return zs_fail(err, ZS_ERR_USAGE, "--gpus-list: too long");
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= PLOT_MAX_GPU_COUNTS)
            return zs_fail(err, ZS_ERR_USAGE, "--gpus-list: at most %d counts", PLOT_MAX_GPU_COUNTS);
        if (units_parse_int(tok, "--gpus-list", 1, 10000000, &o->gpus[n], err)) return err->code;
        n++;
    }
    if (n == 0) return zs_fail(err, ZS_ERR_USAGE, "--gpus-list: expected GPU counts such as 8,16,64");
    qsort(o->gpus, (size_t)n, sizeof o->gpus[0], cmp_i64);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || o->gpus[i] != o->gpus[k - 1]) o->gpus[k++] = o->gpus[i];
    o->n_gpus = k;
    return ZS_OK;
}

int plot_gpu_counts(const scenario *s, const plot_options *o, int64_t *out, int max, int *n,
                    zs_error *err)
{
    int64_t mp = s->t->tp * s->t->pp, cand[PLOT_MAX_GPU_COUNTS];
    int nc = 0;
    if (o->n_gpus > 0) {
        for (int i = 0; i < o->n_gpus && nc < PLOT_MAX_GPU_COUNTS; i++) cand[nc++] = o->gpus[i];
    } else {
        int64_t gpn = scenario_node_size(s->hw, s->t);
        int64_t top = s->t->gpus > 1024 ? s->t->gpus : 1024;
        if (gpn < 1) gpn = 1;
        for (int64_t g = 1; g < gpn && nc < PLOT_MAX_GPU_COUNTS; g *= 2) cand[nc++] = g;
        for (int64_t g = gpn; g <= top && nc < PLOT_MAX_GPU_COUNTS; g *= 2) cand[nc++] = g;
    }
    *n = 0;
    for (int i = 0; i < nc && *n < max; i++)
        if (cand[i] % mp == 0) out[(*n)++] = cand[i];
    if (*n == 0)
        return zs_fail(err, ZS_ERR_USAGE, "no GPU count in the sweep is a multiple of --tp %lld x --pp %lld (see --gpus-list)",
                       (long long)s->t->tp, (long long)s->t->pp);
    return ZS_OK;
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

/* ---- atomic files: DIR/NAME written whole or not at all (atomicfile.c) --------------------- */

typedef struct afile {
    FILE *f;
    atomicfile a;
    char final[4096];
} afile;

static int af_open(afile *a, const char *dir, const char *name, zs_error *err)
{
    a->f = NULL;
    if (snprintf(a->final, sizeof a->final, "%s/%s", dir, name) >= (int)sizeof a->final)
        return zs_fail(err, ZS_ERR_IO, "%s: path too long", dir);
    if (atomicfile_open(&a->a, a->final) != 0)
        return zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", a->final, strerror(errno));
    a->f = a->a.f;
    return ZS_OK;
}

static void af_abort(afile *a)
{
    atomicfile_abort(&a->a);
    a->f = NULL;
}

static int af_close(afile *a, zs_error *err)
{
    a->f = NULL;
    if (atomicfile_commit(&a->a) != 0)
        return zs_fail(err, ZS_ERR_IO, "%s: write failed: %s", a->final, strerror(errno));
    return ZS_OK;
}

/* ---- gnuplot script pieces ---------------------------------------------------------------- */

/* A gnuplot string expression: single-quoted (no escapes inside except '' for a quote, no
 * backquote substitution), a newline joined in as "\n". */
static void gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        if (*s == '\n') fputs("' . \"\\n\" . '", f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* A data-file string: double-quoted, with quotes and newlines replaced. */
static void dat_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) fputc(*s == '"' ? '\'' : *s == '\n' ? ' ' : *s, f);
    fputc('"', f);
}

typedef enum { DESC_RUN, DESC_SWEEP, DESC_MAX_MODEL } desc_kind;

/* Two lines describing the configuration for titles: model, hardware (and the GPUs of a
 * single run), then the training; DESC_MAX_MODEL says what the planner searched. */
static void describe(const scenario *s, const plot_options *o, desc_kind k, char *buf, size_t len)
{
    const training *t = s->t;
    char hbm[32], gpus[80] = "", mp[64] = "", off[96] = "";
    units_fmt_bytes(s->hw->hbm_bytes, hbm, sizeof hbm);
    if (k == DESC_RUN) {
        int64_t gpn = scenario_gpus_per_node(s->hw, t);
        snprintf(gpus, sizeof gpus, ", %lld GPUs = %lld node(s) x %lld", (long long)t->gpus,
                 (long long)((t->gpus + gpn - 1) / gpn), (long long)gpn);
    }
    if (t->tp > 1 || t->pp > 1) snprintf(mp, sizeof mp, "TP %lld, PP %lld, ", (long long)t->tp, (long long)t->pp);
    if (t->offload_optimizer != OFFLOAD_NONE || t->offload_params != OFFLOAD_NONE)
        snprintf(off, sizeof off, ", offload optimizer %s, params %s", offload_name(t->offload_optimizer),
                 offload_name(t->offload_params));
    int n = snprintf(buf, len, "%s on %s (%s HBM)%s\n%s", s->m->name, s->hw->name, hbm, gpus,
                     s->m->params_only ? "bare parameter count (model states + overhead, no activations); " : "");
    if (n < 0 || (size_t)n >= len) return;
    if (k == DESC_MAX_MODEL) {
        char yes[64] = "", no[64] = "";
        const char *names[3] = {"TP", "PP", "offload"};
        bool on[3] = {!o->no_tp, !o->no_pp, !o->no_offload};
        for (int i = 0; i < 3; i++) {
            char *d = on[i] ? yes : no;
            size_t l = strlen(d);
            snprintf(d + l, sizeof yes - l, "%s%s", l ? "/" : "", names[i]);
        }
        char shape[96] = "";
        if (!s->m->params_only)
            snprintf(shape, sizeof shape, ", seq %lld, micro-batch 1, full recompute", (long long)t->seq_len);
        snprintf(buf + n, len - (size_t)n, "%s%s %s%s; searched: %s%s%s", s->m->params_only ? "" : "depth scaled; ",
                 precision_name(t->precision), optimizer_name(t->optimizer), shape, yes[0] ? yes : "nothing",
                 no[0] ? "; not searched: " : "", no);
    } else if (s->m->params_only) {
        snprintf(buf + n, len - (size_t)n, "%s%s %s%s", mp, precision_name(t->precision),
                 optimizer_name(t->optimizer), off);
    } else {
        snprintf(buf + n, len - (size_t)n, "%smicro-batch %lld x seq %lld, grad-accum %lld, %s %s, checkpointing %s%s", mp,
                 (long long)t->micro_batch, (long long)t->seq_len, (long long)t->grad_accum,
                 precision_name(t->precision), optimizer_name(t->optimizer), ckpt_name(t->checkpointing), off);
    }
}

/* The title: what the chart shows, then the configuration below it; ends the line. */
static void gp_title(FILE *f, const char *what, const char *detail)
{
    char t[1024];
    snprintf(t, sizeof t, "%s\n%s", what, detail);
    /* Wrap lines longer than a 1000-pixel chart holds at the last ", " that fits. */
    for (char *line = t; *line;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > 90) {
            char *cut = NULL;
            for (char *c = line; c + 1 < line + 90; c++)
                if ((c[0] == ',' || c[0] == ';') && c[1] == ' ') cut = c;
            if (cut) {
                cut[1] = '\n';
                memmove(cut, cut + 1, strlen(cut + 1) + 1);
                line = cut + 1;
                continue;
            }
        }
        if (!end) break;
        line = end + 1;
    }
    fputs("set title ", f);
    gp_str(f, t);
    fputs(" font ',12'\n", f);
}

static const char *sp_yes(bool b)
{
    return b ? "searched" : "not searched";
}

/* The script's head: where the images go (overridable with -e), fonts and common styles. */
static void gp_head(FILE *f, const char *name, const char *what)
{
    fprintf(f, "# %s.gp -- %s. Written by `zerosim plot`; redraw with `gnuplot %s.gp` in this\n"
               "# directory (the data is in %s.dat, described by its '#' header). Edit freely.\n",
            name, what, name, name);
    fprintf(f, "if (!exists('zs_png')) zs_png = '%s.png'\n", name);
    fprintf(f, "if (!exists('zs_svg')) zs_svg = '%s.svg'\n", name);
    fputs("GiB = 2.0**30          # bytes\nGB = 1.0e9             # bytes\n"
          "set datafile missing '?'\n"
          "set border lw 1.2\nset grid ytics lc rgb '#d0d0d0'\n"
          "set key noenhanced\n", f);
}

/* Terminal selection and the plot command twice (PNG, SVG); `plot` is the full plot command. */
static void gp_output(FILE *f, const plot_options *o, const char *plot)
{
    bool first = true;
    if (o->png) {
        fputs("if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {\n"
              "    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced\n"
              "} else {\n"
              "    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced\n"
              "}\nset output zs_png\n", f);
        fputs(plot, f);
        fputs("unset output\n", f);
        first = false;
    }
    if (o->svg) {
        fputs("set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'\n"
              "set output zs_svg\n", f);
        fputs(first ? plot : "replot\n", f);
        fputs("unset output\n", f);
    }
}

/* A fixed-size string builder for plot commands; truncates silently (they are far shorter). */
typedef struct sbuf {
    char s[16384];
    size_t n;
} sbuf;

__attribute__((format(printf, 2, 3))) static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (k > 0) b->n += (size_t)k < sizeof b->s - b->n ? (size_t)k : sizeof b->s - b->n - 1;
}

/* Colours: strategies (DDP, ZeRO-1, -2, -3) and stacked parts. */
static const char *const strat_color[STRATEGY_MAX] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                      "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
static const char *const part_color[10] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* Room left and right of n bars (x = 0 .. n-1): more when there are few, so they stay slim. */
static double bar_pad(int n)
{
    return n <= 2 ? 1.2 : 0.6;
}

static int strat_index(const strategy *st)
{
    for (int i = 0; strategies[i]; i++)
        if (strategies[i] == st) return i;
    return 0;
}

static double field_of(const memory *m, const mem_field *f)
{
    return *(const double *)((const char *)m + f->offset);
}

/* Evaluate every chosen strategy on the scenario's own configuration. */
static int run_all(const scenario *s, result *r, int *n, zs_error *err)
{
    return sim_run_scenario(s, r, n, err);
}

/* Data files start with what they hold and the configuration. */
static void dat_head(FILE *f, const char *name, const char *what, const scenario *s, const plot_options *o,
                     desc_kind k)
{
    fprintf(f, "# %s.dat -- %s\n", name, what);
    if (s) {
        char d[512];
        describe(s, o, k, d, sizeof d);
        char *rest = strchr(d, '\n');
        if (rest) *rest++ = '\0';
        fprintf(f, "# configuration: %s\n", d);
        if (rest && *rest) fprintf(f, "#                %s\n", rest);
        fprintf(f, "# hbm_bytes %.17g\n", s->hw->hbm_bytes);
    }
}

/* ---- memory -------------------------------------------------------------------------------- */

static bool is_sum(const mem_field *mf)
{
    return strcmp(mf->key, "model_states") == 0 || strcmp(mf->key, "total") == 0;
}

static int write_memory(const scenario *s, const plot_options *o, zs_error *err)
{
    result r[STRATEGY_MAX];
    int n;
    if (run_all(s, r, &n, err)) return err->code;
    afile a;
    if (af_open(&a, o->dir, "memory.dat", err)) return err->code;
    FILE *f = a.f;
    dat_head(f, "memory", "memory per GPU by component, one row per strategy", s, o, DESC_RUN);
    fputs("# unit: bytes (the chart divides by 1 GiB = 2^30 bytes); the same numbers as\n"
          "# `zerosim estimate --format json` results[].memory_bytes for the same flags.\n"
          "# applicable = 0: the strategy cannot run this configuration (all parts 0).\n"
          "# columns: strategy label applicable", f);
    int ncol = 3, total_col = 0;
    for (const mem_field *mf = mem_fields; mf->key; mf++) {
        fprintf(f, " %s", mf->key);
        ncol++;
        if (strcmp(mf->key, "total") == 0) total_col = ncol;
    }
    fputc('\n', f);
    double top = 0;
    for (int i = 0; i < n; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s%s", r[i].strategy->label, r[i].applicable ? "" : " (n/a)");
        fprintf(f, "%s ", r[i].strategy->name);
        dat_str(f, label);
        fprintf(f, " %d", r[i].applicable ? 1 : 0);
        for (const mem_field *mf = mem_fields; mf->key; mf++)
            fprintf(f, " %.17g", r[i].applicable ? field_of(&r[i].mem, mf) : 0.0);
        fputc('\n', f);
        if (r[i].applicable && r[i].mem.total > top) top = r[i].mem.total;
    }
    if (af_close(&a, err)) return err->code;

    /* Bars far above the HBM line are clipped so the line and the bars that fit stay readable. */
    double hbm = s->hw->hbm_bytes, ymax = fmax(top, hbm) * 1.15;
    bool clipped = top > 3 * hbm;
    if (clipped) ymax = 2.5 * hbm;
    if (af_open(&a, o->dir, "memory.gp", err)) return err->code;
    f = a.f;
    gp_head(f, "memory", "memory per GPU by component, one stacked bar per strategy");
    char d[512];
    describe(s, o, DESC_RUN, d, sizeof d);
    fprintf(f, "hbm = %.17g    # bytes: the GPU's memory\nymax = %.17g   # bytes: top of the y axis%s\n",
            hbm, ymax, clipped ? " (taller bars are clipped; their totals are labelled)" : "");
    fputs("# Changing ymax? Keep only the label clauses that have bars to label: gnuplot 5.4 crashes\n"
          "# on a labels plot whose points are all undefined.\n", f);
    gp_title(f, "Memory per GPU by component", d);
    fputs("set ylabel 'memory per GPU (GiB = 2^30 bytes)'\n"
          "set style data histograms\nset style histogram rowstacked\n"
          "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6 relative\n"
          "set key outside bottom center horizontal Left reverse maxcols 4 samplen 2\n"
          "set style textbox opaque noborder\n", f);
    fprintf(f, "set xrange [%.1f:%.1f]\nset yrange [0:ymax/GiB]\n", -bar_pad(n), n - 1 + bar_pad(n));
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    int col = 4, part = 0;
    for (const mem_field *mf = mem_fields; mf->key; mf++, col++) {
        if (is_sum(mf)) continue;
        sb_add(&p, "%s'memory.dat' using ($%d/GiB)%s title '%s' lc rgb '%s', \\\n     ", part ? "" : "",
               col, part ? "" : ":xtic(2)", mf->label, part_color[part % 10]);
        part++;
    }
    sb_add(&p, "hbm/GiB with lines dt 2 lw 2.5 lc rgb '#c00000' title sprintf('GPU HBM %%.4g GiB', hbm/GiB)");
    /* Each labels clause only when some bar has such a label: gnuplot 5.4 crashes on a labels
     * plot whose points are all undefined. */
    int n_clipped = 0;
    for (int i = 0; i < n; i++) n_clipped += r[i].applicable && r[i].mem.total > ymax;
    if (n_clipped < n)
        sb_add(&p, ", \\\n     'memory.dat' using 0:($%d > ymax ? NaN : $%d/GiB):"
                   "(column(3) > 0 ? sprintf('%%.1f GiB', $%d/GiB) : 'not applicable') with labels offset 0,0.8 notitle",
               total_col, total_col, total_col);
    if (n_clipped)
        sb_add(&p, ", \\\n     'memory.dat' using 0:($%d > ymax ? ymax/GiB : NaN):(sprintf(\"%%.0f GiB\\n(off scale)\", $%d/GiB)) "
                   "with labels offset 0,-1.6 boxed notitle",
               total_col, total_col);
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
    return af_close(&a, err);
}

/* ---- memory vs GPUs ------------------------------------------------------------------------ */

static int write_memory_vs_gpus(const scenario *s, const plot_options *o, zs_error *err)
{
    int64_t g[PLOT_MAX_GPU_COUNTS];
    int ng;
    if (plot_gpu_counts(s, o, g, PLOT_MAX_GPU_COUNTS, &ng, err)) return err->code;
    int ns = 0;
    while (s->chosen[ns]) ns++;
    afile a;
    if (af_open(&a, o->dir, "memory-vs-gpus.dat", err)) return err->code;
    FILE *f = a.f;
    dat_head(f, "memory-vs-gpus", "memory per GPU (total) against the number of GPUs, one column per strategy", s, o, DESC_SWEEP);
    fputs("# unit: bytes (the chart divides by 1 GiB = 2^30 bytes); ? = not applicable or rejected.\n"
          "# non_sharded_floor: activations + logits + communication buffers + ZeRO-3 gathered\n"
          "# parameters + CUDA context, the smallest over the strategies: what sharding never removes.\n"
          "# columns: gpus", f);
    for (int k = 0; k < ns; k++) fprintf(f, " %s", s->chosen[k]->name);
    fputs(" non_sharded_floor hbm\n", f);
    int good = 0;
    bool seen[STRATEGY_MAX] = {false};
    zs_error first = {0};
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < ng; i++) {
        training t = *s->t;
        t.gpus = g[i];
        sim_input in;
        zs_error e = {0};
        fprintf(f, "%lld", (long long)g[i]);
        if (sim_prepare(&in, s->m, s->pc, s->hw, &t, &e)) {
            if (!first.code) first = e;
            for (int k = 0; k < ns + 1; k++) fputs(" ?", f);
            fprintf(f, " %.17g\n", s->hw->hbm_bytes);
            continue;
        }
        double floor = INFINITY;
        for (int k = 0; k < ns; k++) {
            result r;
            sim_run(&in, s->chosen[k], 0, &r);
            if (!r.applicable) { fputs(" ?", f); continue; }
            fprintf(f, " %.17g", r.mem.total);
            seen[k] = true;
            double fl = r.mem.activations + r.mem.logits + r.mem.comm_buffers + r.mem.gathered_params +
                        r.mem.cuda_context;
            floor = fmin(floor, fl);
            lo = fmin(lo, fmin(r.mem.total, fl));
            hi = fmax(hi, r.mem.total);
            good++;
        }
        if (isfinite(floor)) fprintf(f, " %.17g", floor);
        else fputs(" ?", f);
        fprintf(f, " %.17g\n", s->hw->hbm_bytes);
    }
    if (!good) {
        af_abort(&a);
        if (first.code) { *err = first; return err->code; }
        return zs_fail(err, ZS_ERR_USAGE, "memory-vs-gpus: no strategy applies at any GPU count");
    }
    if (af_close(&a, err)) return err->code;

    if (af_open(&a, o->dir, "memory-vs-gpus.gp", err)) return err->code;
    f = a.f;
    gp_head(f, "memory-vs-gpus", "memory per GPU against the number of GPUs, one line per strategy");
    char d[512];
    describe(s, o, DESC_SWEEP, d, sizeof d);
    lo = fmin(lo, s->hw->hbm_bytes);
    hi = fmax(hi, s->hw->hbm_bytes);
    gp_title(f, "Memory per GPU vs number of GPUs", d);
    fprintf(f, "set xlabel 'GPUs (log scale)'\nset ylabel 'memory per GPU (GiB = 2^30 bytes, log scale)'\n"
               "set logscale x 2\nset logscale y 10\nset format y '%%g'\n"
               "set xrange [%g:%g]\nset yrange [%.6g:%.6g]\n"
               "set grid xtics ytics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
               "set key outside right top vertical Left reverse samplen 3\n",
            (double)g[0] / 1.3, (double)g[ng - 1] * 1.3, lo / GiB / 1.5, hi / GiB * 1.5);
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    bool ticks = false;
    for (int k = 0; k < ns; k++) {
        if (!seen[k]) continue; /* a strategy that never applies: no line, no legend entry */
        sb_add(&p, "'memory-vs-gpus.dat' using 1:($%d/GiB)%s with linespoints lw 2 pt %d ps 1.2 lc rgb '%s' title '%s', \\\n     ",
               k + 2, ticks ? "" : ":xtic(1)", 5 + 2 * strat_index(s->chosen[k]), strat_color[strat_index(s->chosen[k])],
               s->chosen[k]->label);
        ticks = true;
    }
    sb_add(&p, "'memory-vs-gpus.dat' using 1:($%d/GiB) with lines dt 2 lw 2 lc rgb '#555555' title 'non-sharded floor', \\\n"
               "     'memory-vs-gpus.dat' using 1:($%d/GiB) with lines dt 4 lw 2.5 lc rgb '#c00000' title sprintf('GPU HBM %%.4g GiB', %.17g/GiB)\n",
           ns + 2, ns + 3, s->hw->hbm_bytes);
    gp_output(f, o, p.s);
    return af_close(&a, err);
}

/* ---- step time ----------------------------------------------------------------------------- */

static int write_step(const scenario *s, const plot_options *o, zs_error *err)
{
    result r[STRATEGY_MAX];
    int n;
    if (run_all(s, r, &n, err)) return err->code;
    afile a;
    if (af_open(&a, o->dir, "step.dat", err)) return err->code;
    FILE *f = a.f;
    dat_head(f, "step", "step time breakdown per strategy", s, o, DESC_RUN);
    fputs("# unit: seconds per step (tokens_per_second: whole cluster; mfu: fraction); as\n"
          "# `zerosim estimate --format json` reports them for the same flags.\n"
          "# columns: strategy label applicable compute comm_exposed optimizer bubble offload total tokens_per_second mfu\n", f);
    double top = 0;
    for (int i = 0; i < n; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s%s", r[i].strategy->label, r[i].applicable ? "" : " (n/a)");
        fprintf(f, "%s ", r[i].strategy->name);
        dat_str(f, label);
        const step_time *t = &r[i].step;
        fprintf(f, " %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", r[i].applicable ? 1 : 0, t->compute,
                t->comm_exposed, t->optimizer, t->bubble, t->offload, t->total, r[i].tokens_per_second, r[i].mfu);
        top = fmax(top, t->total);
    }
    if (af_close(&a, err)) return err->code;

    if (af_open(&a, o->dir, "step.gp", err)) return err->code;
    f = a.f;
    gp_head(f, "step", "step time breakdown, one stacked bar per strategy");
    char d[512];
    describe(s, o, DESC_RUN, d, sizeof d);
    gp_title(f, "Step time breakdown", d);
    fprintf(f, "set ylabel 'time per step (seconds)'\n"
               "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6 relative\n"
               "set key outside bottom center horizontal Left reverse maxcols 3 samplen 2\n"
               "set xrange [%.1f:%.1f]\nset yrange [0:%.6g]\n", -bar_pad(n), n - 1 + bar_pad(n), top > 0 ? top * 1.25 : 1.0);
    static const char *const parts[5] = {"compute (fwd + bwd + recompute)", "exposed communication",
                                         "optimizer step", "pipeline bubble", "exposed offload (PCIe)"};
    static const char *const colors[5] = {"#4e79a7", "#e15759", "#59a14f", "#bab0ac", "#b07aa1"};
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    for (int k = 0; k < 5; k++)
        sb_add(&p, "'step.dat' using %d%s title '%s' lc rgb '%s', \\\n     ", 4 + k, k ? "" : ":xtic(2)", parts[k],
               colors[k]);
    sb_add(&p, "'step.dat' using 0:9:(column(3) > 0 ? sprintf(\"%%.2f s\\nMFU %%.1f%%%%\", $9, 100*$11) : 'not applicable') "
               "with labels offset 0,1.7 notitle\n");
    gp_output(f, o, p.s);
    return af_close(&a, err);
}

/* ---- communication ------------------------------------------------------------------------- */

static int write_comm(const scenario *s, const plot_options *o, zs_error *err)
{
    result r[STRATEGY_MAX];
    int n;
    if (run_all(s, r, &n, err)) return err->code;
    afile a;
    if (af_open(&a, o->dir, "comm.dat", err)) return err->code;
    FILE *f = a.f;
    dat_head(f, "comm", "bytes each GPU sends per step, by link level, per strategy", s, o, DESC_RUN);
    fputs("# unit: bytes (the chart divides by 1 GB = 1e9 bytes); the same numbers as\n"
          "# `zerosim estimate --format json` results[].communication_bytes_per_gpu.\n"
          "# intra_node = NVLink/NVSwitch, inter_node = network, host_link = PCIe (offload);\n"
          "# ideal_zero_paper: the ZeRO paper's volume (2P, or 3P for stage 3, times (n-1)/n).\n"
          "# columns: strategy label applicable intra_node inter_node host_link total ideal_zero_paper\n", f);
    double top = 0;
    for (int i = 0; i < n; i++) {
        char label[64];
        snprintf(label, sizeof label, "%s%s", r[i].strategy->label, r[i].applicable ? "" : " (n/a)");
        fprintf(f, "%s ", r[i].strategy->name);
        dat_str(f, label);
        const comm_summary *c = &r[i].comm;
        fprintf(f, " %d %.17g %.17g %.17g %.17g %.17g\n", r[i].applicable ? 1 : 0, c->bytes_level[LEVEL_INTRA],
                c->bytes_level[LEVEL_INTER], c->bytes_level[LEVEL_HOST], c->bytes_total, c->ideal_bytes);
        top = fmax(top, fmax(c->bytes_total, c->ideal_bytes));
    }
    if (af_close(&a, err)) return err->code;

    if (af_open(&a, o->dir, "comm.gp", err)) return err->code;
    f = a.f;
    gp_head(f, "comm", "bytes sent per GPU per step by link level, one stacked bar per strategy");
    char d[512];
    describe(s, o, DESC_RUN, d, sizeof d);
    gp_title(f, "Communication volume per GPU per step", d);
    fprintf(f, "set ylabel 'sent per GPU per step (GB = 10^9 bytes)'\n"
               "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6 relative\n"
               "set key outside bottom center horizontal Left reverse maxcols 4 samplen 2\n"
               "set xrange [%.1f:%.1f]\nset yrange [0:%.6g]\n", -bar_pad(n), n - 1 + bar_pad(n),
            top > 0 ? top / 1e9 * 1.18 : 1.0);
    sbuf p = {.n = 0};
    sb_add(&p, "plot 'comm.dat' using ($4/GB):xtic(2) title 'NVLink (intra-node)' lc rgb '#76b7b2', \\\n"
               "     '' using ($5/GB) title 'network (inter-node)' lc rgb '#4e79a7', \\\n"
               "     '' using ($6/GB) title 'PCIe (host offload)' lc rgb '#b07aa1', \\\n"
               "     '' using 0:(column(3) > 0 ? $8/GB : NaN) with points pt 9 ps 1.8 lc rgb '#c00000' "
               "title 'ZeRO paper ideal (data-parallel traffic only)', \\\n"
               "     '' using 0:(($7 > $8 ? $7 : $8)/GB):(column(3) > 0 ? sprintf('%%.1f GB', $7/GB) : 'not applicable') "
               "with labels offset 0,1.3 notitle\n");
    gp_output(f, o, p.s);
    return af_close(&a, err);
}

/* ---- largest trainable model --------------------------------------------------------------- */

static int write_max_model(const scenario *s, const plot_options *o, zs_error *err)
{
    int64_t g[PLOT_MAX_GPU_COUNTS];
    int ng;
    if (plot_gpu_counts(s, o, g, PLOT_MAX_GPU_COUNTS, &ng, err)) return err->code;
    int ns = 0;
    while (s->chosen[ns]) ns++;
    static double params[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX];
    static int64_t layers[PLOT_MAX_GPU_COUNTS][STRATEGY_MAX];
    double lo = INFINITY, hi = 0;
    int done = 0;
    for (int i = 0; i < ng; i++) {
        plan_space sp;
        plan_space_init(&sp);
        sp.max_gpus = g[i];
        sp.allow_offload = !o->no_offload;
        sp.allow_tp = !o->no_tp;
        sp.allow_pp = !o->no_pp;
        for (int k = 0; k < ns; k++) {
            params[i][k] = 0;
            layers[i][k] = 0;
            if (plan_max_model(s, &sp, s->chosen[k], g[i], &params[i][k], &layers[i][k], err)) {
                zs_error_prefix(err, "max-model");
                return err->code;
            }
            if (params[i][k] > 0) {
                lo = fmin(lo, params[i][k]);
                hi = fmax(hi, params[i][k]);
            }
            if (o->progress) o->progress(PLOT_MAX_MODEL, ++done, ng * ns, o->progress_ctx);
        }
    }
    afile a;
    if (af_open(&a, o->dir, "max-model.dat", err)) return err->code;
    FILE *f = a.f;
    dat_head(f, "max-model", "largest trainable model against the number of GPUs, per strategy", s, o, DESC_MAX_MODEL);
    fprintf(f, "# plan_max_model per strategy and GPU count (as `zerosim plan --max-model` with the same\n"
               "# flags): %s; offload %s, tensor parallelism %s, pipeline parallelism %s.\n"
               "# unit: parameters (the chart divides by 1e9); ? = even the smallest model does not fit.\n"
               "# columns: gpus",
            s->m->params_only ? "the largest bare parameter count" : "the most layers at the model's width",
            sp_yes(!o->no_offload), sp_yes(!o->no_tp), sp_yes(!o->no_pp));
    for (int k = 0; k < ns; k++) fprintf(f, " %s_params %s_layers", s->chosen[k]->name, s->chosen[k]->name);
    fputc('\n', f);
    for (int i = 0; i < ng; i++) {
        fprintf(f, "%lld", (long long)g[i]);
        for (int k = 0; k < ns; k++) {
            if (params[i][k] > 0) fprintf(f, " %.17g %lld", params[i][k], (long long)layers[i][k]);
            else fputs(" ? ?", f);
        }
        fputc('\n', f);
    }
    if (af_close(&a, err)) return err->code;

    if (af_open(&a, o->dir, "max-model.gp", err)) return err->code;
    f = a.f;
    gp_head(f, "max-model", "largest trainable model against the number of GPUs, one line per strategy");
    char d[512];
    describe(s, o, DESC_MAX_MODEL, d, sizeof d);
    if (!(hi > 0)) lo = hi = 1e9;
    gp_title(f, "Largest trainable model vs number of GPUs", d);
    fprintf(f, "set xlabel 'GPUs (log scale)'\nset ylabel 'largest model (billions of parameters, log scale)'\n"
               "set logscale x 2\nset logscale y 10\nset format y '%%g'\n"
               "set xrange [%g:%g]\nset yrange [%.6g:%.6g]\n"
               "set grid xtics ytics mytics lc rgb '#d0d0d0', lc rgb '#ececec'\n"
               "set key outside right top vertical Left reverse samplen 3\n",
            (double)g[0] / 1.3, (double)g[ng - 1] * 1.3, lo / 1e9 / 2, hi / 1e9 * 2);
    sbuf p = {.n = 0};
    sb_add(&p, "plot ");
    int drawn = 0;
    for (int k = 0; k < ns; k++) {
        bool any = false;
        for (int i = 0; i < ng; i++) any |= params[i][k] > 0;
        if (!any) continue; /* fits nowhere: no line, no legend entry */
        sb_add(&p, "%s'max-model.dat' using 1:($%d/1e9)%s with linespoints lw 2 pt %d ps 1.2 lc rgb '%s' title '%s'",
               drawn ? ", \\\n     " : "", 2 + 2 * k, drawn ? "" : ":xtic(1)", 5 + 2 * strat_index(s->chosen[k]),
               strat_color[strat_index(s->chosen[k])], s->chosen[k]->label);
        drawn++;
    }
    if (!drawn) sb_add(&p, "NaN title 'no strategy fits even the smallest model'");
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
    return af_close(&a, err);
}

/* ---- validation ---------------------------------------------------------------------------- */

static int write_validate(const plot_options *o, zs_error *err)
{
    if (!o->runs_path) return zs_fail(err, ZS_ERR_USAGE, "validate: needs --runs FILE");
    run_record *runs;
    int n;
    if (runs_load(o->runs_path, &runs, &n, err)) return err->code;
    outcome *out = calloc((size_t)n + 1, sizeof *out);
    if (!out) {
        free(runs);
        return zs_fail(err, ZS_ERR_IO, "out of memory");
    }
    double lo = INFINITY, hi = 0;
    int count[STRATEGY_MAX] = {0};
    for (int j = 0; j < n; j++) {
        if (validate_run(&runs[j], NULL, &out[j], err)) {
            zs_error_prefix(err, o->runs_path);
            free(out);
            free(runs);
            return err->code;
        }
        if (o->progress) o->progress(PLOT_VALIDATE, j + 1, n, o->progress_ctx);
    }
    afile a;
    int rc = af_open(&a, o->dir, "validate.dat", err);
    if (rc) goto done;
    FILE *f = a.f;
    fprintf(f, "# validate.dat -- predicted against measured step time of the runs in %s\n", o->runs_path);
    fputs("# unit: seconds per step. measured: measured_step_seconds, else global_batch x seq_len /\n"
          "# measured_tokens_per_second; for rows with only an MFU/HFU, the step time that MFU implies\n"
          "# (predicted / (1 + error)). error = predicted / measured - 1, as `zerosim validate` prints.\n"
          "# Rows grouped by strategy (ddp, zero1, zero2, zero3); the chart picks them by column 2.\n"
          "# columns: name strategy gpus measured_step_seconds predicted_step_seconds error metric\n", f);
    for (int k = 0; strategies[k]; k++) {
        for (int j = 0; j < n; j++) {
            if (out[j].r.strategy != strategies[k]) continue;
            bool step = strcmp(out[j].metric, "step_seconds") == 0;
            double pred = out[j].r.step.total, meas = step ? out[j].measured : pred / (1 + out[j].error);
            if (!(meas > 0) || !(pred > 0) || !isfinite(meas)) continue;
            dat_str(f, runs[j].name);
            fprintf(f, " %s %lld %.17g %.17g %.17g %s\n", strategies[k]->name, (long long)runs[j].gpus, meas, pred,
                    out[j].error, out[j].metric);
            lo = fmin(lo, fmin(meas, pred));
            hi = fmax(hi, fmax(meas, pred));
            count[k]++;
        }
    }
    if ((rc = af_close(&a, err))) goto done;
    if (!(hi > 0)) {
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: no run with a measured step time or MFU to plot", o->runs_path);
        goto done;
    }
    if ((rc = af_open(&a, o->dir, "validate.gp", err))) goto done;
    f = a.f;
    gp_head(f, "validate", "predicted against measured step time, one point style per strategy");
    lo /= 1.5;
    hi *= 1.5;
    int total = count[0] + count[1] + count[2] + count[3];
    double mape = 0;
    for (int j = 0; j < n; j++) mape += fabs(out[j].error);
    mape = n ? mape / n : 0;
    const char *base = strrchr(o->runs_path, '/');
    char t[512];
    snprintf(t, sizeof t, "%d runs from %s: mean absolute error %.1f%%", total, base ? base + 1 : o->runs_path,
             100 * mape);
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
                   strategies[k]->name, pts[k], strat_color[k], strategies[k]->label, count[k],
                   count[k] == 1 ? "" : "s");
    sb_add(&p, "\n");
    gp_output(f, o, p.s);
    rc = af_close(&a, err);
done:
    free(out);
    free(runs);
    return rc;
}

int plot_write(plot_chart c, const scenario *s, const plot_options *o, zs_error *err)
{
    if (c != PLOT_VALIDATE && !s) return zs_fail(err, ZS_ERR_USAGE, "%s: needs a model (--model or --params)", plot_chart_name(c));
    switch (c) {
    case PLOT_MEMORY: return write_memory(s, o, err);
    case PLOT_MEMORY_VS_GPUS: return write_memory_vs_gpus(s, o, err);
    case PLOT_STEP: return write_step(s, o, err);
    case PLOT_COMM: return write_comm(s, o, err);
    case PLOT_MAX_MODEL: return write_max_model(s, o, err);
    case PLOT_VALIDATE: return write_validate(o, err);
    case PLOT_CALIBRATION:
        return zs_fail(err, ZS_ERR_USAGE, "calibration: this chart comes from 'zerosim calibrate --plot DIR'");
    default: return zs_fail(err, ZS_ERR_USAGE, "unknown chart %d", (int)c);
    }
}

/* ---- running gnuplot ----------------------------------------------------------------------- */

int plot_write_calibration(const plot_options *o, const plot_fit_set *sets, int n, zs_error *err)
{
    if (n <= 0) return zs_fail(err, ZS_ERR_USAGE, "calibration chart: no collective fits to draw");
    afile dat, gp;
    if (af_open(&dat, o->dir, "calibration.dat", err)) return err->code;
    fprintf(dat.f, "# calibration.dat -- measured collective times and their alpha-beta fits (zerosim calibrate)\n"
                   "# one block per collective set (gnuplot index i); fitted = latency + bytes * factor / busbw\n"
                   "# columns: bytes measured_seconds fitted_seconds relative_residual\n");
    for (int k = 0; k < n; k++) {
        const plot_fit_set *p = &sets[k];
        fprintf(dat.f, "%s# set %d: ", k ? "\n\n" : "", k);
        dat_str(dat.f, p->label);
        fprintf(dat.f, " latency_seconds=%.9g busbw_bytes_per_second=%.9g factor=%.9g\n", p->latency, p->busbw, p->factor);
        for (int i = 0; i < p->n; i++) {
            double fit = p->latency + p->bytes[i] * p->factor / p->busbw;
            fprintf(dat.f, "%.17g %.17g %.17g %.6g\n", p->bytes[i], p->seconds[i], fit, p->seconds[i] / fit - 1);
        }
    }
    if (af_close(&dat, err)) return err->code;
    if (af_open(&gp, o->dir, "calibration.gp", err)) return err->code;
    gp_head(gp.f, "calibration", "measured collective times against their alpha-beta fits");
    gp_title(gp.f, "Collective time: measured (points) and fitted (lines)", "t = latency + size x busbw factor / bus bandwidth");
    fputs("set logscale xy\nset xlabel 'message size (bytes, log scale)'\n"
          "set ylabel 'time per collective (seconds, log scale)'\nset key top left box opaque\n"
          "set format x '%.0e'\nset format y '%.0e'\n", gp.f);
    sbuf b = {{0}, 0};
    sb_add(&b, "plot ");
    for (int k = 0; k < n; k++) {
        const char *c = strat_color[k % 4];
        sb_add(&b, "%s'calibration.dat' index %d using 1:2 with points pt 7 ps 0.8 lc rgb '%s' title ", k ? ", \\\n     " : "", k, c);
        char t[128];
        snprintf(t, sizeof t, "%s (measured)", sets[k].label);
        for (char *q = t; *q; q++) if (*q == '\'') *q = ' ';
        sb_add(&b, "'%s', \\\n     'calibration.dat' index %d using 1:3 with lines lw 2 lc rgb '%s' title '%s fit'", t, k, c, sets[k].label);
    }
    sb_add(&b, "\n");
    gp_output(gp.f, o, b.s);
    return af_close(&gp, err);
}

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool plot_find_gnuplot(char *path, size_t len)
{
    const char *want = getenv("GNUPLOT");
    if (!want || !*want) want = "gnuplot";
    snprintf(path, len, "%s", want);
    if (strchr(want, '/')) return executable(want);
    const char *pathvar = getenv("PATH");
    if (!pathvar) return false;
    char dir[4096];
    for (const char *p = pathvar; *p;) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n < sizeof dir) {
            memcpy(dir, p, n);
            dir[n] = '\0';
            char cand[8192];
            snprintf(cand, sizeof cand, "%s/%s", n ? dir : ".", want);
            if (executable(cand)) {
                if (snprintf(path, len, "%s", cand) < (int)len) return true;
            }
        }
        p += n;
        if (*p == ':') p++;
    }
    snprintf(path, len, "%s", want);
    return false;
}

/* The first line of gnuplot's log that says what went wrong (or the first line at all). */
static void first_error(const char *log, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(log, "r");
    if (!f) return;
    char line[512], first[512] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (!*p) continue;
        if (!first[0]) snprintf(first, sizeof first, "%s", p);
        if (strstr(p, "rror") || strstr(p, "annot") || strstr(p, "not found")) {
            snprintf(out, len, "%.300s", p);
            fclose(f);
            return;
        }
    }
    fclose(f);
    snprintf(out, len, "%.300s", first);
}

int plot_render(plot_chart c, const char *gnuplot, const plot_options *o, zs_error *err)
{
    const char *name = plot_chart_name(c);
    long pid = (long)getpid();
    char script[256], png_tmp[256], svg_tmp[256], vars[1024], log[4096];
    snprintf(script, sizeof script, "%s.gp", name);
    snprintf(png_tmp, sizeof png_tmp, ".%s.png.tmp.%ld", name, pid);
    snprintf(svg_tmp, sizeof svg_tmp, ".%s.svg.tmp.%ld", name, pid);
    snprintf(vars, sizeof vars, "zs_png='%s'; zs_svg='%s'", png_tmp, svg_tmp);
    if (snprintf(log, sizeof log, "%s/.%s.log.tmp.%ld", o->dir, name, pid) >= (int)sizeof log)
        return zs_fail(err, ZS_ERR_IO, "%s: path too long", o->dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) return zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", log, strerror(errno));
    char *argv[] = {(char *)gnuplot, "-e", vars, script, NULL};
    pid_t child = fork();
    if (child < 0) {
        close(fd);
        unlink(log);
        return zs_fail(err, ZS_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
    }
    if (child == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        dup2(fd, 2);
        if (chdir(o->dir) != 0) _exit(126);
        execvp(gnuplot, argv);
        _exit(127);
    }
    close(fd);
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) { status = -1; break; }
    char png_path[8192], svg_path[8192], png_final[8192], svg_final[8192];
    snprintf(png_path, sizeof png_path, "%s/%s", o->dir, png_tmp);
    snprintf(svg_path, sizeof svg_path, "%s/%s", o->dir, svg_tmp);
    snprintf(png_final, sizeof png_final, "%s/%s.png", o->dir, name);
    snprintf(svg_final, sizeof svg_final, "%s/%s.svg", o->dir, name);
    int rc = ZS_OK;
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char why[400];
        first_error(log, why, sizeof why);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            rc = zs_fail(err, ZS_ERR_IO, "cannot run %s", gnuplot);
        else
            rc = zs_fail(err, ZS_ERR_IO, "gnuplot failed on %s/%s: %s", o->dir, script, why[0] ? why : "no message");
    } else {
        struct stat st;
        if (o->png && (stat(png_path, &st) != 0 || st.st_size == 0))
            rc = zs_fail(err, ZS_ERR_IO, "gnuplot wrote no PNG for %s/%s", o->dir, script);
        else if (o->svg && (stat(svg_path, &st) != 0 || st.st_size == 0))
            rc = zs_fail(err, ZS_ERR_IO, "gnuplot wrote no SVG for %s/%s", o->dir, script);
        else if (o->png && rename(png_path, png_final) != 0)
            rc = zs_fail(err, ZS_ERR_IO, "%s: cannot rename into place: %s", png_final, strerror(errno));
        else if (o->svg && rename(svg_path, svg_final) != 0)
            rc = zs_fail(err, ZS_ERR_IO, "%s: cannot rename into place: %s", svg_final, strerror(errno));
    }
    unlink(png_path);
    unlink(svg_path);
    unlink(log);
    return rc;
}
