/* report_compat.h -- what `estimate --compat deepspeed|megatron` prints: those tools' own
 * estimates, in their own words. */
#ifndef ZS_REPORT_COMPAT_H
#define ZS_REPORT_COMPAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/compat_deepspeed.h"
#include "core/compat_megatron.h"
#include "report/report.h"

#define COMPAT_DS_MAX_ROWS 8

/* DeepSpeed's *_all_cold tables for its stages 2 and 3. */
typedef struct compat_ds_report {
    int nodes, gpus_per_node;
    double params;  /* parameters of the model */
    double largest; /* parameters of its largest layer (stage 3) */
    bool want[2];   /* stage 2, stage 3 asked for */
    int n[2];       /* rows of each stage asked for */
    ds_row rows[2][COMPAT_DS_MAX_ROWS];
} compat_ds_report;

/* Write the tables as DeepSpeed prints them, with a note on what they leave out, or JSON
 * (rows: strategy, offload_param, offload_optimizer, zero_init for stage 3, per_gpu_bytes,
 * per_cpu_bytes) for FMT_JSON and FMT_CSV. Never fails (write errors show in ferror(f)). */
void report_compat_deepspeed(FILE *f, out_format format, const compat_ds_report *r);

/* Write Megatron-LM's theoretical memory report as it prints it (with a note on its MB and
 * what it omits; padded_vocab is the vocabulary it pads to), or JSON for FMT_JSON and FMT_CSV.
 * Never fails (write errors show in ferror(f)). */
void report_compat_megatron(FILE *f, out_format format, const megatron_memory *r, int64_t padded_vocab);

#endif
