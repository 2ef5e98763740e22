/* plot_gp.h -- pieces the chart writers share: gnuplot strings, titles, heads, colours (internal to plot*.c). */
#ifndef ZS_PLOT_GP_H
#define ZS_PLOT_GP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/plot.h"

/* A gnuplot string expression: single-quoted, a newline joined in as "\n". */
void gp_str(FILE *f, const char *s);

/* A data-file string: double-quoted, with quotes and newlines replaced. */
void dat_str(FILE *f, const char *s);

typedef enum { DESC_RUN, DESC_SWEEP, DESC_MAX_MODEL } desc_kind;

/* Two lines describing d's configuration for titles (model, hardware, training); DESC_RUN
 * adds the GPUs of the single run, DESC_MAX_MODEL what the planner searched. */
void describe(const plot_data *d, desc_kind k, char *buf, size_t len);

/* The title: what the chart shows, then the detail below it (wrapped); ends the line. */
void gp_title(FILE *f, const char *what, const char *detail);

/* The script's head: where the images go (overridable with -e), fonts and common styles. */
void gp_head(FILE *f, const char *name, const char *what);

/* Terminal selection and the plot command for each format o asks for. */
void gp_output(FILE *f, const plot_options *o, const char *plot);

/* A data file's head: what it holds and, with a scenario, the configuration and HBM. */
void dat_head(FILE *f, const char *name, const char *what, const plot_data *d, desc_kind k);

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

/* Chart writers: the data file and the gnuplot script of one chart (plot_bars.c, plot_lines.c).
 * They only format d; write errors show in ferror(f). */
void plot_memory_dat(FILE *f, const plot_data *d);
void plot_memory_gp(FILE *f, const plot_data *d, const plot_options *o);
void plot_step_dat(FILE *f, const plot_data *d);
void plot_step_gp(FILE *f, const plot_data *d, const plot_options *o);
void plot_comm_dat(FILE *f, const plot_data *d);
void plot_comm_gp(FILE *f, const plot_data *d, const plot_options *o);
void plot_memory_sweep_dat(FILE *f, const plot_data *d);
void plot_memory_sweep_gp(FILE *f, const plot_data *d, const plot_options *o);
void plot_max_model_dat(FILE *f, const plot_data *d);
void plot_max_model_gp(FILE *f, const plot_data *d, const plot_options *o);
/* Whether some run of d->val has a step time to draw. */
bool plot_validate_has_points(const plot_data *d);
void plot_validate_dat(FILE *f, const plot_data *d);
void plot_validate_gp(FILE *f, const plot_data *d, const plot_options *o);
void plot_calibration_dat(FILE *f, const plot_data *d);
void plot_compare_dat(FILE *f, const plot_data *d);
void plot_compare_gp(FILE *f, const plot_data *d, const plot_options *o);
void plot_calibration_gp(FILE *f, const plot_data *d, const plot_options *o);

#endif
