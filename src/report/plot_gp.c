/* plot_gp.c -- gnuplot script and data-file pieces shared by every chart. */
#include "report/plot_gp.h"

#include <stdarg.h>
#include <string.h>

#include "core/units.h"

/* A gnuplot string expression: single-quoted, a newline joined in as "\n". */
static void gp_str(FILE *f, const char *s)
{
    /* No escapes inside single quotes except '' for a quote, and no backquote substitution. */
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        if (*s == '\n')
            fputs("' . \"\\n\" . '", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

void dat_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) fputc(*s == '"' ? '\'' : *s == '\n' ? ' ' : *s, f);
    fputc('"', f);
}

int describe_head(const scenario *s, desc_kind k, char *buf, size_t len)
{
    const training *t = s->t;
    char hbm[32], gpus[80] = "";
    units_fmt_bytes(s->hw->hbm_bytes, hbm, sizeof hbm);
    if (k == DESC_RUN) {
        int64_t gpn = scenario_gpus_per_node(s->hw, t);
        snprintf(gpus, sizeof gpus, ", %lld GPUs = %lld node(s) x %lld", (long long)t->gpus,
            (long long)((t->gpus + gpn - 1) / gpn), (long long)gpn);
    }
    const char *bare =
        s->m->params_only ? "bare parameter count (model states + overhead, no activations); " : "";
    return snprintf(buf, len, "%s on %s (%s HBM)%s\n%s", s->m->name, s->hw->name, hbm, gpus, bare);
}

void describe(const scenario *s, desc_kind k, char *buf, size_t len)
{
    const training *t = s->t;
    char mp[64] = "", off[96] = "";
    if (t->tp > 1 || t->pp > 1)
        snprintf(mp, sizeof mp, "TP %lld, PP %lld, ", (long long)t->tp, (long long)t->pp);
    if (t->offload_optimizer != OFFLOAD_NONE || t->offload_params != OFFLOAD_NONE)
        snprintf(off, sizeof off, ", offload optimizer %s, params %s", offload_name(t->offload_optimizer),
            offload_name(t->offload_params));
    int n = describe_head(s, k, buf, len);
    if (n < 0 || (size_t)n >= len) return;
    if (s->m->params_only) {
        snprintf(buf + n, len - (size_t)n, "%s%s %s%s", mp, precision_name(t->precision),
            optimizer_name(t->optimizer), off);
    } else {
        snprintf(buf + n, len - (size_t)n,
            "%smicro-batch %lld x seq %lld, grad-accum %lld, %s %s, checkpointing %s%s", mp,
            (long long)t->micro_batch, (long long)t->seq_len, (long long)t->grad_accum,
            precision_name(t->precision), optimizer_name(t->optimizer), ckpt_name(t->checkpointing), off);
    }
}

void gp_title(FILE *f, const char *what, const char *detail)
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

void gp_head(FILE *f, const char *name, const char *what)
{
    fprintf(f,
        "# %s.gp -- %s. Written by `zerosim plot`; redraw with `gnuplot %s.gp` in this\n"
        "# directory (the data is in %s.dat, described by its '#' header). Edit freely.\n",
        name, what, name, name);
    fprintf(f, "if (!exists('zs_png')) zs_png = '%s.png'\n", name);
    fprintf(f, "if (!exists('zs_svg')) zs_svg = '%s.svg'\n", name);
    fputs("GiB = 2.0**30          # bytes\nGB = 1.0e9             # bytes\n"
          "set datafile missing '?'\n"
          "set border lw 1.2\nset grid ytics lc rgb '#d0d0d0'\n"
          "set key noenhanced\n",
        f);
}

void gp_output(FILE *f, const plot_options *o, const char *plot)
{
    bool first = true;
    if (o->png) {
        fputs("if (strstrt(' '.GPVAL_TERMINALS.' ', ' pngcairo ') > 0) {\n"
              "    set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced\n"
              "} else {\n"
              "    set terminal png size 1000,600 font 'DejaVuSans,11' noenhanced\n"
              "}\nset output zs_png\n",
            f);
        fputs(plot, f);
        fputs("unset output\n", f);
        first = false;
    }
    if (o->svg) {
        fputs("set terminal svg size 1000,600 font 'Sans,12' noenhanced background rgb 'white'\n"
              "set output zs_svg\n",
            f);
        fputs(first ? plot : "replot\n", f);
        fputs("unset output\n", f);
    }
}

void dat_head(FILE *f, const char *name, const char *what, const scenario *s, const char *desc)
{
    fprintf(f, "# %s.dat -- %s\n", name, what);
    if (s) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", desc);
        char *rest = strchr(buf, '\n');
        if (rest) *rest++ = '\0';
        fprintf(f, "# configuration: %s\n", buf);
        if (rest && *rest) fprintf(f, "#                %s\n", rest);
        fprintf(f, "# hbm_bytes %.17g\n", s->hw->hbm_bytes);
    }
}

void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (k > 0) b->n += (size_t)k < sizeof b->s - b->n ? (size_t)k : sizeof b->s - b->n - 1;
}

/* Tableau 10 colours (matplotlib's default cycle), one per strategy. */
const char *const plot_strat_color[STRATEGY_MAX] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

int plot_strat_index(const strategy *st)
{
    int i = strategy_index(st);
    return i < 0 ? 0 : i;
}
