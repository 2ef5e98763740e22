/* model_pattern.h -- a config's per-layer pattern (mixer, MLP, window, rotary) folded into layer classes. */
#ifndef ZS_MODEL_PATTERN_H
#define ZS_MODEL_PATTERN_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/model.h"

#define PATTERN_MAX_LAYERS 4096 /* longer stacks are refused by name */

/* Each layer's kind as the config's keys say it. */
typedef struct layer_plan {
    int64_t n;                                /* layers */
    unsigned char mixer[PATTERN_MAX_LAYERS];  /* mixer_kind */
    unsigned char mixer2[PATTERN_MAX_LAYERS]; /* mixer_kind of a parallel mixer, MIX_NONE */
    unsigned char ffn[PATTERN_MAX_LAYERS];    /* block_kind */
    unsigned char local[PATTERN_MAX_LAYERS];  /* 1: sliding-window or chunked attention */
    unsigned char nope[PATTERN_MAX_LAYERS];   /* 1: attention without rotary embedding */
    unsigned char shared[PATTERN_MAX_LAYERS]; /* 1: reuses an earlier layer's keys and values
                                                 (Gemma 4's KV-shared layers): its own class */
} layer_plan;

/* Every one of m->num_layers layers an attention layer with a dense MLP. Fails (ZS_ERR_INPUT)
 * when num_layers is outside 1 to PATTERN_MAX_LAYERS. */
int pattern_init(layer_plan *p, const model *m, zs_error *err);

/* Read the string list `key` (layer_types, layers_block_type) into the plan: each entry names
 * its layer's mixer and window ("full_attention", "sliding_attention", "chunked_attention",
 * "linear_attention", "attention", "mamba"), its MLP ("mlp", "moe"), or both. Absent: no change.
 * Fails naming the key, the index and the entry when it is not a known kind or the list's
 * length is not the layer count. */
int pattern_read_types(layer_plan *p, const cJSON *j, const char *key, zs_error *err);

/* Nemotron-H's hybrid_override_pattern: one character a layer, M (Mamba-2), * (attention), -
 * (MLP) or E (experts), each a mixer or an MLP alone. Absent: no change. Fails naming the
 * position of a character it does not know, or a length that is not the layer count. */
int pattern_read_override(layer_plan *p, const cJSON *j, const char *key, zs_error *err);

/* Mark layers whose entry in the 0/1 list `key` equals `nope_value` as NoPE (SmolLM3's and
 * Llama 4's no_rope_layers: 1 = rotary, 0 = none). Absent: no change. Never fails on a short
 * list (the rest keep rotary). */
int pattern_read_nope(layer_plan *p, const cJSON *j, const char *key, int nope_value, zs_error *err);

/* Fold the plan into the model: a stack of attention layers keeps the classic fields
 * (moe_layers, sliding_layers, nope_layers; nclass 0), anything else becomes layer classes.
 * Fails (ZS_ERR_INPUT) when the plan has more distinct classes than LAYER_CLASSES_MAX. */
int pattern_apply(const layer_plan *p, model *m, zs_error *err);

#endif
