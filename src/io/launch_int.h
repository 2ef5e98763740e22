/* launch_int.h -- what the launcher readers (launchcfg.c, launch_*.c) share: the reader state, the
 * report lists and the typed key helpers. Not for use outside src/io/launch*.c. */
#ifndef ZS_LAUNCH_INT_H
#define ZS_LAUNCH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "io/launchcfg.h"

typedef struct reader {
    launch_config *lc;
    const cJSON *root;
    cJSON *owned; /* a tree the reader made (a flattened one) and root points at: freed after */
    const char *path;
    zs_error *err;
    bool files;            /* the config came from a file: a ds_config it names may be opened */
    const char *seen[256]; /* top-level keys read (the rest are listed as ignored) */
    int nseen;
} reader;

/* One format: its name, whether a parsed tree is one (NULL: recognised only by text), and its
 * reader. sniff, when set, recognises the raw text before any parsing (a shell script) and
 * to_tree turns that text into a flat object of keys the reader reads. */
typedef struct launch_format_desc {
    launch_format format;
    const char *name;
    bool (*sniff)(const char *text, size_t len);
    int (*to_tree)(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err);
    bool (*detect)(const cJSON *root);
    int (*read)(reader *r);
} launch_format_desc;

/* The formats launch_trl.c, launch_megatron.c and launch_titan.c read. */
extern const launch_format_desc launch_trl_format, launch_megatron_format, launch_titan_format;

/* "; "-separated append of a formatted entry to buf (len bytes), "..." when full. Never fails. */
__attribute__((format(printf, 3, 4))) void launch_add(char *buf, size_t len, const char *fmt, ...);
/* ", "-separated append of name to buf (len bytes), "..." when full. Never fails. */
void launch_join(char *buf, size_t len, const char *name);

#define USED(r, ...) launch_add((r)->lc->used, sizeof(r)->lc->used, __VA_ARGS__)
#define DEFAULTED(r, ...) launch_add((r)->lc->defaulted, sizeof(r)->lc->defaulted, __VA_ARGS__)
#define IGNORED(r, ...) launch_add((r)->lc->ignored, sizeof(r)->lc->ignored, __VA_ARGS__)

/* Note key as read (list_rest skips it). Never fails. */
void launch_mark(reader *r, const char *key);
/* obj's key, NULL when absent or null. Never fails. */
const cJSON *launch_item(const cJSON *obj, const char *key);
/* A top-level key, marked as read; NULL when absent or null. Never fails. */
const cJSON *launch_top(reader *r, const char *key);
/* Fail with ZS_ERR_INPUT: "path: key: expected what". Returns the code. */
int launch_bad(reader *r, const char *key, const char *expect);
/* A boolean (true/false, "true"/"false", "1"/"0"). Fails with launch_bad. */
int launch_boolean(reader *r, const cJSON *v, const char *key, bool *out);
/* A whole number >= 1 (a number or numeric string). Fails with launch_bad. */
int launch_whole(reader *r, const cJSON *v, const char *key, long long *out);
/* Set training flag id from text, noting key as its source. Fails with ZS_ERR_INPUT naming the
 * file, the key and the flag's own message. */
int launch_set_flag(reader *r, int id, const char *value, const char *key);
/* A whole-number top-level key into flag id, or its default (dflt, first word the value) noted.
 * Fails as launch_whole / launch_set_flag. */
int launch_number_key(reader *r, const char *key, int id, const char *dflt);
/* bf16/fp16 keys (the HF Trainer's): both true refused; neither, fp32. Fails with ZS_ERR_INPUT. */
int launch_precision_keys(reader *r);
/* A HF `optim` name under key into --optimizer. Fails with ZS_ERR_INPUT on a non-string. */
int launch_optimizer_key(reader *r, const char *key);
/* LoRA target modules (a list or a comma-separated string) into --lora-targets. Fails with
 * ZS_ERR_INPUT on another kind of value. */
int launch_targets(reader *r, const cJSON *v, const char *key);
/* A ds_config path to follow (beside the config when relative and not found). Never fails. */
void launch_follow_ds(reader *r, const cJSON *v, const char *key);
/* A model key (name, path or Hub id) standing in for --model. Fails on a non-string. */
int launch_model_key(reader *r, const char *key);
/* A boolean key turning full checkpointing on (dflt when absent), the checkpoint inside the
 * sharding unit (an FSDP plugin's key) or around it (the model's gradient_checkpointing). Fails
 * as launch_boolean, or when the file turns both kinds on. */
int launch_ckpt_key(reader *r, const cJSON *v, const char *key, bool dflt, bool in_unit, const char *why);
/* The strategy / framework the file implies, with the key that implied it. Never fail. */
void launch_set_strategy(reader *r, const char *s, const char *key);
void launch_set_framework(reader *r, const char *f, const char *key);
/* An fsdp_config mapping (accelerate's, TRL's or Axolotl's keys). Fails with ZS_ERR_INPUT. */
int launch_fsdp_config(reader *r, const cJSON *fc, const char *sect);
/* Every top-level key not read listed as defaulted (null) or ignored. Never fails. */
void launch_list_rest(reader *r);

/* The loss-kernel keys (Liger's fused linear cross entropy, Cut Cross Entropy, chunked): --loss.
 * Fails with ZS_ERR_INPUT naming the key when a value is not a boolean. */
int launch_kernel_keys(reader *r);
/* Axolotl's context/tensor parallel sizes, fsdp_version and activation_offloading. Fails with
 * ZS_ERR_INPUT naming the key and what was expected. */
int launch_axolotl_parallel(reader *r);
/* LLaMA-Factory's flash_attn and packing keys. Fails with ZS_ERR_INPUT naming the key. */
int launch_lf_attention(reader *r);
/* accelerate's parallelism_config against num_processes procs: --tp, --cp, --shard-group. Fails
 * with ZS_ERR_INPUT naming the key, or the product that is not procs. */
int launch_accel_parallel(reader *r, long long procs);
/* LLaMA-Factory's Megatron-backend keys (tensor_model_parallel_size...). Fails with ZS_ERR_INPUT
 * naming the key and what was expected. */
int launch_lf_megatron(reader *r);

#endif
