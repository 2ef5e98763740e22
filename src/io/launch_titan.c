/* launch_titan.c -- torchtitan's job config as JSON (its config dump, or a train_configs TOML turned
 * into JSON) to training fields. Defaults and rules: pytorch/torchtitan@v0.2.2 (73a0e697)
 * torchtitan/config/job_config.py and torchtitan/train.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/launch_int.h"

static bool titan_detect(const cJSON *root)
{
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(root, "training");
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(root, "parallelism");
    const cJSON *job = cJSON_GetObjectItemCaseSensitive(root, "job");
    return cJSON_IsObject(tr) && (cJSON_IsObject(par) || cJSON_IsObject(job));
}

/* The sections flattened into "section.key" entries of flat (tables within tables too). */
static int flatten(const cJSON *obj, const char *prefix, cJSON *flat, int depth)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        char key[256];
        snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", c->string ? c->string : "");
        if (cJSON_IsObject(c) && depth < 8) {
            if (flatten(c, key, flat, depth + 1)) return -1;
        } else {
            cJSON *d = cJSON_Duplicate(c, true);
            if (!d || !cJSON_AddItemToObject(flat, key, d)) {
                cJSON_Delete(d);
                return -1;
            }
        }
    }
    return 0;
}

/* Keys older torchtitan configs keep elsewhere: the parallel degrees in [training] or
 * [experimental] before [parallelism] existed, training.batch_size before local_batch_size. */
static const char *t_alias(reader *r, const char *key)
{
    static const char *const alias[][2] = {{"training.local_batch_size", "training.batch_size"},
        {"parallelism.tensor_parallel_degree", "training.tensor_parallel_degree"},
        {"parallelism.data_parallel_shard_degree", "training.data_parallel_shard_degree"},
        {"parallelism.data_parallel_replicate_degree", "training.data_parallel_replicate_degree"},
        {"parallelism.context_parallel_degree", "experimental.context_parallel_degree"},
        {"parallelism.pipeline_parallel_degree", "experimental.pipeline_parallel_degree"},
        {"parallelism.expert_parallel_degree", "experimental.expert_parallel_degree"}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(alias[i][0], key) && !launch_item(r->root, key) && launch_item(r->root, alias[i][1]))
            return alias[i][1];
    return key;
}

static int t_int(reader *r, const char *key, long long dflt, long long *out, bool *given)
{
    key = t_alias(r, key);
    const cJSON *v = launch_top(r, key);
    *out = dflt;
    *given = v != NULL;
    if (!v) return ZS_OK;
    /* The range first: converting a double beyond long long's range is undefined. */
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= -1 && v->valuedouble <= 1e12) ||
        v->valuedouble != (double)(long long)v->valuedouble)
        return launch_bad(r, key, "a whole number (-1: the rest)");
    *out = (long long)v->valuedouble;
    return ZS_OK;
}

static const char *t_str(reader *r, const char *key)
{
    const cJSON *v = launch_top(r, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int t_flag(reader *r, const char *key, int id, long long dflt, long long *out)
{
    bool given;
    if (t_int(r, key, dflt, out, &given)) return r->err->code;
    key = t_alias(r, key);
    if (*out < 1) return launch_bad(r, key, "at least 1");
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", *out);
    if (launch_set_flag(r, id, buf, key)) return r->err->code;
    if (given)
        USED(r, "%s %lld -> --%s", key, *out, training_flag(id)->name);
    else
        DEFAULTED(r, "%s %lld (torchtitan's default)", key, *out);
    return ZS_OK;
}

/* The parallelism section: TP/PP/CP/EP/ETP and FSDP2's replicate x shard mesh. */
static int t_parallel(reader *r, long long *pp)
{
    long long tp, cp, ep, etp, rep, shard;
    bool rg, sg;
    if (t_flag(r, "parallelism.tensor_parallel_degree", OPT_TP, 1, &tp) ||
        t_flag(r, "parallelism.pipeline_parallel_degree", OPT_PP, 1, pp) ||
        t_flag(r, "parallelism.context_parallel_degree", OPT_CP, 1, &cp) ||
        t_flag(r, "parallelism.expert_parallel_degree", OPT_EP, 1, &ep) ||
        t_flag(r, "parallelism.expert_tensor_parallel_degree", OPT_ETP, 1, &etp))
        return r->err->code;
    if (t_int(r, "parallelism.data_parallel_replicate_degree", 1, &rep, &rg) ||
        t_int(r, "parallelism.data_parallel_shard_degree", -1, &shard, &sg))
        return r->err->code;
    if (rep < 1 || shard == 0)
        return launch_bad(r, "parallelism.data_parallel_*_degree", "at least 1 (shard: -1, the rest)");
    const char *ra = t_str(r, "parallelism.fsdp_reshard_after_forward");
    bool never = ra && strcmp(ra, "never") == 0;
    const char *st = shard == 1 ? "ddp" : never ? "zero2" : "zero3";
    launch_set_strategy(r, st, "parallelism.data_parallel_shard_degree");
    launch_set_framework(
        r, strcmp(st, "ddp") ? "fsdp2" : "generic", "parallelism.data_parallel_shard_degree");
    char buf[32];
    /* Shard -1 takes the rest of the world: at least what EP borrows from shard x CP
     * (torchtitan/distributed/parallel_dims.py). */
    long long world = rep * tp * *pp * (shard > 0 ? shard * cp : (ep > cp ? ep : cp));
    snprintf(buf, sizeof buf, "%lld", world);
    if (launch_set_flag(r, OPT_GPUS, buf, "parallelism.data_parallel_shard_degree")) return r->err->code;
    if (rep > 1 && shard != 1) {
        snprintf(buf, sizeof buf, "%lld", shard > 0 ? shard : 0);
        if (shard > 0 &&
            launch_set_flag(r, OPT_SHARD_GROUP, buf, "parallelism.data_parallel_replicate_degree"))
            return r->err->code;
    }
    USED(r,
        "parallelism.data_parallel_shard_degree %lld x parallelism.data_parallel_replicate_degree %lld -> "
        "--strategy "
        "%s%s%s",
        shard, rep, st, strcmp(st, "ddp") ? " --framework fsdp2" : "",
        rep > 1 && shard > 1 ? " --shard-group (HSDP)" : "");
    if (shard < 0)
        DEFAULTED(r,
            "world size: the config leaves it to torchrun (shard degree -1: the rest); %lld GPU(s) "
            "assumed, the fewest its parallel degrees need (give --gpus)",
            world);
    if (ra) USED(r, "parallelism.fsdp_reshard_after_forward %s", ra);
    return ZS_OK;
}

/* training.local_batch_size, global_batch_size (-1: local x DP), seq_len, PP micro-batches. */
static int t_batch(reader *r, long long pp)
{
    long long lb, gb, s, pmb;
    bool given, pg;
    if (t_flag(r, "training.local_batch_size", OPT_MICRO, 8, &lb) ||
        t_flag(r, "training.seq_len", OPT_SEQ, 2048, &s))
        return r->err->code;
    if (t_int(r, "training.global_batch_size", -1, &gb, &given) ||
        t_int(r, "parallelism.pipeline_parallel_microbatch_size", 1, &pmb, &pg))
        return r->err->code;
    if (pp > 1) {
        if (pmb < 1 || lb % pmb)
            return zs_fail(r->err, ZS_ERR_INPUT,
                "%s: training.local_batch_size %lld is not a multiple of "
                "parallelism.pipeline_parallel_microbatch_size %lld",
                r->path, lb, pmb);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", pmb);
        if (launch_set_flag(r, OPT_MICRO, buf, "parallelism.pipeline_parallel_microbatch_size"))
            return r->err->code;
        USED(r,
            "parallelism.pipeline_parallel_microbatch_size %lld -> --micro-batch %lld (the local batch in "
            "%lld "
            "pipeline micro-batches)",
            pmb, pmb, lb / pmb);
        if (gb < 1) gb = -lb; /* local x DP, in micro-batches of pmb: resolved by setup */
    } else if (pg)
        USED(r, "parallelism.pipeline_parallel_microbatch_size (no pipeline: no effect)");
    r->lc->global_batch = gb > 0 ? gb : 0;
    snprintf(r->lc->global_key, sizeof r->lc->global_key, "training.global_batch_size");
    snprintf(r->lc->batch_rule, sizeof r->lc->batch_rule, "%s",
        "torchtitan asserts global batch size % (local batch size x data-parallel degree) == 0, "
        "torchtitan/train.py");
    if (gb > 0)
        USED(r, "training.global_batch_size %lld -> --grad-accum = %lld / (local batch x DP)", gb, gb);
    else
        DEFAULTED(r, "training.global_batch_size -1 (local batch x DP: no accumulation)");
    if (gb < 0 && pp > 1) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", -gb / pmb);
        if (launch_set_flag(r, OPT_ACCUM, buf, "training.local_batch_size")) return r->err->code;
    }
    return ZS_OK;
}

/* activation_checkpoint.mode (default selective, layer option "2": every other layer). */
static int t_ckpt(reader *r)
{
    const char *m = t_str(r, "activation_checkpoint.mode"),
               *o = t_str(r, "activation_checkpoint.selective_ac_option");
    const char *mode = m ? m : "selective", *opt = o ? o : "2";
    const char *as = "none";
    if (!strcmp(mode, "full"))
        as = "full";
    else if (!strcmp(mode, "selective") && !strcmp(opt, "op"))
        as = "selective";
    else if (!strcmp(mode, "selective"))
        as = "full"; /* layer-wise: every opt-th block checkpointed whole */
    else if (!strcmp(mode, "memory_budget"))
        as = "selective";
    else if (strcmp(mode, "none"))
        return launch_bad(r, "activation_checkpoint.mode", "none, selective, full or memory_budget");
    if (launch_set_flag(r, OPT_CKPT, as, "activation_checkpoint.mode")) return r->err->code;
    bool layerwise = !strcmp(mode, "selective") && strcmp(opt, "op") != 0;
    long long every = layerwise ? atoll(opt) : 0;
    if (layerwise && every < 1)
        return launch_bad(r, "activation_checkpoint.selective_ac_option", "op or a layer interval");
    if (every > 1) {
        /* torchtitan checkpoints a block when layer_id % every == 0: 1 in `every`, spread evenly;
         * Megatron's block method over the same count stores the same. */
        if (launch_set_flag(r, OPT_RECOMPUTE_METHOD, "block", "activation_checkpoint.selective_ac_option"))
            return r->err->code;
        r->lc->recompute_every = every;
    }
    bool sel = layerwise || !strcmp(opt, "op");
    char what[256];
    snprintf(what, sizeof what, "activation_checkpoint.mode %s%s%s -> --checkpointing %s%s%s", mode,
        sel ? " activation_checkpoint.selective_ac_option " : "", sel ? opt : "", as,
        every > 1 ? " of one layer in each interval (--recompute-method block --recompute-layers "
                    "layers/interval)"
                  : "",
        m ? "" : " (torchtitan's default)");
    if (o && !sel) USED(r, "activation_checkpoint.selective_ac_option %s (mode %s: no effect)", o, mode);
    if (m)
        USED(r, "%s", what);
    else
        DEFAULTED(r, "%s", what);
    return ZS_OK;
}

/* Precision (FSDP mixed precision / training.dtype / float8 converters), optimizer, offload. */
static int t_precision(reader *r)
{
    const char *dt = t_str(r, "training.dtype"), *mp = t_str(r, "training.mixed_precision_param");
    const cJSON *conv = launch_top(r, "model.converters");
    bool f8 = false;
    for (const cJSON *c = cJSON_IsArray(conv) ? conv->child : NULL; c; c = c->next)
        f8 |= cJSON_IsString(c) && strstr(c->valuestring, "float8") != NULL;
    const char *p = dt && !strcmp(dt, "bfloat16") ? "bf16-pure"
        : f8                                      ? "fp8"
        : mp && !strcmp(mp, "float32")            ? "fp32"
                                                  : "bf16";
    if (launch_set_flag(r, OPT_PRECISION, p, "training.mixed_precision_param")) return r->err->code;
    USED(r, "precision -> --precision %s (training.dtype %s, mixed_precision_param %s%s)", p,
        dt ? dt : "float32 (default)", mp ? mp : "bfloat16 (default)", f8 ? ", model.converters float8" : "");
    /* fsdp2 reduces in fp32, torchtitan's default; a bfloat16 reduce halves the bytes. */
    const char *red = t_str(r, "training.mixed_precision_reduce");
    if (red && !strcmp(red, "bfloat16")) {
        if (launch_set_flag(r, OPT_REDUCE_DTYPE, "16-bit", "training.mixed_precision_reduce"))
            return r->err->code;
        USED(r, "training.mixed_precision_reduce bfloat16 -> --reduce-dtype 16-bit");
    } else if (red && strcmp(red, "float32"))
        return launch_bad(r, "training.mixed_precision_reduce", "float32 or bfloat16");
    else if (red)
        USED(r, "training.mixed_precision_reduce float32 (fsdp2's fp32 reduce-scatters)");
    else
        DEFAULTED(r, "training.mixed_precision_reduce float32 (fsdp2's fp32 reduce-scatters)");
    if (conv && !f8) USED(r, "model.converters (no float8 converter: no precision change)");
    const char *o = t_str(r, "optimizer.name");
    const char *as = !o || !strcmp(o, "AdamW") ? "adamw" : !strcmp(o, "Adam") ? "adam" : NULL;
    if (o && !as) return launch_bad(r, "optimizer.name", "AdamW or Adam");
    if (launch_set_flag(r, OPT_OPTIMIZER, as, "optimizer.name")) return r->err->code;
    if (o)
        USED(r, "optimizer.name %s -> --optimizer %s", o, as);
    else
        DEFAULTED(r, "optimizer.name AdamW -> --optimizer adamw");
    const cJSON *off = launch_top(r, "training.enable_cpu_offload");
    bool on = false;
    if (off && launch_boolean(r, off, "training.enable_cpu_offload", &on)) return r->err->code;
    if (on &&
        (launch_set_flag(r, OPT_OFF_OPT, "cpu", "training.enable_cpu_offload") ||
            launch_set_flag(r, OPT_OFF_PARAM, "cpu", "training.enable_cpu_offload")))
        return r->err->code;
    if (off)
        USED(r, "training.enable_cpu_offload %s%s", on ? "true" : "false",
            on ? " -> --offload-optimizer cpu --offload-params cpu (FSDP2 CPUOffloadPolicy)" : "");
    else
        DEFAULTED(r, "training.enable_cpu_offload false");
    return ZS_OK;
}

/* model.name and flavor to a catalog model (torchtitan's flavors are these models' shapes). */
static int t_model(reader *r)
{
    static const char *const map[][3] = {{"llama3", "8B", "llama-3-8b"}, {"llama3", "70B", "llama-3-70b"},
        {"llama3", "405B", "llama-3.1-405b"}, {"qwen3", "8B", "qwen3-8b"}, {"qwen3", "32B", "qwen3-32b"},
        {"deepseek_v3", "671B", "deepseek-v3"}, {"deepseek_v3", "16B", "deepseek-v2-lite"},
        {"llama4", "17bx16e", "llama-4-scout"}, {"llama4", "17bx128e", "llama-4-maverick"}};
    const char *name = t_str(r, "model.name"), *flavor = t_str(r, "model.flavor");
    for (size_t i = 0; name && flavor && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], name) && !strcmp(map[i][1], flavor)) {
            snprintf(r->lc->model, sizeof r->lc->model, "%s", map[i][2]);
            snprintf(r->lc->model_key, sizeof r->lc->model_key, "model.flavor");
            USED(r, "model.name %s model.flavor %s -> --model %s", name, flavor, map[i][2]);
            return ZS_OK;
        }
    if (name || flavor)
        IGNORED(r, "model.name %s model.flavor %s (no catalog model of that shape: give --model)",
            name ? name : "?", flavor ? flavor : "?");
    if (launch_top(r, "model.hf_assets_path"))
        USED(r, "model.hf_assets_path (the tokenizer's: the shape is the flavor's)");
    return ZS_OK;
}

static int titan_read(reader *r)
{
    cJSON *flat = cJSON_CreateObject();
    if (!flat || flatten(r->root, "", flat, 0)) {
        cJSON_Delete(flat);
        return zs_fail(r->err, ZS_ERR_NOMEM, "%s: out of memory", r->path);
    }
    r->root = r->owned = flat;
    long long pp = 1;
    if (t_model(r) || t_parallel(r, &pp) || t_batch(r, pp) || t_ckpt(r) || t_precision(r))
        return r->err->code;
    return ZS_OK;
}

const launch_format_desc launch_titan_format = {
    LAUNCH_TITAN, "torchtitan", NULL, NULL, titan_detect, titan_read};
