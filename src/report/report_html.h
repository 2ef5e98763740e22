/* report_html.h -- `zerosim report`: the comparison as one self-contained HTML page (inline
 * SVG charts, inline styles, no scripts, fonts, images or links). */
#ifndef ZS_REPORT_HTML_H
#define ZS_REPORT_HTML_H

#include <stdio.h>

#include "report/report_compare.h"

/* A finished comparison and where its inputs came from. */
typedef struct html_report {
    const compare_report *c;
    const char *model_path;    /* the model file read ("" or NULL: none, e.g. --params) */
    const char *hw_path;       /* the hardware profile read */
    const char *ds_path;       /* the ds_config read, or NULL */
    const char *framework_arg; /* --framework as given ("all"), or NULL */
    const char *version;       /* zerosim's version, for the footer */
} html_report;

/* Write the page: the question and the inputs, the compare table (HTML tables, one row per
 * strategy), the memory chart against HBM and the step-time chart (inline SVG), the fewest-GPU
 * and fastest configurations, the cost of --tokens, the savings, and --explain's text. Every
 * string is escaped. Never fails (write errors show in ferror(f)). */
void report_html(FILE *f, const html_report *h);

#endif
