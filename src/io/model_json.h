/* model_json.h -- loading a model from a HuggingFace config.json or our own JSON. */
#ifndef ZS_MODEL_JSON_H
#define ZS_MODEL_JSON_H

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

/* The same from a parsed JSON object; `origin` names the input in messages. */
int model_from_json(const cJSON *root, const char *origin, model *m, zs_error *err);

/* A model's name from its file: the file name without ".json" (dots kept); a "config.json" is
 * named by its _name_or_path's last component (may be NULL), else by its folder. Never fails. */
void model_name_from_path(const char *path, const char *name_or_path, char *out, size_t len);

#endif
