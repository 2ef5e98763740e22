/* report_validate.h -- what `validate` prints: predicted against measured per run, and the
 * per-framework fits of `validate --fit`. */
#ifndef ZS_REPORT_VALIDATE_H
#define ZS_REPORT_VALIDATE_H

#include <stdio.h>

#include "analysis/fwfit.h"
#include "analysis/validate.h"
#include "report/report.h"

/* Write rep in format: a table (one line per run, then the MAPE and the worst run), JSON
 * (schema_version, runs, count, mape, worst) or CSV (name, metric, measured, predicted,
 * error, predicted_step_seconds, predicted_mfu). Never fails (write errors show in
 * ferror(f)). */
void report_validate(FILE *f, out_format format, const validate_report *rep);

/* Write the n framework fits of `validate --fit`: a table (train and held-out counts, the
 * shipped and fitted values, the MAPEs) with a note on the method, or JSON (schema_version,
 * frameworks) for FMT_JSON and FMT_CSV. Never fails (write errors show in ferror(f)). */
void report_validate_fits(FILE *f, out_format format, const fwfit_result *fits, int n);

#endif
