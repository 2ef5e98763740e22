/* report_calibrate.h -- what `calibrate` prints (table or JSON) and the calibration record it
 * stores in the profile. */
#ifndef ZS_REPORT_CALIBRATE_H
#define ZS_REPORT_CALIBRATE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "analysis/calibrate.h"
#include "analysis/fwfit.h"
#include "core/hardware.h"

/* The profile's "calibration" object: date (ISO 8601 UTC), base, method, inputs (n paths),
 * collectives (one object per fitted set), and runs, memory and gemm when fitted. Returns NULL
 * when out of memory. */
cJSON *report_calibrate_record(
    const calibration *c, const char *base, const char *const *inputs, int n, const char *date);

/* `--format json`: schema_version, collectives, levels (with hw's efficiencies), the runs,
 * gemm and memory objects of record, and profile (the output path, when out is not NULL),
 * written to f. Fails with ZS_ERR_NOMEM when out of memory. */
int report_calibrate_json(
    FILE *f, const calibration *c, const hardware *hw, const cJSON *record, const char *out, zs_error *err);

/* The table printout: the fits per collective, the combined levels, GEMM, streaming, runs,
 * memory, and "wrote OUT" when out is not NULL. Never fails (write errors show on f). */
void report_calibrate_table(
    FILE *f, const calibration *c, const hardware *hw, const char *base, const char *out);

/* The line `calibrate --runs --framework F` prints for F's fit on hw: the fitted GEMM
 * efficiency and step overhead with their standard errors, the run count, and the MAPE with
 * the shipped and the fitted values. Never fails (write errors show on f). */
void report_calibrate_framework(FILE *f, const fwfit_result *fr, const hardware *hw);

/* One framework fit as the profile's "frameworks" object stores it: gemm_efficiency and its
 * stderr, step_overhead_seconds and its stderr, runs. Returns NULL when out of memory. */
cJSON *report_calibrate_fw_fit(const hw_framework_fit *fit);

#endif
