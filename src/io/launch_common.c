/* launch_common.c -- what every launcher reader shares: the report lists, typed keys, precision,
 * optimizer, LoRA targets, FSDP sections and the keys left over. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* realpath */
#endif
#include "io/launch_int.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/finetune.h"
#include "io/jsonutil.h"

__attribute__((format(printf, 3, 4))) void launch_add(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 8 >= len) return;
    if (n) {
        memcpy(buf + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= len - n) snprintf(buf + n, len - n, "...");
}
/* Append name to a ", "-separated list in buf (len bytes). */
void launch_join(char *buf, size_t len, const char *name)
{
    size_t n = strlen(buf);
    if (n + 8 < len)
        snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
    else if (n + 4 < len && strcmp(buf + n - 3, "...") != 0)
        snprintf(buf + n, len - n, "...");
}

void launch_mark(reader *r, const char *key)
{
    if (r->nseen < (int)(sizeof r->seen / sizeof r->seen[0])) r->seen[r->nseen++] = key;
}

/* obj's key, NULL when absent or null (an empty "fp16:" is the framework's default). */
const cJSON *launch_item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* A top-level key, marked as read. */
const cJSON *launch_top(reader *r, const char *key)
{
    launch_mark(r, key);
    return launch_item(r->root, key);
}

int launch_bad(reader *r, const char *key, const char *expect)
{
    return zs_fail(r->err, ZS_ERR_INPUT, "%s: %s: expected %s", r->path, key, expect);
}

/* A boolean: true/false, or the strings "true"/"false". */
int launch_boolean(reader *r, const cJSON *v, const char *key, bool *out)
{
    if (cJSON_IsBool(v))
        *out = cJSON_IsTrue(v);
    else if (cJSON_IsString(v) &&
        (strcasecmp(v->valuestring, "true") == 0 || strcmp(v->valuestring, "1") == 0))
        *out = true;
    else if (cJSON_IsString(v) &&
        (strcasecmp(v->valuestring, "false") == 0 || strcmp(v->valuestring, "0") == 0))
        *out = false;
    else
        return launch_bad(r, key, "true or false");
    return ZS_OK;
}

/* A whole number >= 1 (written as a number or a numeric string). */
int launch_whole(reader *r, const cJSON *v, const char *key, long long *out)
{
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    char *end = NULL;
    if (cJSON_IsString(v)) x = strtod(v->valuestring, &end);
    if (end && (end == v->valuestring || *end)) x = NAN; /* "500_000" read whole or not at all */
    if (!(x >= 1 && x <= 1e12 && x == floor(x))) return launch_bad(r, key, "a whole number of at least 1");
    *out = (long long)x;
    return ZS_OK;
}

/* Set training flag id from its text, noting the key that set it. Fails with the flag's
 * message prefixed by the file and key. */
int launch_set_flag(reader *r, int id, const char *value, const char *key)
{
    launch_config *lc = r->lc;
    zs_error e = {0};
    if (training_flag_set(&lc->t, training_flag(id), value, &e))
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: %s: %s", r->path, key, e.msg);
    lc->set |= 1ull << (id - TRAINING_FLAG_FIRST);
    snprintf(lc->key_of[id - TRAINING_FLAG_FIRST], sizeof lc->key_of[0], "%s", key);
    return ZS_OK;
}

/* A whole-number key into flag id, or its default noted. */
int launch_number_key(reader *r, const char *key, int id, const char *dflt)
{
    const cJSON *v = launch_top(r, key);
    if (!v) {
        DEFAULTED(r, "%s %s", key, dflt);
        char first[32];
        snprintf(first, sizeof first, "%s", dflt);
        first[strcspn(first, " ")] = '\0';
        return launch_set_flag(r, id, first, key);
    }
    long long n;
    if (launch_whole(r, v, key, &n)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", n);
    if (launch_set_flag(r, id, buf, key)) return r->err->code;
    USED(r, "%s %lld -> --%s", key, n, training_flag(id)->name);
    return ZS_OK;
}

/* bf16 / fp16 (Axolotl, LLaMA-Factory, the HF Trainer): both true is refused; neither, fp32
 * (TrainingArguments' default); "auto" is bf16 where the GPU has it (setup falls back to fp16). */
int launch_precision_keys(reader *r)
{
    const cJSON *b = launch_top(r, "bf16"), *f = launch_top(r, "fp16");
    bool bon = false, fon = false, bauto = cJSON_IsString(b) && strcmp(b->valuestring, "auto") == 0;
    if (b && !bauto && launch_boolean(r, b, "bf16", &bon)) return r->err->code;
    if (f && launch_boolean(r, f, "fp16", &fon)) return r->err->code;
    if (bon && fon)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: bf16 and fp16 are both true: one mixed precision, not two (set one to false)", r->path);
    const char *p = fon ? "fp16" : bon || (bauto && !fon) ? "bf16" : "fp32";
    if (launch_set_flag(r, OPT_PRECISION, p, b || !f ? "bf16" : "fp16")) return r->err->code;
    if (b)
        USED(r, "bf16 %s -> --precision %s%s",
            bauto     ? "auto"
                : bon ? "true"
                      : "false",
            p, bauto ? " (auto: bf16 where the GPU has it)" : "");
    else
        DEFAULTED(r, "bf16 false");
    if (f)
        USED(r, "fp16 %s", fon ? "true" : "false");
    else
        DEFAULTED(r, "fp16 false");
    if (!bon && !fon && !bauto) USED(r, "neither bf16 nor fp16: fp32 training");
    return ZS_OK;
}

/* A HF `optim` name to zerosim's optimizer, with what is approximate. */
int launch_optimizer_key(reader *r, const char *key)
{
    const cJSON *v = launch_top(r, key);
    if (!v) {
        DEFAULTED(r, "%s adamw_torch (HF TrainingArguments) -> adamw", key);
        return launch_set_flag(r, OPT_OPTIMIZER, "adamw", key);
    }
    if (!cJSON_IsString(v)) return launch_bad(r, key, "an optimizer name such as adamw_torch");
    const char *o = v->valuestring, *as = NULL, *why = "";
    bool paged = strstr(o, "paged") != NULL;
    if (strstr(o, "8bit")) {
        as = paged ? "paged-adam8bit" : "adam8bit";
    } else if (strstr(o, "adamw") || strcmp(o, "adam") == 0 || strstr(o, "adam_")) {
        as = paged ? "paged-adamw" : "adamw";
        why = paged || !strcmp(o, "adamw_torch") || !strcmp(o, "adamw_torch_fused") || !strcmp(o, "adamw_hf")
            ? ""
            : " (approximate: counted as 32-bit AdamW states)";
    } else if (strcmp(o, "adafactor") == 0)
        as = "adafactor";
    else if (strncmp(o, "sgd", 3) == 0)
        as = "sgd";
    if (!as) {
        IGNORED(r, "%s %s (not modelled: estimated as adamw)", key, o);
        return launch_set_flag(r, OPT_OPTIMIZER, "adamw", key);
    }
    if (launch_set_flag(r, OPT_OPTIMIZER, as, key)) return r->err->code;
    USED(r, "%s %s -> --optimizer %s%s", key, o, as, why);
    return ZS_OK;
}

/* LoRA target module names to attention / MLP (Llama, Mistral, Qwen, GPT-NeoX, Falcon, Phi). */
static int target_bits(const char *name)
{
    static const char *const attn[] = {"q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj", "Wqkv",
        "query_key_value", "c_attn", "out_proj", "dense", "self_attn", NULL};
    static const char *const mlp[] = {"gate_proj", "up_proj", "down_proj", "gate_up_proj", "fc1", "fc2", "w1",
        "w2", "w3", "c_fc", "c_proj", "dense_h_to_4h", "dense_4h_to_h", "mlp", NULL};
    for (const char *const *a = attn; *a; a++)
        if (strcmp(name, *a) == 0) return LORA_ATTN;
    for (const char *const *m = mlp; *m; m++)
        if (strcmp(name, *m) == 0) return LORA_MLP;
    return strcmp(name, "all") == 0 || strcmp(name, "all-linear") == 0 ? LORA_ALL : 0;
}

/* A list of target modules (a YAML sequence, or a comma-separated string) to --lora-targets. */
int launch_targets(reader *r, const cJSON *v, const char *key)
{
    int bits = 0, unknown = 0;
    char names[512] = "";
    if (cJSON_IsArray(v)) {
        for (const cJSON *c = v->child; c; c = c->next)
            if (cJSON_IsString(c)) {
                int b = target_bits(c->valuestring);
                bits |= b;
                unknown += b == 0;
                launch_join(names, sizeof names, c->valuestring);
            }
    } else if (cJSON_IsString(v)) {
        snprintf(names, sizeof names, "%s", v->valuestring);
        char copy[512];
        snprintf(copy, sizeof copy, "%s", v->valuestring);
        for (char *save = NULL, *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
            int b = target_bits(tok);
            bits |= b;
            unknown += b == 0;
        }
    } else
        return launch_bad(r, key, "a list of module names");
    if (!bits) {
        IGNORED(r, "%s %s (no attention or MLP projection named: all linear layers assumed)", key, names);
        return launch_set_flag(r, OPT_LORA_TARGETS, "all", key);
    }
    const char *as = bits == LORA_ALL ? "all" : bits == LORA_ATTN ? "attn" : "mlp";
    if (launch_set_flag(r, OPT_LORA_TARGETS, as, key)) return r->err->code;
    USED(r, "%s %s -> --lora-targets %s%s", key, names, as,
        unknown ? " (names not recognised counted by the rest)" : "");
    return ZS_OK;
}

/* Whether path names a readable file. */
static bool readable(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f) fclose(f);
    return f != NULL;
}

/* Follow a deepspeed path key: the file as written (from the directory the command runs in, as
 * Axolotl and the HF Trainer open it), else beside the config, else beside one of the config's
 * parent directories (Axolotl's examples name deepspeed_configs/zero3.json from the repository's
 * root); when none is readable, the path beside the config (setup names it in its message). */
void launch_follow_ds(reader *r, const cJSON *v, const char *key)
{
    if (!cJSON_IsString(v) || !v->valuestring[0]) return;
    launch_config *lc = r->lc;
    const char *p = v->valuestring;
    const char *slash = strrchr(r->path, '/');
    int dir = slash ? (int)(slash - r->path) + 1 : 0;
    if (p[0] == '/' || (r->files && readable(p)))
        snprintf(lc->ds_path, sizeof lc->ds_path, "%s", p);
    else {
        snprintf(lc->ds_path, sizeof lc->ds_path, "%.*s%s", dir, r->path, p);
        /* the parents of the config's real path (a bare "qlora.yml" has them too) */
        char up[4096], abs[PATH_MAX];
        const char *base = r->files && realpath(r->path, abs) ? abs : r->path;
        slash = strrchr(base, '/');
        for (int d = slash ? (int)(slash - base) : 0; r->files && d > 0 && !readable(lc->ds_path); d--) {
            while (d > 0 && base[d - 1] != '/') d--;
            snprintf(up, sizeof up, "%.*s%s", d, base, p);
            if (readable(up)) snprintf(lc->ds_path, sizeof lc->ds_path, "%s", up);
        }
    }
    snprintf(lc->ds_key, sizeof lc->ds_key, "%s", key);
    lc->framework = "deepspeed";
    snprintf(lc->framework_key, sizeof lc->framework_key, "%s", key);
    USED(r, "%s %s -> --deepspeed %s, --framework deepspeed", key, p, lc->ds_path);
}

/* A model key, passed to the model argument as --model would be. */
int launch_model_key(reader *r, const char *key)
{
    const cJSON *v = launch_top(r, key);
    if (!v) return ZS_OK;
    if (!cJSON_IsString(v)) return launch_bad(r, key, "a model name, path or Hub id");
    snprintf(r->lc->model, sizeof r->lc->model, "%s", v->valuestring);
    snprintf(r->lc->model_key, sizeof r->lc->model_key, "%s", key);
    USED(r, "%s %s -> --model", key, v->valuestring);
    return ZS_OK;
}

/* Whether this file already set flag id, and the key that did. */
static bool set_here(const reader *r, int id)
{
    return r->lc->set >> (id - TRAINING_FLAG_FIRST) & 1;
}

static const char *key_that_set(const reader *r, int id)
{
    return r->lc->key_of[id - TRAINING_FLAG_FIRST];
}

/* Where a recipe's checkpoint sits against the sharding unit (training.h ckpt_in_unit):
 * Hugging Face's gradient_checkpointing wraps each layer's __call__, the FSDP unit's with it;
 * an FSDP plugin's activation_checkpointing wraps the blocks inside their units (fw_fsdp.c
 * names the code). Both in one file are refused, as Trainer refuses them. */
static int ckpt_placement(reader *r, bool in_unit, const char *key)
{
    if (set_here(r, OPT_CKPT_PLACEMENT) && (r->lc->t.ckpt_in_unit == 1) != in_unit)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: %s and %s both turn checkpointing on: the model's gradient_checkpointing and the FSDP "
            "plugin's activation_checkpointing cannot both be set (Hugging Face Trainer refuses the pair); "
            "keep one",
            r->path, key_that_set(r, OPT_CKPT_PLACEMENT), key);
    return launch_set_flag(r, OPT_CKPT_PLACEMENT, in_unit ? "inside" : "outside", key);
}

int launch_ckpt_key(reader *r, const cJSON *v, const char *key, bool dflt, bool in_unit, const char *why)
{
    bool on = dflt;
    const char *place = in_unit ? "inside" : "outside";
    /* Axolotl's gradient_checkpointing: offload (offload_disk too): full recomputation with
     * the checkpointed inputs in host memory (axolotl's CPU-offloaded checkpoint wrapper),
     * copied with non_blocking calls that the compute masks (axolotl-ai-cloud/axolotl@0a08217b
     * src/axolotl/utils/gradient_checkpointing/unsloth.py), under DeepSpeed too. */
    if (cJSON_IsString(v) && strncmp(v->valuestring, "offload", 7) == 0) {
        if (launch_set_flag(r, OPT_CKPT, "full", key) || launch_set_flag(r, OPT_OFFLOAD_ACT, "", key) ||
            launch_set_flag(r, OPT_OFFLOAD_ACT_SYNC, "off", key) || ckpt_placement(r, in_unit, key))
            return r->err->code;
        USED(r,
            "%s %s -> --checkpointing full --checkpoint-placement %s --activation-offload "
            "--activation-offload-sync off%s",
            key, v->valuestring, place,
            strcmp(v->valuestring, "offload") ? " (to disk: counted as host memory)" : "");
        return ZS_OK;
    }
    if (v && launch_boolean(r, v, key, &on)) return r->err->code;
    /* One key off leaves the other's checkpointing on: the model still checkpoints. */
    if (!on && set_here(r, OPT_CKPT_PLACEMENT)) {
        if (v) USED(r, "%s false (%s checkpoints)", key, key_that_set(r, OPT_CKPT_PLACEMENT));
        return ZS_OK;
    }
    if (launch_set_flag(r, OPT_CKPT, on ? "full" : "none", key)) return r->err->code;
    if (on && ckpt_placement(r, in_unit, key)) return r->err->code;
    if (v)
        USED(r, "%s %s -> --checkpointing %s%s%s", key, on ? "true" : "false", on ? "full" : "none",
            on ? " --checkpoint-placement " : "", on ? place : "");
    else
        DEFAULTED(r, "%s %s%s%s%s", key, dflt ? "true" : "false", why, dflt ? " --checkpoint-placement " : "",
            dflt ? place : "");
    return ZS_OK;
}

void launch_set_strategy(reader *r, const char *s, const char *key)
{
    r->lc->strategy = s;
    snprintf(r->lc->strategy_key, sizeof r->lc->strategy_key, "%s", key);
}

void launch_set_framework(reader *r, const char *f, const char *key)
{
    r->lc->framework = f;
    snprintf(r->lc->framework_key, sizeof r->lc->framework_key, "%s", key);
}

/* FSDP's sharding strategy (torch ShardingStrategy, or its 1-5 number in older accelerate). */
static int fsdp_sharding(reader *r, const cJSON *v, const char *key)
{
    static const char *const names[] = {
        "FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD", "HYBRID_SHARD_ZERO2", NULL};
    static const char *const as[] = {"zero3", "zero2", "ddp", "zero3", "zero2"};
    int k = -1;
    if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 5) k = (int)v->valuedouble - 1;
    for (int i = 0; cJSON_IsString(v) && names[i]; i++)
        if (strcasecmp(v->valuestring, names[i]) == 0) k = i;
    if (k < 0)
        return launch_bad(r, key, "FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2");
    launch_set_strategy(r, as[k], key);
    r->lc->shard_per_node = k >= 3;
    USED(r, "%s %s -> --strategy %s%s", key, names[k], as[k],
        k >= 3 ? ", --shard-group the GPUs of a node (shard within, replicate across)" : "");
    return ZS_OK;
}

/* An fsdp_config mapping (accelerate's keys, with or without Axolotl's dropped fsdp_ prefix). */
int launch_fsdp_config(reader *r, const cJSON *fc, const char *sect)
{
    char key[96];
    const cJSON *ver = NULL;
    /* A list (a YAML "- key: value" under it) has no keys to read. */
    if (fc && !cJSON_IsObject(fc) && !cJSON_IsNull(fc))
        return launch_bad(r, sect, "a mapping of FSDP keys (key: value lines, not a list)");
    for (const cJSON *c = fc ? fc->child : NULL; c; c = c->next) {
        const char *k = strncmp(c->string, "fsdp_", 5) == 0 ? c->string + 5 : c->string;
        snprintf(key, sizeof key, "%s.%s", sect, c->string);
        bool on = false;
        if (cJSON_IsNull(c))
            DEFAULTED(r, "%s (empty)", key);
        else if (strcmp(k, "version") == 0)
            ver = c;
        else if (strcmp(k, "sharding_strategy") == 0) {
            if (fsdp_sharding(r, c, key)) return r->err->code;
        } else if (strcmp(k, "reshard_after_forward") == 0 && cJSON_IsString(c) &&
            strcasecmp(c->valuestring, "true") && strcasecmp(c->valuestring, "false")) {
            /* FSDP1 under accelerate >= 1.6 names its sharding strategy here (FULL_SHARD...):
             * huggingface/accelerate utils/dataclasses.py, FullyShardedDataParallelPlugin */
            if (fsdp_sharding(r, c, key)) return r->err->code;
        } else if (strcmp(k, "reshard_after_forward") == 0) {
            if (launch_boolean(r, c, key, &on)) return r->err->code;
            launch_set_strategy(r, on ? "zero3" : "zero2", key);
            USED(r, "%s %s -> --strategy %s", key, on ? "true" : "false", on ? "zero3" : "zero2");
        } else if (strcmp(k, "offload_params") == 0) {
            if (launch_boolean(r, c, key, &on)) return r->err->code;
            if (launch_set_flag(r, OPT_OFF_OPT, on ? "cpu" : "none", key)) return r->err->code;
            if (launch_set_flag(r, OPT_OFF_PARAM, on ? "cpu" : "none", key)) return r->err->code;
            USED(r, "%s %s -> --offload-optimizer/--offload-params %s (FSDP offloads them together)", key,
                on ? "true" : "false", on ? "cpu" : "none");
        } else if (strcmp(k, "activation_checkpointing") == 0) {
            if (launch_ckpt_key(r, c, key, false, true, "")) return r->err->code;
        } else
            IGNORED(r, "%s (wrapping, prefetch and state-dict settings are not modelled)", key);
    }
    double v = 1;
    if (ver && !(cJSON_IsNumber(ver) && (ver->valuedouble == 1 || ver->valuedouble == 2)) &&
        !(cJSON_IsString(ver) && sscanf(ver->valuestring, "%lf", &v) == 1 && (v == 1 || v == 2)))
        return launch_bad(r, "fsdp_version", "1 or 2");
    if (ver && cJSON_IsNumber(ver)) v = ver->valuedouble;
    snprintf(key, sizeof key, "%s.fsdp_version", sect);
    launch_set_framework(r, v == 2 ? "fsdp2" : "fsdp", key);
    if (ver)
        USED(r, "%s %g -> --framework %s", key, v, v == 2 ? "fsdp2" : "fsdp");
    else
        DEFAULTED(r, "%s 1 -> --framework fsdp", key);
    return ZS_OK;
}

/* Keys every launcher writes that change no memory or time: named together, not one by one. */
static bool runtime_key(const char *k)
{
    static const char *const keys[] = {"compute_environment", "debug", "machine_rank",
        "main_training_function", "rdzv_backend", "same_network", "tpu_env", "tpu_use_cluster",
        "tpu_use_sudo", "use_cpu", "downcast_bf16", "main_process_ip", "main_process_port",
        "enable_cpu_affinity", "gpu_ids", NULL};
    for (const char *const *p = keys; *p; p++)
        if (strcmp(*p, k) == 0) return true;
    return false;
}

/* Whether the report text names key as a word (the key followed by a space, "." or the end). */
static bool named(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        bool start = p == text || p[-1] == ' ' || p[-1] == ',';
        if (start && (p[n] == ' ' || p[n] == '.' || p[n] == '\0' || p[n] == ';' || p[n] == ',')) return true;
    }
    return false;
}

/* Every top-level key not read is listed: null ones as left at their default. */
void launch_list_rest(reader *r)
{
    char runtime[1024] = "", rest[1536] = "", empty[1024] = "";
    for (const cJSON *c = r->root->child; c; c = c->next) {
        bool seen = false;
        for (int i = 0; i < r->nseen && !seen; i++) seen = strcmp(r->seen[i], c->string) == 0;
        /* A null key read as absent says its default where its reader did; the rest here. */
        const launch_config *lc = r->lc;
        if (seen &&
            !(cJSON_IsNull(c) && !named(lc->used, c->string) && !named(lc->defaulted, c->string) &&
                !named(lc->ignored, c->string)))
            continue;
        if (cJSON_IsNull(c))
            launch_join(empty, sizeof empty, c->string);
        else if (runtime_key(c->string))
            launch_join(runtime, sizeof runtime, c->string);
        else
            launch_join(rest, sizeof rest, c->string);
    }
    if (empty[0]) DEFAULTED(r, "empty, left to the framework: %s", empty);
    if (runtime[0]) IGNORED(r, "launch settings with no memory effect: %s", runtime);
    if (rest[0]) IGNORED(r, "data, logging, schedule and other settings not modelled: %s", rest);
}
