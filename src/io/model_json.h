/* model_json.h -- loading a model from a HuggingFace config.json or our own JSON. */
#ifndef ZS_MODEL_JSON_H
#define ZS_MODEL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/model.h"

/* Load and validate a model file. Recognised model_type values: llama, mistral, mixtral, qwen2,
 * gpt2, gpt_neox, bloom, granite, qwen3, phi3, starcoder2, olmo (HF port and original),
 * olmo2, gemma, gemma2, gemma3_text, gemma3 (its text_config), phi, falcon, cohere, qwen2_moe,
 * qwen3_moe, olmoe, granitemoe, phimoe, deepseek_v2, deepseek_v3, t5, mt5, umt5, and
 * "transformer" (our own: gated_mlp, norm_type, norm_bias, position_embedding_type describe the
 * block). Keys a config leaves out take its HF configuration class's defaults. A file without
 * "name" is named after itself (model_name_from_path). Fails with ZS_ERR_INPUT; the message
 * starts with the path and names the field and what was expected. */
int model_load(const char *path, model *m, zs_error *err);

/* What a load did that its user should be told: the class defaults used for missing keys
 * that set shapes, a vision tower left out, an unknown model_type read as a generic decoder
 * with the keys it did not understand. The caller prints it; the loader never does. */
typedef struct model_notes {
    char text[1024];  /* complete sentences, one a line, each ending in '\n'; "" for none */
    bool approximate; /* counts are approximate until a checkpoint (--weights) confirms them */
} model_notes;

/* model_load with notes (may be NULL) and `strict`: refuse an unknown model_type instead of
 * reading it as a generic decoder. Fails as model_load does. */
int model_load_ex(const char *path, bool strict, model *m, model_notes *notes, zs_error *err);

/* A decoder-only config of an unknown model_type that carries the standard keys, read as a
 * Llama-shaped decoder (with the usual MoE and sliding-window keys); the notes name the type,
 * every key not understood, and that the counts are approximate (model_generic.c). Fails with
 * ZS_ERR_INPUT like model_load. */
int model_generic(const cJSON *j, const char *type, model *m, model_notes *notes, zs_error *err);

/* Whether j has the standard keys a generic decoder needs (hidden_size, num_hidden_layers,
 * num_attention_heads, vocab_size) and is not an encoder-decoder. Never fails. */
bool model_generic_fits(const cJSON *j);

/* The same from a parsed JSON object; `origin` names the input in messages. */
int model_from_json(const cJSON *root, const char *origin, model *m, zs_error *err);
int model_from_json_ex(
    const cJSON *root, const char *origin, bool strict, model *m, model_notes *notes, zs_error *err);

/* A model's name from its file: the file name without ".json" (dots kept); a "config.json" is
 * named by its _name_or_path's last component (may be NULL), else by its folder. Never fails. */
void model_name_from_path(const char *path, const char *name_or_path, char *out, size_t len);

#endif
