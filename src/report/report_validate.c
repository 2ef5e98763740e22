/* report_validate.c -- what `validate` prints: predicted against measured per run, and the
 * per-framework fits of `validate --fit`. */
#include "report/report_validate.h"
#include "report/report_json.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/csvout.h"

static cJSON *outcome_json(const outcome *o)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "name", o->run->name);
    cJSON_AddStringToObject(x, "metric", o->metric);
    cJSON_AddNumberToObject(x, "measured", o->measured);
    cJSON_AddNumberToObject(x, "predicted", o->predicted);
    cJSON_AddNumberToObject(x, "predicted_step_seconds", o->r.step.total);
    cJSON_AddNumberToObject(x, "predicted_mfu", o->r.mfu);
    if (o->r.has_interval) {
        cJSON *iv = cJSON_AddArrayToObject(x, "step_time_interval_seconds");
        cJSON_AddItemToArray(iv, cJSON_CreateNumber(o->r.step_lo));
        cJSON_AddItemToArray(iv, cJSON_CreateNumber(o->r.step_hi));
    }
    cJSON_AddNumberToObject(x, "error", o->error);
    cJSON_AddBoolToObject(x, "fits", o->r.fits);
    cJSON_AddStringToObject(x, "source", o->run->source);
    cJSON_AddStringToObject(x, "framework", o->run->framework);
    if (o->run->excluded[0]) cJSON_AddStringToObject(x, "excluded", o->run->excluded);
    return x;
}

static void json(FILE *f, const validate_report *rep)
{
    const outcome *o = rep->o;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON *arr = cJSON_AddArrayToObject(root, "runs");
    for (int j = 0; j < rep->n; j++)
        if (!o[j].refused[0]) cJSON_AddItemToArray(arr, outcome_json(&o[j]));
    cJSON_AddNumberToObject(root, "count", rep->n - rep->n_refused);
    if (rep->n_refused > 0) {
        /* Runs not predicted, each with the rule that refuses it: out of count, mape and worst. */
        cJSON *ref = cJSON_AddArrayToObject(root, "refused");
        for (int j = 0; j < rep->n; j++) {
            if (!o[j].refused[0]) continue;
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", o[j].run->name);
            cJSON_AddNumberToObject(x, "line", o[j].run->line);
            cJSON_AddStringToObject(x, "framework", o[j].run->framework);
            cJSON_AddStringToObject(x, "strategy", o[j].run->strategy);
            cJSON_AddStringToObject(x, "excluded", o[j].refused);
            cJSON_AddItemToArray(ref, x);
        }
    }
    cJSON_AddNumberToObject(root, "mape", rep->mape);
    if (rep->worst >= 0) {
        cJSON *w = cJSON_AddObjectToObject(root, "worst");
        cJSON_AddStringToObject(w, "name", o[rep->worst].run->name);
        cJSON_AddNumberToObject(w, "error", o[rep->worst].error);
    }
    report_json_print(f, root);
}

static void csv(FILE *f, const validate_report *rep)
{
    const outcome *o = rep->o;
    fprintf(f, "name,metric,measured,predicted,error,predicted_step_seconds,predicted_mfu\n");
    for (int j = 0; j < rep->n; j++) {
        if (o[j].refused[0]) continue; /* no prediction to list: the table and JSON say why */
        csvout_field(f, o[j].run->name);
        fputc(',', f);
        csvout_field(f, o[j].metric);
        fprintf(f, ",%.6g,%.6g,%.4f,%.6g,%.4f\n", o[j].measured, o[j].predicted, o[j].error,
            o[j].r.step.total, o[j].r.mfu);
    }
}

/* The measured and predicted cells of one run, in its metric's unit. */
static void cells(const outcome *o, char *meas, char *pred, size_t len)
{
    if (strcmp(o->metric, "step_seconds") == 0) {
        snprintf(meas, len, "%.2f s", o->measured);
        snprintf(pred, len, "%.2f s", o->predicted);
    } else if (strcmp(o->metric, "peak_memory_bytes") == 0) {
        snprintf(meas, len, "%.1f GiB", o->measured / 1073741824.0);
        snprintf(pred, len, "%.1f GiB", o->predicted / 1073741824.0);
    } else if (strcmp(o->metric, "tflops_per_gpu") == 0) {
        snprintf(meas, len, "%.1f TF/s", o->measured);
        snprintf(pred, len, "%.1f TF/s", o->predicted);
    } else {
        snprintf(meas, len, "%.1f%%", 100 * o->measured);
        snprintf(pred, len, "%.1f%%", 100 * o->predicted);
    }
}

static void table(FILE *f, const validate_report *rep)
{
    const outcome *o = rep->o;
    fprintf(f, "%-44s %6s %-6s %10s %10s %8s %6s\n", "run", "GPUs", "strat", "measured", "predicted", "error",
        "MFU");
    for (int j = 0; j < rep->n; j++) {
        char meas[32], pred[32];
        if (o[j].refused[0]) {
            fprintf(f, "%-44.44s %6lld %-6s %10s %10s %8s %6s  (excluded: %s)\n", o[j].run->name,
                (long long)o[j].run->gpus, o[j].run->strategy, "-", "-", "-", "-", o[j].refused);
            continue;
        }
        cells(&o[j], meas, pred, sizeof meas);
        fprintf(f, "%-44.44s %6lld %-6s %10s %10s %+7.1f%% %5.1f%%%s%s\n", o[j].run->name,
            (long long)o[j].run->gpus, o[j].run->strategy, meas, pred, 100 * o[j].error, 100 * o[j].r.mfu,
            o[j].r.fits ? "" : "  (does not fit)", o[j].run->excluded[0] ? "  (excluded from fits)" : "");
    }
    fprintf(f, "\n%d runs: mean absolute error %.1f%%", rep->n - rep->n_refused, 100 * rep->mape);
    if (rep->worst >= 0)
        fprintf(f, ", worst %+.1f%% (%s)", 100 * o[rep->worst].error, o[rep->worst].run->name);
    if (rep->n_refused > 0)
        fprintf(f, "; %d run%s excluded (not predicted: the reason beside each)", rep->n_refused,
            rep->n_refused == 1 ? "" : "s");
    fprintf(f,
        "\nerror = predicted step time / measured - 1 (MFU-only rows: measured MFU / predicted - 1;\n"
        "peak-memory rows: predicted total per GPU / measured - 1; TFLOP/s-only rows: measured / predicted\n"
        "model TFLOP/s per GPU - 1)\n");
}

void report_validate(FILE *f, out_format format, const validate_report *rep)
{
    if (format == FMT_JSON)
        json(f, rep);
    else if (format == FMT_CSV)
        csv(f, rep);
    else
        table(f, rep);
}

static cJSON *fit_json(const fwfit_result *fr)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "framework", fr->fw->name);
    cJSON_AddNumberToObject(o, "train_runs", fr->n_train);
    cJSON_AddNumberToObject(o, "held_out_runs", fr->n_held);
    cJSON_AddNumberToObject(o, "shipped_gemm_efficiency", fr->builtin);
    cJSON_AddNumberToObject(o, "fitted_gemm_efficiency", fr->efficiency);
    cJSON_AddNumberToObject(o, "fitted_stderr", fr->stderr_eff);
    cJSON_AddNumberToObject(o, "shipped_step_overhead_seconds", fr->builtin_overhead);
    cJSON_AddNumberToObject(o, "fitted_step_overhead_seconds", fr->overhead);
    cJSON_AddNumberToObject(o, "fitted_step_overhead_stderr", fr->stderr_overhead);
    cJSON_AddNumberToObject(o, "mape_train_shipped", fr->mape_train_builtin);
    cJSON_AddNumberToObject(o, "mape_held_out_shipped", fr->mape_held_builtin);
    cJSON_AddNumberToObject(o, "mape_train_fitted", fr->mape_train);
    cJSON_AddNumberToObject(o, "mape_held_out_fitted", fr->mape_held);
    cJSON_AddNumberToObject(o, "worst_held_out_shipped", fr->worst_held_builtin);
    return o;
}

void report_validate_fits(FILE *f, out_format format, const fwfit_result *fits, int n)
{
    if (format != FMT_TABLE) {
        cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "frameworks");
        cJSON_AddNumberToObject(root, "schema_version", 1);
        for (int k = 0; k < n; k++) cJSON_AddItemToArray(arr, fit_json(&fits[k]));
        report_json_print(f, root);
        return;
    }
    fprintf(f, "%-10s %5s %5s %13s %17s %17s %10s %10s %10s %10s %10s\n", "framework", "train", "held",
        "shipped eff/s", "fitted eff (+/-)", "fitted s (+/-)", "train", "held-out", "train fit", "held fit",
        "held worst");
    for (int k = 0; k < n; k++) {
        const fwfit_result *fr = &fits[k];
        fprintf(f,
            "%-10s %5d %5d %6.3f/%-6.3f %8.3f +/- %-5.3f %8.3f +/- %-5.3f %9.1f%% %9.1f%% %9.1f%% %9.1f%% "
            "%9.1f%%\n",
            fr->fw->name, fr->n_train, fr->n_held, fr->builtin, fr->builtin_overhead, fr->efficiency,
            fr->stderr_eff, fr->overhead, fr->stderr_overhead, 100 * fr->mape_train_builtin,
            100 * fr->mape_held_builtin, 100 * fr->mape_train, 100 * fr->mape_held,
            100 * fr->worst_held_builtin);
    }
    fprintf(f,
        "\nshipped = the framework's gemm_efficiency and step_overhead (seconds) in src/fw_*.c; fitted on\n"
        "the train half (1st, 3rd, .. time-like run of the framework in file order), judged on the\n"
        "held-out half (2nd, 4th, ..); columns train/held-out: MAPE with the shipped values.\n");
}
