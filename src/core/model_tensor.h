/* model_tensor.h -- one parameter tensor of a block, as model.c and the mixer files list them. */
#ifndef ZS_MODEL_TENSOR_H
#define ZS_MODEL_TENSOR_H

#include <stdbool.h>

#include "core/model.h"

#define MAX_TENSORS 64

/* One parameter tensor of a block or of the model's ends. */
typedef struct model_tensor {
    const char *name; /* e.g. "mlp.up.weight" */
    double numel;     /* elements */
    double count;     /* how many of this tensor per block (experts) or in the model */
    int module;       /* tensors with the same module id belong to one nn.Module (< MAX_TENSORS) */
    bool active_all;  /* false for expert tensors: only top-k of `count` are used per token */
    double fan;       /* a linear layer's weight: in + out features (a LoRA adapter of rank r on it
                         holds r x fan); 0 for every other tensor */
    int lora;         /* TENSOR_LORA_* bits: which --lora-targets adapt this linear */
} model_tensor;

/* What a linear is to --lora-targets: the mixer's (attention, SSM, linear attention), of which
 * the query and value projections (qv), or the MLP's (dense, experts, shared experts, router). */
enum { TENSOR_LORA_MIXER = 1, TENSOR_LORA_QV = 2, TENSOR_LORA_MLP = 4 };

/* A list being filled: tensors t[0..n), capacity max; n counts past max so the caller can
 * tell the list was too short. */
typedef struct tensor_list {
    model_tensor *t;
    int n, max;
    bool kv_shared; /* the block reuses an earlier layer's keys and values: its attention holds
                       no k/v projections or k norm (Gemma 4's KV-shared layers) */
} tensor_list;

/* Append one tensor; module ids group tensors into nn.Modules. Never fails (an overflow shows
 * as n > max). Inline: model.c and the mixer files both add, and neither calls the other. */
static inline void tensor_add(
    tensor_list *l, const char *name, double numel, double count, int module, bool all)
{
    if (l->n < l->max) l->t[l->n] = (model_tensor){name, numel, count, module, all, 0, 0};
    l->n++;
}

/* Append a linear layer's weight, in x out, with what --lora-targets adapts it (TENSOR_LORA_*).
 * Never fails (as tensor_add). */
static inline void tensor_add_linear(
    tensor_list *l, const char *name, double in, double out, double count, int module, bool all, int lora)
{
    if (l->n < l->max) l->t[l->n] = (model_tensor){name, in * out, count, module, all, in + out, lora};
    l->n++;
}

/* A norm of width w: its weight and, for LayerNorm with beta, its bias, one module; OLMo-1's
 * non-parametric LayerNorm adds nothing. Never fails. */
static inline void tensor_add_norm(
    const model *m, tensor_list *l, const char *w, const char *b, int module, double width)
{
    if (m->norm_weightless) return;
    tensor_add(l, w, width, 1, module, true);
    if (m->norm == NORM_LAYERNORM && m->norm_bias) tensor_add(l, b, width, 1, module, true);
}

#endif
