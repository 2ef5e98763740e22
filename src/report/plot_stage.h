/* plot_stage.h -- a chart's files made in a private directory and moved into place together (internal to
 * plot*.c). */
#ifndef ZS_PLOT_STAGE_H
#define ZS_PLOT_STAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"
#include "report/plot.h"

/* The files of one chart while they are made: DIR/.NAME.tmp.PID/NAME.{dat,gp,png,svg,log}. */
typedef struct plot_stage {
    char dir[4096]; /* the output directory */
    char tmp[4096]; /* the private directory inside it */
    char name[64];  /* the chart's name */
} plot_stage;

/* Create the private directory and arm the signal clean-up (SIGINT, SIGTERM, SIGHUP unless
 * ignored: stop gnuplot, remove the private directory, then the signal's previous action).
 * Fails with ZS_ERR_IO naming the path. */
int plot_stage_open(plot_stage *st, const char *dir, const char *name, zs_error *err);

/* Open NAME.EXT in the private directory for writing. Fails with ZS_ERR_IO. */
FILE *plot_stage_file(const plot_stage *st, const char *ext, zs_error *err);

/* Close a file plot_stage_file opened; fails with ZS_ERR_IO when any write failed. */
int plot_stage_file_close(const plot_stage *st, FILE *f, const char *ext, zs_error *err);

/* Run gnuplot on NAME.gp in the private directory, drawing NAME.png / NAME.svg there. Fails
 * with ZS_ERR_IO quoting gnuplot's first error line, or when an image it should draw is
 * missing or empty. */
int plot_stage_render(const plot_stage *st, const char *gnuplot, const plot_options *o, zs_error *err);

/* Move NAME.dat, NAME.gp and (when drawn) the images o asks for into the output directory
 * through atomicfile: all or none. An existing file keeps its permission bits; a read-only one
 * or a directory is refused (ZS_ERR_IO naming it) before any is replaced. */
int plot_stage_commit(const plot_stage *st, const plot_options *o, bool drawn, zs_error *err);

/* Remove the private directory and what is left in it; disarm the signal clean-up. Never fails. */
void plot_stage_close(plot_stage *st);

#endif
