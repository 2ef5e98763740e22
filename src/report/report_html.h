/* report_html.h -- `zerosim report`: the comparison as one self-contained HTML page (inline
 * SVG charts, inline styles, no scripts, fonts, images or links). */
#ifndef ZS_REPORT_HTML_H
#define ZS_REPORT_HTML_H

#include <stdio.h>

#include "analysis/validate.h"
#include "report/report_compare.h"

/* A finished comparison and where its inputs came from. */
typedef struct html_report {
    const compare_report *c;
    const char *model_path;     /* the model file read ("" or NULL: none, e.g. --params) */
    const char *hw_path;        /* the hardware profile read */
    const char *ds_path;        /* the ds_config read, or NULL */
    const char *framework_arg;  /* --framework as given ("all"), or NULL */
    const char *version;        /* zerosim's version, for the footer */
    const validate_report *val; /* --runs FILE predicted (validate_file), or NULL: no validation */
    const char *runs_path;      /* that file, as named */
} html_report;

/* Write the page: the question and the inputs (with the files and keys they came from: model,
 * hardware, --config's launcher keys, ds_config's), the compare table (HTML tables, one row per
 * strategy), the memory chart against HBM, the step-time, communication and compare charts
 * (inline SVG), the fewest-GPU and fastest configurations, the cost of --tokens, the savings,
 * the validation of h->val when given (chart, per-run errors, MAPE), and --explain's text.
 * Every string is escaped. Never fails (write errors show in ferror(f)). */
void report_html(FILE *f, const html_report *h);

#endif
