/* finetune.h -- parameter-efficient fine-tuning: LoRA adapters and QLoRA's 4-bit frozen base. */
#ifndef ZS_FINETUNE_H
#define ZS_FINETUNE_H

#include <stdint.h>

#include "core/model.h"

typedef enum { FT_FULL, FT_LORA, FT_QLORA } finetune_kind;

/* Which linear layers get adapters. */
enum { LORA_ATTN = 1, LORA_MLP = 2, LORA_ALL = 3 };

/* Adapter parameters of one block: r (d_in + d_out) for each targeted linear (LoRA, Hu et al.
 * 2021, arXiv 2106.09685: W + B A with A r x d_in, B d_out x r); routed experts each get
 * theirs. 0 for a --params model. Pure. */
double finetune_adapters_per_layer(const model *m, int64_t rank, int targets);

/* Bytes per parameter of QLoRA's frozen weights: 4-bit NormalFloat with double quantization,
 * 4 + 8/64 + 32/(64 x 256) bits (Dettmers et al. 2023, arXiv 2305.14314, section 3: "0.127
 * bits per parameter" of quantization constants). Never fails. */
double finetune_nf4_bytes(void);

/* The name of kind k as --finetune spells it ("full", "lora", "qlora"; training.c's
 * finetune_choices parse them); "?" for no kind. Never fails. */
const char *finetune_name(finetune_kind k);

#endif
