/* finetune.c -- adapter counts and QLoRA's storage width. */
#include "core/finetune.h"

#include "core/training.h"

#include <string.h>

double finetune_adapters_per_layer(const model *m, int64_t rank, int targets)
{
    if (m->params_only) return 0;
    double r = (double)rank, h = (double)m->hidden_size, i = (double)m->intermediate_size;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double n = 0;
    if (targets & LORA_ATTN) n += r * ((h + q) + 2 * (h + kv) + (q + h)); /* q, k, v, out */
    if (targets & LORA_MLP) {
        double experts = m->num_experts > 0 ? (double)m->num_experts : 1;
        n += experts * r * (h + i) * (m->gated_mlp ? 3 : 2); /* gate, up, down */
    }
    return n;
}

double finetune_nf4_bytes(void)
{
    return (4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0;
}

const char *finetune_name(finetune_kind k)
{
    /* The names are the --finetune flag's (training.c's choice table, in enum order). */
    return (unsigned)k <= FT_QLORA ? finetune_choices[k].name : "?";
}
