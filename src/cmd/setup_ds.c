/* setup_ds.c -- a --deepspeed ds_config into the setup: its stage, batch, groups and release. */
#include "cmd/setup_ds.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/framework.h"
#include "core/strategy.h"
#include "io/dsconfig.h"

void setup_note_ds(setup *s, const char *fmt, ...)
{
    size_t n = strlen(s->ds_notes);
    if (n + 3 >= sizeof s->ds_notes) return;
    if (n) {
        memcpy(s->ds_notes + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->ds_notes + n, sizeof s->ds_notes - n, fmt, ap);
    va_end(ap);
}

int setup_read_ds(setup *s, zs_error *err)
{
    snprintf(s->ds_path, sizeof s->ds_path, "%s", s->ds_arg);
    if (dsconfig_load(s->ds_path, &s->t, &s->ds, err)) {
        /* a ds_config a --config names: say which key of which file named it */
        if (s->ds_arg == s->cfg.ds_path && strstr(err->msg, "cannot open")) {
            zs_error e = *err;
            zs_fail(err, e.code,
                "%.200s: %s: %.1500s (looked as written, beside the file and beside its parent directories)",
                s->cfg_arg, s->cfg.ds_key, e.msg);
        }
        return err->code;
    }
    dsconfig_fill_auto(&s->ds, s->m.params_only ? 0 : s->m.hidden_size, &s->t);
    if (s->ds.defaulted[0]) setup_note_ds(s, "defaulted: %s", s->ds.defaulted);
    if (s->ds.filled[0])
        setup_note_ds(s, "\"auto\" filled as the HF Trainer does (h = %lld: reduce h^2, prefetch 0.9 h^2, "
                   "persistence 10 h): %s", (long long)s->m.hidden_size, s->ds.filled);
    if (s->ds.ignored[0]) setup_note_ds(s, "ignored (not modelled): %s", s->ds.ignored);
    if (s->ds.precision_note[0] && !setup_flag_given(s, OPT_PRECISION))
        setup_note_ds(s, "%s", s->ds.precision_note);
    if (s->ds.grad_note[0]) setup_note_ds(s, "%s", s->ds.grad_note);
    if (s->ds.optimizer_set && setup_flag_given(s, OPT_OPTIMIZER))
        setup_note_ds(s, "optimizer.type \"%s\": --optimizer %s wins", s->ds.optimizer_type,
            optimizer_name(s->flag_t.optimizer));
    else if (s->ds.optimizer_set) {
        bool why = s->ds.optimizer_note[0] != '\0';
        setup_note_ds(s, "used: optimizer.type \"%s\" as %s%s%s%s", s->ds.optimizer_type,
            optimizer_name(s->t.optimizer), why ? " (" : "", s->ds.optimizer_note, why ? ")" : "");
    }
    /* The config's ZeRO stage picks the strategy unless --strategy says otherwise: stage k
     * partitions the first k of optimizer states, gradients, parameters (DeepSpeed docs,
     * zero_optimization.stage). */
    const strategy *st = s->ds.stage < 0
        ? NULL
        : strategy_find_shards((shard_set){s->ds.stage >= 1, s->ds.stage >= 2, s->ds.stage >= 3});
    if (st && strcmp(s->strategy_arg, "all") == 0) {
        s->chosen[0] = st;
        s->chosen[1] = NULL;
    }
    return ZS_OK;
}

int setup_ds_batch(setup *s, zs_error *err)
{
    int64_t dp = training_dp(&s->t);
    bool micro = s->ds.micro_batch_set || setup_flag_given(s, OPT_MICRO);
    bool accum = s->ds.grad_accum_set || setup_flag_given(s, OPT_ACCUM);
    if (dp > 0 && !accum && micro && s->ds.train_batch_size % (s->t.micro_batch * dp) == 0)
        s->t.grad_accum = s->ds.train_batch_size / (s->t.micro_batch * dp);
    else if (dp > 0 && !micro && s->ds.train_batch_size % (s->t.grad_accum * dp) == 0)
        s->t.micro_batch = s->ds.train_batch_size / (s->t.grad_accum * dp);
    /* DeepSpeed asserts train_batch_size == micro x accum x world size / model parallel
     * (deepspeed/runtime/config.py, _batch_assertion): so do we, naming the three. */
    double got = (double)s->t.micro_batch * (double)s->t.grad_accum * (double)dp;
    if (!s->searches_gpus && dp > 0 && got != (double)s->ds.train_batch_size)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: train_batch_size %lld is not micro-batch %lld x gradient accumulation %lld x "
            "data-parallel %lld = %.0f (DeepSpeed asserts they agree)",
            s->ds_path, (long long)s->ds.train_batch_size, (long long)s->t.micro_batch,
            (long long)s->t.grad_accum, (long long)dp, got);
    return ZS_OK;
}

int setup_ds_groups(setup *s, zs_error *err)
{
    int64_t dpc = training_dp(&s->t) * s->t.cp;
    char what[4200];
    if (s->ds.mics_set && !setup_flag_given(s, OPT_SHARD_GROUP)) {
        snprintf(what, sizeof what, "%s: zero_optimization.mics_shard_size", s->ds_path);
        if (training_check_group(s->t.shard_group, dpc, what, ZS_ERR_INPUT, err)) return err->code;
    }
    if (s->ds.hpz_set && !setup_flag_given(s, OPT_HPZ)) {
        snprintf(what, sizeof what, "%s: zero_optimization.zero_hpz_partition_size", s->ds_path);
        if (training_check_group(s->t.hpz_group, dpc, what, ZS_ERR_INPUT, err)) return err->code;
    }
    return ZS_OK;
}

/* DeepSpeed's engine picks the optimizer wrapper from the precision, the ZeRO stage and the
 * accumulation dtype (engine.py get_data_types, _do_optimizer_sanity_check, _configure_optimizer;
 * fw_deepspeed.c DEEPSPEED_BF16_OPTIMIZER has the releases and commits). */
int setup_ds_release(setup *s, zs_error *err)
{
    const framework *fw = s->t.framework;
    bool stage_chose = s->ds.stage == 0 && strcmp(s->strategy_arg, "all") == 0;
    if (!fw || !stage_chose || s->t.precision != PREC_BF16 || fw->bf16_stage0 == BF16_STAGE0_MIXED)
        return ZS_OK;
    int k = fw->bf16_stage0, acc = s->ds.stage0_accum;
    char rel[40];
    framework_release_text(fw, rel, sizeof rel);
    if (k == BF16_STAGE0_PURE) {
        if (setup_flag_given(s, OPT_PRECISION)) return ZS_OK; /* framework_allows says why not */
        s->t.precision = PREC_BF16_PURE;
        setup_note_ds(s,
            "bf16 at stage 0 under DeepSpeed %s: module.bfloat16() and the optimizer over it, no fp32 master "
            "(engine.py _configure_optimizer): bf16-pure%s",
            rel, acc ? "; data_types (read from v0.7.6) ignored" : "");
        return ZS_OK;
    }
    if (k == BF16_STAGE0_OPTIMIZER && acc == 2)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: field \"data_types.grad_accum_dtype\": bf16 without ZeRO: DeepSpeed 0.7.6-0.17.5 raise "
            "\"Bfloat16 wrapper must use a gradient accumulation type of fp32\" (engine.py "
            "_do_optimizer_sanity_check) but in the pipeline engine from 0.12.5 (--strategy zero1 "
            "--bf16-optimizer --grad-dtype 16-bit)",
            s->ds_path);
    if (k == BF16_STAGE0_PIPE_OPT && acc == 4)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: field \"data_types.grad_accum_dtype\": fp32 with bf16 without ZeRO: DeepSpeed 0.18.5+ "
            "raises \"unsupported mix\" (#7790; 0.7.6-0.18.4 ran BF16_Optimizer: --framework "
            "deepspeed@0.17.5)",
            s->ds_path);
    if (k == BF16_STAGE0_PIPE_OPT && s->t.pp <= 1) return ZS_OK; /* DDP_BFLOAT16: DDP */
    bool bf16_acc = k == BF16_STAGE0_PIPE_OPT;
    s->chosen[0] = &strat_zero1;
    s->chosen[1] = NULL;
    s->t.bf16_optimizer = true;
    if (bf16_acc && !setup_flag_given(s, OPT_GRAD_DTYPE)) s->t.grad_bytes = 2;
    setup_note_ds(s,
        "bf16 at stage 0 under DeepSpeed %s: BF16_Optimizer, its own ZeRO stage 1%s (engine.py "
        "_do_optimizer_sanity_check): costed as --strategy zero1 --bf16-optimizer%s",
        rel, bf16_acc ? ", accumulating in bf16 in the pipeline engine" : "",
        bf16_acc ? " --grad-dtype 16-bit" : "");
    return ZS_OK;
}
