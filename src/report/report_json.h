/* report_json.h -- the JSON documents: estimate's, and the entries plan and compare write. */
#ifndef ZS_REPORT_JSON_H
#define ZS_REPORT_JSON_H

#include <stdio.h>

#include "core/result.h"
#include "core/scenario.h"
#include "core/training.h"
#include "report/report.h"

struct cJSON;

/* Estimate's document for results r[0..n) of scenario s: schema_version, model, hardware,
 * training (with op's ds_config notes) and one object per strategy under "results" (stable
 * keys). Returns NULL when out of memory. */
struct cJSON *report_estimate_json(const scenario *s, const report_options *op, const result *r, int n);

/* The blocks that say what was asked, added to root: "model", "checkpoint" (with --weights),
 * "hardware" and "training" (with op's ds_config notes; op may be NULL). estimate's and
 * compare's documents share them, keys and all. */
void report_json_context(struct cJSON *root, const scenario *s, const report_options *op);

/* A configuration and its result as plan and compare write them (stable keys: strategy,
 * framework, gpus, tp, pp, ..., memory_bytes, step_time_seconds, cost_dollars). Returns NULL
 * when out of memory. */
struct cJSON *report_entry_json(const training *t, const result *r);

/* Print root to f as puts would (pretty JSON and a newline) and free it; write errors show in
 * ferror(f), and a document cJSON cannot print (out of memory) prints nothing. */
void report_json_print(FILE *f, struct cJSON *root);

#endif
