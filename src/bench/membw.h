/* membw.h -- the membw table shared by the back ends: per-kernel times, column header, rows. */
#ifndef ZB_MEMBW_H
#define ZB_MEMBW_H

#include <stddef.h>

#include "stream.h"

struct report;

/* q = sqrt(2)-1 makes one copy/scale/add/triad cycle multiply a by
 * q^2 + 2q = 1, so any number of cycles stays finite (STREAM uses 3). */
#define STREAM_Q 0.41421356237309503

/* A size's rows: the four STREAM kernels (rows 0..STREAM_NKERNELS-1), then
 * on the CUDA back end cudaMemcpy device-to-device (row MEMBW_D2D). */
#define MEMBW_D2D STREAM_NKERNELS
#define MEMBW_MAX_ROWS (STREAM_NKERNELS + 1)

/* Timing of one size: per row best, total and worst seconds of the timed calls. */
struct membw_times {
    double best[MEMBW_MAX_ROWS], sum[MEMBW_MAX_ROWS], worst[MEMBW_MAX_ROWS];
};

/* membw_times_init: best 1e30, sum and worst 0 for every row. */
void membw_times_init(struct membw_times *t);

/* membw_times_add: counts one timed call of row k taking sec seconds. */
void membw_times_add(struct membw_times *t, int k, double sec);

/* membw_table_columns: the two column-header lines of a table of nrows rows
 * per size (proc 0's job; the kernel column is as wide as its longest name). */
void membw_table_columns(const struct report *r, int nrows);

/* membw_table_rows: one size of n doubles per array: takes the times' max
 * and wrong's sum over processes, then prints (proc 0) and appends to the
 * JSON rows 0..nrows-1; wrong (-1 unchecked) is the STREAM kernels', the
 * d2d row is unchecked. Returns the summed wrong. Collective; never fails. */
long long membw_table_rows(struct report *r, int nrows, size_t n, struct membw_times *t, long long wrong);

#endif
