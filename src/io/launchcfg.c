/* launchcfg.c -- the launcher config recogniser (a table of formats) and the Axolotl, LLaMA-Factory
 * and accelerate YAML readers. */
#include "io/launchcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/jsonutil.h"
#include "io/launch_int.h"
#include "io/yamlutil.h"

/* Axolotl's adapter, LoRA rank and targets, and 4/8-bit loading. */
static int axolotl_lora(reader *r)
{
    const cJSON *a = launch_top(r, "adapter"), *q4 = launch_top(r, "load_in_4bit"),
                *q8 = launch_top(r, "load_in_8bit");
    bool in4 = false, in8 = false;
    if (q4 && launch_boolean(r, q4, "load_in_4bit", &in4)) return r->err->code;
    if (q8 && launch_boolean(r, q8, "load_in_8bit", &in8)) return r->err->code;
    if (in4 && in8)
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: load_in_4bit and load_in_8bit are both true", r->path);
    const char *mode = "full";
    if (a && !cJSON_IsString(a)) return launch_bad(r, "adapter", "lora or qlora");
    if (a && strcmp(a->valuestring, "qlora") == 0)
        mode = "qlora";
    else if (a && strcmp(a->valuestring, "lora") == 0)
        mode = in4 ? "qlora" : "lora";
    else if (a)
        return launch_bad(r, "adapter", "lora or qlora");
    if (launch_set_flag(r, OPT_FINETUNE, mode, "adapter")) return r->err->code;
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
    const cJSON *rank = launch_top(r, "lora_r"), *mods = launch_top(r, "lora_target_modules"),
                *lin = launch_top(r, "lora_target_linear");
    if (!a) {
        if (rank) IGNORED(r, "lora_r (no adapter)");
        if (mods || lin) IGNORED(r, "lora_target_modules/lora_target_linear (no adapter)");
        return ZS_OK;
    }
    if (launch_number_key(r, "lora_r", OPT_LORA_RANK, "8 (PEFT's LoraConfig r)")) return r->err->code;
    bool linear = false;
    if (lin && launch_boolean(r, lin, "lora_target_linear", &linear)) return r->err->code;
    if (linear) {
        if (mods) IGNORED(r, "lora_target_modules (lora_target_linear true adds every linear layer)");
        if (launch_set_flag(r, OPT_LORA_TARGETS, "all", "lora_target_linear")) return r->err->code;
        USED(r, "lora_target_linear true -> --lora-targets all");
        return ZS_OK;
    }
    if (mods) return launch_targets(r, mods, "lora_target_modules");
    DEFAULTED(r, "lora_target_modules (PEFT's per-model default, q_proj and v_proj) -> attn");
    return launch_set_flag(r, OPT_LORA_TARGETS, "attn", "lora_target_modules");
}

static int axolotl(reader *r)
{
    if (launch_model_key(r, "base_model")) return r->err->code;
    if (axolotl_lora(r)) return r->err->code;
    if (launch_number_key(r, "sequence_len", OPT_SEQ, "2048 (Axolotl's default)")) return r->err->code;
    if (launch_number_key(r, "micro_batch_size", OPT_MICRO, "1 (Axolotl's default)")) return r->err->code;
    if (launch_number_key(r, "gradient_accumulation_steps", OPT_ACCUM, "1 (Axolotl's default)"))
        return r->err->code;
    if (launch_ckpt_key(r, launch_top(r, "gradient_checkpointing"), "gradient_checkpointing", false, false,
            " (Axolotl's default)"))
        return r->err->code;
    if (launch_optimizer_key(r, "optimizer") || launch_precision_keys(r)) return r->err->code;
    const cJSON *sp = launch_top(r, "sample_packing");
    bool packing = false;
    if (sp && launch_boolean(r, sp, "sample_packing", &packing)) return r->err->code;
    if (sp)
        USED(r, "sample_packing %s%s", packing ? "true" : "false",
            packing ? " (documents packed, attention within each by flash-attention varlen: --doc-len gives "
                      "their mean length, else one document a sequence)"
                    : "");
    const cJSON *ai = launch_top(r, "attn_implementation");
    if (cJSON_IsString(ai) && strcmp(ai->valuestring, "eager") == 0) {
        if (launch_set_flag(r, OPT_EAGER, "", "attn_implementation")) return r->err->code;
        USED(r, "attn_implementation eager -> --eager-attention");
    } else if (ai)
        USED(r, "attn_implementation %s (no s^2 matrix stored: flash attention)",
            cJSON_IsString(ai) ? ai->valuestring : "?");
    const cJSON *fa = launch_top(r, "flash_attention");
    bool flash = false;
    if (fa && launch_boolean(r, fa, "flash_attention", &flash)) return r->err->code;
    if (fa)
        USED(r, "flash_attention %s%s", flash ? "true" : "false",
            flash ? "" : " (PyTorch SDPA still stores no s^2 matrix: modelled as flash)");
    else
        DEFAULTED(r, "flash_attention false (SDPA: modelled as flash, no s^2 matrix)");
    const cJSON *ds = launch_top(r, "deepspeed"), *fsdp = launch_top(r, "fsdp"),
                *fc = launch_top(r, "fsdp_config");
    if (ds && (fsdp || fc))
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: deepspeed and fsdp/fsdp_config are both set: one or the other", r->path);
    launch_follow_ds(r, ds, "deepspeed");
    if (!ds) DEFAULTED(r, "deepspeed none");
    for (const cJSON *c = cJSON_IsArray(fsdp) ? fsdp->child : NULL; c; c = c->next)
        if (cJSON_IsString(c) &&
            (strcmp(c->valuestring, "full_shard") == 0 || strcmp(c->valuestring, "shard_grad_op") == 0)) {
            bool full = c->valuestring[0] == 'f';
            launch_set_strategy(r, full ? "zero3" : "zero2", "fsdp");
            launch_set_framework(r, "fsdp", "fsdp");
            USED(r, "fsdp %s -> --strategy %s", c->valuestring, full ? "zero3" : "zero2");
        } else if (cJSON_IsString(c) && strcmp(c->valuestring, "offload") == 0) {
            if (launch_set_flag(r, OPT_OFF_OPT, "cpu", "fsdp") ||
                launch_set_flag(r, OPT_OFF_PARAM, "cpu", "fsdp"))
                return r->err->code;
            USED(r, "fsdp offload -> --offload-optimizer cpu --offload-params cpu");
        } else
            IGNORED(r, "fsdp %s (wrapping is not modelled)", cJSON_IsString(c) ? c->valuestring : "item");
    if (fc && launch_fsdp_config(r, fc, "fsdp_config")) return r->err->code;
    return launch_kernel_keys(r) ? r->err->code : launch_axolotl_parallel(r);
}

/* pure_bf16 (LLaMA-Factory's hparams/training_args.py: "train in purely bf16 precision without AMP"):
 * bf16 weights and optimizer states, no fp32 master copy: --precision bf16-pure. */
static int llamafactory_pure(reader *r)
{
    const cJSON *p = launch_top(r, "pure_bf16");
    bool on = false;
    if (p && launch_boolean(r, p, "pure_bf16", &on)) return r->err->code;
    if (!on) return ZS_OK;
    if (launch_set_flag(r, OPT_PRECISION, "bf16-pure", "pure_bf16")) return r->err->code;
    USED(r, "pure_bf16 true -> --precision bf16-pure (no fp32 master weights)");
    return ZS_OK;
}

static int llamafactory(reader *r)
{
    if (launch_model_key(r, "model_name_or_path")) return r->err->code;
    const cJSON *ft = launch_top(r, "finetuning_type"), *qb = launch_top(r, "quantization_bit");
    const char *type = cJSON_IsString(ft) ? ft->valuestring : "lora";
    if (ft && !cJSON_IsString(ft)) return launch_bad(r, "finetuning_type", "lora, oft, full or freeze");
    /* OFT (orthogonal fine-tuning) trains small block matrices beside a frozen base as LoRA
     * does: counted as LoRA adapters of the same rank (approximate, said). */
    bool oft = strcmp(type, "oft") == 0;
    if (oft) type = "lora";
    long long bits = 0;
    if (qb && launch_whole(r, qb, "quantization_bit", &bits)) return r->err->code;
    const char *mode = strcmp(type, "lora") == 0 ? (bits == 4 ? "qlora" : "lora") : "full";
    if (strcmp(type, "lora") && strcmp(type, "full") && strcmp(type, "freeze"))
        return launch_bad(r, "finetuning_type", "lora, oft, full or freeze");
    if (bits && strcmp(mode, "full") == 0)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: quantization_bit %lld with finetuning_type %s: a quantized base trains only LoRA adapters",
            r->path, bits, type);
    if (launch_set_flag(r, OPT_FINETUNE, mode, "finetuning_type")) return r->err->code;
    if (!ft)
        DEFAULTED(r, "finetuning_type lora (LLaMA-Factory's default) -> --finetune %s", mode);
    else if (strcmp(type, "freeze") == 0)
        IGNORED(r,
            "finetuning_type freeze (training only the last layers is not modelled: estimated as full, "
            "an over-estimate)");
    else if (oft)
        IGNORED(r,
            "finetuning_type oft (orthogonal fine-tuning is not modelled: estimated as LoRA adapters, "
            "--finetune %s)",
            mode);
    else
        USED(r, "finetuning_type %s -> --finetune %s", type, mode);
    if (bits == 4)
        USED(r, "quantization_bit 4 -> a 4-bit (NF4) frozen base");
    else if (bits)
        IGNORED(r, "quantization_bit %lld (only 4-bit bases are modelled: counted as 16-bit)", bits);
    const cJSON *rank = launch_top(r, "lora_rank"), *tg = launch_top(r, "lora_target");
    if (strcmp(mode, "full") == 0) {
        if (rank || tg) IGNORED(r, "lora_rank/lora_target (finetuning_type is not lora)");
    } else {
        if (launch_number_key(r, "lora_rank", OPT_LORA_RANK, "8 (LLaMA-Factory's default)"))
            return r->err->code;
        if (tg && launch_targets(r, tg, "lora_target")) return r->err->code;
        if (!tg) {
            DEFAULTED(r, "lora_target all (LLaMA-Factory's default)");
            if (launch_set_flag(r, OPT_LORA_TARGETS, "all", "lora_target")) return r->err->code;
        }
    }
    if (launch_number_key(r, "cutoff_len", OPT_SEQ, "2048 (LLaMA-Factory's default)")) return r->err->code;
    if (launch_number_key(r, "per_device_train_batch_size", OPT_MICRO, "8 (HF TrainingArguments' default)"))
        return r->err->code;
    if (launch_number_key(r, "gradient_accumulation_steps", OPT_ACCUM, "1 (HF TrainingArguments' default)"))
        return r->err->code;
    const cJSON *dg = launch_top(r, "disable_gradient_checkpointing");
    bool off = false;
    if (dg && launch_boolean(r, dg, "disable_gradient_checkpointing", &off)) return r->err->code;
    /* LLaMA-Factory turns on the model's gradient checkpointing (Hugging Face's, around each
     * layer's call): the checkpoint sits outside an FSDP unit. */
    if (launch_set_flag(r, OPT_CKPT, off ? "none" : "full", "disable_gradient_checkpointing") ||
        (!off && launch_set_flag(r, OPT_CKPT_PLACEMENT, "outside", "disable_gradient_checkpointing")))
        return r->err->code;
    if (dg)
        USED(r, "disable_gradient_checkpointing %s -> --checkpointing %s", off ? "true" : "false",
            off ? "none" : "full --checkpoint-placement outside");
    else
        DEFAULTED(r,
            "disable_gradient_checkpointing false (LLaMA-Factory checkpoints by default) -> "
            "--checkpointing full --checkpoint-placement outside");
    if (launch_optimizer_key(r, "optim") || launch_precision_keys(r)) return r->err->code;
    const cJSON *ds = launch_top(r, "deepspeed");
    launch_follow_ds(r, ds, "deepspeed");
    if (!ds) DEFAULTED(r, "deepspeed none");
    if (launch_kernel_keys(r) || launch_lf_attention(r) || launch_lf_megatron(r)) return r->err->code;
    return llamafactory_pure(r);
}

/* accelerate's deepspeed_config section: its own keys, or a ds_config file to follow. */
static int accel_deepspeed(reader *r, const cJSON *dc)
{
    launch_set_framework(r, "deepspeed", "distributed_type");
    if (dc && !cJSON_IsObject(dc) && !cJSON_IsNull(dc))
        return launch_bad(r, "deepspeed_config", "a mapping of accelerate's DeepSpeed keys (not a list)");
    const cJSON *file = launch_item(dc, "deepspeed_config_file");
    for (const cJSON *c = dc ? dc->child : NULL; c; c = c->next) {
        char key[96];
        snprintf(key, sizeof key, "deepspeed_config.%s", c->string);
        const char *k = c->string;
        char buf[64];
        if (cJSON_IsNull(c))
            DEFAULTED(r, "%s (empty)", key);
        else if (strcmp(k, "deepspeed_config_file") == 0)
            launch_follow_ds(r, c, key);
        else if (file)
            IGNORED(r, "%s (deepspeed_config_file holds the configuration)", key);
        else if (strcmp(k, "zero_stage") == 0) {
            long long st = -1;
            double x = cJSON_IsNumber(c) ? c->valuedouble : -1;
            if (x >= 0 && x <= 3 && x == (double)(long long)x) st = (long long)x;
            if (st < 0 || st > 3) return launch_bad(r, key, "0, 1, 2 or 3");
            static const char *const as[] = {"ddp", "zero1", "zero2", "zero3"};
            launch_set_strategy(r, as[st], key);
            USED(r, "%s %lld -> --strategy %s", key, st, as[st]);
        } else if (strcmp(k, "offload_optimizer_device") == 0 || strcmp(k, "offload_param_device") == 0) {
            bool opt = k[8] == 'o';
            if (!cJSON_IsString(c)) return launch_bad(r, key, "none, cpu or nvme");
            if (launch_set_flag(r, opt ? OPT_OFF_OPT : OPT_OFF_PARAM, c->valuestring, key))
                return r->err->code;
            USED(r, "%s %s -> --offload-%s %s", key, c->valuestring, opt ? "optimizer" : "params",
                c->valuestring);
        } else if (strcmp(k, "gradient_accumulation_steps") == 0) {
            long long n;
            if (launch_whole(r, c, key, &n)) return r->err->code;
            snprintf(buf, sizeof buf, "%lld", n);
            if (launch_set_flag(r, OPT_ACCUM, buf, key)) return r->err->code;
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
    const cJSON *mp = launch_top(r, "mixed_precision");
    if (!mp && r->files && ds_sets_precision(r->lc->ds_path)) {
        DEFAULTED(r, "mixed_precision (absent: the ds_config file's fp16/bf16 enabled true decides)");
        return ZS_OK;
    }
    const char *p = cJSON_IsString(mp) ? mp->valuestring : "no";
    const char *as = strcmp(p, "no") == 0 ? "fp32" : p;
    if (mp && !cJSON_IsString(mp)) return launch_bad(r, "mixed_precision", "no, fp16, bf16 or fp8");
    if (launch_set_flag(r, OPT_PRECISION, as, "mixed_precision")) return r->err->code;
    if (mp)
        USED(r, "mixed_precision %s -> --precision %s", p, as);
    else
        DEFAULTED(r, "mixed_precision no -> --precision fp32");
    return ZS_OK;
}

static int accelerate(reader *r)
{
    const cJSON *dt = launch_top(r, "distributed_type");
    const char *d = cJSON_IsString(dt) ? dt->valuestring : "NO";
    long long procs = 1, machines = 1;
    const cJSON *np = launch_top(r, "num_processes"), *nm = launch_top(r, "num_machines");
    if (np && launch_whole(r, np, "num_processes", &procs)) return r->err->code;
    if (nm && launch_whole(r, nm, "num_machines", &machines)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", procs);
    if (launch_set_flag(r, OPT_GPUS, buf, "num_processes")) return r->err->code;
    if (np)
        USED(r, "num_processes %lld -> --gpus %lld (all machines)", procs, procs);
    else
        DEFAULTED(r, "num_processes 1");
    if (nm && procs % machines)
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: num_processes %lld is not a multiple of num_machines %lld",
            r->path, procs, machines);
    if (nm) {
        snprintf(buf, sizeof buf, "%lld", procs / machines);
        if (launch_set_flag(r, OPT_GPN, buf, "num_machines")) return r->err->code;
        USED(r, "num_machines %lld -> --gpus-per-node %lld", machines, procs / machines);
    } else
        DEFAULTED(r, "num_machines 1");
    const cJSON *dc = launch_top(r, "deepspeed_config"), *fc = launch_top(r, "fsdp_config");
    if (strcmp(d, "DEEPSPEED") == 0) {
        if (accel_deepspeed(r, dc)) return r->err->code;
        if (fc) IGNORED(r, "fsdp_config (distributed_type is DEEPSPEED)");
    } else if (strcmp(d, "FSDP") == 0) {
        if (launch_fsdp_config(r, fc, "fsdp_config")) return r->err->code;
        if (dc) IGNORED(r, "deepspeed_config (distributed_type is FSDP)");
    } else if (strcmp(d, "MULTI_GPU") == 0 || strcmp(d, "NO") == 0) {
        launch_set_strategy(r, "ddp", "distributed_type");
        if (dc) IGNORED(r, "deepspeed_config (distributed_type is %s)", d);
        if (fc) IGNORED(r, "fsdp_config (distributed_type is %s)", d);
    } else
        return launch_bad(r, "distributed_type", "DEEPSPEED, FSDP, MULTI_GPU or NO (GPU training)");
    if (accel_precision(r) || launch_accel_parallel(r, procs)) return r->err->code;
    if (dt)
        USED(r, "distributed_type %s%s", d, r->lc->strategy ? "" : " (strategy from the section)");
    else
        DEFAULTED(r, "distributed_type NO");
    if (strcmp(d, "MULTI_GPU") == 0 || strcmp(d, "NO") == 0) USED(r, "-> --strategy ddp");
    return ZS_OK;
}

static bool axolotl_detect(const cJSON *root)
{
    return cJSON_GetObjectItemCaseSensitive(root, "base_model") != NULL;
}

static bool llamafactory_detect(const cJSON *root)
{
    return cJSON_GetObjectItemCaseSensitive(root, "model_name_or_path") &&
        (launch_item(root, "finetuning_type") || launch_item(root, "stage") ||
            launch_item(root, "cutoff_len") || launch_item(root, "template"));
}

/* LLaMA-Factory's v1 configs (examples/v1: model, model_class, dist_config, micro_batch_size). */
static bool llamafactory_v1_detect(const cJSON *root)
{
    return cJSON_IsString(launch_item(root, "model")) &&
        (launch_item(root, "dist_config") || launch_item(root, "model_class") ||
            launch_item(root, "train_dataset"));
}

static int llamafactory_v1(reader *r)
{
    return zs_fail(r->err, ZS_ERR_INPUT,
        "%s: a LLaMA-Factory v1 config (model, dist_config, micro_batch_size): zerosim reads LLaMA-Factory's "
        "YAML of `llamafactory-cli train` (model_name_or_path, finetuning_type); give --model and the flags",
        r->path);
}

static bool accelerate_detect(const cJSON *root)
{
    return launch_item(root, "distributed_type") || launch_item(root, "compute_environment");
}

/* TOML (torchtitan's train_configs): a "[section]" line. No maintained C TOML reader is packaged
 * by Debian (bookworm has only C++ ones: libcpptoml, libtoml11, libtomlplusplus), so the file is
 * recognised and refused with the way to its JSON form. */
static bool toml_sniff(const char *text, size_t len)
{
    for (const char *p = text; p && p < text + len;
         p = memchr(p, '\n', (size_t)(text + len - p)), p = p ? p + 1 : p) {
        size_t n = strcspn(p, "\n");
        if (n > 2 && p[0] == '[' && p[1] != '[' && p[n - 1 - (p[n - 1] == '\r')] == ']' &&
            strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_.") == n - 2 - (p[n - 1] == '\r'))
            return true;
    }
    return false;
}

static int toml_refuse(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err)
{
    (void)text, (void)len, (void)root;
    return zs_fail(err, ZS_ERR_INPUT,
        "%s: a TOML file (torchtitan's train_configs?): zerosim reads torchtitan's job config as JSON "
        "(no C TOML reader is packaged by Debian); convert it with python3 -c 'import json,sys,tomllib; "
        "json.dump(tomllib.load(open(sys.argv[1],\"rb\")),sys.stdout)' FILE",
        origin);
}

static const launch_format_desc axolotl_format = {
    LAUNCH_AXOLOTL, "axolotl", NULL, NULL, axolotl_detect, axolotl};
static const launch_format_desc llamafactory_format = {
    LAUNCH_LLAMAFACTORY, "llama-factory", NULL, NULL, llamafactory_detect, llamafactory};
static const launch_format_desc accelerate_format = {
    LAUNCH_ACCELERATE, "accelerate", NULL, NULL, accelerate_detect, accelerate};
static const launch_format_desc llamafactory_v1_format = {
    LAUNCH_LLAMAFACTORY, "llama-factory v1", NULL, NULL, llamafactory_v1_detect, llamafactory_v1};
static const launch_format_desc toml_format = {
    LAUNCH_TITAN, "torchtitan TOML", toml_sniff, toml_refuse, NULL, NULL};

/* In the order they are tried: text formats first (a script is no YAML mapping), then trees by
 * their most distinctive keys (TrainingArguments' keys are the least distinctive: last). */
static const launch_format_desc *const formats[] = {&launch_megatron_format, &toml_format, &accelerate_format,
    &axolotl_format, &llamafactory_format, &llamafactory_v1_format, &launch_titan_format, &launch_trl_format,
    NULL};

const char *launch_format_name(launch_format f)
{
    for (int i = 0; formats[i]; i++)
        if (formats[i]->format == f && formats[i]->read) return formats[i]->name;
    return "?";
}

/* A tree: JSON when the text opens with '{' (TrainingArguments' and torchtitan's dumps), else
 * YAML. */
static int parse_tree(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err)
{
    size_t i = strspn(text, " \t\r\n");
    if (i < len && text[i] == '{') {
        *root = cJSON_ParseWithLength(text, len);
        if (!*root || !cJSON_IsObject(*root)) {
            cJSON_Delete(*root);
            *root = NULL;
            return zs_fail(err, ZS_ERR_INPUT, "%s: not valid JSON (an object was expected)", origin);
        }
        return json_last_key_wins(*root) ? zs_fail(err, ZS_ERR_INPUT, "%s: JSON too deep", origin) : ZS_OK;
    }
    return yaml_parse_object(text, len, origin, root, err);
}

/* Recognise the text's format and read it into lc. */
static int from_text(
    const char *text, size_t len, const char *path, bool files, launch_config *lc, zs_error *err)
{
    const launch_format_desc *f = NULL;
    cJSON *root = NULL;
    int rc = ZS_OK;
    for (int i = 0; formats[i] && !f; i++)
        if (formats[i]->sniff && formats[i]->sniff(text, len)) f = formats[i];
    rc = f ? f->to_tree(text, len, path, &root, err) : parse_tree(text, len, path, &root, err);
    for (int i = 0; rc == ZS_OK && formats[i] && !f; i++)
        if (formats[i]->detect && formats[i]->detect(root)) f = formats[i];
    if (rc == ZS_OK && !f)
        rc = zs_fail(err, ZS_ERR_INPUT,
            "%s: not a launcher config zerosim knows: expected Axolotl (base_model), LLaMA-Factory "
            "(model_name_or_path with finetuning_type), accelerate (distributed_type), HF "
            "TrainingArguments/TRL "
            "(per_device_train_batch_size...), torchtitan (job/training/parallelism sections) keys or a "
            "Megatron-LM argument list (--num-layers...)",
            path);
    if (rc == ZS_OK) {
        reader r = {.lc = lc, .root = root, .path = path, .err = err, .files = files};
        lc->format = f->format;
        rc = f->read(&r);
        if (rc == ZS_OK) launch_list_rest(&r);
        cJSON_Delete(r.owned);
    }
    cJSON_Delete(root);
    return rc;
}

static int load(const char *text, size_t len, const char *path, launch_config *lc, zs_error *err)
{
    memset(lc, 0, sizeof *lc);
    training_init(&lc->t);
    if (text) return from_text(text, len, path, false, lc, err);
    char *buf = NULL;
    size_t n = 0;
    if (file_read_text(path, &buf, &n, err)) return err->code;
    int rc = from_text(buf, n, path, true, lc, err);
    free(buf);
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
