/* report.h -- writing estimate results as a terminal table, JSON or CSV. */
#ifndef ZS_REPORT_H
#define ZS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/result.h"
#include "core/scenario.h"
#include "io/weights.h"
#include "report/mem_fields.h"

typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV } out_format;

/* How to write a report, beyond what the scenario says. */
typedef struct report_options {
    out_format format;
    bool explain;              /* print the formulas first (--explain) */
    const char *ds_path;       /* the ds_config read, or NULL */
    const char *ds_defaulted;  /* its keys that took DeepSpeed's defaults ("" when none) */
    const char *ds_notes;      /* defaulted, "auto"-filled and ignored keys, for the table */
    const char *ds_ignored;    /* keys read but not modelled ("" when none), for JSON */
    const char *ds_filled;     /* "auto" keys filled as the HF Trainer does ("" when none) */
    const char *weights_path;  /* --weights: the checkpoint read, or NULL */
    const wt_summary *weights; /* what it holds against the config (with weights_path) */
    FILE *notes;               /* where --explain goes beside JSON or CSV (NULL: stderr) */
    const char *config_path;   /* --config: the launcher YAML read, or NULL */
    const char *config_format; /* the format recognised ("axolotl", "llama-factory", "accelerate") */
    const char *config_used, *config_defaulted, *config_ignored; /* "; "-separated report parts */
    const char *config_overridden; /* its keys that command-line flags overrode ("" when none) */
} report_options;

/* Write results (n of them) for scenario sc in o->format. Returns 0, or ZS_ERR_IO when the
 * stream fails (a closed pipe is not reported as an error by the caller). */
int report_estimate(FILE *f, const scenario *sc, const report_options *o, const result *r, int n);

/* The checkpoint block of the table (--weights): files, tensors, parameters against the
 * config's, one line per dtype, scales, buffers, extra layers. Never fails. */
void report_weights(FILE *f, const char *path, const wt_summary *w);

/* "" or, when --hbm overrode the profile's HBM, "; --hbm, profile 80.00 GiB" in buf (64 bytes
 * suffice): what the headers add after the HBM they print. Never fails. */
const char *report_hbm_note(const hardware *hw, char *buf, size_t len);

/* The offload column of plan and compare tables: "none", "opt cpu", "opt+param nvme". */
const char *report_offload_name(const training *t);

/* Print the formulas and byte table actually used (--explain): to f for a table, to stderr
 * for JSON/CSV so the data stays parseable. Never fails. */
void report_explain(FILE *f, const scenario *sc, const report_options *o);

#endif
