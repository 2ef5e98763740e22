/* dsconfig.c -- DeepSpeed config keys to training fields, noting what was defaulted. */
#include "io/dsconfig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/jsonutil.h"

static void note_default(ds_config *ds, const char *key)
{
    size_t n = strlen(ds->defaulted);
    snprintf(ds->defaulted + n, sizeof ds->defaulted - n, "%s%s", n ? ", " : "", key);
}

static void note_ignored(ds_config *ds, const char *prefix, const char *key)
{
    size_t n = strlen(ds->ignored);
    if (n + 4 >= sizeof ds->ignored) return;
    int w = snprintf(ds->ignored + n, sizeof ds->ignored - n, "%s%s%s", n ? ", " : "", prefix, key);
    /* Too many to list: end with an ellipsis rather than a cut name. */
    if (w < 0 || (size_t)w >= sizeof ds->ignored - n)
        snprintf(ds->ignored + n, sizeof ds->ignored - n, "%s...", n ? ", " : "");
}

static bool known_key(const char *key, const char *const *known)
{
    for (; *known; known++)
        if (strcmp(*known, key) == 0) return true;
    return false;
}

/* Every key of obj that zerosim does not read is listed as ignored, never silently dropped. */
static void list_ignored(ds_config *ds, const cJSON *obj, const char *prefix, const char *const *known)
{
    if (!cJSON_IsObject(obj)) return;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && !known_key(c->string, known)) note_ignored(ds, prefix, c->string);
}

static bool is_auto(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0;
}

/* offload_optimizer / offload_param: {"device": "cpu"|"nvme"|"none"}. */
static int offload(const cJSON *zero, const char *key, offload_kind *out, ds_config *ds, zs_error *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(zero, key);
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    if (!cJSON_IsObject(o))
        return zs_fail(
            err, ZS_ERR_INPUT, "field \"zero_optimization.%s\": expected an object with \"device\"", key);
    char dev[16] = "none";
    bool have;
    if (json_get_string(o, "device", dev, sizeof dev, &have, err)) return err->code;
    if (!have || strcmp(dev, "auto") == 0) {
        note_default(ds, key);
        return ZS_OK;
    }
    int v = offload_parse(dev);
    char names[64];
    if (v < 0)
        return zs_fail(err, ZS_ERR_INPUT, "field \"zero_optimization.%s.device\": \"%s\" is not one of %s",
            key, dev, flag_choice_names(offload_choices, 0, names, sizeof names));
    *out = (offload_kind)v;
    return ZS_OK;
}

/* Legacy booleans (DeepSpeed's zero config still maps them): cpu_offload = offload_optimizer
 * device cpu, cpu_offload_params = offload_param device cpu. */
static int legacy_offload(const cJSON *zero, const char *key, offload_kind *out, zs_error *err)
{
    bool on = false, have;
    if (json_get_bool(zero, key, &on, &have, err)) return err->code;
    if (have && on && *out == OFFLOAD_NONE) *out = OFFLOAD_CPU;
    return ZS_OK;
}

/* The batch keys: micro-batch and accumulation within their flags' ranges, the global batch. */
static int batch_keys(const cJSON *root, training *t, ds_config *ds, zs_error *err)
{
    bool have;
    int64_t v;
    const flag_desc *micro = training_flag(OPT_MICRO), *accum = training_flag(OPT_ACCUM);
    if (json_get_int(
            root, "train_micro_batch_size_per_gpu", (int64_t)micro->min, (int64_t)micro->max, &v, &have, err))
        return err->code;
    if (have) {
        t->micro_batch = v;
        ds->micro_batch_set = true;
    } else
        note_default(ds, "train_micro_batch_size_per_gpu");
    if (json_get_int(
            root, "gradient_accumulation_steps", (int64_t)accum->min, (int64_t)accum->max, &v, &have, err))
        return err->code;
    if (have) {
        t->grad_accum = v;
        ds->grad_accum_set = true;
    } else
        note_default(ds, "gradient_accumulation_steps");
    return json_get_int(root, "train_batch_size", 1, 1000000000, &ds->train_batch_size, &have, err);
}

/* One precision section's "enabled" (absent or "auto": defaulted, not enabled). */
static int section_enabled(
    const cJSON *root, const char *key, bool *en, bool *said, ds_config *ds, zs_error *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
    *en = *said = false;
    if (!o) return ZS_OK;
    if (!cJSON_IsObject(o))
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected an object with \"enabled\"", key);
    if (json_get_bool(o, "enabled", en, said, err)) {
        zs_error_prefix(err, key);
        return err->code;
    }
    if (!*said) note_default(ds, key);
    return ZS_OK;
}

/* As DeepSpeed reads them (microsoft/DeepSpeed@38327e07 deepspeed/runtime/config.py):
 * get_bfloat16_enabled takes the first of "bf16" and "bfloat16" (its older name, BFLOAT16_OLD
 * in constants.py) present, get_fp16_enabled "fp16", and DeepSpeedConfig._initialize_params
 * asserts not both ('bfloat16 and fp16 modes cannot be simultaneously enabled'). Neither
 * enabled, with no section or every section false, DeepSpeed trains in fp32: so does zerosim,
 * and says so. A section left "auto" keeps the default (the HF Trainer's flags decide). */
static int precision_keys(const cJSON *root, training *t, ds_config *ds, zs_error *err)
{
    static const char *const keys[] = {"bf16", "bfloat16", "fp16"};
    static const char *const prec_known[] = {"enabled", NULL};
    for (size_t i = 0; i < 3; i++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%s.", keys[i]);
        list_ignored(ds, cJSON_GetObjectItemCaseSensitive(root, keys[i]), prefix, prec_known);
    }
    const char *bkey = cJSON_GetObjectItemCaseSensitive(root, "bf16") ? "bf16"
        : cJSON_GetObjectItemCaseSensitive(root, "bfloat16")          ? "bfloat16"
                                                                      : NULL;
    bool bf = false, bf_said = false, fp, fp_said;
    if ((bkey && section_enabled(root, bkey, &bf, &bf_said, ds, err)) ||
        section_enabled(root, "fp16", &fp, &fp_said, ds, err))
        return err->code;
    bool fp_sec = cJSON_GetObjectItemCaseSensitive(root, "fp16") != NULL;
    if (bf && fp)
        return zs_fail(err, ZS_ERR_INPUT,
            "fields \"%s.enabled\" and \"fp16.enabled\" are both true: DeepSpeed asserts \"bfloat16 and fp16 "
            "modes cannot be simultaneously enabled\" (deepspeed/runtime/config.py); enable one",
            bkey);
    if (bf || fp) {
        t->precision = bf ? PREC_BF16 : PREC_FP16;
    } else if (!bkey && !fp_sec) {
        t->precision = PREC_FP32;
        snprintf(ds->precision_note, sizeof ds->precision_note,
            "no fp16 or bf16 section: fp32, as DeepSpeed runs it");
    } else if ((!bkey || bf_said) && (!fp_sec || fp_said)) {
        t->precision = PREC_FP32;
        snprintf(ds->precision_note, sizeof ds->precision_note,
            "fp16 and bf16 not enabled: fp32, as DeepSpeed runs it");
    }
    return ZS_OK;
}

/* optimizer.type as DeepSpeed resolves it (microsoft/DeepSpeed@38327e07
 * deepspeed/runtime/config.py: a name in DEEPSPEED_OPTIMIZERS is lowercased; engine.py
 * _configure_basic_optimizer builds those and looks any other up in torch.optim by its exact
 * name). Mapped to the zerosim optimizer whose fp32 state matches; exact: case counts. */
static const struct {
    const char *type;
    bool exact;
    optimizer_kind kind;
    const char *note;
} ds_optimizers[] = {
    {"Adam", false, OPT_ADAMW,
        "DeepSpeed runs Adam as AdamW unless optimizer.params.adam_w_mode is false (engine.py)"},
    {"AdamW", false, OPT_ADAMW, NULL},
    {"Lamb", false, OPT_ADAM,
        "FusedLamb keeps Adam's two fp32 moments (exp_avg, exp_avg_sq): modelled as adam"},
    {"Lion", false, OPT_SGD, "Lion keeps one fp32 moment (exp_avg), as SGD with momentum: modelled as sgd"},
    {"Adagrad", false, OPT_SGD, "Adagrad keeps one fp32 state (sum), as SGD with momentum: modelled as sgd"},
    {"MuAdam", false, OPT_ADAM, "mup's MuAdam keeps Adam's state: modelled as adam"},
    {"MuAdamW", false, OPT_ADAMW, "mup's MuAdamW keeps AdamW's state: modelled as adamw"},
    {"MuSGD", false, OPT_SGD, "mup's MuSGD keeps SGD's state: modelled as sgd"},
    {"SGD", true, OPT_SGD,
        "one fp32 momentum buffer counted; torch.optim.SGD keeps none with its default momentum 0"},
    {"Adafactor", true, OPT_ADAFACTOR, NULL},
};
#define N_DS_OPT (sizeof ds_optimizers / sizeof ds_optimizers[0])

/* Why an optimizer.type is refused, beyond the list of the known ones. */
static const char *refusal_hint(const char *type)
{
    for (size_t i = 0; i < N_DS_OPT; i++)
        if (ds_optimizers[i].exact && strcasecmp(type, ds_optimizers[i].type) == 0)
            return ": torch.optim names are case-sensitive";
    if (strcasecmp(type, "FusedAdam") == 0 || strcasecmp(type, "CPUAdam") == 0 ||
        strcasecmp(type, "DeepSpeedCPUAdam") == 0)
        return ": DeepSpeed has no such type; \"Adam\" runs FusedAdam, or DeepSpeedCPUAdam when the "
               "optimizer is offloaded";
    if (strcasecmp(type, "OneBitAdam") == 0 || strcasecmp(type, "ZeroOneAdam") == 0 ||
        strcasecmp(type, "OneBitLamb") == 0)
        return ": DeepSpeed asserts its 1-bit optimizers are not compatible with ZeRO, and their "
               "error-feedback buffers are not modelled";
    return "";
}

static int optimizer_keys(const cJSON *root, training *t, ds_config *ds, zs_error *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "optimizer");
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    if (!cJSON_IsObject(o)) return zs_fail(err, ZS_ERR_INPUT, "field \"optimizer\": expected an object");
    static const char *const opt_known[] = {"type", "params", NULL};
    static const char *const params_known[] = {"adam_w_mode", NULL};
    list_ignored(ds, o, "optimizer.", opt_known);
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, "params");
    list_ignored(ds, params, "optimizer.params.", params_known);
    bool have, w_mode = true;
    char *type = ds->optimizer_type;
    if (json_get_string(o, "type", type, sizeof ds->optimizer_type, &have, err)) {
        zs_error_prefix(err, "optimizer");
        return err->code;
    }
    if (!have || strcmp(type, "auto") == 0) {
        note_default(ds, "optimizer.type");
        return ZS_OK;
    }
    for (size_t i = 0; i < N_DS_OPT; i++) {
        if (ds_optimizers[i].exact ? strcmp(type, ds_optimizers[i].type) != 0
                                   : strcasecmp(type, ds_optimizers[i].type) != 0)
            continue;
        t->optimizer = ds_optimizers[i].kind;
        ds->optimizer_set = true;
        if (i == 0 && cJSON_IsObject(params) &&
            json_get_bool(params, "adam_w_mode", &w_mode, &have, err)) {
            zs_error_prefix(err, "optimizer.params");
            return err->code;
        }
        if (i == 0 && !w_mode)
            t->optimizer = OPT_ADAM;
        else if (ds_optimizers[i].note)
            snprintf(ds->optimizer_note, sizeof ds->optimizer_note, "%s", ds_optimizers[i].note);
        return ZS_OK;
    }
    char names[160] = "";
    for (size_t i = 0, n = 0; i < N_DS_OPT && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", ds_optimizers[i].type);
    return zs_fail(err, ZS_ERR_INPUT, "field \"optimizer.type\": \"%s\" is not an optimizer zerosim models "
        "(it knows %s)%s", type, names, refusal_hint(type));
}

/* zero_optimization's offload sections, the legacy booleans and NVMe pipelining. */
static int zero_offload(const cJSON *zero, training *t, ds_config *ds, zs_error *err)
{
    bool have;
    if (offload(zero, "offload_optimizer", &t->offload_optimizer, ds, err)) return err->code;
    if (offload(zero, "offload_param", &t->offload_params, ds, err)) return err->code;
    if (legacy_offload(zero, "cpu_offload", &t->offload_optimizer, err) ||
        legacy_offload(zero, "cpu_offload_params", &t->offload_params, err)) {
        zs_error_prefix(err, "zero_optimization");
        return err->code;
    }
    /* ZeRO-Infinity's pipelined optimizer swapping (DeepSpeed offload_config.py). */
    const cJSON *oo = cJSON_GetObjectItemCaseSensitive(zero, "offload_optimizer");
    if (cJSON_IsObject(oo) &&
        (json_get_bool(oo, "pipeline_read", &t->nvme_pipeline_read, &have, err) ||
            json_get_bool(oo, "pipeline_write", &t->nvme_pipeline_write, &have, err))) {
        zs_error_prefix(err, "zero_optimization.offload_optimizer");
        return err->code;
    }
    static const char *const off_known[] = {"device", "pipeline_read", "pipeline_write", NULL};
    static const char *const param_known[] = {"device", NULL};
    list_ignored(ds, oo, "zero_optimization.offload_optimizer.", off_known);
    list_ignored(ds, cJSON_GetObjectItemCaseSensitive(zero, "offload_param"),
        "zero_optimization.offload_param.", param_known);
    return ZS_OK;
}

/* Bucket sizes, overlap_comm, ZeRO++ and MiCS. */
static int zero_numbers(const cJSON *zero, training *t, ds_config *ds, zs_error *err)
{
    bool have;
    /* An all-gather bucket holds at least one element: the step is split into size / bucket
     * collectives, so a smaller one made the call count (and the step) infinite. DeepSpeed
     * accepts reduce_bucket_size 0: every gradient is then reduced on its own (the bucket
     * flushes before each tensor is added), which setup models as a one-tensor bucket. */
    const struct {
        const char *key;
        double *dst, min;
        int hf;
    } nums[] = {
        {"reduce_bucket_size", &t->reduce_bucket, 0, 0},
        {"allgather_bucket_size", &t->allgather_bucket, 1, -1},
        {"stage3_prefetch_bucket_size", &t->prefetch_bucket, 0, 1},
        {"stage3_max_live_parameters", &t->max_live_params, 0, -1},
        {"stage3_param_persistence_threshold", &t->persistence_threshold, 0, 2},
        /* 0 is valid: DeepSpeed's stage3.py _create_fp16_sub_groups then closes a sub-group at
         * every parameter; read as 0 and set to 1 element below (the smallest zerosim models) */
        {"sub_group_size", &t->sub_group_size, 0, -1},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        /* The stage3_ keys are pydantic aliases of fields DeepSpeed also takes by name
         * (deepspeedai/DeepSpeed@edaa7221 runtime/zero/config.py, populate_by_name in
         * runtime/config_utils.py): Axolotl's zero3 files write max_live_parameters. */
        const char *key = nums[i].key;
        if (strncmp(key, "stage3_", 7) == 0 && !cJSON_GetObjectItemCaseSensitive(zero, key) &&
            cJSON_GetObjectItemCaseSensitive(zero, key + 7))
            key += 7;
        if (nums[i].hf >= 0 && is_auto(zero, key)) {
            ds->hf_auto[nums[i].hf] = true;
            continue;
        }
        if (json_get_number(zero, key, nums[i].min, 1e15, nums[i].dst, &have, err)) return err->code;
        if (!have) note_default(ds, key);
    }
    if (t->reduce_bucket == 0) ds->reduce_bucket_zero = true;
    if (t->sub_group_size < 1) t->sub_group_size = 1;
    bool ov = false;
    if (json_get_bool(zero, "overlap_comm", &ov, &have, err)) return err->code;
    if (have)
        t->overlap_comm = ov;
    else
        note_default(ds, "overlap_comm");
    /* ZeRO++ (DeepSpeed ZeRO++ tutorial: zero_hpz_partition_size, zero_quantized_weights,
     * zero_quantized_gradients) and MiCS (mics_shard_size; -1 or absent = off). A partition
     * of 1 rank is DeepSpeed's "off". */
    int64_t hpz = 0, mics = 0;
    if (json_get_int(zero, "zero_hpz_partition_size", 1, 10000000, &hpz, &have, err) ||
        json_get_bool(zero, "zero_quantized_weights", &t->quant_weights, &have, err) ||
        json_get_bool(zero, "zero_quantized_gradients", &t->quant_grads, &have, err))
        return err->code;
    if (hpz > 1) {
        t->hpz_group = hpz;
        ds->hpz_set = true;
    }
    const cJSON *mj = cJSON_GetObjectItemCaseSensitive(zero, "mics_shard_size");
    if (!(cJSON_IsNumber(mj) && mj->valuedouble == -1)) {
        if (json_get_int(zero, "mics_shard_size", 1, 10000000, &mics, &have, err)) return err->code;
        if (have) t->shard_group = mics;
        ds->mics_set = have;
    }
    return ZS_OK;
}

static int from_json(const cJSON *root, training *t, ds_config *ds, zs_error *err)
{
    memset(ds, 0, sizeof *ds);
    ds->stage = -1;
    bool have;
    int64_t v;
    if (batch_keys(root, t, ds, err) || precision_keys(root, t, ds, err) || optimizer_keys(root, t, ds, err))
        return err->code;
    static const char *const top_known[] = {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
        "train_batch_size", "bf16", "bfloat16", "fp16", "optimizer", "zero_optimization",
        "communication_data_type", "data_types", NULL};
    list_ignored(ds, root, "", top_known);
    /* The gradients' wire dtype (deepspeedai/DeepSpeed@cf443004 deepspeed/runtime/config.py
     * get_communication_data_type: fp32, fp16 or bf16, any case; absent, the training dtype). */
    const cJSON *cdt = cJSON_GetObjectItemCaseSensitive(root, "communication_data_type");
    if (cdt && !cJSON_IsNull(cdt)) {
        const char *dt = cJSON_IsString(cdt) ? cdt->valuestring : "";
        if (!strcasecmp(dt, "fp32"))
            t->reduce_bytes = 4;
        else if (!strcasecmp(dt, "fp16") || !strcasecmp(dt, "bf16"))
            t->reduce_bytes = 2;
        else
            return zs_fail(err, ZS_ERR_INPUT,
                "field \"communication_data_type\": expected \"fp32\", \"fp16\" or \"bf16\" (DeepSpeed's "
                "supported data types)");
    }

    const cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "zero_optimization");
    if (!zero || cJSON_IsNull(zero)) {
        note_default(ds, "zero_optimization");
        return ZS_OK;
    }
    if (!cJSON_IsObject(zero))
        return zs_fail(err, ZS_ERR_INPUT, "field \"zero_optimization\": expected an object");
    if (json_get_int(zero, "stage", 0, 3, &v, &have, err)) {
        zs_error_prefix(err, "zero_optimization");
        return err->code;
    }
    if (have)
        ds->stage = (int)v;
    else
        note_default(ds, "zero_optimization.stage");
    if (zero_offload(zero, t, ds, err)) return err->code;
    if (zero_numbers(zero, t, ds, err)) {
        zs_error_prefix(err, "zero_optimization");
        return err->code;
    }
    static const char *const zero_known[] = {"stage", "offload_optimizer", "offload_param", "cpu_offload",
        "cpu_offload_params", "reduce_bucket_size", "allgather_bucket_size", "stage3_prefetch_bucket_size",
        "stage3_max_live_parameters", "stage3_param_persistence_threshold", "sub_group_size", "overlap_comm",
        "zero_hpz_partition_size", "zero_quantized_weights", "zero_quantized_gradients", "mics_shard_size",
        "prefetch_bucket_size", "max_live_parameters", "param_persistence_threshold", NULL};
    list_ignored(ds, zero, "zero_optimization.", zero_known);
    return ZS_OK;
}

void dsconfig_fill_auto(ds_config *ds, int64_t hidden, training *t)
{
    static const char *const keys[3] = {
        "reduce_bucket_size", "stage3_prefetch_bucket_size", "stage3_param_persistence_threshold"};
    double h = (double)hidden;
    const double vals[3] = {h * h, floor(0.9 * h * h), 10 * h};
    double *dst[3] = {&t->reduce_bucket, &t->prefetch_bucket, &t->persistence_threshold};
    for (int k = 0; k < 3; k++) {
        if (!ds->hf_auto[k]) continue;
        if (hidden <= 0) {
            note_default(ds, keys[k]);
            continue;
        }
        *dst[k] = vals[k];
        size_t n = strlen(ds->filled);
        snprintf(ds->filled + n, sizeof ds->filled - n, "%s%s %.0f", n ? ", " : "", keys[k], vals[k]);
    }
}

/* A HF config.json given as --deepspeed: a model's shape keys, and few of its keys a ds_config's
 * top level (DeepSpeed's documented sections, zerosim's read ones among them). */
static int refuse_model_config(const cJSON *root, const char *origin, zs_error *err)
{
    static const char *const markers[] = {"model_type", "hidden_size", "num_hidden_layers", NULL};
    static const char *const ds_top[] = {"train_batch_size", "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps", "optimizer", "scheduler", "fp16", "bf16", "bfloat16", "amp",
        "zero_optimization", "gradient_clipping", "steps_per_print", "wall_clock_breakdown",
        "prescale_gradients", "gradient_predivide_factor", "communication_data_type",
        "zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer", "activation_checkpointing",
        "flops_profiler", "tensorboard", "wandb", "csv_monitor", "comms_logger", "aio", "autotuning",
        "elasticity", "pipeline", "data_efficiency", "compression_training", "checkpoint", "data_types",
        "sparse_attention", "dump_state", "memory_breakdown", "tensor_parallel", "sequence_parallel_size",
        NULL};
    const cJSON *marker = NULL;
    for (const char *const *k = markers; *k && !marker; k++)
        marker = cJSON_GetObjectItemCaseSensitive(root, *k);
    if (!marker) return ZS_OK;
    int keys = 0, known = 0;
    for (const cJSON *c = root->child; c; c = c->next, keys++)
        known += c->string && known_key(c->string, ds_top);
    if (known * 4 >= keys) return ZS_OK;
    char what[96];
    if (cJSON_IsString(marker))
        snprintf(what, sizeof what, "%s \"%.40s\"", marker->string, marker->valuestring);
    else
        snprintf(what, sizeof what, "%s %.0f", marker->string, cJSON_GetNumberValue(marker));
    return zs_fail(err, ZS_ERR_INPUT,
        "%s looks like a model config.json (%s), not a DeepSpeed config: give it as --model", origin, what);
}

/* data_types.grad_accum_dtype, DtypeEnum's names (deepspeedai/DeepSpeed@cf443004
 * deepspeed/runtime/config.py; engine.py get_data_types: absent, the model's dtype). fp32 under
 * bf16 at ZeRO stage 1 without optimizer offload is BF16_Optimizer (engine.py
 * _do_optimizer_sanity_check: --bf16-optimizer); at the other ZeRO stages the ZeRO optimizer keeps
 * its gradient partitions in it (stage_1_and_2.py, stage3.py gradient_accumulation_dtype) and
 * still reduces in the communication dtype; without ZeRO another dtype than the model's raises
 * "unsupported mix" but for bf16, whose meaning the release decides (setup_ds_release). */
static int data_types_keys(const cJSON *root, training *t, ds_config *ds, zs_error *err)
{
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(root, "data_types");
    if (!dt || cJSON_IsNull(dt)) return ZS_OK;
    if (!cJSON_IsObject(dt)) return zs_fail(err, ZS_ERR_INPUT, "field \"data_types\": expected an object");
    static const char *const dt_known[] = {"grad_accum_dtype", NULL};
    list_ignored(ds, dt, "data_types.", dt_known);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(dt, "grad_accum_dtype");
    if (!g || cJSON_IsNull(g)) return ZS_OK;
    static const char *const f32[] = {"fp32", "float32", "float", "torch.float32", NULL};
    static const char *const f16[] = {
        "fp16", "float16", "half", "torch.float16", "bf16", "bfloat16", "torch.bfloat16", NULL};
    int bytes = 0;
    for (int i = 0; cJSON_IsString(g) && f32[i]; i++) bytes = strcmp(g->valuestring, f32[i]) ? bytes : 4;
    for (int i = 0; cJSON_IsString(g) && f16[i]; i++) bytes = strcmp(g->valuestring, f16[i]) ? bytes : 2;
    if (!bytes)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"data_types.grad_accum_dtype\": expected \"fp32\", \"fp16\" or \"bf16\" (DeepSpeed's "
            "DtypeEnum)");
    int model = t->precision == PREC_FP32 ? 4 : 2, stage = ds->stage < 0 ? 0 : ds->stage;
    /* bf16 without ZeRO: BF16_Optimizer, DDP or a refusal by release (setup_ds_release). */
    if (stage == 0 && t->precision == PREC_BF16) ds->stage0_accum = bytes;
    if (bytes == model || (stage == 0 && t->precision == PREC_BF16)) return ZS_OK;
    if (stage == 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"data_types.grad_accum_dtype\": without ZeRO DeepSpeed accumulates in the model's dtype "
            "only (engine.py raises \"unsupported mix of model_dtype and grad_accum_dtype\")");
    if (bytes == 4 && t->precision == PREC_BF16 && stage == 1 && t->offload_optimizer == OFFLOAD_NONE) {
        t->bf16_optimizer = true;
        snprintf(ds->grad_note, sizeof ds->grad_note,
            "data_types.grad_accum_dtype fp32 with bf16 at stage 1: BF16_Optimizer (--bf16-optimizer)");
        return ZS_OK;
    }
    if (t->reduce_bytes == 0) t->reduce_bytes = model;
    t->grad_bytes = bytes;
    snprintf(ds->grad_note, sizeof ds->grad_note,
        "data_types.grad_accum_dtype %s: gradient partitions kept in %d bytes, reduced in %d", g->valuestring,
        bytes, t->reduce_bytes);
    return ZS_OK;
}

int dsconfig_from_json(const cJSON *root, const char *origin, training *t, ds_config *ds, zs_error *err)
{
    if (refuse_model_config(root, origin, err)) return err->code;
    int rc = from_json(root, t, ds, err);
    if (!rc) rc = data_types_keys(root, t, ds, err);
    if (rc) zs_error_prefix(err, origin);
    return rc;
}

int dsconfig_load(const char *path, training *t, ds_config *ds, zs_error *err)
{
    cJSON *root;
    if (json_load_object(path, &root, err)) return err->code;
    int rc = dsconfig_from_json(root, path, t, ds, err);
    cJSON_Delete(root);
    return rc;
}
