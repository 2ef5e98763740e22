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

#endif
