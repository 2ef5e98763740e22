/* launchcfg.c -- Axolotl, LLaMA-Factory and accelerate YAML keys to training fields. */
#include "io/launchcfg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/finetune.h"
#include "io/jsonutil.h"
#include "io/yamlutil.h"

typedef struct reader {
    launch_config *lc;
    const cJSON *root;
    const char *path;
    zs_error *err;
    bool files;            /* the config came from a file: a ds_config it names may be opened */
    const char *seen[160]; /* top-level keys read (the rest are listed as ignored) */
    int nseen;
} reader;

const char *launch_format_name(launch_format f)
{
    return f == LAUNCH_AXOLOTL ? "axolotl" : f == LAUNCH_LLAMAFACTORY ? "llama-factory" : "accelerate";
}

__attribute__((format(printf, 3, 4))) static void add(char *buf, size_t len, const char *fmt, ...)
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
static void join(char *buf, size_t len, const char *name)
{
    size_t n = strlen(buf);
    if (n + 8 < len)
        snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
    else if (n + 4 < len && strcmp(buf + n - 3, "...") != 0)
        snprintf(buf + n, len - n, "...");
}

#define USED(r, ...) add((r)->lc->used, sizeof(r)->lc->used, __VA_ARGS__)
#define DEFAULTED(r, ...) add((r)->lc->defaulted, sizeof(r)->lc->defaulted, __VA_ARGS__)
#define IGNORED(r, ...) add((r)->lc->ignored, sizeof(r)->lc->ignored, __VA_ARGS__)

static void mark(reader *r, const char *key)
{
    if (r->nseen < (int)(sizeof r->seen / sizeof r->seen[0])) r->seen[r->nseen++] = key;
}

/* obj's key, NULL when absent or null (an empty "fp16:" is the framework's default). */
static const cJSON *item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

/* A top-level key, marked as read. */
static const cJSON *top(reader *r, const char *key)
{
    mark(r, key);
    return item(r->root, key);
}

static int bad(reader *r, const char *key, const char *expect)
{
    return zs_fail(r->err, ZS_ERR_INPUT, "%s: %s: expected %s", r->path, key, expect);
}

/* A boolean: true/false, or the strings "true"/"false". */
static int boolean(reader *r, const cJSON *v, const char *key, bool *out)
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
        return bad(r, key, "true or false");
    return ZS_OK;
}

/* A whole number >= 1 (written as a number or a numeric string). */
static int whole(reader *r, const cJSON *v, const char *key, long long *out)
{
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (cJSON_IsString(v)) sscanf(v->valuestring, "%lf", &x);
    if (!(x >= 1 && x <= 1e12 && x == floor(x))) return bad(r, key, "a whole number of at least 1");
    *out = (long long)x;
    return ZS_OK;
}

/* Set training flag id from its text, noting the key that set it. Fails with the flag's
 * message prefixed by the file and key. */
static int set_flag(reader *r, int id, const char *value, const char *key)
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
static int number_key(reader *r, const char *key, int id, const char *dflt)
{
    const cJSON *v = top(r, key);
    if (!v) {
        DEFAULTED(r, "%s %s", key, dflt);
        char first[32];
        snprintf(first, sizeof first, "%s", dflt);
        first[strcspn(first, " ")] = '\0';
        return set_flag(r, id, first, key);
    }
    long long n;
    if (whole(r, v, key, &n)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", n);
    if (set_flag(r, id, buf, key)) return r->err->code;
    USED(r, "%s %lld -> --%s", key, n, training_flag(id)->name);
    return ZS_OK;
}

/* bf16 / fp16 (Axolotl, LLaMA-Factory, the HF Trainer): both true is refused; neither, fp32
 * (TrainingArguments' default); "auto" is bf16 where the GPU has it (setup falls back to fp16). */
static int precision_keys(reader *r)
{
    const cJSON *b = top(r, "bf16"), *f = top(r, "fp16");
    bool bon = false, fon = false, bauto = cJSON_IsString(b) && strcmp(b->valuestring, "auto") == 0;
    if (b && !bauto && boolean(r, b, "bf16", &bon)) return r->err->code;
    if (f && boolean(r, f, "fp16", &fon)) return r->err->code;
    if (bon && fon)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: bf16 and fp16 are both true: one mixed precision, not two (set one to false)", r->path);
    const char *p = fon ? "fp16" : bon || (bauto && !fon) ? "bf16" : "fp32";
    if (set_flag(r, OPT_PRECISION, p, b || !f ? "bf16" : "fp16")) return r->err->code;
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
static int optimizer_key(reader *r, const char *key)
{
    const cJSON *v = top(r, key);
    if (!v) {
        DEFAULTED(r, "%s adamw_torch (HF TrainingArguments) -> adamw", key);
        return set_flag(r, OPT_OPTIMIZER, "adamw", key);
    }
    if (!cJSON_IsString(v)) return bad(r, key, "an optimizer name such as adamw_torch");
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
        return set_flag(r, OPT_OPTIMIZER, "adamw", key);
    }
    if (set_flag(r, OPT_OPTIMIZER, as, key)) return r->err->code;
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
static int targets(reader *r, const cJSON *v, const char *key)
{
    int bits = 0, unknown = 0;
    char names[512] = "";
    if (cJSON_IsArray(v)) {
        for (const cJSON *c = v->child; c; c = c->next)
            if (cJSON_IsString(c)) {
                int b = target_bits(c->valuestring);
                bits |= b;
                unknown += b == 0;
                join(names, sizeof names, c->valuestring);
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
        return bad(r, key, "a list of module names");
    if (!bits) {
        IGNORED(r, "%s %s (no attention or MLP projection named: all linear layers assumed)", key, names);
        return set_flag(r, OPT_LORA_TARGETS, "all", key);
    }
    const char *as = bits == LORA_ALL ? "all" : bits == LORA_ATTN ? "attn" : "mlp";
    if (set_flag(r, OPT_LORA_TARGETS, as, key)) return r->err->code;
    USED(r, "%s %s -> --lora-targets %s%s", key, names, as,
        unknown ? " (names not recognised counted by the rest)" : "");
    return ZS_OK;
}

/* Follow a deepspeed path key: the file as written, else beside the config. */
static void follow_ds(reader *r, const cJSON *v, const char *key)
{
    if (!cJSON_IsString(v) || !v->valuestring[0]) return;
    launch_config *lc = r->lc;
    const char *p = v->valuestring;
    FILE *f = r->files ? fopen(p, "r") : NULL;
    if (f || p[0] == '/')
        snprintf(lc->ds_path, sizeof lc->ds_path, "%s", p);
    else {
        const char *slash = strrchr(r->path, '/');
        int dir = slash ? (int)(slash - r->path) + 1 : 0;
        snprintf(lc->ds_path, sizeof lc->ds_path, "%.*s%s", dir, r->path, p);
    }
    if (f) fclose(f);
    snprintf(lc->ds_key, sizeof lc->ds_key, "%s", key);
    lc->framework = "deepspeed";
    snprintf(lc->framework_key, sizeof lc->framework_key, "%s", key);
    USED(r, "%s %s -> --deepspeed %s, --framework deepspeed", key, p, lc->ds_path);
}

/* Axolotl's adapter, LoRA rank and targets, and 4/8-bit loading. */
static int axolotl_lora(reader *r)
{
    const cJSON *a = top(r, "adapter"), *q4 = top(r, "load_in_4bit"), *q8 = top(r, "load_in_8bit");
    bool in4 = false, in8 = false;
    if (q4 && boolean(r, q4, "load_in_4bit", &in4)) return r->err->code;
    if (q8 && boolean(r, q8, "load_in_8bit", &in8)) return r->err->code;
    if (in4 && in8)
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: load_in_4bit and load_in_8bit are both true", r->path);
    const char *mode = "full";
    if (a && !cJSON_IsString(a)) return bad(r, "adapter", "lora or qlora");
    if (a && strcmp(a->valuestring, "qlora") == 0)
        mode = "qlora";
    else if (a && strcmp(a->valuestring, "lora") == 0)
        mode = in4 ? "qlora" : "lora";
    else if (a)
        return bad(r, "adapter", "lora or qlora");
    if (set_flag(r, OPT_FINETUNE, mode, "adapter")) return r->err->code;
    if (a)
        USED(r, "adapter %s -> --finetune %s%s", a->valuestring, mode,
            strcmp(a->valuestring, mode) ? " (load_in_4bit: a 4-bit base)" : "");
    else
        DEFAULTED(r, "adapter none (full fine-tuning)");
    if (q4) USED(r, "load_in_4bit %s", in4 ? "true" : "false");
    if (in8)
        IGNORED(
            r, "load_in_8bit (an 8-bit frozen base is not modelled: counted as 16-bit, an over-estimate)");
    else if (q8)
        USED(r, "load_in_8bit false");
    const cJSON *rank = top(r, "lora_r"), *mods = top(r, "lora_target_modules"),
                *lin = top(r, "lora_target_linear");
    if (!a) {
        if (rank) IGNORED(r, "lora_r (no adapter)");
        if (mods || lin) IGNORED(r, "lora_target_modules/lora_target_linear (no adapter)");
        return ZS_OK;
    }
    if (number_key(r, "lora_r", OPT_LORA_RANK, "8 (PEFT's LoraConfig r)")) return r->err->code;
    bool linear = false;
    if (lin && boolean(r, lin, "lora_target_linear", &linear)) return r->err->code;
    if (linear) {
        if (mods) IGNORED(r, "lora_target_modules (lora_target_linear true adds every linear layer)");
        if (set_flag(r, OPT_LORA_TARGETS, "all", "lora_target_linear")) return r->err->code;
        USED(r, "lora_target_linear true -> --lora-targets all");
        return ZS_OK;
    }
    if (mods) return targets(r, mods, "lora_target_modules");
    DEFAULTED(r, "lora_target_modules (PEFT's per-model default, q_proj and v_proj) -> attn");
    return set_flag(r, OPT_LORA_TARGETS, "attn", "lora_target_modules");
}

/* A model key, passed to the model argument as --model would be. */
static int model_key(reader *r, const char *key)
{
    const cJSON *v = top(r, key);
    if (!v) return ZS_OK;
    if (!cJSON_IsString(v)) return bad(r, key, "a model name, path or Hub id");
    snprintf(r->lc->model, sizeof r->lc->model, "%s", v->valuestring);
    snprintf(r->lc->model_key, sizeof r->lc->model_key, "%s", key);
    USED(r, "%s %s -> --model", key, v->valuestring);
    return ZS_OK;
}

/* A boolean key that turns full checkpointing on. */
static int ckpt_key(reader *r, const cJSON *v, const char *key, bool dflt, const char *why)
{
    bool on = dflt;
    if (v && boolean(r, v, key, &on)) return r->err->code;
    if (set_flag(r, OPT_CKPT, on ? "full" : "none", key)) return r->err->code;
    if (v)
        USED(r, "%s %s -> --checkpointing %s", key, on ? "true" : "false", on ? "full" : "none");
    else
        DEFAULTED(r, "%s %s%s", key, dflt ? "true" : "false", why);
    return ZS_OK;
}

static void set_strategy(reader *r, const char *s, const char *key)
{
    r->lc->strategy = s;
    snprintf(r->lc->strategy_key, sizeof r->lc->strategy_key, "%s", key);
}

static void set_framework(reader *r, const char *f, const char *key)
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
    if (k < 0) return bad(r, key, "FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2");
    set_strategy(r, as[k], key);
    r->lc->shard_per_node = k >= 3;
    USED(r, "%s %s -> --strategy %s%s", key, names[k], as[k],
        k >= 3 ? ", --shard-group the GPUs of a node (shard within, replicate across)" : "");
    return ZS_OK;
}

/* An fsdp_config mapping (accelerate's keys, with or without Axolotl's dropped fsdp_ prefix). */
static int fsdp_config(reader *r, const cJSON *fc, const char *sect)
{
    char key[96];
    const cJSON *ver = NULL;
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
        } else if (strcmp(k, "reshard_after_forward") == 0) {
            if (boolean(r, c, key, &on)) return r->err->code;
            set_strategy(r, on ? "zero3" : "zero2", key);
            USED(r, "%s %s -> --strategy %s", key, on ? "true" : "false", on ? "zero3" : "zero2");
        } else if (strcmp(k, "offload_params") == 0) {
            if (boolean(r, c, key, &on)) return r->err->code;
            if (set_flag(r, OPT_OFF_OPT, on ? "cpu" : "none", key)) return r->err->code;
            if (set_flag(r, OPT_OFF_PARAM, on ? "cpu" : "none", key)) return r->err->code;
            USED(r, "%s %s -> --offload-optimizer/--offload-params %s (FSDP offloads them together)", key,
                on ? "true" : "false", on ? "cpu" : "none");
        } else if (strcmp(k, "activation_checkpointing") == 0) {
            if (ckpt_key(r, c, key, false, "")) return r->err->code;
        } else
            IGNORED(r, "%s (wrapping, prefetch and state-dict settings are not modelled)", key);
    }
    double v = 1;
    if (ver && !(cJSON_IsNumber(ver) && (ver->valuedouble == 1 || ver->valuedouble == 2)) &&
        !(cJSON_IsString(ver) && sscanf(ver->valuestring, "%lf", &v) == 1 && (v == 1 || v == 2)))
        return bad(r, "fsdp_version", "1 or 2");
    if (ver && cJSON_IsNumber(ver)) v = ver->valuedouble;
    snprintf(key, sizeof key, "%s.fsdp_version", sect);
    set_framework(r, v == 2 ? "fsdp2" : "fsdp", key);
    if (ver)
        USED(r, "%s %g -> --framework %s", key, v, v == 2 ? "fsdp2" : "fsdp");
    else
        DEFAULTED(r, "%s 1 -> --framework fsdp", key);
    return ZS_OK;
}

static int axolotl(reader *r)
{
    if (model_key(r, "base_model")) return r->err->code;
    if (axolotl_lora(r)) return r->err->code;
    if (number_key(r, "sequence_len", OPT_SEQ, "2048 (Axolotl's default)")) return r->err->code;
    if (number_key(r, "micro_batch_size", OPT_MICRO, "1 (Axolotl's default)")) return r->err->code;
    if (number_key(r, "gradient_accumulation_steps", OPT_ACCUM, "1 (Axolotl's default)")) return r->err->code;
    if (ckpt_key(
            r, top(r, "gradient_checkpointing"), "gradient_checkpointing", false, " (Axolotl's default)"))
        return r->err->code;
    if (optimizer_key(r, "optimizer") || precision_keys(r)) return r->err->code;
    const cJSON *fa = top(r, "flash_attention");
    bool flash = false;
    if (fa && boolean(r, fa, "flash_attention", &flash)) return r->err->code;
    if (fa)
        USED(r, "flash_attention %s%s", flash ? "true" : "false",
            flash ? "" : " (PyTorch SDPA still stores no s^2 matrix: modelled as flash)");
    else
        DEFAULTED(r, "flash_attention false (SDPA: modelled as flash, no s^2 matrix)");
    const cJSON *ds = top(r, "deepspeed"), *fsdp = top(r, "fsdp"), *fc = top(r, "fsdp_config");
    if (ds && (fsdp || fc))
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: deepspeed and fsdp/fsdp_config are both set: one or the other", r->path);
    follow_ds(r, ds, "deepspeed");
    if (!ds) DEFAULTED(r, "deepspeed none");
    for (const cJSON *c = cJSON_IsArray(fsdp) ? fsdp->child : NULL; c; c = c->next)
        if (cJSON_IsString(c) &&
            (strcmp(c->valuestring, "full_shard") == 0 || strcmp(c->valuestring, "shard_grad_op") == 0)) {
            bool full = c->valuestring[0] == 'f';
            set_strategy(r, full ? "zero3" : "zero2", "fsdp");
            set_framework(r, "fsdp", "fsdp");
            USED(r, "fsdp %s -> --strategy %s", c->valuestring, full ? "zero3" : "zero2");
        } else if (cJSON_IsString(c) && strcmp(c->valuestring, "offload") == 0) {
            if (set_flag(r, OPT_OFF_OPT, "cpu", "fsdp") || set_flag(r, OPT_OFF_PARAM, "cpu", "fsdp"))
                return r->err->code;
            USED(r, "fsdp offload -> --offload-optimizer cpu --offload-params cpu");
        } else
            IGNORED(r, "fsdp item (not modelled)");
    if (fc && fsdp_config(r, fc, "fsdp_config")) return r->err->code;
    return ZS_OK;
}

static int llamafactory(reader *r)
{
    if (model_key(r, "model_name_or_path")) return r->err->code;
    const cJSON *ft = top(r, "finetuning_type"), *qb = top(r, "quantization_bit");
    const char *type = cJSON_IsString(ft) ? ft->valuestring : "lora";
    if (ft && !cJSON_IsString(ft)) return bad(r, "finetuning_type", "lora, full or freeze");
    long long bits = 0;
    if (qb && whole(r, qb, "quantization_bit", &bits)) return r->err->code;
    const char *mode = strcmp(type, "lora") == 0 ? (bits == 4 ? "qlora" : "lora") : "full";
    if (strcmp(type, "lora") && strcmp(type, "full") && strcmp(type, "freeze"))
        return bad(r, "finetuning_type", "lora, full or freeze");
    if (bits && strcmp(mode, "full") == 0)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: quantization_bit %lld with finetuning_type %s: a quantized base trains only LoRA adapters",
            r->path, bits, type);
    if (set_flag(r, OPT_FINETUNE, mode, "finetuning_type")) return r->err->code;
    if (!ft)
        DEFAULTED(r, "finetuning_type lora (LLaMA-Factory's default) -> --finetune %s", mode);
    else if (strcmp(type, "freeze") == 0)
        IGNORED(r,
            "finetuning_type freeze (training only the last layers is not modelled: estimated as full, "
            "an over-estimate)");
    else
        USED(r, "finetuning_type %s -> --finetune %s", type, mode);
    if (bits == 4)
        USED(r, "quantization_bit 4 -> a 4-bit (NF4) frozen base");
    else if (bits)
        IGNORED(r, "quantization_bit %lld (only 4-bit bases are modelled: counted as 16-bit)", bits);
    const cJSON *rank = top(r, "lora_rank"), *tg = top(r, "lora_target");
    if (strcmp(mode, "full") == 0) {
        if (rank || tg) IGNORED(r, "lora_rank/lora_target (finetuning_type is not lora)");
    } else {
        if (number_key(r, "lora_rank", OPT_LORA_RANK, "8 (LLaMA-Factory's default)")) return r->err->code;
        if (tg && targets(r, tg, "lora_target")) return r->err->code;
        if (!tg) {
            DEFAULTED(r, "lora_target all (LLaMA-Factory's default)");
            if (set_flag(r, OPT_LORA_TARGETS, "all", "lora_target")) return r->err->code;
        }
    }
    if (number_key(r, "cutoff_len", OPT_SEQ, "2048 (LLaMA-Factory's default)")) return r->err->code;
    if (number_key(r, "per_device_train_batch_size", OPT_MICRO, "8 (HF TrainingArguments' default)"))
        return r->err->code;
    if (number_key(r, "gradient_accumulation_steps", OPT_ACCUM, "1 (HF TrainingArguments' default)"))
        return r->err->code;
    const cJSON *dg = top(r, "disable_gradient_checkpointing");
    bool off = false;
    if (dg && boolean(r, dg, "disable_gradient_checkpointing", &off)) return r->err->code;
    if (set_flag(r, OPT_CKPT, off ? "none" : "full", "disable_gradient_checkpointing")) return r->err->code;
    if (dg)
        USED(r, "disable_gradient_checkpointing %s -> --checkpointing %s", off ? "true" : "false",
            off ? "none" : "full");
    else
        DEFAULTED(r,
            "disable_gradient_checkpointing false (LLaMA-Factory checkpoints by default) -> "
            "--checkpointing full");
    if (optimizer_key(r, "optim") || precision_keys(r)) return r->err->code;
    const cJSON *ds = top(r, "deepspeed");
    follow_ds(r, ds, "deepspeed");
    if (!ds) DEFAULTED(r, "deepspeed none");
    return ZS_OK;
}

/* accelerate's deepspeed_config section: its own keys, or a ds_config file to follow. */
static int accel_deepspeed(reader *r, const cJSON *dc)
{
    set_framework(r, "deepspeed", "distributed_type");
    const cJSON *file = item(dc, "deepspeed_config_file");
    for (const cJSON *c = dc ? dc->child : NULL; c; c = c->next) {
        char key[96];
        snprintf(key, sizeof key, "deepspeed_config.%s", c->string);
        const char *k = c->string;
        char buf[64];
        if (cJSON_IsNull(c))
            DEFAULTED(r, "%s (empty)", key);
        else if (strcmp(k, "deepspeed_config_file") == 0)
            follow_ds(r, c, key);
        else if (file)
            IGNORED(r, "%s (deepspeed_config_file holds the configuration)", key);
        else if (strcmp(k, "zero_stage") == 0) {
            long long st = -1;
            if (cJSON_IsNumber(c)) st = (long long)c->valuedouble;
            if (st < 0 || st > 3) return bad(r, key, "0, 1, 2 or 3");
            static const char *const as[] = {"ddp", "zero1", "zero2", "zero3"};
            set_strategy(r, as[st], key);
            USED(r, "%s %lld -> --strategy %s", key, st, as[st]);
        } else if (strcmp(k, "offload_optimizer_device") == 0 || strcmp(k, "offload_param_device") == 0) {
            bool opt = k[8] == 'o';
            if (!cJSON_IsString(c)) return bad(r, key, "none, cpu or nvme");
            if (set_flag(r, opt ? OPT_OFF_OPT : OPT_OFF_PARAM, c->valuestring, key)) return r->err->code;
            USED(r, "%s %s -> --offload-%s %s", key, c->valuestring, opt ? "optimizer" : "params",
                c->valuestring);
        } else if (strcmp(k, "gradient_accumulation_steps") == 0) {
            long long n;
            if (whole(r, c, key, &n)) return r->err->code;
            snprintf(buf, sizeof buf, "%lld", n);
            if (set_flag(r, OPT_ACCUM, buf, key)) return r->err->code;
            USED(r, "%s %lld -> --grad-accum %lld", key, n, n);
        } else
            IGNORED(r, "%s (load-time or clipping setting, not modelled)", key);
    }
    return ZS_OK;
}

/* Whether the ds_config at path enables fp16 or bf16 explicitly (true, not "auto", which
 * accelerate fills from mixed_precision). A file that cannot be read says no: its reader
 * reports it. */
static bool ds_sets_precision(const char *path)
{
    cJSON *root = NULL;
    zs_error quiet = {.quiet = true};
    if (!path[0] || json_load_object(path, &root, &quiet)) return false;
    bool set = false;
    const char *const sections[] = {"fp16", "bf16", "bfloat16"};
    for (int i = 0; i < 3; i++) {
        const cJSON *e =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, sections[i]), "enabled");
        set |= cJSON_IsTrue(e);
    }
    cJSON_Delete(root);
    return set;
}

/* mixed_precision (accelerate's default "no": fp32); absent beside a ds_config file, that
 * file's precision sections decide, as accelerate leaves them. */
static int accel_precision(reader *r)
{
    const cJSON *mp = top(r, "mixed_precision");
    if (!mp && r->files && ds_sets_precision(r->lc->ds_path)) {
        DEFAULTED(r, "mixed_precision (absent: the ds_config file's fp16/bf16 enabled true decides)");
        return ZS_OK;
    }
    const char *p = cJSON_IsString(mp) ? mp->valuestring : "no";
    const char *as = strcmp(p, "no") == 0 ? "fp32" : p;
    if (mp && !cJSON_IsString(mp)) return bad(r, "mixed_precision", "no, fp16, bf16 or fp8");
    if (set_flag(r, OPT_PRECISION, as, "mixed_precision")) return r->err->code;
    if (mp)
        USED(r, "mixed_precision %s -> --precision %s", p, as);
    else
        DEFAULTED(r, "mixed_precision no -> --precision fp32");
    return ZS_OK;
}

static int accelerate(reader *r)
{
    const cJSON *dt = top(r, "distributed_type");
    const char *d = cJSON_IsString(dt) ? dt->valuestring : "NO";
    long long procs = 1, machines = 1;
    const cJSON *np = top(r, "num_processes"), *nm = top(r, "num_machines");
    if (np && whole(r, np, "num_processes", &procs)) return r->err->code;
    if (nm && whole(r, nm, "num_machines", &machines)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", procs);
    if (set_flag(r, OPT_GPUS, buf, "num_processes")) return r->err->code;
    if (np)
        USED(r, "num_processes %lld -> --gpus %lld (all machines)", procs, procs);
    else
        DEFAULTED(r, "num_processes 1");
    if (nm && procs % machines)
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: num_processes %lld is not a multiple of num_machines %lld",
            r->path, procs, machines);
    if (nm) {
        snprintf(buf, sizeof buf, "%lld", procs / machines);
        if (set_flag(r, OPT_GPN, buf, "num_machines")) return r->err->code;
        USED(r, "num_machines %lld -> --gpus-per-node %lld", machines, procs / machines);
    } else
        DEFAULTED(r, "num_machines 1");
    const cJSON *dc = top(r, "deepspeed_config"), *fc = top(r, "fsdp_config");
    if (strcmp(d, "DEEPSPEED") == 0) {
        if (accel_deepspeed(r, dc)) return r->err->code;
        if (fc) IGNORED(r, "fsdp_config (distributed_type is DEEPSPEED)");
    } else if (strcmp(d, "FSDP") == 0) {
        if (fsdp_config(r, fc, "fsdp_config")) return r->err->code;
        if (dc) IGNORED(r, "deepspeed_config (distributed_type is FSDP)");
    } else if (strcmp(d, "MULTI_GPU") == 0 || strcmp(d, "NO") == 0) {
        set_strategy(r, "ddp", "distributed_type");
        if (dc) IGNORED(r, "deepspeed_config (distributed_type is %s)", d);
        if (fc) IGNORED(r, "fsdp_config (distributed_type is %s)", d);
    } else
        return bad(r, "distributed_type", "DEEPSPEED, FSDP, MULTI_GPU or NO (GPU training)");
    if (accel_precision(r)) return r->err->code;
    if (dt)
        USED(r, "distributed_type %s%s", d, r->lc->strategy ? "" : " (strategy from the section)");
    else
        DEFAULTED(r, "distributed_type NO");
    if (strcmp(d, "MULTI_GPU") == 0 || strcmp(d, "NO") == 0) USED(r, "-> --strategy ddp");
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
static void list_rest(reader *r)
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
            join(empty, sizeof empty, c->string);
        else if (runtime_key(c->string))
            join(runtime, sizeof runtime, c->string);
        else
            join(rest, sizeof rest, c->string);
    }
    if (empty[0]) DEFAULTED(r, "empty, left to the framework: %s", empty);
    if (runtime[0]) IGNORED(r, "launch settings with no memory effect: %s", runtime);
    if (rest[0]) IGNORED(r, "data, logging, schedule and other settings not modelled: %s", rest);
}

/* The format by its distinctive keys. */
static int detect(const cJSON *root, launch_format *f)
{
    if (item(root, "distributed_type") || item(root, "compute_environment"))
        *f = LAUNCH_ACCELERATE;
    else if (cJSON_GetObjectItemCaseSensitive(root, "base_model"))
        *f = LAUNCH_AXOLOTL;
    else if (cJSON_GetObjectItemCaseSensitive(root, "model_name_or_path") &&
        (item(root, "finetuning_type") || item(root, "stage") || item(root, "cutoff_len") ||
            item(root, "template")))
        *f = LAUNCH_LLAMAFACTORY;
    else
        return -1;
    return 0;
}

/* Recognise root's format and read it into lc (root is freed by the caller). */
static int from_tree(const cJSON *root, const char *path, bool files, launch_config *lc, zs_error *err)
{
    reader r = {.lc = lc, .root = root, .path = path, .err = err, .files = files};
    if (detect(root, &lc->format))
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: not a launcher config zerosim knows: expected Axolotl (base_model), LLaMA-Factory "
            "(model_name_or_path with finetuning_type) or accelerate (distributed_type) keys",
            path);
    int rc = lc->format == LAUNCH_AXOLOTL   ? axolotl(&r)
        : lc->format == LAUNCH_LLAMAFACTORY ? llamafactory(&r)
                                            : accelerate(&r);
    if (rc == ZS_OK) list_rest(&r);
    return rc;
}

static int load(const char *text, size_t len, const char *path, launch_config *lc, zs_error *err)
{
    memset(lc, 0, sizeof *lc);
    training_init(&lc->t);
    cJSON *root = NULL;
    int rc = text ? yaml_parse_object(text, len, path, &root, err) : yaml_load_object(path, &root, err);
    if (rc == ZS_OK) rc = from_tree(root, path, !text, lc, err);
    cJSON_Delete(root);
    return rc;
}

int launchcfg_load(const char *path, launch_config *lc, zs_error *err)
{
    return load(NULL, 0, path, lc, err);
}

int launchcfg_from_text(const char *text, size_t len, const char *origin, launch_config *lc, zs_error *err)
{
    return load(text, len, origin, lc, err);
}
