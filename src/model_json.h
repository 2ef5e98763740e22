/* model_json.h -- loading a model from a HuggingFace config.json or our own JSON. */
#ifndef ZS_MODEL_JSON_H
#define ZS_MODEL_JSON_H

#include <cjson/cJSON.h>

#include "error.h"
#include "model.h"

/* Load and validate a model file. Recognised model_type values: llama, mistral, mixtral, qwen2,
 * gpt2, gpt_neox, bloom, and "transformer" (our own: gated_mlp, norm_type, norm_bias,
 * position_embedding_type describe the block). Fails with ZS_ERR_INPUT; the message starts
 * with the path and names the field and what was expected. */
int model_load(const char *path, model *m, zs_error *err);

/* The same from a parsed JSON object; `origin` names the input in messages. */
int model_from_json(const cJSON *root, const char *origin, model *m, zs_error *err);

#endif
