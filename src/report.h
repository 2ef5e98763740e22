/* report.h -- writing estimate results as a terminal table, JSON or CSV. */
#ifndef ZS_REPORT_H
#define ZS_REPORT_H

#include <stdio.h>

#include "setup.h"
#include "sim.h"

/* The memory components in output order: JSON/CSV key, table label, offset into memory. */
typedef struct mem_field {
    const char *key;
    const char *label;
    size_t offset;
} mem_field;

extern const mem_field mem_fields[];  /* terminated by a NULL key */

/* Write results (n of them) for setup s in s->format. Returns 0, or ZS_ERR_IO when the
 * stream fails (a closed pipe is not reported as an error by the caller). */
int report_estimate(FILE *f, const setup *s, const result *r, int n);

/* Print the formulas and byte table actually used (--explain). */
void report_explain(FILE *f, const setup *s);

#endif
