/* finetune.h -- parameter-efficient fine-tuning: LoRA adapters and QLoRA's 4-bit frozen base. */
#ifndef ZS_FINETUNE_H
#define ZS_FINETUNE_H

#include <stdint.h>

#include "core/model.h"
#include "core/training.h"

typedef enum { FT_FULL, FT_LORA, FT_QLORA } finetune_kind;

/* Which linear layers get adapters: attention's four, the MLP's, both, or only q and v (PEFT's
 * default target_modules for Llama, LitGPT's lora_query + lora_value). */
enum { LORA_ATTN = 1, LORA_MLP = 2, LORA_ALL = 3, LORA_QV = 4 };

/* Adapter parameters of one block: r (d_in + d_out) for each targeted linear (LoRA, Hu et al.
 * 2021, arXiv 2106.09685: W + B A with A r x d_in, B d_out x r); routed experts each get
 * theirs. 0 for a --params model. Pure. */
double finetune_adapters_per_layer(const model *m, int64_t rank, int targets);

/* Bytes per parameter of QLoRA's frozen weights: 4-bit NormalFloat with double quantization,
 * 4 + 8/64 + 32/(64 x 256) bits (Dettmers et al. 2023, arXiv 2305.14314, section 3: "0.127
 * bits per parameter" of quantization constants). Never fails. */
double finetune_nf4_bytes(void);

/* The byte table of the adapters (the trainable parameters of --finetune lora|qlora): their
 * own dtype for the weight and its gradient, no fp32 master copy (PEFT and HF Trainer step
 * the adapters in place), and the optimizer's states as its implementation keeps them:
 * torch.optim Adam/AdamW/SGD in the parameter's dtype, bitsandbytes' 32-bit paged AdamW in
 * fp32, 8-bit Adam in ADAM8BIT_BYTES. `base` is the run's table (training_bytes): its
 * activation width is kept. Pure; never fails. */
byte_table finetune_adapter_bytes(const training *t, const byte_table *base);

/* Elements of the largest linear weight of one block (one expert's for MoE): the weight
 * QLoRA dequantizes to 16 bits for one matmul at a time. 0 for a --params model. Pure. */
double finetune_largest_linear(const model *m);

/* Elements per token of one block's distinct linear inputs, the tensors bitsandbytes' 4-bit
 * matmul keeps for backward: the attention input (shared by q, k, v), the output projection's
 * input (heads x head_dim), the MLP input (shared by gate and up) and the down projection's
 * input (the intermediate width; MoE: the top-k experts' and the shared experts'). 0 for a
 * --params model. Pure. */
double finetune_linear_inputs(const model *m);

/* The share of the adapters' elements in matrices of at least 1e5 elements, the ones
 * bitsandbytes' paged optimizers page (get_state_buffer: smaller tensors get plain device
 * buffers): of A (r x d_in) and B (d_out x r) for each targeted linear. 1 for a --params
 * model. Pure. */
double finetune_pageable_fraction(const model *m, int64_t rank, int targets);

/* The name of kind k as --finetune spells it ("full", "lora", "qlora"; training.c's
 * finetune_choices parse them); "?" for no kind. Never fails. */
const char *finetune_name(finetune_kind k);

/* The --lora-targets name of a target set ("attn", "mlp", "all", "qv"). Never fails. */
const char *finetune_targets_name(int targets);

#endif
