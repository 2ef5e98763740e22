/* report_row.h -- one evaluated configuration as a flat row: the CSV columns estimate and sweep share. */
#ifndef ZS_REPORT_ROW_H
#define ZS_REPORT_ROW_H

#include <stdbool.h>
#include <stdio.h>

#include "core/hardware.h"
#include "core/model.h"
#include "core/result.h"
#include "core/strategy.h"
#include "core/training.h"

/* The header line of the shared CSV: names are estimate's JSON keys, nested ones dotted
 * ("memory_bytes.total", "step_time_seconds.total"). Never fails (write errors show in
 * ferror(f)). */
void report_row_header(FILE *f);

/* One row for strategy st under training t: as CSV (RFC 4180 quoting of text fields) or, with
 * json, as one JSON object per line with the same keys. error, when not NULL, marks a
 * configuration that could not be evaluated (its numbers are 0). tokens > 0 adds the cost
 * columns' values. Never fails. */
void report_row_write(FILE *f, const model *m, const hardware *hw, const training *t, const strategy *st,
    const result *r, const char *error, bool json);

#endif
