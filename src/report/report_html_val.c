/* report_html_val.c -- the validation section of `zerosim report --runs FILE`. */
#include "report/report_html_val.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/strategy.h"
#include "report/svg.h"

/* A run's measured and predicted step time in seconds, as `zerosim plot validate` takes them:
 * the measured step time, or for a row with only an MFU/HFU (or another metric) the step time
 * that error implies (predicted / (1 + error)). False when the run has none to draw. */
static bool step_point(const outcome *o, double *meas, double *pred)
{
    if (o->refused[0]) return false;
    *pred = o->r.step.total;
    *meas = strcmp(o->metric, "step_seconds") == 0 ? o->measured : *pred / (1 + o->error);
    return *meas > 0 && *pred > 0 && isfinite(*meas) && isfinite(*pred);
}

static void chart(FILE *f, const validate_report *rep)
{
    double *x = calloc((size_t)rep->n + 1, sizeof *x), *y = calloc((size_t)rep->n + 1, sizeof *y);
    const char **labels = calloc((size_t)rep->n + 1, sizeof *labels);
    int *group = calloc((size_t)rep->n + 1, sizeof *group), n = 0;
    const char *names[STRATEGY_MAX];
    int ng = 0;
    for (; strategies[ng] && ng < STRATEGY_MAX; ng++) names[ng] = strategies[ng]->label;
    if (x && y && labels && group) {
        for (int j = 0; j < rep->n; j++) {
            const outcome *o = &rep->o[j];
            if (!step_point(o, &x[n], &y[n])) continue;
            labels[n] = o->run->name;
            group[n++] = o->r.strategy ? (int)o->r.strategy->id : 0;
        }
        svg_scatter(f,
            &(svg_scatter_chart){"validation", "Predicted against measured step time",
                "measured step time (s, log scale)", "predicted step time (s, log scale)", n, x, y, labels,
                group, ng, names, 0.2});
    }
    free(x);
    free(y);
    free(labels);
    free(group);
}

static void cell_text(FILE *f, const char *s)
{
    fputs("<td>", f);
    html_esc(f, s);
    fputs("</td>", f);
}

static void table(FILE *f, const validate_report *rep)
{
    fputs("<div class=\"wrap\"><table id=\"validation-runs\">\n<caption>Each run: what was "
          "measured and what zerosim predicts (error = predicted / measured - 1)</caption>\n"
          "<thead><tr><th>run</th><th>framework</th><th>metric</th><th>measured</th><th>predicted</th>"
          "<th>error %</th><th>predicted step (s)</th><th>source</th></tr></thead>\n<tbody>\n",
        f);
    for (int j = 0; j < rep->n; j++) {
        const outcome *o = &rep->o[j];
        if (o->refused[0]) continue;
        fputs("<tr data-run=\"", f);
        html_esc(f, o->run->name);
        fputs("\"><th>", f);
        html_esc(f, o->run->name);
        fputs("</th>", f);
        cell_text(f, o->run->framework);
        cell_text(f, o->metric);
        fprintf(f, "<td data-v=\"%.17g\">%.4g</td><td data-v=\"%.17g\">%.4g</td>", o->measured, o->measured,
            o->predicted, o->predicted);
        fprintf(f, "<td data-v=\"%.17g\">%+.1f</td><td data-v=\"%.17g\">%.4g</td>", o->error, 100 * o->error,
            o->r.step.total, o->r.step.total);
        fputs("<td class=\"src\">", f);
        html_esc(f, o->run->source);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void refused(FILE *f, const validate_report *rep)
{
    if (rep->n_refused == 0) return;
    fprintf(f,
        "<p class=\"sub\">%d run%s not predicted (out of the MAPE):</p>\n<ul class=\"sub\" "
        "id=\"validation-refused\">\n",
        rep->n_refused, rep->n_refused == 1 ? "" : "s");
    for (int j = 0; j < rep->n; j++) {
        if (!rep->o[j].refused[0]) continue;
        fputs("<li>", f);
        html_esc(f, rep->o[j].run->name);
        fputs(": ", f);
        html_esc(f, rep->o[j].refused);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

void report_html_validation(FILE *f, const validate_report *rep, const char *runs_path)
{
    int count = rep->n - rep->n_refused;
    fputs("<h2 id=\"validation\">Validation</h2>\n<p>", f);
    fprintf(f, "<b id=\"mape\" data-v=\"%.17g\">MAPE %.1f%%</b> over %d measured run%s from <code>",
        rep->mape, 100 * rep->mape, count, count == 1 ? "" : "s");
    html_esc(f, runs_path);
    fputs("</code>", f);
    if (rep->worst >= 0) {
        fputs("; the worst: ", f);
        html_esc(f, rep->o[rep->worst].run->name);
        fprintf(f, " (%+.1f%%)", 100 * rep->o[rep->worst].error);
    }
    fputs(". Each run is predicted with its own model, hardware and settings, as <code>zerosim validate"
          "</code> does.</p>\n",
        f);
    chart(f, rep);
    table(f, rep);
    refused(f, rep);
}
