/* svg.c -- HTML escaping and the inline SVG stacked bar chart of `zerosim report`. */
#include "report/svg.h"

#include <math.h>
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
