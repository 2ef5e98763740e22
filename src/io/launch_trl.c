/* launch_trl.c -- HF TrainingArguments / TRL configs (the YAML `trl sft --config` and the alignment
 * handbook read, or TrainingArguments as JSON) to training fields. Defaults are TRL's SFTConfig and
 * ModelConfig (huggingface/trl@f2cd5771 trl/trainer/sft_config.py, model_config.py). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io/launch_int.h"

static bool trl_detect(const cJSON *root)
{
    static const char *const keys[] = {"per_device_train_batch_size", "use_peft", "max_seq_length",
        "output_dir", "gradient_accumulation_steps", "lora_target_modules", NULL};
    for (const char *const *k = keys; *k; k++)
        if (cJSON_GetObjectItemCaseSensitive(root, *k)) return true;
    return false;
}

/* bf16 / fp16: SFTConfig's bf16 defaults to true when fp16 is not set (sft_config.py's
 * __post_init__); both true is refused as TrainingArguments refuses it. */
static int trl_precision(reader *r)
{
    const cJSON *b = launch_item(r->root, "bf16"), *f = launch_item(r->root, "fp16");
    bool fon = false;
    if (f && launch_boolean(r, f, "fp16", &fon)) return r->err->code;
    if (b || fon) return launch_precision_keys(r);
    launch_mark(r, "bf16");
    launch_mark(r, "fp16");
    DEFAULTED(r, "bf16 true (TRL SFTConfig's default when fp16 is not set) -> --precision bf16");
    if (f) USED(r, "fp16 false");
    return launch_set_flag(r, OPT_PRECISION, "bf16", "bf16");
}

/* gradient_checkpointing (SFTConfig's default true, TrainingArguments' false) and its kwargs. */
static int trl_checkpointing(reader *r)
{
    if (launch_ckpt_key(r, launch_top(r, "gradient_checkpointing"), "gradient_checkpointing", true, false,
            " (TRL SFTConfig's default; TrainingArguments' is false) -> --checkpointing full"))
        return r->err->code;
    const cJSON *kw = launch_top(r, "gradient_checkpointing_kwargs");
    if (kw) USED(r, "gradient_checkpointing_kwargs (use_reentrant changes how, not what, is recomputed)");
    return ZS_OK;
}

/* use_peft, lora_r, lora_target_modules, load_in_4bit/8bit and their bnb_4bit_* settings. */
static int trl_peft(reader *r)
{
    const cJSON *up = launch_top(r, "use_peft"), *q4 = launch_top(r, "load_in_4bit"),
                *q8 = launch_top(r, "load_in_8bit");
    bool peft = false, in4 = false, in8 = false;
    if (up && launch_boolean(r, up, "use_peft", &peft)) return r->err->code;
    if (q4 && launch_boolean(r, q4, "load_in_4bit", &in4)) return r->err->code;
    if (q8 && launch_boolean(r, q8, "load_in_8bit", &in8)) return r->err->code;
    if (in4 && in8)
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: load_in_4bit and load_in_8bit are both true", r->path);
    if ((in4 || in8) && !peft)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: load_in_%s true without use_peft: a quantized base trains only adapters (transformers "
            "refuses to fine-tune a purely quantized model)",
            r->path, in4 ? "4bit" : "8bit");
    const char *mode = !peft ? "full" : in4 ? "qlora" : "lora";
    if (launch_set_flag(r, OPT_FINETUNE, mode, "use_peft")) return r->err->code;
    if (up)
        USED(r, "use_peft %s -> --finetune %s", peft ? "true" : "false", mode);
    else
        DEFAULTED(r, "use_peft false (TRL ModelConfig's default) -> --finetune full");
    if (q4) USED(r, "load_in_4bit %s%s", in4 ? "true" : "false", in4 ? " -> a 4-bit (NF4) frozen base" : "");
    if (in8)
        IGNORED(
            r, "load_in_8bit (an 8-bit frozen base is not modelled: counted as 16-bit, an over-estimate)");
    else if (q8)
        USED(r, "load_in_8bit false");
    static const char *const bnb[] = {"bnb_4bit_quant_type", "use_bnb_nested_quant",
        "bnb_4bit_use_double_quant", "bnb_4bit_compute_dtype", "bnb_4bit_quant_storage", NULL};
    for (const char *const *k = bnb; *k; k++)
        if (launch_top(r, *k))
            USED(r, "%s (%s)", *k,
                in4 ? "NF4 and FP4 store 4 bits a weight; double quantization's constants are counted as "
                      "QLoRA's"
                    : "no 4-bit base: no effect");
    const cJSON *rank = launch_top(r, "lora_r"), *mods = launch_top(r, "lora_target_modules");
    static const char *const lora_misc[] = {"lora_alpha", "lora_dropout", "use_rslora", "use_dora",
        "lora_task_type", "lora_modules_to_save", NULL};
    for (const char *const *k = lora_misc; *k; k++)
        if (launch_top(r, *k))
            USED(r, "%s (%s)", *k, peft ? "scaling and regularisation: no memory effect" : "no adapter");
    if (!peft) {
        if (rank || mods) IGNORED(r, "lora_r/lora_target_modules (use_peft is false)");
        return ZS_OK;
    }
    if (launch_number_key(r, "lora_r", OPT_LORA_RANK, "16 (TRL ModelConfig's default)")) return r->err->code;
    if (mods) return launch_targets(r, mods, "lora_target_modules");
    DEFAULTED(r, "lora_target_modules (PEFT's per-model default, q_proj and v_proj) -> attn");
    return launch_set_flag(r, OPT_LORA_TARGETS, "attn", "lora_target_modules");
}

/* max_length (SFTConfig, default 1024) or the older max_seq_length; packing and padding_free. */
static int trl_sequence(reader *r)
{
    const cJSON *ml = launch_item(r->root, "max_length"), *ms = launch_item(r->root, "max_seq_length");
    if (ml && ms)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: max_length and max_seq_length are both set: TRL renamed one "
            "to the other, keep max_length",
            r->path);
    const char *key = ms ? "max_seq_length" : "max_length";
    if (launch_number_key(r, key, OPT_SEQ, "1024 (TRL SFTConfig's default)")) return r->err->code;
    if (!ms) launch_mark(r, "max_seq_length");
    const cJSON *pk = launch_top(r, "packing"), *pf = launch_top(r, "padding_free");
    bool packing = false, free = false;
    if (pk && launch_boolean(r, pk, "packing", &packing)) return r->err->code;
    if (pf && launch_boolean(r, pf, "padding_free", &free)) return r->err->code;
    if (packing || free)
        USED(r,
            "%s true (sequences filled with whole documents, attention within each: --doc-len gives "
            "their mean length, else one document a sequence)",
            packing ? "packing" : "padding_free");
    if (pk && !packing) USED(r, "packing false");
    if (!pk) DEFAULTED(r, "packing false");
    if (pf && !free) USED(r, "padding_free false");
    if (launch_top(r, "packing_strategy")) USED(r, "packing_strategy (how documents are placed: no effect)");
    return ZS_OK;
}

/* fsdp ("full_shard auto_wrap offload", or a list) with fsdp_config, or deepspeed. */
static int trl_sharding(reader *r)
{
    const cJSON *ds = launch_top(r, "deepspeed"), *fsdp = launch_top(r, "fsdp"),
                *fc = launch_top(r, "fsdp_config");
    bool fs = cJSON_IsString(fsdp) ? fsdp->valuestring[0] != '\0' : cJSON_IsArray(fsdp) && fsdp->child;
    if (ds && fs)
        return zs_fail(
            r->err, ZS_ERR_INPUT, "%s: deepspeed and fsdp are both set: one or the other", r->path);
    if (cJSON_IsObject(ds))
        IGNORED(r, "deepspeed (an inline ds_config: save it to a file and give --deepspeed FILE)");
    else if (ds && !cJSON_IsString(ds))
        return launch_bad(r, "deepspeed", "a ds_config file path");
    else
        launch_follow_ds(r, ds, "deepspeed");
    if (!ds) DEFAULTED(r, "deepspeed none");
    char words[256] = "";
    if (cJSON_IsString(fsdp)) snprintf(words, sizeof words, "%s", fsdp->valuestring);
    for (const cJSON *c = cJSON_IsArray(fsdp) ? fsdp->child : NULL; c; c = c->next)
        if (cJSON_IsString(c)) launch_add(words, sizeof words, "%s", c->valuestring);
    for (char *save = NULL, *w = strtok_r(words, " ;,", &save); w; w = strtok_r(NULL, " ;,", &save)) {
        if (strcmp(w, "full_shard") == 0 || strcmp(w, "shard_grad_op") == 0 ||
            strcmp(w, "hybrid_shard") == 0) {
            const char *st = w[0] == 's' ? "zero2" : "zero3";
            launch_set_strategy(r, st, "fsdp");
            launch_set_framework(r, "fsdp", "fsdp");
            r->lc->shard_per_node = w[0] == 'h';
            USED(r, "fsdp %s -> --strategy %s, --framework fsdp", w, st);
        } else if (strcmp(w, "offload") == 0) {
            if (launch_set_flag(r, OPT_OFF_OPT, "cpu", "fsdp") ||
                launch_set_flag(r, OPT_OFF_PARAM, "cpu", "fsdp"))
                return r->err->code;
            USED(r, "fsdp offload -> --offload-optimizer cpu --offload-params cpu");
        } else
            USED(r, "fsdp %s (wrapping policy: no memory effect modelled)", w);
    }
    if (!fsdp) DEFAULTED(r, "fsdp none");
    return fc ? launch_fsdp_config(r, fc, "fsdp_config") : ZS_OK;
}

/* dtype/torch_dtype (the loaded weights' dtype) and attn_implementation. */
static int trl_model_keys(reader *r)
{
    static const char *const dt[] = {"torch_dtype", "dtype", NULL};
    for (const char *const *k = dt; *k; k++)
        if (launch_top(r, *k))
            USED(r, "%s (the loaded weights' dtype; the training precision is bf16/fp16's)", *k);
    const cJSON *ai = launch_top(r, "attn_implementation");
    if (ai && !cJSON_IsString(ai))
        return launch_bad(r, "attn_implementation", "eager, sdpa or flash_attention_2");
    if (ai && strcmp(ai->valuestring, "eager") == 0) {
        if (launch_set_flag(r, OPT_EAGER, "", "attn_implementation")) return r->err->code;
        USED(r, "attn_implementation eager -> --eager-attention (the s^2 matrix stored)");
    } else if (ai)
        USED(r, "attn_implementation %s (no s^2 matrix stored: flash attention)", ai->valuestring);
    else
        DEFAULTED(r, "attn_implementation sdpa (no s^2 matrix stored: flash attention)");
    return ZS_OK;
}

static int trl_read(reader *r)
{
    if (launch_model_key(r, "model_name_or_path")) return r->err->code;
    if (launch_number_key(r, "per_device_train_batch_size", OPT_MICRO, "8 (HF TrainingArguments' default)"))
        return r->err->code;
    if (launch_number_key(r, "gradient_accumulation_steps", OPT_ACCUM, "1 (HF TrainingArguments' default)"))
        return r->err->code;
    if (trl_checkpointing(r) || trl_precision(r) || launch_optimizer_key(r, "optim")) return r->err->code;
    if (trl_peft(r) || trl_sequence(r) || trl_sharding(r) || trl_model_keys(r)) return r->err->code;
    return launch_kernel_keys(r);
}

const launch_format_desc launch_trl_format = {LAUNCH_TRL, "trl", NULL, NULL, trl_detect, trl_read};
