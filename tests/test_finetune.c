/* test_finetune.c -- fine-tuning memory against published recipes: QLoRA's 65B claim, LitGPT's table. */
#include <math.h>
#include <stdlib.h>

#include "core/finetune.h"
#include "core/framework.h"
#include "core/sim.h"
#include "core/strategy.h"
#include "fixture_hw.h"
#include "io/model_json.h"
#include "test.h"

extern const framework fw_fsdp, fw_fsdp2, fw_megatron;

/* A loaded model and its counts; false (and a failed check) when the file does not load. */
static bool load(const char *path, model *m, param_counts *pc)
{
    zs_error e = {0};
    bool ok = model_load(path, m, &e) == ZS_OK && model_count(m, 1e5, pc, &e) == ZS_OK;
    test_report(ok, __FILE__, __LINE__, "load %s: %s", path, e.msg);
    return ok;
}

/* DDP's result (the strategy a single-GPU recipe runs) for t on hw; false when it will not run. */
static bool run(const model *m, const param_counts *pc, const hardware *hw, const training *t, result *r)
{
    sim_input in;
    zs_error e = {0};
    bool ok = sim_prepare(&in, m, pc, hw, t, &e) == ZS_OK;
    test_report(ok, __FILE__, __LINE__, "sim_prepare: %s", e.msg);
    if (ok) sim_run(&in, strategies[STRAT_DDP], 0, r);
    return ok;
}

/* QLoRA (Dettmers et al. 2023, arXiv 2305.14314, abstract: "finetune a 65B parameter model on a
 * single 48GB GPU"; 16-bit finetuning of it needs ">780GB") at its recipe's settings
 * (artidoro/qlora@7f4e95a6 scripts/finetune_guanaco_65b.sh and qlora.py defaults): huggyllama/
 * llama-65b, --bits 4 --quant_type nf4 --double_quant --bf16, --lora_r 64 --lora_modules all,
 * --gradient_checkpointing, --per_device_train_batch_size 1 --gradient_accumulation_steps 16,
 * --source_max_len 16 --target_max_len 512 (528 tokens at most), optim paged_adamw_32bit;
 * LlamaForCausalLM's fp32-upcast loss. */
static void qlora_65b(void)
{
    model m;
    param_counts pc;
    if (!load("tests/data/models/llama-65b.json", &m, &pc)) return;
    hardware hw = fixture_hw(FIXTURE_A100_NODE);
    hw.hbm_bytes = 48e9;
    training t;
    training_init(&t);
    t.finetune = FT_QLORA;
    t.lora_rank = 64;
    t.lora_targets = LORA_ALL;
    t.checkpointing = CKPT_FULL;
    t.micro_batch = 1;
    t.grad_accum = 16;
    t.seq_len = 16 + 512;
    t.optimizer = OPT_PAGED_ADAMW;
    t.loss = LOSS_EAGER;
    result r;
    if (!run(&m, &pc, &hw, &t, &r)) return;
    test_report(r.mem.fits_gpu && r.mem.total <= 48e9, __FILE__, __LINE__,
        "QLoRA 65B r 64 at the paper's settings: %.2f GB, must fit one 48 GB GPU", r.mem.total / 1e9);
    /* bf16 adapters (qlora.py casts every LoraLayer) with fp32 AdamW moments, no master copy:
     * 2 + 2 + 8 bytes per adapter element. */
    double adapters = finetune_adapters_per_layer(&m, &pc, 64, LORA_ALL) * (double)m.num_layers;
    CHECK_NEAR(r.mem.gradients, 2 * adapters, 1e-9);
    CHECK_NEAR(r.mem.optimizer_states + r.mem.paged_to_host, 8 * adapters, 1e-9);
    CHECK(r.mem.comm_buffers == 0); /* one GPU: no DDP buckets */
    CHECK(r.mem.dequantized > 0);
    /* Full fine-tuning of the same model and 16-bit LoRA do not fit. */
    t.finetune = FT_FULL;
    t.optimizer = OPT_ADAMW;
    if (run(&m, &pc, &hw, &t, &r)) CHECK(!r.mem.fits_gpu && r.mem.total > 780e9);
    t.finetune = FT_LORA;
    if (run(&m, &pc, &hw, &t, &r)) CHECK(!r.mem.fits_gpu);
}

/* Paged optimizer states move to host RAM when the GPU runs out (bitsandbytes' paged optimizers,
 * CUDA unified memory): the run fits where the same run with plain AdamW does not, the GPU holds
 * exactly its HBM, and the evicted bytes are in host memory. */
static void paged_eviction(void)
{
    model m;
    param_counts pc;
    if (!load("tests/data/models/llama-65b.json", &m, &pc)) return;
    hardware hw = fixture_hw(FIXTURE_A100_NODE);
    training t;
    training_init(&t);
    t.finetune = FT_QLORA;
    t.lora_rank = 64;
    t.checkpointing = CKPT_FULL;
    t.seq_len = 528;
    t.optimizer = OPT_PAGED_ADAMW;
    hw.hbm_bytes = 1e15;
    result big, r;
    if (!run(&m, &pc, &hw, &t, &big)) return;
    CHECK(big.mem.paged_to_host == 0);
    hw.hbm_bytes = big.mem.total - 0.5 * big.mem.optimizer_states;
    if (!run(&m, &pc, &hw, &t, &r)) return;
    CHECK(r.mem.fits_gpu);
    CHECK_NEAR(r.mem.total, hw.hbm_bytes, 1e-9);
    CHECK_NEAR(r.mem.paged_to_host, 0.5 * big.mem.optimizer_states, 1e-6);
    CHECK_NEAR(r.mem.host_per_gpu - big.mem.host_per_gpu, r.mem.paged_to_host, 1e-9);
    t.optimizer = OPT_ADAMW; /* torch AdamW on bf16 adapters: bf16 moments, never paged */
    if (run(&m, &pc, &hw, &t, &r)) CHECK(r.mem.paged_to_host == 0);
    t.optimizer = OPT_ADAM8BIT; /* bitsandbytes' 8-bit AdamW: 2 bytes + absmax per 256 */
    if (run(&m, &pc, &hw, &t, &r))
        CHECK_NEAR(r.mem.optimizer_states,
            (2 + 8.0 / 256) * finetune_adapters_per_layer(&m, &pc, 64, LORA_ALL) * (double)m.num_layers, 1e-9);
}

/* LitGPT's published peak memory (torch.cuda.max_memory_allocated, GB = 1e9) for its LoRA configs
 * (Lightning-AI/litgpt@00af8b0d config_hub/finetune/README.md; the configs at @26857050
 * config_hub/finetune/<model>/lora.yaml): precision bf16-true, lora_r 32 on query and value,
 * max_seq_length 512, no activation checkpointing, torch.optim.AdamW, one A10G; LitGPT's loss is
 * chunked_cross_entropy on 128-token LM-head chunks, which Fabric returns in fp32. Allocated memory is the total less
 * the CUDA context and the allocator's cache, which max_memory_allocated does not count. */
static void litgpt_lora(void)
{
    static const struct {
        const char *model;
        int micro_batch;
        double gb;
    } rows[] = {
        {"models/llama-2-7b.json", 2, 19.77},
        {"models/llama-3-8b.json", 1, 19.73},
        {"models/mistral-7b.json", 2, 20.66},
    };
    hardware hw = fixture_hw(FIXTURE_A100_NODE);
    hw.hbm_bytes = 24e9;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        model m;
        param_counts pc;
        if (!load(rows[i].model, &m, &pc)) continue;
        training t;
        training_init(&t);
        t.finetune = FT_LORA;
        t.lora_rank = 32;
        t.lora_targets = LORA_QV;
        t.precision = PREC_BF16_PURE;
        t.micro_batch = rows[i].micro_batch;
        t.seq_len = 512;
        t.loss = LOSS_CHUNKED;
        result r;
        if (!run(&m, &pc, &hw, &t, &r)) continue;
        double got = (r.mem.total - r.mem.cuda_context - r.mem.allocator) / 1e9;
        test_report(fabs(got / rows[i].gb - 1) <= 0.10, __FILE__, __LINE__,
            "LitGPT LoRA %s: %.2f GB allocated, published %.2f GB (%+.1f%%)", rows[i].model, got,
            rows[i].gb, (got / rows[i].gb - 1) * 100);
    }
}

/* LitGPT's QLoRA rows of the same table (@00af8b0d config_hub/finetune/README.md, 1xA10G; rows
 * of @5895df10 and @e5493986): the configs at @26857050 config_hub/finetune/<model>/qlora.yaml,
 * quantize bnb.nf4, precision bf16-true, lora_r 32 on query and value, micro_batch_size 2,
 * max_seq_length 512, no activation checkpointing; with BitsandbytesPrecision LitGPT steps the
 * adapters with bnb.optim.PagedAdamW (@5895df10 litgpt/finetune/lora.py), whose paged states
 * bitsandbytes allocates with cudaMallocManaged, outside what max_memory_allocated counts.
 * LitGPT pins bitsandbytes==0.42.0 (@5895df10 pyproject.toml), whose 4-bit matmul holds its
 * input for backward (memory.c, memory_held_inputs). */
static void litgpt_qlora(void)
{
    static const struct {
        const char *model;
        double gb;
    } rows[] = {
        {"models/llama-2-7b.json", 13.68},
        {"models/llama-3-8b.json", 17.41},
        {"models/mistral-7b.json", 14.29},
    };
    hardware hw = fixture_hw(FIXTURE_A100_NODE);
    hw.hbm_bytes = 24e9;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        model m;
        param_counts pc;
        if (!load(rows[i].model, &m, &pc)) continue;
        training t;
        training_init(&t);
        t.finetune = FT_QLORA;
        t.lora_rank = 32;
        t.lora_targets = LORA_QV;
        t.precision = PREC_BF16_PURE;
        t.optimizer = OPT_PAGED_ADAMW;
        t.micro_batch = 2;
        t.seq_len = 512;
        t.loss = LOSS_CHUNKED;
        t.qlora_stack = QLORA_LITGPT;
        result r, hf;
        if (!run(&m, &pc, &hw, &t, &r)) continue;
        /* bnb.nf4 against artidoro's NF4 with double quantization: 4.5 instead of 4.127 bits on
         * the block linears (QLoRA section 3's 0.373 bits saved), and the untied LM head in
         * 4.5 bits rather than 16; the dequantized weight in flight is the LM head (V x h, the
         * largest linear here), in fp16 and its bf16 copy. */
        double blocks = (pc.per_layer - pc.norm_per_layer) * (double)m.num_layers;
        double v_h = (double)m.vocab_size * (double)m.hidden_size;
        CHECK_NEAR(pc.lm_head, v_h, 1e-12);
        CHECK_NEAR(r.mem.dequantized, 4 * v_h, 1e-12);
        t.qlora_stack = QLORA_HF;
        if (run(&m, &pc, &hw, &t, &hf))
            CHECK_NEAR(r.mem.parameters - hf.mem.parameters,
                blocks * (4.5 - (4 + 8.0 / 64 + 32.0 / (64 * 256))) / 8 - v_h * (2 - 4.5 / 8), 1e-9);
        t.qlora_stack = QLORA_LITGPT;
        double managed = r.mem.optimizer_states * finetune_pageable_fraction(&m, 32, LORA_QV);
        double got = (r.mem.total - r.mem.cuda_context - r.mem.allocator - managed) / 1e9;
        test_report(fabs(got / rows[i].gb - 1) <= 0.10, __FILE__, __LINE__,
            "LitGPT QLoRA %s: %.2f GB allocated, published %.2f GB (%+.1f%%)", rows[i].model, got,
            rows[i].gb, (got / rows[i].gb - 1) * 100);
        /* bitsandbytes 0.42's held inputs: two sets (this micro-batch's and the previous one's)
         * of each block's four distinct linear inputs, h + (a x d) + h + i elements per token
         * (q, k, v share the attention input; gate and up the MLP's), 2 bytes each; none under
         * full recompute. */
        double set = 1024.0 * (double)(3 * m.hidden_size + m.intermediate_size) * 2 * (double)m.num_layers;
        result ck;
        t.checkpointing = CKPT_FULL;
        if (run(&m, &pc, &hw, &t, &ck)) {
            t.finetune = FT_LORA;
            result lo;
            if (run(&m, &pc, &hw, &t, &lo)) CHECK_NEAR(ck.mem.activations, lo.mem.activations, 1e-12);
        }
        t.checkpointing = CKPT_NONE;
        t.finetune = FT_LORA;
        result lora;
        if (run(&m, &pc, &hw, &t, &lora)) CHECK_NEAR(r.mem.activations - lora.mem.activations, 2 * set, 1e-9);
        /* bitsandbytes 0.43.2 and later keep nothing (bitsandbytes@9e753741 MatMul4Bit.forward:
         * "ctx.tensors = (None, B)"). */
        t.finetune = FT_QLORA;
        t.qlora_stack = QLORA_HF;
        result peft;
        if (run(&m, &pc, &hw, &t, &peft)) CHECK_NEAR(peft.mem.activations, lora.mem.activations, 1e-12);
        /* transformers + PEFT on bitsandbytes 0.42 hold the same two sets. */
        t.qlora_stack = QLORA_HF_BNB042;
        if (run(&m, &pc, &hw, &t, &peft))
            CHECK_NEAR(peft.mem.activations - lora.mem.activations, 2 * set, 1e-9);
    }
}

/* LoRA adapter counts by the model's own linears (model_tensor.fan, per block class). PEFT's
 * print_trainable_parameters for r 64 on all seven linears of Llama-2-7B reads 159,907,840 and
 * of Mistral-7B 167,772,160 (32 layers x 64 x the in + out features of q, k, v, o, gate, up,
 * down). Qwen3-30B-A3B from its config.json's shapes: 48 blocks of q 2048 -> 32 x 128, k and v
 * 2048 -> 4 x 128, o 4096 -> 2048, the router 2048 -> 128 and 128 experts of gate and up 2048 ->
 * 768 and down 768 -> 2048 (its MLP is experts only: intermediate_size 6144 is no block's). */
static void lora_counts(void)
{
    static const struct {
        const char *path;
        double expect;
    } c[] = {
        {"models/llama-2-7b.json", 159907840},
        {"models/mistral-7b.json", 167772160},
        /* Phi-3-mini: HF modeling_phi3.py's fused qkv_proj 3072 -> 3 x 3072 and gate_up_proj
         * 3072 -> 2 x 8192, one adapter each. */
        {"models/phi-3-mini.json",
            32.0 * 64 * ((3072 + 3 * 3072) + (3072 + 3072) + (3072 + 2 * 8192) + (8192 + 3072))},
        {"models/qwen3-30b-a3b.json",
            48.0 * 64 * ((2048 + 4096) + 2 * (2048 + 512) + (4096 + 2048) + (2048 + 128) +
                          128 * (2 * (2048 + 768) + (768 + 2048)))},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        model m;
        param_counts pc;
        if (!load(c[k].path, &m, &pc)) continue;
        CHECK_NEAR(finetune_adapters_per_layer(&m, &pc, 64, LORA_ALL) * (double)m.num_layers, c[k].expect, 1e-6);
    }
    /* q and v alone on Llama-2-7B: 32 x 64 x 2 x (4096 + 4096) = 33,554,432 (PEFT's default). */
    model m;
    param_counts pc;
    if (load("models/llama-2-7b.json", &m, &pc))
        CHECK_NEAR(finetune_adapters_per_layer(&m, &pc, 64, LORA_QV) * 32, 33554432, 1e-6);
}

/* PEFT's README table (huggingface/peft@73d7224b README.md, "PEFT-LoRA PyTorch" column, A100 80GB):
 * bigscience/bloomz-7b1 LoRA "32GB GPU", the peak its example script prints (@73d7224b
 * examples/causal_language_modeling/pet_lora_clm_accelerate_ds_zero3_offload.py: TorchTracemalloc,
 * torch.cuda.max_memory_allocated in MiB; from_pretrained in fp32, LoraConfig r 8 on bloom's fused
 * query_key_value, batch_size 8, max_length 64, torch.optim.AdamW, HF's fp32 loss). The model
 * counts bloom-7b1's 7,069,016,064 parameters; the fused q|k|v linear's adapter, r (h + 3h), is
 * --lora-targets qv's r ((h + q) + (h + kv)) for q = kv = h. */
static void peft_bloomz(void)
{
    model m;
    param_counts pc;
    if (!load("tests/data/models/bloomz-7b1.json", &m, &pc)) return;
    CHECK_NEAR(pc.total, 7069016064.0, 1e-12);
    hardware hw = fixture_hw(FIXTURE_A100_NODE);
    training t;
    training_init(&t);
    t.finetune = FT_LORA;
    t.lora_rank = 8;
    t.lora_targets = LORA_QV;
    t.precision = PREC_FP32;
    t.micro_batch = 8;
    t.seq_len = 64;
    t.loss = LOSS_EAGER;
    result r;
    if (!run(&m, &pc, &hw, &t, &r)) return;
    double got = (r.mem.total - r.mem.cuda_context - r.mem.allocator) / (1024.0 * 1024 * 1024);
    test_report(fabs(got / 32 - 1) <= 0.10, __FILE__, __LINE__,
        "PEFT bloomz-7b1 LoRA: %.2f GiB allocated, published 32 GB (MiB / 1024) (%+.1f%%)", got,
        (got / 32 - 1) * 100);
}

/* The loss follows the model code, not the sharding: FSDP1 (HF model code) and FSDP2
 * (torchtitan) keep the same fp32-upcast loss tensors, 12 bytes per logit at backward's start
 * (log_softmax's fp32 output, the incoming and the outgoing fp32 gradient); Megatron's in-place
 * vocab-parallel cross entropy one fp32 copy; --loss overrides the framework's. */
static void loss_per_framework(void)
{
    model m;
    param_counts pc;
    if (!load("models/llama-2-7b.json", &m, &pc)) return;
    hardware hw = fixture_hw(FIXTURE_A100_NODE);
    /* Megatron's factor 1.101 over the fixture's GEMMs at the peak (1) would pass it (refused);
     * the loss's bytes do not read the rate. */
    hw.matmul_max_fraction = 0.65;
    training t;
    training_init(&t);
    t.gpus = 8;
    t.seq_len = 4096;
    double logits = 4096.0 * 32000;
    result r1, r2, rm;
    t.framework = &fw_fsdp;
    bool ok = run(&m, &pc, &hw, &t, &r1);
    t.framework = &fw_fsdp2;
    ok = run(&m, &pc, &hw, &t, &r2) && ok;
    t.framework = &fw_megatron;
    ok = run(&m, &pc, &hw, &t, &rm) && ok;
    if (!ok) return;
    CHECK_NEAR(r1.mem.logits, 12 * logits, 1e-12);
    CHECK_NEAR(r2.mem.logits, r1.mem.logits, 1e-12);
    CHECK_NEAR(rm.mem.logits, 4 * logits, 1e-12);
    t.loss = LOSS_CHUNKED_FP32; /* torchtune: bf16 chunks and their fp32 log-softmax */
    if (run(&m, &pc, &hw, &t, &rm)) CHECK_NEAR(rm.mem.logits, 6 * logits, 1e-12);
    /* Liger's fused linear cross entropy: no whole logits; the head input's gradient and one
     * chunk of about tokens x hidden logits, both bf16. */
    t.loss = LOSS_FUSED_LINEAR;
    if (run(&m, &pc, &hw, &t, &rm)) CHECK_NEAR(rm.mem.logits, 2 * 2 * 4096.0 * 4096, 1e-12);
    /* flash-attn's fused cross entropy (LLM Foundry's MPT): the bf16 logits it saves and the new
     * bf16 gradient its backward writes (inplace_backward off): 2 + 2 bytes; fp16 the same. */
    t.loss = LOSS_FLASH;
    if (run(&m, &pc, &hw, &t, &rm)) CHECK_NEAR(rm.mem.logits, 4 * logits, 1e-12);
}

void suite_finetune(void)
{
    RUN_TEST(qlora_65b);
    RUN_TEST(paged_eviction);
    RUN_TEST(litgpt_lora);
    RUN_TEST(litgpt_qlora);
    RUN_TEST(peft_bloomz);
    RUN_TEST(lora_counts);
    RUN_TEST(loss_per_framework);
}
