/* report_calibrate.c -- what `calibrate` prints (table or JSON) and the calibration record it
 * stores in the profile. */
#include "report/report_calibrate.h"
#include "io/jsonprint.h"

#include <stdbool.h>
#include <stdlib.h>

static const char *const LEVEL_NAME[2] = {"intra_node", "inter_node"};

/* cJSON's adders return NULL when memory runs out (and accept a NULL parent): note it once. */
static void num(cJSON *o, const char *k, double v, bool *oom)
{
    if (!cJSON_AddNumberToObject(o, k, v)) *oom = true;
}

static void str(cJSON *o, const char *k, const char *v, bool *oom)
{
    if (!cJSON_AddStringToObject(o, k, v)) *oom = true;
}

static cJSON *obj(cJSON *o, const char *k, bool *oom)
{
    cJSON *r = cJSON_AddObjectToObject(o, k);
    if (!r) *oom = true;
    return r;
}

static void fits(cJSON *arr, const calibration *c, bool *oom)
{
    if (!arr) {
        *oom = true;
        return;
    }
    for (int i = 0; i < c->n_sets; i++) {
        const calib_set *s = &c->sets[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            *oom = true;
            return;
        }
        str(o, "collective", s->collective, oom);
        num(o, "ranks", s->ranks, oom);
        str(o, "level", s->level == LEVEL_INTRA ? "intra_node" : "inter_node", oom);
        num(o, "latency_seconds", s->fit.latency, oom);
        num(o, "latency_stderr", s->fit.latency_stderr, oom);
        num(o, "bus_bandwidth_bytes_per_second", s->fit.busbw, oom);
        num(o, "bus_bandwidth_stderr", s->fit.busbw_stderr, oom);
        num(o, "r2", s->fit.r2, oom);
        num(o, "points", s->fit.n, oom);
        num(o, "outliers", s->fit.outliers, oom);
        num(o, "max_relative_residual", s->residual_max, oom);
        str(o, "source", s->source, oom);
    }
}

/* A GEMM efficiency fit's members (ceiling, half-efficiency size, their errors, R^2) into g. */
static void gemm_json(cJSON *g, const eff_fit *e, bool *oom)
{
    num(g, "max_fraction", e->emax, oom);
    num(g, "max_fraction_stderr", e->emax_stderr, oom);
    num(g, "half_flops", e->w_half, oom);
    num(g, "half_flops_stderr", e->w_half_stderr, oom);
    num(g, "r2", e->r2, oom);
}

cJSON *report_calibrate_record(
    const calibration *c, const char *base, const char *const *inputs, int n, const char *date)
{
    bool oom = false;
    cJSON *cal = cJSON_CreateObject();
    if (!cal) return NULL;
    str(cal, "date", date, &oom);
    str(cal, "base", base, &oom);
    str(cal, "method",
        "zerosim calibrate: weighted least squares (GSL) per collective, inverse-variance "
        "combination per link level; stderr from the covariance scaled by the residual variance",
        &oom);
    cJSON *inp = cJSON_AddArrayToObject(cal, "inputs");
    if (!inp) oom = true;
    for (int k = 0; k < n && inp; k++) {
        cJSON *s = cJSON_CreateString(inputs[k]);
        if (!s || !cJSON_AddItemToArray(inp, s)) {
            cJSON_Delete(s);
            oom = true;
        }
    }
    fits(cJSON_AddArrayToObject(cal, "collectives"), c, &oom);
    if (c->have_runs) {
        cJSON *r = obj(cal, "runs", &oom);
        num(r, "count", c->runs, &oom);
        num(r, "matmul_max_fraction", c->matmul_max, &oom);
        num(r, "matmul_max_fraction_stderr", c->matmul_stderr, &oom);
        num(r, "mape_before", c->mape_before, &oom);
        num(r, "mape_after", c->mape_after, &oom);
        if (c->runs_refused) num(r, "refused", c->runs_refused, &oom);
    }
    if (c->have_memory) {
        cJSON *m = obj(cal, "memory", &oom);
        num(m, "runs", c->memory_runs, &oom);
        num(m, "allocator_fraction", c->allocator_fraction, &oom);
        num(m, "allocator_fraction_stderr", c->allocator_stderr, &oom);
    }
    if (c->have_gemm) gemm_json(obj(cal, "gemm", &oom), &c->gemm, &oom);
    if (c->have_gemm_fp8) {
        cJSON *g = obj(cal, "gemm_fp8", &oom);
        gemm_json(g, &c->gemm_fp8, &oom);
        if (c->have_gemm) num(g, "fp8_matmul_ratio", c->gemm_fp8.emax / c->gemm.emax, &oom);
    }
    if (oom) {
        cJSON_Delete(cal);
        return NULL;
    }
    return cal;
}

/* A copy of record[key] added to rep, when record has it. */
static void copy_member(cJSON *rep, const cJSON *record, const char *key, bool *oom)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(record, key);
    if (!m) return;
    cJSON *d = cJSON_Duplicate(m, 1);
    if (!d || !cJSON_AddItemToObject(rep, key, d)) {
        cJSON_Delete(d);
        *oom = true;
    }
}

int report_calibrate_json(
    FILE *f, const calibration *c, const hardware *hw, const cJSON *record, const char *out, zs_error *err)
{
    bool oom = false;
    cJSON *rep = cJSON_CreateObject();
    if (!rep) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    num(rep, "schema_version", 1, &oom);
    fits(cJSON_AddArrayToObject(rep, "collectives"), c, &oom);
    cJSON *lv = cJSON_AddArrayToObject(rep, "levels");
    if (!lv) oom = true;
    for (int l = 0; l < 2 && lv; l++) {
        if (!c->have_level[l]) continue;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(lv, o)) {
            cJSON_Delete(o);
            oom = true;
            break;
        }
        str(o, "level", LEVEL_NAME[l], &oom);
        num(o, "latency_seconds_per_step", c->alpha[l], &oom);
        num(o, "latency_stderr", c->alpha_stderr[l], &oom);
        num(o, "bandwidth_bytes_per_second", c->bandwidth[l], &oom);
        num(o, "bandwidth_stderr", c->bandwidth_stderr[l], &oom);
        num(o, "efficiency", l == 0 ? hw->intra.efficiency : hw->inter.efficiency, &oom);
    }
    copy_member(rep, record, "runs", &oom);
    copy_member(rep, record, "gemm", &oom);
    copy_member(rep, record, "gemm_fp8", &oom);
    copy_member(rep, record, "memory", &oom);
    if (out) str(rep, "profile", out, &oom);
    char *text = oom ? NULL : json_print(rep, true);
    cJSON_Delete(rep);
    if (!text) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    fputs(text, f);
    fputc('\n', f);
    free(text);
    return ZS_OK;
}

void report_calibrate_table(
    FILE *f, const calibration *c, const hardware *hw, const char *base, const char *out)
{
    fprintf(f, "Calibrating %s (%s)\n\n", hw->name, base);
    if (c->n_sets) {
        fprintf(f, "%-15s %6s %-6s %14s %14s %18s %14s %7s %5s %8s\n", "collective", "ranks", "level",
            "latency us", "+/- us", "busbw GB/s", "+/- GB/s", "R^2", "pts", "max res");
        for (int k = 0; k < c->n_sets; k++) {
            const calib_set *s = &c->sets[k];
            fprintf(f, "%-15s %6d %-6s %14.2f %14.2f %18.2f %14.2f %7.4f %5d %7.1f%%\n", s->collective,
                s->ranks, s->level == LEVEL_INTRA ? "intra" : "inter", s->fit.latency * 1e6,
                s->fit.latency_stderr * 1e6, s->fit.busbw / 1e9, s->fit.busbw_stderr / 1e9, s->fit.r2,
                s->fit.n, 100 * s->residual_max);
        }
        fprintf(f, "\n");
    }
    for (int l = 0; l < 2; l++)
        if (c->have_level[l])
            fprintf(f,
                "%s: latency %.2f +/- %.2f us per step, bandwidth %.1f +/- %.1f GB/s per GPU "
                "(efficiency %.3f)\n",
                LEVEL_NAME[l], c->alpha[l] * 1e6, c->alpha_stderr[l] * 1e6, c->bandwidth[l] / 1e9,
                c->bandwidth_stderr[l] / 1e9, l == 0 ? hw->intra.efficiency : hw->inter.efficiency);
    if (c->have_gemm)
        fprintf(f, "GEMM: max %.3f +/- %.3f of peak, half efficiency at %.3g +/- %.2g FLOPs (R^2 %.4f)\n",
            c->gemm.emax, c->gemm.emax_stderr, c->gemm.w_half, c->gemm.w_half_stderr, c->gemm.r2);
    if (c->have_gemm_fp8)
        fprintf(f,
            "FP8 GEMM: max %.3f +/- %.3f of the FP8 peak, half efficiency at %.3g +/- %.2g FLOPs "
            "(R^2 %.4f)%s\n",
            c->gemm_fp8.emax, c->gemm_fp8.emax_stderr, c->gemm_fp8.w_half, c->gemm_fp8.w_half_stderr,
            c->gemm_fp8.r2, c->have_gemm ? "; fp8_matmul_ratio = FP8 max / 16-bit max" : "");
    if (c->have_hbm)
        fprintf(f, "HBM streaming: %.3f +/- %.3f of datasheet\n", c->hbm_fraction, c->hbm_stderr);
    if (c->have_host)
        fprintf(f, "host memory streaming: %.3f +/- %.3f of datasheet\n", c->host_fraction, c->host_stderr);
    if (c->have_runs)
        fprintf(f, "runs: %d; end-to-end matmul efficiency %.3f +/- %.3f; step-time MAPE %.1f%% -> %.1f%%\n",
            c->runs, c->matmul_max, c->matmul_stderr, 100 * c->mape_before, 100 * c->mape_after);
    if (c->have_runs && c->runs_refused)
        fprintf(f, "  %d run%s left out, refused by %s framework (%s%s)\n", c->runs_refused,
            c->runs_refused == 1 ? "" : "s", c->runs_refused == 1 ? "its" : "their", c->runs_refused_note,
            c->runs_refused > 1 ? ", ..." : "");
    if (c->have_memory)
        fprintf(f,
            "memory: %d runs; allocator overhead %.1f%% +/- %.1f%% of allocated (CUDA context %.2f "
            "GiB kept)\n",
            c->memory_runs, 100 * c->allocator_fraction, 100 * c->allocator_stderr,
            hw->cuda_context_bytes / 1073741824.0);
    if (out) fprintf(f, "\nwrote %s\n", out);
}

void report_calibrate_framework(FILE *f, const fwfit_result *fr, const hardware *hw)
{
    fprintf(f,
        "framework %s on %s: gemm_efficiency %.3f +/- %.3f, step_overhead %.3f +/- %.3f s from %d runs; "
        "MAPE %.1f%% with the shipped values, %.1f%% fitted\n",
        fr->fw->name, hw->name, fr->efficiency, fr->stderr_eff, fr->overhead, fr->stderr_overhead,
        fr->n_train, 100 * fr->mape_train_builtin, 100 * fr->mape_train);
    fprintf(f, "  runs fitted: lines %s", fr->used);
    if (fr->n_refused)
        fprintf(f, "; %d left out (the framework refuses them: %s%s)", fr->n_refused, fr->refused,
            fr->n_refused > 1 ? ", ..." : "");
    fputc('\n', f);
}

cJSON *report_calibrate_fw_fit(const hw_framework_fit *fit)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddNumberToObject(o, "gemm_efficiency", fit->gemm_efficiency) ||
        !cJSON_AddNumberToObject(o, "gemm_efficiency_stderr", fit->gemm_stderr) ||
        !cJSON_AddNumberToObject(o, "step_overhead_seconds", fit->step_overhead) ||
        !cJSON_AddNumberToObject(o, "step_overhead_stderr", fit->overhead_stderr) ||
        !cJSON_AddNumberToObject(o, "runs", fit->runs)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
