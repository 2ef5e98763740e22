/* svg.c -- HTML escaping and the inline SVG charts of `zerosim report`: stacked bars, a log-log scatter. */
#include "report/svg.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

void html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(ch < 0x20 && ch != '\n' && ch != '\t' ? '?' : ch, f);
        }
    }
}

/* The chart's geometry, in SVG user units (the viewBox; the SVG scales to the page's width). */
enum { LEFT = 64, RIGHT = 110, TOP = 36, PLOT_H = 260, BOTTOM = 64, MIN_W = 640, BAR_SLOT = 92 };

/* A round step for the y axis' ticks: 1, 2 or 5 times a power of ten, about top/5. */
static double tick_step(double top)
{
    double raw = top / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static double bar_total(const svg_stack_chart *c, int i)
{
    double t = 0;
    for (int k = 0; k < c->n_parts; k++) {
        double v = c->values[i * c->n_parts + k];
        if (isnan(v)) return NAN;
        t += v > 0 ? v : 0;
    }
    return t;
}

static void axis(FILE *f, const svg_stack_chart *c, double top, int width)
{
    double step = tick_step(top);
    for (double y = 0; y <= top * 1.0001; y += step) {
        double py = TOP + PLOT_H - y / top * PLOT_H;
        fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>", LEFT, py,
            width - RIGHT, py);
        fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%g</text>\n", LEFT - 6,
            py + 4, y);
    }
    fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"start\">", 4, TOP - 12);
    html_esc(f, c->unit);
    fputs("</text>\n", f);
}

/* A bar's label, escaped; one longer than a slot holds ("FSDP2 reshard_after_forward=False")
 * as two lines split at its first space, the second cut to fit. Returns the lines written. */
static int label_lines(FILE *f, const char *label, double cx)
{
    const char *sp = strchr(label, ' ');
    if (strlen(label) <= 14 || !sp) {
        html_esc(f, label);
        return 1;
    }
    char first[64], rest[64];
    snprintf(first, sizeof first, "%.*s", (int)(sp - label < 63 ? sp - label : 63), label);
    snprintf(rest, sizeof rest, "%s", sp + 1);
    if (strlen(rest) > 14) snprintf(rest + 12, sizeof rest - 12, "..");
    html_esc(f, first);
    fprintf(f, "<tspan x=\"%.2f\" dy=\"15\">", cx);
    html_esc(f, rest);
    fputs("</tspan>", f);
    return 2;
}

static void bars(FILE *f, const svg_stack_chart *c, double top)
{
    for (int i = 0; i < c->n_bars; i++) {
        double x = LEFT + i * BAR_SLOT + BAR_SLOT * 0.2, w = BAR_SLOT * 0.6, tot = bar_total(c, i);
        fputs("<g class=\"bar\" data-key=\"", f);
        html_esc(f, c->bar_keys[i]);
        fprintf(f, "\" data-total=\"%.6g\">", isnan(tot) ? 0 : tot);
        double base = 0;
        for (int k = 0; k < c->n_parts && !isnan(tot); k++) {
            double v = c->values[i * c->n_parts + k];
            if (!(v > 0)) continue;
            double h = v / top * PLOT_H, y = TOP + PLOT_H - (base + v) / top * PLOT_H;
            fprintf(f, "<rect class=\"p%d\" x=\"%.2f\" y=\"%.4f\" width=\"%.2f\" height=\"%.4f\"><title>", k,
                x, y, w, h);
            html_esc(f, c->bar_labels[i]);
            fputs(": ", f);
            html_esc(f, c->part_labels[k]);
            fprintf(f, " %.3g %s</title></rect>", v, c->unit);
            base += v;
        }
        double ty = TOP + PLOT_H - (isnan(tot) ? 0 : tot) / top * PLOT_H - 5;
        fprintf(f, "<text class=\"val\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">", x + w / 2, ty);
        if (isnan(tot))
            fputs("n/a", f);
        else
            fprintf(f, "%.4g", tot);
        fprintf(f, "</text><text class=\"lab\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">", x + w / 2,
            TOP + PLOT_H + 18);
        int lines = label_lines(f, c->bar_labels[i], x + w / 2);
        fputs("</text>", f);
        if (c->bar_notes && c->bar_notes[i] && c->bar_notes[i][0]) {
            fprintf(f, "<text class=\"note\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">", x + w / 2,
                TOP + PLOT_H + 18 + 15 * lines);
            html_esc(f, c->bar_notes[i]);
            fputs("</text>", f);
        }
        fputs("</g>\n", f);
    }
}

static void legend(FILE *f, const svg_stack_chart *c)
{
    fputs("<ul class=\"legend\">", f);
    for (int k = 0; k < c->n_parts; k++) {
        int used = 0;
        for (int i = 0; i < c->n_bars; i++) used |= c->values[i * c->n_parts + k] > 0;
        if (!used) continue;
        fprintf(f, "<li><span class=\"swatch p%d\"></span> ", k);
        html_esc(f, c->part_labels[k]);
        fputs("</li>", f);
    }
    if (!isnan(c->line)) {
        fputs("<li><span class=\"limit-key\"></span> ", f);
        html_esc(f, c->line_label);
        fputs("</li>", f);
    }
    fputs("</ul>\n", f);
}

void svg_stacked_bars(FILE *f, const svg_stack_chart *c)
{
    double top = isnan(c->line) ? 0 : c->line;
    for (int i = 0; i < c->n_bars; i++) {
        double t = bar_total(c, i);
        if (!isnan(t) && t > top) top = t;
    }
    top = top > 0 ? top * 1.12 : 1;
    int width = LEFT + RIGHT + c->n_bars * BAR_SLOT;
    if (width < MIN_W) width = MIN_W;
    int height = TOP + PLOT_H + BOTTOM;
    fputs("<figure>\n<svg id=\"", f);
    html_esc(f, c->id);
    fprintf(f,
        "\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
        width, height, width, height);
    html_esc(f, c->title);
    fputs("\"><title>", f);
    html_esc(f, c->title);
    fputs("</title>\n", f);
    axis(f, c, top, width);
    bars(f, c, top);
    if (!isnan(c->line)) {
        double py = TOP + PLOT_H - c->line / top * PLOT_H;
        fprintf(f, "<line class=\"limit\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>", LEFT, py,
            width - RIGHT, py);
        fprintf(f, "<text class=\"limit-label\" x=\"%d\" y=\"%.2f\" text-anchor=\"start\">",
            width - RIGHT + 4, py + 4);
        html_esc(f, c->line_label);
        fputs("</text>\n", f);
    }
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</svg>\n", LEFT, TOP + PLOT_H,
        width - RIGHT, TOP + PLOT_H);
    legend(f, c);
    fputs("</figure>\n", f);
}

/* The scatter's geometry: a square plot, the legend in HTML below. */
enum { SC_LEFT = 70, SC_TOP = 20, SC_SIZE = 380, SC_BOTTOM = 50, SC_RIGHT = 20 };

static double sc_pos(double v, double lo, double hi)
{
    return (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * SC_SIZE;
}

static bool sc_ok(double x, double y)
{
    return isfinite(x) && isfinite(y) && x > 0 && y > 0;
}

/* Grid lines and labels at 1, 2 and 5 times each power of ten within [lo, hi] (only the powers
 * of ten when the range spans more than two decades). */
static void sc_ticks(FILE *f, double lo, double hi)
{
    bool wide = hi / lo > 100;
    for (double p = pow(10, floor(log10(lo))); p <= hi; p *= 10) {
        static const double mult[] = {1, 2, 5};
        for (int k = 0; k < (wide ? 1 : 3); k++) {
            double v = p * mult[k];
            if (v < lo || v > hi) continue;
            double d = sc_pos(v, lo, hi);
            fprintf(f,
                "<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>"
                "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>",
                SC_LEFT + d, SC_TOP, SC_LEFT + d, SC_TOP + SC_SIZE, SC_LEFT, SC_TOP + SC_SIZE - d,
                SC_LEFT + SC_SIZE, SC_TOP + SC_SIZE - d);
            fprintf(f,
                "<text class=\"tick\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g</text>"
                "<text class=\"tick\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%g</text>\n",
                SC_LEFT + d, SC_TOP + SC_SIZE + 16, v, SC_LEFT - 6, SC_TOP + SC_SIZE - d + 4, v);
        }
    }
}

/* The y = x line and the band around it, as one polygon and one line clipped to the square. */
static void sc_diagonal(FILE *f, double lo, double hi, double band)
{
    double a = sc_pos(lo * (1 + band), lo, hi), b = sc_pos(hi / (1 + band), lo, hi);
    double c = sc_pos(lo / (1 - band), lo, hi), e = sc_pos(hi * (1 - band), lo, hi);
    /* upper edge y = (1+band)x from x = lo to hi/(1+band), lower edge y = (1-band)x from
     * x = lo/(1-band) to hi */
    fprintf(f, "<polygon class=\"band\" points=\"%d,%.2f %.2f,%d %d,%d %d,%.2f %.2f,%d %d,%d\"/>\n", SC_LEFT,
        SC_TOP + SC_SIZE - a, SC_LEFT + b, SC_TOP, SC_LEFT + SC_SIZE, SC_TOP, SC_LEFT + SC_SIZE,
        SC_TOP + SC_SIZE - e, SC_LEFT + c, SC_TOP + SC_SIZE, SC_LEFT, SC_TOP + SC_SIZE);
    fprintf(f, "<line class=\"diag\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", SC_LEFT, SC_TOP + SC_SIZE,
        SC_LEFT + SC_SIZE, SC_TOP);
}

static void sc_legend(FILE *f, const svg_scatter_chart *c)
{
    fputs("<ul class=\"legend\">", f);
    for (int g = 0; g < c->n_groups; g++) {
        int used = 0;
        for (int i = 0; i < c->n; i++) used += c->group[i] == g && sc_ok(c->x[i], c->y[i]);
        if (!used) continue;
        fprintf(f, "<li><span class=\"swatch p%d\"></span> ", g % 10);
        html_esc(f, c->group_labels[g]);
        fprintf(f, " (%d)</li>", used);
    }
    fprintf(f, "<li><span class=\"swatch band-key\"></span> &#177;%.0f%%</li></ul>\n", 100 * c->band);
}

void svg_scatter(FILE *f, const svg_scatter_chart *c)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < c->n; i++)
        if (sc_ok(c->x[i], c->y[i])) {
            lo = fmin(lo, fmin(c->x[i], c->y[i]));
            hi = fmax(hi, fmax(c->x[i], c->y[i]));
        }
    if (!(hi > 0)) lo = 0.1, hi = 10;
    lo /= 1.5;
    hi *= 1.5;
    int w = SC_LEFT + SC_SIZE + SC_RIGHT, h = SC_TOP + SC_SIZE + SC_BOTTOM;
    fputs("<figure>\n<svg id=\"", f);
    html_esc(f, c->id);
    fprintf(f,
        "\" class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
        "aria-label=\"",
        w, h, w, h);
    html_esc(f, c->title);
    fputs("\"><title>", f);
    html_esc(f, c->title);
    fputs("</title>\n", f);
    sc_diagonal(f, lo, hi, c->band);
    sc_ticks(f, lo, hi);
    fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", SC_LEFT, SC_TOP,
        SC_SIZE, SC_SIZE);
    for (int i = 0; i < c->n; i++) {
        if (!sc_ok(c->x[i], c->y[i])) continue;
        fprintf(f,
            "<circle class=\"pt p%d\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" data-x=\"%.9g\" "
            "data-y=\"%.9g\"><title>",
            c->group[i] % 10, SC_LEFT + sc_pos(c->x[i], lo, hi), SC_TOP + SC_SIZE - sc_pos(c->y[i], lo, hi),
            c->x[i], c->y[i]);
        html_esc(f, c->labels[i]);
        fprintf(f, ": measured %.4g, predicted %.4g</title></circle>\n", c->x[i], c->y[i]);
    }
    fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", SC_LEFT + SC_SIZE / 2,
        SC_TOP + SC_SIZE + 38);
    html_esc(f, c->x_label);
    fprintf(f,
        "</text><text class=\"tick\" transform=\"rotate(-90)\" x=\"%d\" y=\"%d\" "
        "text-anchor=\"middle\">",
        -(SC_TOP + SC_SIZE / 2), 16);
    html_esc(f, c->y_label);
    fputs("</text>\n</svg>\n", f);
    sc_legend(f, c);
    fputs("</figure>\n", f);
}
