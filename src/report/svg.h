/* svg.h -- HTML escaping and inline SVG charts drawn by hand (no scripts, fonts or images):
 * what `zerosim report` puts in its one HTML file. */
#ifndef ZS_SVG_H
#define ZS_SVG_H

#include <stdio.h>

/* Write s to f with &, <, >, " and ' as character references, and control characters other
 * than tab and newline as '?', so any string (a file name, a model's name) is safe in text and
 * in a quoted attribute. NULL writes nothing. Never fails (errors show in ferror(f)). */
void html_esc(FILE *f, const char *s);

/* A stacked bar chart: one bar per item, each bar the sum of its parts, drawn bottom up. */
typedef struct svg_stack_chart {
    const char *id;                 /* the <svg>'s id and class prefix ("mem") */
    const char *title;              /* the chart's title (<title>, and aria-label) */
    const char *unit;               /* the y axis' unit ("GiB", "s") */
    int n_bars;                     /* bars */
    const char *const *bar_labels;  /* under each bar */
    const char *const *bar_keys;    /* data-key of each bar's group (a strategy's JSON name) */
    const char *const *bar_notes;   /* a second line under each bar ("does not fit"), or NULL */
    int n_parts;                    /* parts per bar */
    const char *const *part_labels; /* the legend */
    const double *values;           /* n_bars x n_parts, row-major, in the unit; NAN: no bar */
    double line;                    /* a horizontal limit (HBM) in the unit, or NAN */
    const char *line_label;         /* its label */
} svg_stack_chart;

/* Write c as an <svg> element with a legend. Every bar is a <g class="bar" data-key=...
 * data-total=...> holding one <rect> per non-zero part (class "pN", N its index), heights
 * proportional to the values on one scale. Never fails. */
void svg_stacked_bars(FILE *f, const svg_stack_chart *c);

/* A scatter of predicted against measured values on log-log axes, one point per item, with the
 * y = x line and a +-band (band 0.2: +-20%) shaded around it. */
typedef struct svg_scatter_chart {
    const char *id;                /* the <svg>'s id */
    const char *title;             /* <title> and aria-label */
    const char *x_label, *y_label; /* the axes' names, units included */
    int n;                         /* points */
    const double *x, *y;           /* n each, > 0 (a point with x or y <= 0 or not finite is left out) */
    const char *const *labels;     /* each point's <title> (its run's name) */
    const int *group;              /* each point's colour class pN, N = group % 10 */
    int n_groups;                  /* the legend's entries */
    const char *const *group_labels;
    double band; /* the shaded band's half width, a fraction */
} svg_scatter_chart;

/* Write c as an <svg> element with a legend: each drawn point a <circle class="pt pN"
 * data-x=... data-y=...>, the axes' ticks at powers of ten (and 2 and 5 times them when the
 * range is narrow). Never fails; with no drawable point it writes the frame and a note. */
void svg_scatter(FILE *f, const svg_scatter_chart *c);

#endif
