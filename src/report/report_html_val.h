/* report_html_val.h -- the validation section of `zerosim report --runs FILE`: predicted
 * against measured per run, as an inline SVG scatter and an HTML table, with the MAPE. */
#ifndef ZS_REPORT_HTML_VAL_H
#define ZS_REPORT_HTML_VAL_H

#include <stdio.h>

#include "analysis/validate.h"

/* Write the section for rep (validate_file of runs_path): the MAPE, the worst run, the chart
 * of predicted against measured step time (log-log, the y = x line and a +-20% band; as
 * `zerosim plot validate` draws it) and one table row per run with the numbers `zerosim
 * validate --format json` gives (metric, measured, predicted, error), refused runs listed with
 * why. Never fails (write errors show in ferror(f)). */
void report_html_validation(FILE *f, const validate_report *rep, const char *runs_path);

#endif
