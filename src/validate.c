/* validate.c -- one measured run: rebuild its configuration, predict, compare. */
#include "validate.h"

#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "framework.h"
#include "hardware_json.h"
#include "model_json.h"
#include "strategy.h"
#include "uncertainty.h"

/* Predict one run. Fails with the loader's or the configuration's error. */
int validate_run(const run_record *run, const char *hw_override, outcome *o, zs_error *err)
{
    char path[4096];
    hardware hw;
    if (catalog_resolve("hardware", hw_override ? hw_override : run->hardware, path, sizeof path, err) ||
        hardware_load(path, &hw, err))
        return err->code;
    return validate_run_hw(run, &hw, o, err);
}

int validate_run_hw(const run_record *run, const hardware *hw_in, outcome *o, zs_error *err)
{
    char path[4096];
    model m;
    param_counts pc;
    hardware hw = *hw_in;
    training t;
    training_init(&t);
    if (catalog_resolve("models", run->model, path, sizeof path, err) || model_load(path, &m, err) ||
        model_count(&m, t.persistence_threshold, &pc, err))
        return err->code;
    t.gpus = run->gpus;
    t.gpus_per_node = run->gpus_per_node;
    t.tp = run->tp;
    t.pp = run->pp;
    t.virtual_stages = run->virtual_stages;
    t.micro_batch = run->micro_batch;
    t.seq_len = run->seq_len;
    t.sequence_parallel = run->sequence_parallel;
    int p = precision_parse(run->precision), c = ckpt_parse(run->checkpointing);
    if (p < 0 || c < 0)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: precision \"%s\" or checkpointing \"%s\" not recognised",
                       run->line, run->precision, run->checkpointing);
    t.precision = (precision_kind)p;
    t.checkpointing = (ckpt_kind)c;
    t.framework = framework_find(run->framework);
    int oo = offload_parse(run->offload_optimizer), op = offload_parse(run->offload_params);
    if (!t.framework || oo < 0 || op < 0)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: framework \"%s\" (%s) or offload \"%s\"/\"%s\" (none|cpu|nvme) not recognised",
                       run->line, run->framework, framework_names(), run->offload_optimizer, run->offload_params);
    t.offload_optimizer = (offload_kind)oo;
    t.offload_params = (offload_kind)op;
    if (strcmp(run->grad_dtype, "fp32") == 0) t.grad_bytes = 4;
    else if (run->grad_dtype[0]) t.grad_bytes = 2;
    t.shard_group = run->shard_group;
    t.hpz_group = run->zero_hpz;
    t.quant_weights = run->quantized_weights;
    t.quant_grads = run->quantized_gradients;
    t.overlap_comm = run->overlap_comm;
    t.gemm_efficiency = run->gemm_efficiency;
    t.step_overhead = run->step_overhead;
    t.flash_attention = run->flash_attention;
    const strategy *s = strategy_find(run->strategy);
    if (!s) return zs_fail(err, ZS_ERR_INPUT, "line %d: strategy \"%s\" is not one of ddp|zero1|zero2|zero3", run->line, run->strategy);
    if (run->gpus % (run->tp * run->pp) != 0)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: gpus %lld is not a multiple of tp x pp", run->line, (long long)run->gpus);
    int64_t dp = run->gpus / (run->tp * run->pp);
    if (run->global_batch % (dp * run->micro_batch) != 0)
        return zs_fail(err, ZS_ERR_INPUT, "line %d: global_batch %lld is not a multiple of micro_batch x DP (%lld x %lld)",
                       run->line, (long long)run->global_batch, (long long)run->micro_batch, (long long)dp);
    t.grad_accum = run->global_batch / (dp * run->micro_batch);
    sim_input in;
    if (sim_prepare(&in, &m, &pc, &hw, &t, err)) {
        char tmp[sizeof err->msg];
        snprintf(tmp, sizeof tmp, "line %d", run->line);
        zs_error_prefix(err, tmp);
        return err->code;
    }
    memset(o, 0, sizeof *o);
    o->run = run;
    sim_run(&in, s, 0, &o->r);
    if (uncertainty_available(&hw))
        o->r.has_interval = uncertainty_interval(&in, s, 0.9, &o->r.step_lo, &o->r.step_hi);
    double step = runs_measured_step(run);
    if (step > 0) {
        o->metric = "step_seconds";
        o->measured = step;
        o->predicted = o->r.step.total;
    } else if (run->mfu > 0 || run->hfu > 0) {
        /* Throughput-only rows: compare time per step implied by MFU (or HFU). */
        o->metric = run->mfu > 0 ? "mfu" : "hfu";
        o->measured = run->mfu > 0 ? run->mfu : run->hfu;
        o->predicted = run->mfu > 0 ? o->r.mfu : o->r.hfu;
    } else {
        /* Memory-only rows: the peak the GPU reported against the modelled total. */
        o->metric = "peak_memory_bytes";
        o->measured = run->peak_memory_bytes;
        o->predicted = o->r.mem.total;
    }
    /* Error as predicted / measured - 1 in time or bytes: MFU is inverse to time. */
    o->error = strcmp(o->metric, "mfu") == 0 || strcmp(o->metric, "hfu") == 0 ? o->measured / o->predicted - 1
                                                                            : o->predicted / o->measured - 1;
    return ZS_OK;
}

