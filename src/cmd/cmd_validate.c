/* cmd_validate.c -- `zerosim validate FILE`: predicted vs measured step time of real runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/commands.h"
#include "report/csvout.h"
#include "analysis/fwfit.h"
#include "io/runs.h"
#include "cmd/cli.h"
#include "report/report.h"
#include "analysis/validate.h"

static void usage(FILE *f, const cli_opt *validate_opts)
{
    fprintf(f, "usage: zerosim validate FILE... [--hardware NAME|FILE] [--filter TEXT] [--fit] [--format table|json|csv]\n\n"
               "Predict each measured run in FILE (CSV or JSON; columns in tests/validation/README.md) and\n"
               "compare with what was measured: step time when known, else MFU. Prints each error,\n"
               "the mean absolute percentage error (MAPE) and the worst case.\n\nOptions:\n");
    cli_print_options(f, validate_opts);
    fprintf(f, "\nExample:\n  zerosim validate tests/validation/published_runs.csv\n");
}

/* `validate --fit`: each framework with runs in the file, its shipped efficiency against the
 * one its training half gives, and both judged on its held-out half. */
static int fit_all(const run_record *runs, int n, const char *hw, out_format fmt)
{
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "frameworks");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    if (fmt == FMT_TABLE)
        printf("%-10s %5s %5s %13s %17s %17s %10s %10s %10s %10s %10s\n", "framework", "train", "held", "shipped eff/s",
               "fitted eff (+/-)", "fitted s (+/-)", "train", "held-out", "train fit", "held fit", "held worst");
    for (int f = 0; frameworks[f]; f++) {
        fwfit_result fr;
        zs_error err = {0};
        bool any = false;
        for (int j = 0; j < n; j++) any |= strcmp(runs[j].framework, frameworks[f]->name) == 0;
        if (!any) continue;
        if (fwfit_efficiency(runs, n, frameworks[f], hw, &fr, &err)) {
            if (err.code != ZS_ERR_INPUT) { cJSON_Delete(root); return cmd_error("validate", err.code, err.msg); }
            continue; /* too few runs of this framework to split */
        }
        if (fmt == FMT_TABLE)
            printf("%-10s %5d %5d %6.3f/%-6.3f %8.3f +/- %-5.3f %8.3f +/- %-5.3f %9.1f%% %9.1f%% %9.1f%% %9.1f%% %9.1f%%\n",
                   fr.fw->name, fr.n_train, fr.n_held, fr.builtin, fr.builtin_overhead, fr.efficiency, fr.stderr_eff,
                   fr.overhead, fr.stderr_overhead, 100 * fr.mape_train_builtin, 100 * fr.mape_held_builtin,
                   100 * fr.mape_train, 100 * fr.mape_held, 100 * fr.worst_held_builtin);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "framework", fr.fw->name);
        cJSON_AddNumberToObject(o, "train_runs", fr.n_train);
        cJSON_AddNumberToObject(o, "held_out_runs", fr.n_held);
        cJSON_AddNumberToObject(o, "shipped_gemm_efficiency", fr.builtin);
        cJSON_AddNumberToObject(o, "fitted_gemm_efficiency", fr.efficiency);
        cJSON_AddNumberToObject(o, "fitted_stderr", fr.stderr_eff);
        cJSON_AddNumberToObject(o, "shipped_step_overhead_seconds", fr.builtin_overhead);
        cJSON_AddNumberToObject(o, "fitted_step_overhead_seconds", fr.overhead);
        cJSON_AddNumberToObject(o, "fitted_step_overhead_stderr", fr.stderr_overhead);
        cJSON_AddNumberToObject(o, "mape_train_shipped", fr.mape_train_builtin);
        cJSON_AddNumberToObject(o, "mape_held_out_shipped", fr.mape_held_builtin);
        cJSON_AddNumberToObject(o, "mape_train_fitted", fr.mape_train);
        cJSON_AddNumberToObject(o, "mape_held_out_fitted", fr.mape_held);
        cJSON_AddNumberToObject(o, "worst_held_out_shipped", fr.worst_held_builtin);
        cJSON_AddItemToArray(arr, o);
    }
    if (fmt != FMT_TABLE) {
        char *text = cJSON_Print(root);
        if (text) puts(text);
        free(text);
    } else {
        printf("\nshipped = the framework's gemm_efficiency and step_overhead (seconds) in src/fw_*.c; fitted on\n"
               "the train half (1st, 3rd, .. time-like run of the framework in file order), judged on the\n"
               "held-out half (2nd, 4th, ..); columns train/held-out: MAPE with the shipped values.\n");
    }
    cJSON_Delete(root);
    return ferror(stdout) ? ZS_ERR_IO : 0;
}

/* "validate: 12/80" on a terminal while the runs are predicted. */
static void progress(int done, int total, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "\rvalidate: %d/%d", done, total);
}

/* The runs files named on the command line. */
typedef struct runs_files {
    const char *path[16];
    int n;
} runs_files;

/* Validate's take: each argument is a runs file. */
static int take_file(void *ctx, int id, const char *v, zs_error *err)
{
    runs_files *f = ctx;
    (void)id; /* only positional arguments come here: every option is bound */
    if (f->n == 16) return zs_fail(err, ZS_ERR_USAGE, "at most 16 runs files");
    f->path[f->n++] = v;
    return ZS_OK;
}

int cmd_validate(int argc, char **argv)
{
    zs_error err = {0};
    const char *hw = NULL, *filter = NULL;
    runs_files rf = {{NULL}, 0};
    int format = FMT_TABLE;
    bool fit = false;
    const cli_opt validate_opts[] = {
        {"hardware", "NAME|FILE", "use this profile for every run (e.g. a calibrated one)", .text = &hw},
        {"filter", "TEXT", "only runs whose name contains TEXT", .text = &filter},
        {"format", "F", "table|json|csv (default table)", .choice = &format, .choices = "table|json|csv"}, /* out_format's order */
        {"fit", NULL, "per framework: fit its GEMM efficiency on the 1st, 3rd.. of its runs, report the rest", .on = &fit},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"validate", validate_opts, usage, &rf, .take = take_file}, argc, argv);
    if (rc != CMD_GO) return rc;
    if (rf.n == 0) return cmd_error("validate", ZS_ERR_USAGE, "missing the runs FILE (see --help)");
    out_format fmt = (out_format)format;
    if (fit) {
        /* More files: their runs follow the first file's, in order (one set for --fit). */
        run_record *runs;
        int n;
        if (validate_load_runs(rf.path, rf.n, &runs, &n, NULL, &err)) return cmd_error("validate", err.code, err.msg);
        rc = fit_all(runs, n, hw, fmt);
        free(runs);
        return rc;
    }
    validate_report rep;
    bool tty = isatty(2);
    rc = validate_files(rf.path, rf.n, hw, filter, tty ? progress : NULL, NULL, &rep, &err);
    if (tty) fprintf(stderr, "\r%*s\r", 24, "");
    if (rc) return cmd_error("validate", err.code, err.msg);
    const outcome *o = rep.o;
    int k = rep.n, worst = rep.worst;
    double mape = rep.mape;
    if (fmt == FMT_JSON) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", 1);
        cJSON *arr = cJSON_AddArrayToObject(root, "runs");
        for (int j = 0; j < k; j++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "name", o[j].run->name);
            cJSON_AddStringToObject(x, "metric", o[j].metric);
            cJSON_AddNumberToObject(x, "measured", o[j].measured);
            cJSON_AddNumberToObject(x, "predicted", o[j].predicted);
            cJSON_AddNumberToObject(x, "predicted_step_seconds", o[j].r.step.total);
            cJSON_AddNumberToObject(x, "predicted_mfu", o[j].r.mfu);
            if (o[j].r.has_interval) {
                cJSON *iv = cJSON_AddArrayToObject(x, "step_time_interval_seconds");
                cJSON_AddItemToArray(iv, cJSON_CreateNumber(o[j].r.step_lo));
                cJSON_AddItemToArray(iv, cJSON_CreateNumber(o[j].r.step_hi));
            }
            cJSON_AddNumberToObject(x, "error", o[j].error);
            cJSON_AddBoolToObject(x, "fits", o[j].r.fits);
            cJSON_AddStringToObject(x, "source", o[j].run->source);
            cJSON_AddStringToObject(x, "framework", o[j].run->framework);
            if (o[j].run->excluded[0]) cJSON_AddStringToObject(x, "excluded", o[j].run->excluded);
            cJSON_AddItemToArray(arr, x);
        }
        cJSON_AddNumberToObject(root, "count", k);
        cJSON_AddNumberToObject(root, "mape", mape);
        if (worst >= 0) {
            cJSON *w = cJSON_AddObjectToObject(root, "worst");
            cJSON_AddStringToObject(w, "name", o[worst].run->name);
            cJSON_AddNumberToObject(w, "error", o[worst].error);
        }
        char *text = cJSON_Print(root);
        if (text) puts(text);
        free(text);
        cJSON_Delete(root);
    } else if (fmt == FMT_CSV) {
        printf("name,metric,measured,predicted,error,predicted_step_seconds,predicted_mfu\n");
        for (int j = 0; j < k; j++) {
            csvout_field(stdout, o[j].run->name);
            putchar(',');
            csvout_field(stdout, o[j].metric);
            printf(",%.6g,%.6g,%.4f,%.6g,%.4f\n", o[j].measured, o[j].predicted, o[j].error, o[j].r.step.total,
                   o[j].r.mfu);
        }
    } else {
        printf("%-44s %6s %-6s %10s %10s %8s %6s\n", "run", "GPUs", "strat", "measured", "predicted", "error", "MFU");
        for (int j = 0; j < k; j++) {
            bool step = strcmp(o[j].metric, "step_seconds") == 0, mem = strcmp(o[j].metric, "peak_memory_bytes") == 0;
            char meas[32], pred[32];
            if (step) {
                snprintf(meas, sizeof meas, "%.2f s", o[j].measured);
                snprintf(pred, sizeof pred, "%.2f s", o[j].predicted);
            } else if (mem) {
                snprintf(meas, sizeof meas, "%.1f GiB", o[j].measured / 1073741824.0);
                snprintf(pred, sizeof pred, "%.1f GiB", o[j].predicted / 1073741824.0);
            } else {
                snprintf(meas, sizeof meas, "%.1f%%", 100 * o[j].measured);
                snprintf(pred, sizeof pred, "%.1f%%", 100 * o[j].predicted);
            }
            printf("%-44.44s %6lld %-6s %10s %10s %+7.1f%% %5.1f%%%s%s\n", o[j].run->name, (long long)o[j].run->gpus,
                   o[j].run->strategy, meas, pred, 100 * o[j].error, 100 * o[j].r.mfu, o[j].r.fits ? "" : "  (does not fit)",
                   o[j].run->excluded[0] ? "  (excluded from fits)" : "");
        }
        printf("\n%d runs: mean absolute error %.1f%%", k, 100 * mape);
        if (worst >= 0) printf(", worst %+.1f%% (%s)", 100 * o[worst].error, o[worst].run->name);
        printf("\nerror = predicted step time / measured - 1 (MFU-only rows: measured MFU / predicted - 1;\n"
               "peak-memory rows: predicted total per GPU / measured - 1)\n");
    }
    validate_report_free(&rep);
    return 0;
}
