/* finetune.h -- parameter-efficient fine-tuning: LoRA adapters and QLoRA's 4-bit frozen base. */
#ifndef ZS_FINETUNE_H
#define ZS_FINETUNE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"
#include "core/training.h"

typedef enum { FT_FULL, FT_LORA, FT_QLORA } finetune_kind;

/* Whose code runs QLoRA (--qlora-stack). QLORA_HF (the default): transformers' bitsandbytes
 * integration with PEFT as artidoro/qlora@7f4e95a6 qlora.py sets it (bnb_4bit_use_double_quant,
 * lm_head left in 16 bits by transformers' get_keys_to_not_convert, weights quantized from the
 * compute dtype).
 * QLORA_LITGPT: LitGPT's --quantize bnb.nf4 through Lightning's BitsandbytesPrecision
 * (Lightning-AI/pytorch-lightning@003e3070 src/lightning/fabric/plugins/precision/
 * bitsandbytes.py): _NF4Linear has compress_statistics=False (no double quantization), the
 * class replacement of torch.nn.Linear covers every linear including lm_head, and
 * _quantize_weight casts the weight to torch.half before quantize_4bit, so the quant state's
 * dtype is fp16; with the bitsandbytes it pins (0.42.0), whose 4-bit matmul keeps its input.
 * QLORA_HF runs today's bitsandbytes (0.43.2 or later), whose 4-bit matmul keeps no input for
 * backward (bitsandbytes@9e753741); QLORA_HF_BNB042 is QLORA_HF with an earlier one, as
 * artidoro/qlora pinned (0.40.0): the inputs are kept (memory.c, memory_held_inputs). */
typedef enum { QLORA_HF, QLORA_LITGPT, QLORA_HF_BNB042 } qlora_stack_kind;

/* Which linear layers get adapters: the mixer's (attention's four; an SSM's or linear
 * attention's projections), the MLP's (experts, shared experts and router too), both, or only
 * q and v (PEFT's default target_modules for Llama, LitGPT's lora_query + lora_value). */
enum { LORA_ATTN = 1, LORA_MLP = 2, LORA_ALL = 3, LORA_QV = 4 };

/* Adapter parameters of a mean block: r (d_in + d_out) for each targeted linear (LoRA, Hu et al.
 * 2021, arXiv 2106.09685: W + B A with A r x d_in, B d_out x r), over the block classes the
 * model stacks (param_counts' lora_fan_*: a hybrid's SSM layers their projections, DeepSeek's
 * first dense layers their MLP); routed experts each get theirs. Times num_layers: the model's.
 * 0 for a --params model. Pure. */
double finetune_adapters_per_layer(const model *m, const param_counts *pc, int64_t rank, int targets);

/* Bytes per parameter of QLoRA's frozen weights: 4-bit NormalFloat with double quantization,
 * 4 + 8/64 + 32/(64 x 256) bits (Dettmers et al. 2023, arXiv 2305.14314, section 3: "0.127
 * bits per parameter" of quantization constants). Never fails. */
double finetune_nf4_bytes(void);

/* Bytes per parameter of t's NF4 weights: finetune_nf4_bytes with double quantization (QLORA_HF),
 * 4 + 32/64 bits without (QLORA_LITGPT: one fp32 absmax per 64-weight block, bitsandbytes
 * quantize_4bit with compress_statistics=False). Never fails. */
double finetune_nf4_width(const training *t);

/* Whether t's QLoRA stores the untied LM head in NF4 too (QLORA_LITGPT). Never fails. */
bool finetune_quantized_head(const training *t);

/* Bytes per element of the dequantized weight in flight: the compute dtype's copy, plus the
 * dequantized tensor itself when the quant state's dtype differs (QLORA_LITGPT quantizes from
 * fp16: bitsandbytes@0.42.0 MatMul4Bit.forward, F.dequantize_4bit(B, quant_state).to(A.dtype),
 * dequantize_4bit allocating out in quant_state.dtype; both live during the matmul). `act` is
 * the compute dtype's width. Never fails. */
double finetune_dequant_bytes(const training *t, double act);

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
