/* report_compare.h -- what `compare` prints: one column per strategy (and framework). */
#ifndef ZS_REPORT_COMPARE_H
#define ZS_REPORT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/compare.h"
#include "core/scenario.h"
#include "report/report.h"

/* A finished comparison. */
typedef struct compare_report {
    const scenario *sc;   /* the given settings */
    const plan_space *sp; /* the fewest-GPU and fastest searches' space */
    const compare_row *rows;
    int n;
    bool show_framework;      /* framework rows (a framework was named, or all) */
    const report_options *ro; /* ds_config and --weights notes for JSON's context blocks, or NULL */
} compare_report;

/* Write the comparison in format: a table (the given settings, the searches, the cost of
 * the token budget, the savings against the baseline), JSON (schema_version, results) or
 * CSV (one row per column of the table). Never fails (write errors show in ferror(f)). */
void report_compare(FILE *f, out_format format, const compare_report *c);

#endif
