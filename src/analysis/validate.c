/* validate.c -- measured runs: rebuild each configuration, predict, compare. */
#include "analysis/validate.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/catalog.h"
#include "core/framework.h"
#include "io/hardware_json.h"
#include "io/model_json.h"
#include "core/strategy.h"
#include "analysis/uncertainty.h"

/* Load a model by catalog name or path, counted at the default persistence threshold (the
 * runs files have no such column). */
static int load_model(const char *name, model *m, param_counts *pc, zs_error *err)
{
    char path[4096];
    training t;
    training_init(&t);
    if (catalog_resolve("models", name, path, sizeof path, err) || model_load(path, m, err) ||
        model_count(m, t.persistence_threshold, pc, err))
        return err->code;
    return ZS_OK;
}

static int load_hardware(const char *name, hardware *hw, zs_error *err)
{
    char path[4096];
    if (catalog_resolve("hardware", name, path, sizeof path, err) || hardware_load(path, hw, err))
        return err->code;
    return ZS_OK;
}

int validate_run(const run_record *run, const char *hw_override, outcome *o, zs_error *err)
{
    hardware hw;
    if (load_hardware(hw_override ? hw_override : run->hardware, &hw, err)) return err->code;
    return validate_run_hw(run, &hw, o, err);
}

/* The run's fields that are training fields as they are: each copied whole. A pair of
 * fields of different sizes does not compile. */
#define RUN_FIELD(tf, rf)                                                                                    \
    {                                                                                                        \
        offsetof(training, tf), offsetof(run_record, rf),                                                    \
            sizeof(char[sizeof((training *)0)->tf == sizeof((run_record *)0)->rf ? sizeof((training *)0)->tf \
                                                                                 : -1])                      \
    }
static const struct {
    size_t train, run, size; /* offsets in training and run_record, bytes */
} run_fields[] = {
    RUN_FIELD(gpus, gpus),
    RUN_FIELD(gpus_per_node, gpus_per_node),
    RUN_FIELD(tp, tp),
    RUN_FIELD(pp, pp),
    RUN_FIELD(virtual_stages, virtual_stages),
    RUN_FIELD(micro_batch, micro_batch),
    RUN_FIELD(seq_len, seq_len),
    RUN_FIELD(sequence_parallel, sequence_parallel),
    RUN_FIELD(shard_group, shard_group),
    RUN_FIELD(hpz_group, zero_hpz),
    RUN_FIELD(quant_weights, quantized_weights),
    RUN_FIELD(quant_grads, quantized_gradients),
    RUN_FIELD(overlap_comm, overlap_comm),
    RUN_FIELD(gemm_efficiency, gemm_efficiency),
    RUN_FIELD(step_overhead, step_overhead),
    RUN_FIELD(flash_attention, flash_attention),
};
#undef RUN_FIELD

/* Mark o refused with why (the run is listed, not scored). */
static void refuse(const run_record *run, outcome *o, const char *why)
{
    o->run = run;
    o->error = 0;
    o->predicted = 0;
    snprintf(o->refused, sizeof o->refused, "%.199s", why);
}

/* The metric a run is compared on and its error: step time when measured, else MFU or HFU,
 * else peak memory, else TFLOP/s per GPU (against the model FLOP/s, the MFU numerator). A
 * prediction of 0 in the metric refuses the row rather than give an infinite error. */
static void compare(const run_record *run, outcome *o)
{
    double step = runs_measured_step(run);
    if (step > 0) {
        o->metric = "step_seconds";
        o->measured = step;
        o->predicted = o->r.step.total;
    } else if (run->mfu > 0 || run->hfu > 0) {
        /* Throughput-only rows: compare time per step implied by MFU (or HFU), in the
         * convention published tables use (attention counted whole). */
        o->metric = run->mfu > 0 ? "mfu" : "hfu";
        o->measured = run->mfu > 0 ? run->mfu : run->hfu;
        o->predicted = run->mfu > 0 ? o->r.mfu_published : o->r.hfu_published;
    } else if (run->peak_memory_bytes > 0) {
        /* Memory-only rows: the peak the GPU reported against the modelled total. */
        o->metric = "peak_memory_bytes";
        o->measured = run->peak_memory_bytes;
        o->predicted = o->r.mem.total;
    } else {
        /* TFLOP/s-only rows: achieved model FLOP/s per GPU, like MFU inverse to time. */
        o->metric = "tflops_per_gpu";
        o->measured = run->tflops_per_gpu;
        o->predicted = o->r.tflops_per_gpu;
    }
    if (!(o->predicted > 0) || !isfinite(o->predicted)) {
        char why[160];
        snprintf(why, sizeof why, "the simulator predicts no %s for it", o->metric);
        refuse(run, o, why);
        return;
    }
    /* Error as predicted / measured - 1 in time or bytes: MFU, HFU and TFLOP/s are inverse to
     * time. */
    o->error = strcmp(o->metric, "step_seconds") == 0 || strcmp(o->metric, "peak_memory_bytes") == 0
        ? o->predicted / o->measured - 1
        : o->measured / o->predicted - 1;
}

/* Predict one run with its model and hardware already in memory (pc: model_count of m at
 * the default persistence threshold) and compare. Fails with ZS_ERR_INPUT naming the line:
 * a strategy or precision not recognised, a batch that does not divide, a configuration the
 * simulator rejects. */
static int validate_run_loaded(const run_record *run, const model *m, const param_counts *pc,
    const hardware *hw_in, outcome *o, zs_error *err)
{
    hardware hw = *hw_in;
    training t;
    training_init(&t);
    for (size_t k = 0; k < sizeof run_fields / sizeof run_fields[0]; k++)
        memcpy((char *)&t + run_fields[k].train, (const char *)run + run_fields[k].run, run_fields[k].size);
    int p = precision_parse(run->precision), c = ckpt_parse(run->checkpointing);
    if (p < 0 || c < 0)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: precision \"%s\" or checkpointing \"%s\" not recognised",
            run->line, run->precision, run->checkpointing);
    t.precision = (precision_kind)p;
    t.checkpointing = (ckpt_kind)c;
    t.framework = framework_find(run->framework);
    if (!t.framework) {
        char what[48];
        snprintf(what, sizeof what, "line %d: column \"framework\"", run->line);
        return framework_refuse(what, run->framework, ZS_ERR_INPUT, err);
    }
    int oo = offload_parse(run->offload_optimizer), op = offload_parse(run->offload_params);
    if (oo < 0 || op < 0) {
        char names[64];
        return zs_fail(err, ZS_ERR_INPUT,
            "line %d: offload \"%s\"/\"%s\" (%s) not recognised", run->line, run->offload_optimizer,
            run->offload_params, flag_choice_names(offload_choices, 0, names, sizeof names));
    }
    t.offload_optimizer = (offload_kind)oo;
    t.offload_params = (offload_kind)op;
    if (strcmp(run->grad_dtype, "fp32") == 0)
        t.grad_bytes = 4;
    else if (run->grad_dtype[0])
        t.grad_bytes = 2;
    /* Every other estimate flag the run gave as a column (runs.c), as estimate sets it, and
     * the cluster variants on the profile. */
    for (int k = 0; k < TRAINING_FLAG_COUNT; k++)
        if (run->flag_given >> k & 1) training_flag_copy(&t, &run->flags, &training_flags[k]);
    if (hwvariant_apply(&hw, &run->variant, err)) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "line %d", run->line);
        zs_error_prefix(err, tmp);
        return err->code = ZS_ERR_INPUT;
    }
    const strategy *s = strategy_find(run->strategy);
    if (!s)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: strategy \"%s\" is not one of %s", run->line,
            run->strategy, strategy_names());
    if (run->gpus % (run->tp * run->pp * t.cp) != 0)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: gpus %lld is not a multiple of tp x pp x cp", run->line,
            (long long)run->gpus);
    int64_t dp = run->gpus / (run->tp * run->pp * t.cp);
    if (run->global_batch % (dp * run->micro_batch) != 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "line %d: global_batch %lld is not a multiple of micro_batch x DP (%lld x %lld)", run->line,
            (long long)run->global_batch, (long long)run->micro_batch, (long long)dp);
    t.grad_accum = run->global_batch / (dp * run->micro_batch);
    memset(o, 0, sizeof *o);
    o->run = run;
    o->matmul_max_fraction = hw.matmul_max_fraction;
    /* A configuration the run's framework does not run (Megatron with ZeRO-3, DeepSpeed's
     * pipeline engine with ZeRO-2) is refused with the framework's rule, not predicted. */
    zs_error fw_err = {0};
    if (framework_check(t.framework, m, &t, &fw_err)) {
        refuse(run, o, fw_err.msg);
        return ZS_OK;
    }
    sim_input in;
    if (sim_prepare(&in, m, pc, &hw, &t, err)) {
        char tmp[sizeof err->msg];
        snprintf(tmp, sizeof tmp, "line %d", run->line);
        zs_error_prefix(err, tmp);
        return err->code;
    }
    o->gemm_efficiency = in.fw_eff;
    sim_run(&in, s, 0, &o->r);
    if (!o->r.applicable) {
        refuse(run, o, o->r.why);
        return ZS_OK;
    }
    if (uncertainty_available(&hw))
        o->r.has_interval = uncertainty_interval(&in, s, 0.9, &o->r.step_lo, &o->r.step_hi);
    compare(run, o);
    return ZS_OK;
}

int validate_run_hw(const run_record *run, const hardware *hw, outcome *o, zs_error *err)
{
    model m;
    param_counts pc;
    if (load_model(run->model, &m, &pc, err)) return err->code;
    return validate_run_loaded(run, &m, &pc, hw, o, err);
}

/* ---- models and profiles loaded once each ---------------------------------------------- */

/* Models loaded once for many predictions (the runs of a file, a calibration's iterations):
 * zero-initialise, pass to validate_run_cached, free with validate_models_free. */
typedef struct validate_models {
    struct validate_model *v; /* heap: one per distinct run_record.model */
    int n, cap;
} validate_models;

struct validate_model {
    char name[sizeof((run_record *)0)->model]; /* run_record.model it was loaded for */
    model m;
    param_counts pc;
};

/* validate_run_loaded with the run's model from vm, loaded into it the first time a run names
 * it. Fails like validate_run_hw, and with ZS_ERR_NOMEM. */
static int validate_run_cached(
    const run_record *run, const hardware *hw, validate_models *vm, outcome *o, zs_error *err)
{
    struct validate_model *x = NULL;
    for (int i = 0; i < vm->n && !x; i++)
        if (strcmp(vm->v[i].name, run->model) == 0) x = &vm->v[i];
    if (!x) {
        if (vm->n == vm->cap) {
            int cap = vm->cap ? 2 * vm->cap : 8;
            struct validate_model *g = realloc(vm->v, (size_t)cap * sizeof *g);
            if (!g) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
            vm->v = g;
            vm->cap = cap;
        }
        x = &vm->v[vm->n];
        snprintf(x->name, sizeof x->name, "%s", run->model);
        if (load_model(run->model, &x->m, &x->pc, err)) return err->code;
        vm->n++;
    }
    return validate_run_loaded(run, &x->m, &x->pc, hw, o, err);
}

/* Free what vm holds; leaves it empty and reusable. Never fails. */
static void validate_models_free(validate_models *vm)
{
    free(vm->v);
    memset(vm, 0, sizeof *vm);
}

typedef struct loaded_hw {
    const char *name; /* run_record.hardware or the override */
    hardware hw;
} loaded_hw;

/* The profile named `name`, loading it into cache[*n] the first time. NULL on error. */
static const hardware *hw_for(const char *name, loaded_hw *cache, int *n, zs_error *err)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(cache[i].name, name) == 0) return &cache[i].hw;
    loaded_hw *x = &cache[*n];
    x->name = name;
    if (load_hardware(name, &x->hw, err)) return NULL;
    (*n)++;
    return &x->hw;
}

void validate_report_free(validate_report *rep)
{
    free(rep->runs);
    free(rep->o);
    memset(rep, 0, sizeof *rep);
    rep->worst = -1;
}

int validate_load_runs(const char *const *paths, int n_paths, run_record **runs, int *n, int **file_end,
    char *notes, size_t notes_len, zs_error *err)
{
    if (notes && notes_len) notes[0] = '\0';
    run_record *all = NULL;
    int total = 0, *ends = calloc((size_t)(n_paths > 0 ? n_paths : 1), sizeof *ends);
    if (!ends) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    for (int f = 0; f < n_paths; f++) {
        run_record *more;
        int m;
        char note[600];
        if (runs_load_noted(paths[f], &more, &m, note, sizeof note, err)) {
            free(all);
            free(ends);
            return err->code;
        }
        run_record *grown = realloc(all, (size_t)(total + m) * sizeof *grown);
        if (!grown) {
            free(all);
            free(more);
            free(ends);
            return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", paths[f]);
        }
        if (note[0] && notes && notes_len) { /* one line per file */
            size_t o = strlen(notes);
            snprintf(notes + o, notes_len - o, "%s%s", o ? "\n" : "", note);
        }
        memcpy(grown + total, more, (size_t)m * sizeof *grown);
        free(more);
        all = grown;
        total += m;
        ends[f] = total;
    }
    *runs = all;
    *n = total;
    if (file_end)
        *file_end = ends;
    else
        free(ends);
    return ZS_OK;
}

int validate_file(const char *path, const char *hw_override, const char *filter, validate_progress cb,
    void *ctx, validate_report *rep, zs_error *err)
{
    return validate_files(&path, 1, hw_override, filter, cb, ctx, rep, err);
}

int validate_files(const char *const *paths, int n_paths, const char *hw_override, const char *filter,
    validate_progress cb, void *ctx, validate_report *rep, zs_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->worst = -1;
    int *ends = NULL;
    if (validate_load_runs(
            paths, n_paths, &rep->runs, &rep->n_runs, &ends, rep->notes, sizeof rep->notes, err))
        return err->code;
    int n = rep->n_runs, file = 0;
    rep->o = calloc((size_t)(n > 0 ? n : 1), sizeof *rep->o);
    validate_models models = {0};
    loaded_hw *hws = calloc((size_t)(n > 0 ? n : 1), sizeof *hws);
    int nh = 0, rc = ZS_OK;
    if (!rep->o || !hws) {
        rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", paths[0]);
        goto out;
    }
    for (int j = 0; j < n; j++) {
        const run_record *run = &rep->runs[j];
        while (j >= ends[file]) file++;
        if (filter && !strstr(run->name, filter)) continue;
        const hardware *hw = hw_for(hw_override ? hw_override : run->hardware, hws, &nh, err);
        if (!hw || validate_run_cached(run, hw, &models, &rep->o[rep->n], err)) {
            zs_error_prefix(err, paths[file]);
            rc = err->code;
            goto out;
        }
        rep->n++;
        if (cb) cb(j + 1, n, ctx);
    }
    if (rep->n == 0) {
        rc = zs_fail(err, ZS_ERR_USAGE, "--filter \"%.100s\": no run name in %s%s contains it (%d run%s)",
            filter, paths[0], n_paths > 1 ? " and the other files" : "", n, n == 1 ? "" : "s");
        goto out;
    }
    double sum = 0;
    for (int j = 0; j < rep->n; j++) {
        if (rep->o[j].refused[0]) {
            rep->n_refused++;
            continue;
        }
        sum += fabs(rep->o[j].error);
        if (rep->worst < 0 || fabs(rep->o[j].error) > fabs(rep->o[rep->worst].error)) rep->worst = j;
    }
    if (rep->n_refused == rep->n) {
        const outcome *f = &rep->o[0];
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: no run can be predicted (%d refused; line %d: %s)", paths[0],
            rep->n, f->run->line, f->refused);
        goto out;
    }
    rep->mape = sum / (rep->n - rep->n_refused);
out:
    validate_models_free(&models);
    free(hws);
    free(ends);
    if (rc) validate_report_free(rep);
    return rc;
}
