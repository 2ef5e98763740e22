/* plot_gp.h -- pieces the chart writers share: gnuplot strings, titles, heads, colours (internal to plot*.c).
 */
#ifndef ZS_PLOT_GP_H
#define ZS_PLOT_GP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/strategy.h"
#include "report/plot.h"

/* A data-file string: double-quoted, with quotes and newlines replaced. */
void dat_str(FILE *f, const char *s);

typedef enum { DESC_RUN, DESC_SWEEP } desc_kind;

/* The first of the description's lines (model, hardware, HBM and, for DESC_RUN, the GPUs of
 * the single run), its newline, and for a bare parameter count what that counts: what a
 * chart's own second line follows. Returns what snprintf returns (len or more: truncated). */
int describe_head(const scenario *s, desc_kind k, char *buf, size_t len);

/* Two lines describing s's configuration for titles (model, hardware, training); DESC_RUN
 * adds the GPUs of the single run. */
void describe(const scenario *s, desc_kind k, char *buf, size_t len);

/* The title: what the chart shows, then the detail below it (wrapped); ends the line. */
void gp_title(FILE *f, const char *what, const char *detail);

/* The script's head: where the images go (overridable with -e), fonts and common styles. */
void gp_head(FILE *f, const char *name, const char *what);

/* Terminal selection and the plot command for each format o asks for. */
void gp_output(FILE *f, const plot_options *o, const char *plot);

/* A data file's head: what it holds and, with a scenario, its description desc (as describe
 * writes it) and HBM. */
void dat_head(FILE *f, const char *name, const char *what, const scenario *s, const char *desc);

/* A fixed-size string builder for plot commands; truncates silently (they are far shorter). */
typedef struct sbuf {
    char s[16384];
    size_t n;
} sbuf;

void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Colours of the strategies, by strategy_index. */
extern const char *const plot_strat_color[STRATEGY_MAX];

/* Position of st in strategies[] (0 when it is not there). */
int plot_strat_index(const strategy *st);

#endif
