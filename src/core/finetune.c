/* finetune.c -- adapter counts, the adapters' byte table and QLoRA's storage width. */
#include "core/finetune.h"
#include "core/minmax.h"

#include <math.h>
#include <string.h>

double finetune_adapters_per_layer(const model *m, const param_counts *pc, int64_t rank, int targets)
{
    if (m->params_only) return 0;
    double mixer = targets & LORA_ATTN ? pc->lora_fan_mixer : targets & LORA_QV ? pc->lora_fan_qv : 0;
    return (double)rank * (mixer + (targets & LORA_MLP ? pc->lora_fan_mlp : 0));
}

double finetune_nf4_bytes(void)
{
    return (4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0;
}

double finetune_nf4_width(const training *t)
{
    return t->qlora_stack == QLORA_LITGPT ? (4.0 + 32.0 / 64.0) / 8.0 : finetune_nf4_bytes();
}

bool finetune_quantized_head(const training *t)
{
    return t->finetune == FT_QLORA && t->qlora_stack == QLORA_LITGPT;
}

double finetune_dequant_bytes(const training *t, double act)
{
    /* LitGPT under fp16 compute: the .to(A.dtype) of an fp16 tensor is the tensor itself. */
    return t->qlora_stack == QLORA_LITGPT && t->precision != PREC_FP16 ? act + 2 : act;
}

/* The adapters' element width when --adapter-dtype does not say: artidoro/qlora casts every
 * LoraLayer to bf16 under --bf16 (artidoro/qlora@7f4e95a6 qlora.py, get_accelerate_model:
 * "if isinstance(module, LoraLayer): if args.bf16: module = module.to(torch.bfloat16)");
 * PEFT otherwise upcasts 16-bit adapters to fp32 (huggingface/peft@5d602fdb
 * src/peft/mapping_func.py get_peft_model(autocast_adapter_dtype=True)); a pure-16-bit or fp32
 * run (torchtune, LitGPT bf16-true) keeps the model's dtype. */
static double adapter_width(const training *t)
{
    if (t->adapter_bytes > 0) return (double)t->adapter_bytes;
    if (t->precision == PREC_FP32) return 4;
    if (t->precision == PREC_BF16_PURE) return 2;
    return t->finetune == FT_QLORA ? 2 : 4;
}

byte_table finetune_adapter_bytes(const training *t, const byte_table *base)
{
    double a = adapter_width(t), mom;
    switch (t->optimizer) {
    /* bitsandbytes' 32-bit optimizers allocate their states as float32 whatever the
     * parameter's dtype (bitsandbytes@95f9af30 bitsandbytes/optim/optimizer.py,
     * get_state_buffer(p, dtype=torch.float32)). */
    case OPT_PAGED_ADAMW: mom = 8; break;
    case OPT_ADAM8BIT:
    case OPT_PAGED_ADAM8BIT: mom = ADAM8BIT_BYTES; break;
    case OPT_ADAFACTOR: mom = 0; break;
    /* torch.optim keeps exp_avg and exp_avg_sq (SGD: the momentum buffer) as zeros_like(p),
     * in the parameter's dtype (pytorch torch/optim/adamw.py, _init_group). */
    case OPT_SGD: mom = a; break;
    default: mom = 2 * a; break;
    }
    return (byte_table){a, a, 0, mom, base->act, "LoRA adapters: own dtype, no fp32 master", a, a};
}

double finetune_largest_linear(const model *m)
{
    if (m->params_only) return 0;
    double h = (double)m->hidden_size;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double i = (double)(m->num_experts > 0 ? model_expert_width(m) : m->intermediate_size);
    if (m->dense_intermediate_size > 0) i = zs_fmax(i, (double)m->dense_intermediate_size);
    /* A fused module is one linear: q|k|v, gate|up (Phi-3). */
    double attn = m->fused_qkv ? h * (q + 2 * kv) : zs_fmax(h * q, h * kv);
    return zs_fmax(attn, h * i * (m->gated_mlp && m->fused_gate_up ? 2 : 1));
}

double finetune_linear_inputs(const model *m)
{
    if (m->params_only) return 0;
    double h = (double)m->hidden_size, q = (double)(m->num_heads * m->head_dim);
    double i = (double)m->intermediate_size;
    if (m->num_experts > 0)
        i = (double)m->experts_per_token * (double)model_expert_width(m) +
            (double)m->shared_intermediate_size;
    return h + q + h + i;
}

/* bitsandbytes pages a state tensor of at least this many elements (bitsandbytes@95f9af30
 * bitsandbytes/optim/optimizer.py get_state_buffer: "p.numel() < 1e5" gets a plain buffer). */
#define PAGED_MIN_ELEMS 1e5

/* Elements of one adapter pair (A r x d_in, B d_out x r) and the part of it that is paged. */
static void pair(double r, double din, double dout, double n, double *all, double *paged)
{
    *all += n * r * (din + dout);
    *paged += n * ((r * din >= PAGED_MIN_ELEMS ? r * din : 0) + (r * dout >= PAGED_MIN_ELEMS ? r * dout : 0));
}

double finetune_pageable_fraction(const model *m, int64_t rank, int targets)
{
    if (m->params_only) return 1;
    double r = (double)rank, h = (double)m->hidden_size, i = (double)m->intermediate_size;
    double q = (double)(m->num_heads * m->head_dim), kv = (double)(m->num_kv_heads * m->head_dim);
    double all = 0, paged = 0;
    if (targets & (LORA_ATTN | LORA_QV)) {
        pair(r, h, q, 1, &all, &paged);  /* q */
        pair(r, h, kv, 1, &all, &paged); /* v */
        if (targets & LORA_ATTN) {
            pair(r, h, kv, 1, &all, &paged); /* k */
            pair(r, q, h, 1, &all, &paged);  /* out */
        }
    }
    if (targets & LORA_MLP) {
        double experts = m->num_experts > 0 ? (double)m->num_experts : 1;
        pair(r, h, i, experts * (m->gated_mlp ? 2 : 1), &all, &paged); /* gate, up */
        pair(r, i, h, experts, &all, &paged);                          /* down */
    }
    return all > 0 ? paged / all : 1;
}

const char *finetune_name(finetune_kind k)
{
    /* The names are the --finetune flag's (training.c's choice table, in enum order). */
    return (unsigned)k <= FT_QLORA ? finetune_choices[k].name : "?";
}

const char *finetune_targets_name(int targets)
{
    return targets == LORA_ATTN ? "attn" : targets == LORA_MLP ? "mlp" : targets == LORA_QV ? "qv" : "all";
}
