/* dsconfig.c -- DeepSpeed config keys to training fields, noting what was defaulted. */
#include "dsconfig.h"

#include <stdio.h>
#include <string.h>

#include "jsonutil.h"

static void note_default(ds_config *ds, const char *key)
{
    size_t n = strlen(ds->defaulted);
    snprintf(ds->defaulted + n, sizeof ds->defaulted - n, "%s%s", n ? ", " : "", key);
}

/* offload_optimizer / offload_param: {"device": "cpu"|"nvme"|"none"}. */
static int offload(const cJSON *zero, const char *key, offload_kind *out, ds_config *ds,
                   zs_error *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(zero, key);
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    if (!cJSON_IsObject(o))
        return zs_fail(err, ZS_ERR_INPUT, "field \"zero_optimization.%s\": expected an object with \"device\"", key);
    char dev[16] = "none";
    bool have;
    if (json_get_string(o, "device", dev, sizeof dev, &have, err)) return err->code;
    if (!have || strcmp(dev, "auto") == 0) { note_default(ds, key); return ZS_OK; }
    int v = offload_parse(dev);
    if (v < 0)
        return zs_fail(err, ZS_ERR_INPUT, "field \"zero_optimization.%s.device\": \"%s\" is not one of none|cpu|nvme", key, dev);
    *out = (offload_kind)v;
    return ZS_OK;
}

static int from_json(const cJSON *root, training *t, ds_config *ds, zs_error *err)
{
    memset(ds, 0, sizeof *ds);
    ds->stage = -1;
    bool have;
    int64_t v;
    if (json_get_int(root, "train_micro_batch_size_per_gpu", 1, 1000000, &v, &have, err)) return err->code;
    if (have) { t->micro_batch = v; ds->micro_batch_set = true; }
    else note_default(ds, "train_micro_batch_size_per_gpu");
    if (json_get_int(root, "gradient_accumulation_steps", 1, 1000000, &v, &have, err)) return err->code;
    if (have) { t->grad_accum = v; ds->grad_accum_set = true; }
    else note_default(ds, "gradient_accumulation_steps");
    if (json_get_int(root, "train_batch_size", 1, 1000000000, &ds->train_batch_size, &have, err)) return err->code;

    /* bf16 wins over fp16 when both say enabled, as DeepSpeed refuses both; neither: fp32. */
    static const struct { const char *key; precision_kind p; } precs[] = {
        {"bf16", PREC_BF16}, {"fp16", PREC_FP16}};
    bool any = false;
    for (size_t i = 0; i < 2 && !any; i++) {
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, precs[i].key);
        if (!o) continue;
        bool en = false;
        if (!cJSON_IsObject(o))
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected an object with \"enabled\"", precs[i].key);
        if (json_get_bool(o, "enabled", &en, &have, err)) { zs_error_prefix(err, precs[i].key); return err->code; }
        if (!have) note_default(ds, precs[i].key);
        if (en) { t->precision = precs[i].p; any = true; }
    }
    if (!any && !cJSON_GetObjectItemCaseSensitive(root, "bf16") && !cJSON_GetObjectItemCaseSensitive(root, "fp16"))
        t->precision = PREC_FP32;

    const cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "zero_optimization");
    if (!zero || cJSON_IsNull(zero)) { note_default(ds, "zero_optimization"); return ZS_OK; }
    if (!cJSON_IsObject(zero))
        return zs_fail(err, ZS_ERR_INPUT, "field \"zero_optimization\": expected an object");
    if (json_get_int(zero, "stage", 0, 3, &v, &have, err)) { zs_error_prefix(err, "zero_optimization"); return err->code; }
    if (have) ds->stage = (int)v; else note_default(ds, "zero_optimization.stage");
    if (offload(zero, "offload_optimizer", &t->offload_optimizer, ds, err)) return err->code;
    if (offload(zero, "offload_param", &t->offload_params, ds, err)) return err->code;
    /* A reduce or all-gather bucket holds at least one element: the step is split into
     * size / bucket collectives, so a smaller one made the call count (and the step) infinite. */
    const struct { const char *key; double *dst, min; } nums[] = {
        {"reduce_bucket_size", &t->reduce_bucket, 1},
        {"allgather_bucket_size", &t->allgather_bucket, 1},
        {"stage3_prefetch_bucket_size", &t->prefetch_bucket, 0},
        {"stage3_max_live_parameters", &t->max_live_params, 0},
        {"stage3_param_persistence_threshold", &t->persistence_threshold, 0},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (json_get_number(zero, nums[i].key, nums[i].min, 1e15, nums[i].dst, &have, err)) {
            zs_error_prefix(err, "zero_optimization");
            return err->code;
        }
        if (!have) note_default(ds, nums[i].key);
    }
    bool ov = false;
    if (json_get_bool(zero, "overlap_comm", &ov, &have, err)) { zs_error_prefix(err, "zero_optimization"); return err->code; }
    if (have) t->overlap_comm = ov;
    else note_default(ds, "overlap_comm");
    /* ZeRO++ (DeepSpeed ZeRO++ tutorial: zero_hpz_partition_size, zero_quantized_weights,
     * zero_quantized_gradients) and MiCS (mics_shard_size; -1 or absent = off). A partition
     * of 1 rank is DeepSpeed's "off". */
    int64_t hpz = 0, mics = 0;
    if (json_get_int(zero, "zero_hpz_partition_size", 1, 10000000, &hpz, &have, err) ||
        json_get_bool(zero, "zero_quantized_weights", &t->quant_weights, &have, err) ||
        json_get_bool(zero, "zero_quantized_gradients", &t->quant_grads, &have, err)) {
        zs_error_prefix(err, "zero_optimization");
        return err->code;
    }
    if (hpz > 1) t->hpz_group = hpz;
    const cJSON *mj = cJSON_GetObjectItemCaseSensitive(zero, "mics_shard_size");
    if (!(cJSON_IsNumber(mj) && mj->valuedouble == -1)) {
        if (json_get_int(zero, "mics_shard_size", 1, 10000000, &mics, &have, err)) {
            zs_error_prefix(err, "zero_optimization");
            return err->code;
        }
        if (have) t->shard_group = mics;
    }
    return ZS_OK;
}

int dsconfig_from_json(const cJSON *root, const char *origin, training *t, ds_config *ds,
                       zs_error *err)
{
    int rc = from_json(root, t, ds, err);
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
