/* report_plan.h -- what `plan` prints: the ranked configurations, the best per strategy, the
 * fewest GPUs, and the largest-model grid (table or JSON). */
#ifndef ZS_REPORT_PLAN_H
#define ZS_REPORT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/plan.h"
#include "core/scenario.h"
#include "report/report.h"

/* A finished plan search and what the table says around it. */
typedef struct plan_report {
    const scenario *sc;   /* the fixed configuration searched around */
    const plan_space *sp; /* as searched: global_batch is the batch used */
    const plan_result *pr;
    int64_t asked;         /* the batch asked for; differs from sp->global_batch when rounded */
    bool show_framework;   /* a framework column (a framework was named, or all) */
    const plan_hint *hint; /* when nothing fits: what would (read by the table only) */
} plan_report;

/* Write the plan in format: a table (title, the ranked configurations or what would fit,
 * then the best per strategy and its fewest GPUs) or JSON (schema_version, global_batch,
 * evaluated, feasible, ranked, best_per_strategy, min_gpus); FMT_CSV writes JSON. Never
 * fails (write errors show in ferror(f)). */
void report_plan(FILE *f, out_format format, const plan_report *r);

/* Write the largest-model grid for sc's hardware and model: a table of GPU counts by
 * strategy (">= " on values at the search limit) or, for FMT_JSON and FMT_CSV, JSON
 * (schema_version, max_model rows with gpus, one key per strategy and at_least). Never fails
 * (write errors show in ferror(f)). */
void report_plan_max_model(FILE *f, out_format format, const scenario *sc, const plan_model_grid *g);

#endif
