/* training.c -- training configuration defaults, checks and the model-state byte table. */
#include "core/training.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/finetune.h"
#include "core/units.h"

void training_init(training *t)
{
    memset(t, 0, sizeof *t);
    t->gpus = 1;
    t->tp = t->pp = t->cp = t->ep = t->virtual_stages = 1;
    t->moe_imbalance = 1;
    t->micro_batch = 1;
    t->seq_len = 2048;
    t->grad_accum = 1;
    t->precision = PREC_BF16;
    t->optimizer = OPT_ADAMW;
    t->checkpointing = CKPT_NONE;
    t->flash_attention = true;
    /* DeepSpeed defaults, deepspeed/runtime/zero/config.py (DeepSpeedZeroConfig):
     * reduce_bucket_size 5e8, allgather_bucket_size 5e8, stage3_prefetch_bucket_size 5e7,
     * stage3_max_live_parameters 1e9, stage3_param_persistence_threshold 1e5. */
    t->reduce_bucket = 5e8;
    t->allgather_bucket = 5e8;
    t->prefetch_bucket = 5e7;
    t->max_live_params = 1e9;
    t->persistence_threshold = 1e5;
    t->overlap_comm = -1;
    t->tp_comm_overlap = -1;
    t->offload_act_sync = -1;
    t->ckpt_in_unit = -1;
    t->step_overhead = -1;
    /* LoRA rank 16 on every linear layer: QLoRA's recommendation to adapt all linear layers
     * (Dettmers et al. 2023, section 4); r matters little there (their figure 4). */
    t->lora_rank = 16;
    t->lora_targets = 3;
    /* DeepSpeed defaults, deepspeed/runtime/zero/config.py: sub_group_size 1e9;
     * deepspeed/runtime/zero/offload_config.py: pipeline_read and pipeline_write false. */
    t->sub_group_size = 1e9;
    /* PyTorch DistributedDataParallel(bucket_cap_mb=25, gradient_as_bucket_view=False). */
    t->ddp_bucket_bytes = 25.0 * 1024 * 1024;
    t->ddp_bucket_view = false;
}

int64_t training_dp(const training *t)
{
    int64_t mp = t->tp * t->pp * t->cp;
    return mp > 0 ? t->gpus / mp : 0;
}

/* Elements a bucket or threshold may hold; ELEMS_MAX_TEXT is how messages write it. */
#define ELEMS_MAX 1e15
#define STR_(x) #x
#define STR(x) STR_(x)
#define ELEMS_MAX_TEXT STR(ELEMS_MAX)

static const flag_choice precision_choices[] = {{"fp32", PREC_FP32}, {"fp16", PREC_FP16}, {"bf16", PREC_BF16},
    {"bf16-pure", PREC_BF16_PURE}, {"fp8", PREC_FP8}, {NULL, 0}};
static const flag_choice optimizer_choices[] = {{"adam", OPT_ADAM}, {"adamw", OPT_ADAMW}, {"sgd", OPT_SGD},
    {"adafactor", OPT_ADAFACTOR}, {"adam8bit", OPT_ADAM8BIT}, {"paged-adamw", OPT_PAGED_ADAMW},
    {"paged-adam8bit", OPT_PAGED_ADAM8BIT}, {NULL, 0}};
static const flag_choice ckpt_choices[] = {
    {"none", CKPT_NONE}, {"selective", CKPT_SELECTIVE}, {"full", CKPT_FULL}, {NULL, 0}};
const flag_choice offload_choices[] = {
    {"none", OFFLOAD_NONE}, {"cpu", OFFLOAD_CPU}, {"nvme", OFFLOAD_NVME}, {NULL, 0}};
/* finetune.h's kinds (finetune_name reads them for output) and LoRA targets. */
const flag_choice finetune_choices[] = {{"full", FT_FULL}, {"lora", FT_LORA}, {"qlora", FT_QLORA}, {NULL, 0}};
static const flag_choice target_choices[] = {
    {"attn", LORA_ATTN}, {"mlp", LORA_MLP}, {"all", LORA_ALL}, {"qv", LORA_QV}, {NULL, 0}};
/* loss_kind's names, in enum order from LOSS_EAGER (LOSS_DEFAULT has no name: no flag). */
static const flag_choice loss_choices[] = {{"eager", LOSS_EAGER}, {"chunked", LOSS_CHUNKED},
    {"chunked-fp32", LOSS_CHUNKED_FP32}, {"fused", LOSS_FUSED}, {"fused-linear", LOSS_FUSED_LINEAR},
    {"compiled", LOSS_COMPILED}, {"flash", LOSS_FLASH}, {NULL, 0}};
/* finetune.h's QLoRA stacks. */
static const flag_choice qlora_stack_choices[] = {
    {"hf", QLORA_HF}, {"litgpt", QLORA_LITGPT}, {"hf-bnb0.42", QLORA_HF_BNB042}, {NULL, 0}};
/* The adapters' element width in bytes. */
static const flag_choice adapter_choices[] = {{"bf16", 2}, {"fp16", 2}, {"fp32", 4}, {NULL, 0}};
/* Gradient bytes: "16-bit" means the working precision's width; bf16 and fp16 say the same. */
static const flag_choice grad_choices[] = {{"16-bit", 2}, {"bf16", 2}, {"fp16", 2}, {"fp32", 4}, {NULL, 0}};
static const flag_choice recompute_choices[] = {
    {"uniform", RECOMPUTE_UNIFORM}, {"block", RECOMPUTE_BLOCK}, {NULL, 0}};
/* attn_kernel's names (kernels.h) a run may choose; eager is --eager-attention. */
static const flag_choice kernel_choices[] = {{"fa2", 1}, {"fa3", 2}, {"cudnn", 3}, {"te", 4}, {NULL, 0}};
static const flag_choice on_off[] = {{"on", 1}, {"off", 0}, {"true", 1}, {"false", 0}, {NULL, 0}};
static const flag_choice placements[] = {{"inside", 1}, {"outside", 0}, {NULL, 0}};
static const flag_choice param_choices[] = {{"16-bit", 0}, {"fp32", 4}, {NULL, 0}};

#define FIELD(f) .offset = offsetof(training, f), .size = sizeof((training *)0)->f
#define WHOLE(f, lo, hi) .kind = FLAG_WHOLE, FIELD(f), .min = lo, .max = hi
#define ELEMS(f, lo) .kind = FLAG_ELEMS, FIELD(f), .min = lo, .max = ELEMS_MAX
#define FACTOR(f, lo, hi) .kind = FLAG_FACTOR, FIELD(f), .min = lo, .max = hi
#define CHOICE(f, table) .kind = FLAG_CHOICE, FIELD(f), .choices = table
#define SWITCH(f, k) .kind = k, FIELD(f)
/* Buckets split traffic into calls: at least one element each, or the call count explodes. */
#define ROW(id) [(id)-TRAINING_FLAG_FIRST]
const flag_desc training_flags[TRAINING_FLAG_COUNT] = {
    ROW(OPT_GPUS) = {"gpus", "N", "total GPUs (default 1)", WHOLE(gpus, 1, 10000000), .sweep = true},
    ROW(OPT_GPN) = {"gpus-per-node", "N", "GPUs per node (default: the profile's)",
        WHOLE(gpus_per_node, 1, 4096), .zero_unset = true, .sweep = true},
    ROW(OPT_SHARD_GROUP) = {"shard-group", "N",
        "hybrid sharding: shard over N data-parallel ranks, replicate across (HSDP, MiCS)",
        WHOLE(shard_group, 1, 10000000), .zero_unset = true},
    ROW(OPT_HPZ) = {"zero-hpz", "N",
        "ZeRO++ hpZ: secondary parameter partition over N ranks (a node); 1 = off, the default, as "
        "DeepSpeed's zero_hpz_partition_size",
        WHOLE(hpz_group, 1, 10000000), .zero_unset = true},
    ROW(OPT_QWZ) = {"zero-quantized-weights", NULL, "ZeRO++ qwZ: int8 parameter all-gathers",
        SWITCH(quant_weights, FLAG_ON)},
    ROW(OPT_QGZ) = {"zero-quantized-gradients", NULL, "ZeRO++ qgZ: int4 gradient reduce-scatters",
        SWITCH(quant_grads, FLAG_ON)},
    ROW(OPT_GEMM_EFF) = {"gemm-efficiency", "X",
        "override the framework's GEMM efficiency (x the profile's matmul fraction)",
        FACTOR(gemm_efficiency, 0, 2), .min_open = true, .expect = "a factor in (0, 2], e.g. 0.9"},
    ROW(OPT_PRECISION) = {"precision", "P", " (default bf16 mixed precision)",
        CHOICE(precision, precision_choices), .names_first = true, .sweep = true},
    ROW(OPT_OPTIMIZER) = {"optimizer", "O", " (default adamw)", CHOICE(optimizer, optimizer_choices),
        .names_first = true, .sweep = true},
    ROW(OPT_GRAD_DTYPE) = {"grad-dtype", "D",
        "16-bit (default, the ZeRO paper's) or fp32 (as Megatron keeps)", CHOICE(grad_bytes, grad_choices),
        .sweep = true},
    ROW(OPT_MICRO) = {"micro-batch", "N", "sequences per GPU per micro-batch (default 1)",
        WHOLE(micro_batch, 1, 1000000), .sweep = true},
    ROW(OPT_SEQ) = {"seq-len", "N",
        "tokens per sequence (default 2048; 4k = 4Ki = 4096 and 1M = 1,048,576 as context lengths are "
        "counted; --tokens stays decimal: 1T = 10^12)",
        WHOLE(seq_len, 1, 100000000), .sweep = true, .tokens_binary = true},
    ROW(OPT_ACCUM) = {"grad-accum", "N", "micro-batches per step (default 1)", WHOLE(grad_accum, 1, 1000000),
        .sweep = true},
    ROW(OPT_TP) = {"tp", "N", "tensor-parallel degree (default 1)", WHOLE(tp, 1, 4096), .sweep = true},
    ROW(OPT_PP) = {"pp", "N", "pipeline-parallel degree (default 1)", WHOLE(pp, 1, 4096), .sweep = true},
    ROW(OPT_CP) = {"cp", "N",
        "context-parallel degree: the sequence split over N ranks, ring attention (default 1)",
        WHOLE(cp, 1, 4096)},
    ROW(OPT_EP) = {"ep", "N",
        "expert-parallel degree: routed experts split over N ranks, all-to-all dispatch (default 1)",
        WHOLE(ep, 1, 65536)},
    ROW(OPT_ETP) = {"expert-tp", "N",
        "expert tensor-parallel degree: each expert split over N of the TP ranks (Megatron-Core's "
        "--expert-tensor-parallel-size; default TP under megatron, 1 elsewhere)",
        WHOLE(etp, 1, 4096), .zero_unset = true},
    ROW(OPT_MOE_IMBALANCE) = {"moe-imbalance", "X",
        "busiest expert rank's tokens over the mean, >= 1 (default 1: balanced)",
        FACTOR(moe_imbalance, 1, 1000), .expect = "a factor from 1 (balanced) to 1000"},
    ROW(OPT_VSTAGES) = {"virtual-stages", "N", "interleaved pipeline chunks per stage (default 1)",
        WHOLE(virtual_stages, 1, 1024), .sweep = true},
    ROW(OPT_CKPT) = {"checkpointing", "C", " activation recomputation (default none)",
        CHOICE(checkpointing, ckpt_choices), .names_first = true, .sweep = true},
    ROW(OPT_SP) = {"sequence-parallel", NULL, "Megatron sequence parallelism (with --tp)",
        SWITCH(sequence_parallel, FLAG_ON)},
    ROW(OPT_EAGER) = {"eager-attention", NULL, "store the s^2 attention matrix (default: flash attention)",
        SWITCH(flash_attention, FLAG_OFF)},
    ROW(OPT_FINETUNE) = {"finetune", "MODE",
        ": train everything, LoRA adapters on a frozen 16-bit base, or on a 4-bit NF4 base (QLoRA)",
        CHOICE(finetune, finetune_choices), .names_first = true},
    ROW(OPT_LORA_RANK) = {"lora-rank", "R", "LoRA rank r (default 16)", WHOLE(lora_rank, 1, 65536)},
    ROW(OPT_LORA_TARGETS) = {"lora-targets", "T",
        ": which linear layers get adapters (default all, as QLoRA)", CHOICE(lora_targets, target_choices),
        .names_first = true},
    ROW(OPT_OFF_OPT) = {"offload-optimizer", "D", " (ZeRO-Offload)",
        CHOICE(offload_optimizer, offload_choices), .names_first = true, .sweep = true},
    ROW(OPT_OFF_PARAM) = {"offload-params", "D", " (ZeRO-3 only, ZeRO-Infinity)",
        CHOICE(offload_params, offload_choices), .names_first = true, .sweep = true},
    ROW(OPT_REDUCE_BUCKET) = {"reduce-bucket", "ELEMS", "DeepSpeed reduce_bucket_size (default 5e8)",
        ELEMS(reduce_bucket, 1), .sweep = true},
    ROW(OPT_AG_BUCKET) = {"allgather-bucket", "ELEMS", "DeepSpeed allgather_bucket_size (default 5e8)",
        ELEMS(allgather_bucket, 1), .sweep = true},
    ROW(OPT_PREFETCH) = {"prefetch-bucket", "ELEMS", "DeepSpeed stage3_prefetch_bucket_size (default 5e7)",
        ELEMS(prefetch_bucket, 0), .sweep = true},
    ROW(OPT_MAX_LIVE) = {"max-live-params", "ELEMS", "DeepSpeed stage3_max_live_parameters (default 1e9)",
        ELEMS(max_live_params, 0), .sweep = true},
    ROW(OPT_PERSIST) = {"persistence-threshold", "ELEMS",
        "DeepSpeed stage3_param_persistence_threshold (default 1e5)", ELEMS(persistence_threshold, 0),
        .sweep = true},
    ROW(OPT_OVERLAP) = {"overlap-comm", NULL,
        "DeepSpeed overlap_comm (default: off for stages 1-2, on for 3)", CHOICE(overlap_comm, on_off),
        .listed = 2, .sweep = true},
    ROW(OPT_BUCKET_VIEW) = {"ddp-bucket-view", NULL,
        "PyTorch DDP gradient_as_bucket_view=True (no bucket copy)", SWITCH(ddp_bucket_view, FLAG_ON)},
    ROW(OPT_LOSS) = {"loss", "L",
        ": how the loss keeps the logits: fp32 upcast (HF, torchtitan), fp32 chunks (LitGPT; torchtune's "
        "16-bit chunks upcast each; compiled), fused vocab-parallel (Megatron), fused with the LM head "
        "(Liger), flash-attn's fused kernel on 16-bit logits (LLM Foundry's MPT); default the framework's",
        CHOICE(loss, loss_choices), .names_first = true},
    ROW(OPT_ADAPTER_DTYPE) = {"adapter-dtype", "D",
        "LoRA adapters' dtype (default: bf16 for qlora as artidoro/qlora casts them, bf16 under bf16-pure, "
        "else fp32 as PEFT's autocast_adapter_dtype)",
        CHOICE(adapter_bytes, adapter_choices), .listed = 3},
    ROW(OPT_RECOMPUTE_LAYERS) = {"recompute-layers", "N",
        "with --checkpointing full: recompute N layers per stage (Megatron --recompute-num-layers; "
        "default 0: all)",
        WHOLE(recompute_layers, 1, 100000), .zero_unset = true, .sweep = true},
    ROW(OPT_RECOMPUTE_METHOD) = {"recompute-method", "M",
        ": uniform (chunks of N layers, one input stored per chunk) or block (the first N layers of "
        "each stage; Megatron's --recompute-method; default uniform)",
        CHOICE(recompute_method, recompute_choices), .names_first = true},
    ROW(OPT_OFFLOAD_ACT) = {"activation-offload", NULL,
        "checkpointed layer inputs kept in host memory, copied over PCIe (Axolotl gradient_checkpointing: "
        "offload)",
        SWITCH(offload_activations, FLAG_ON)},
    ROW(OPT_OFFLOAD_ACT_SYNC) = {"activation-offload-sync", NULL,
        "with --activation-offload: the copies block the compute stream, as DeepSpeed's "
        "cpu_checkpointing does (default: on under deepspeed, off elsewhere: a side stream)",
        CHOICE(offload_act_sync, on_off), .listed = 2},
    ROW(OPT_CKPT_PLACEMENT) = {"checkpoint-placement", "P",
        ": with --checkpointing full under sharded parameters, where the checkpoint sits: inside "
        "the sharding unit (FSDP(checkpoint(block)): accelerate's fsdp_activation_checkpointing, "
        "Composer, torchtitan; the unit's backward gather serves the recompute) or outside it "
        "(checkpoint(FSDP(block)): Hugging Face gradient_checkpointing; the recompute gathers "
        "again). Default: the framework's",
        CHOICE(ckpt_in_unit, placements), .names_first = true},
    ROW(OPT_REDUCE_DTYPE) = {"reduce-dtype", "D",
        "16-bit or fp32: the dtype gradients are reduced in, apart from how they are stored "
        "(DeepSpeed's communication_data_type, FSDP's reduce_dtype, torchtitan's mixed_precision_reduce; "
        "default the framework's: fp32 under fsdp2 and megatron, else the gradients' own)",
        CHOICE(reduce_bytes, grad_choices), .sweep = true},
    ROW(OPT_PARAM_DTYPE) = {"param-dtype", "D",
        ": mixed precision's parameters: 16-bit copies beside an fp32 master (default: DeepSpeed, "
        "Megatron, FSDP MixedPrecision(param_dtype=bf16)) or fp32 alone, cast to 16 bits per use by "
        "torch autocast (FSDP without param_dtype: Composer's mixed_precision DEFAULT): gathers move "
        "4 bytes, each forward casts every weight; gradients stored fp32, reduced as --reduce-dtype "
        "says (default 16-bit, FSDP's reduce_dtype)",
        CHOICE(param_bytes, param_choices), .names_first = true},
    ROW(OPT_BF16_OPTIMIZER) = {"bf16-optimizer", NULL,
        "DeepSpeed's BF16_Optimizer, its own ZeRO stage 1 (Megatron-DeepSpeed, BLOOM; a ds_config's bf16 "
        "with data_types.grad_accum_dtype fp32 at stage 1): fp32 gradients accumulated whole beside the "
        "bf16 ones, all-reduced in bf16 at the step, the optimizer states sharded",
        SWITCH(bf16_optimizer, FLAG_ON)},
    ROW(OPT_DOC_LEN) = {"doc-len", "N",
        "packed sequences of documents of N tokens on average, attention within each (flash-attention "
        "varlen; default: one document per sequence)",
        WHOLE(doc_len, 1, 100000000), .zero_unset = true, .tokens_binary = true, .sweep = true},
    ROW(OPT_PP_FIRST) = {"pp-first-layers", "N",
        "layers on the first pipeline stage, the rest split evenly (Megatron's "
        "--decoder-first-pipeline-num-layers; default: an even split)",
        WHOLE(pp_first_layers, 1, 100000), .zero_unset = true, .sweep = true},
    ROW(OPT_PP_LAST) = {"pp-last-layers", "N",
        "layers on the last pipeline stage (Megatron's --decoder-last-pipeline-num-layers)",
        WHOLE(pp_last_layers, 1, 100000), .zero_unset = true, .sweep = true},
    ROW(OPT_TP_OVERLAP) = {"tp-comm-overlap", NULL,
        "overlap TP communication with GEMMs, Transformer Engine userbuffers (Megatron/NeMo "
        "--tp-comm-overlap; needs --sequence-parallel; default: the framework's, off)",
        CHOICE(tp_comm_overlap, on_off), .listed = 2, .sweep = true},
    ROW(OPT_QLORA_STACK) = {"qlora-stack", "S",
        ": whose 4-bit code path --finetune qlora runs: transformers + PEFT as artidoro/qlora (NF4 with "
        "double quantization, lm_head 16-bit) with today's bitsandbytes (default hf), the same with "
        "bitsandbytes before 0.43.2 that keeps the 4-bit matmuls' inputs (hf-bnb0.42), or LitGPT's "
        "bnb.nf4 (no double quantization, lm_head NF4, quantized from fp16; bitsandbytes 0.42)",
        CHOICE(qlora_stack, qlora_stack_choices), .names_first = true},
    ROW(OPT_ATTN_KERNEL) = {"attention-kernel", "K",
        ": FlashAttention-2 (PyTorch SDPA's flash), FlashAttention-3 (Hopper), cuDNN fused attention, "
        "or te (Transformer Engine's own pick: cuDNN on Hopper, FA2 before); default the framework's, "
        "fa2 for all of them",
        CHOICE(attention_kernel, kernel_choices), .names_first = true, .sweep = true},
    ROW(OPT_MB_GROUP) = {"microbatch-group", "N",
        "with --virtual-stages: micro-batches each virtual stage runs in a row (Megatron's "
        "--microbatch-group-size-per-virtual-pipeline-stage; default --pp)",
        WHOLE(microbatch_group, 1, 1000000), .zero_unset = true, .sweep = true},
    ROW(OPT_GEMM_SHAPES) = {"gemm-shapes", NULL,
        "each GEMM (QKV, projection, MLP, experts, LM head; forward, dgrad, wgrad) at its shape's "
        "measured cuBLAS rate on Hopper, XLA's sm_90 table, instead of one efficiency for all "
        "(default off: it moved the held-out validation half from 6.12% to 6.16%)",
        CHOICE(gemm_shapes, on_off), .listed = 2, .sweep = true},
};

/* The rows training_validate checks on every evaluation: those with a range (FLAG_WHOLE,
 * FLAG_ELEMS), listed so the check does not walk all the rows on plan's hot path.
 * tests/test_cli.c checks that this list is exactly the table's ranged rows. */
#define R(id) (id - TRAINING_FLAG_FIRST)
const unsigned char training_ranged_rows[] = {R(OPT_GPUS), R(OPT_GPN), R(OPT_SHARD_GROUP), R(OPT_HPZ),
    R(OPT_MICRO), R(OPT_SEQ), R(OPT_ACCUM), R(OPT_TP), R(OPT_PP), R(OPT_CP), R(OPT_EP), R(OPT_ETP),
    R(OPT_VSTAGES), R(OPT_LORA_RANK), R(OPT_REDUCE_BUCKET), R(OPT_AG_BUCKET), R(OPT_PREFETCH),
    R(OPT_MAX_LIVE), R(OPT_PERSIST), R(OPT_RECOMPUTE_LAYERS), R(OPT_DOC_LEN), R(OPT_PP_FIRST),
    R(OPT_PP_LAST), R(OPT_MB_GROUP)};
#undef R
#define RANGED_COUNT ((int)sizeof training_ranged_rows)
const int training_ranged_count = RANGED_COUNT;

/* Fields no flag sets that training_validate checks too (ds_config and PyTorch defaults). */
static const flag_desc unflagged[] = {
    {"DDP bucket_cap", NULL, NULL, ELEMS(ddp_bucket_bytes, 1)},
    {"sub_group_size", NULL, NULL, ELEMS(sub_group_size, 1)},
};
#undef WHOLE
#undef ELEMS
#undef ROW
#undef FACTOR
#undef CHOICE
#undef SWITCH

const flag_desc *training_flag(int id)
{
    if (id < TRAINING_FLAG_FIRST || id >= TRAINING_FLAG_END) return NULL;
    const flag_desc *d = &training_flags[id - TRAINING_FLAG_FIRST];
    return d->name ? d : NULL;
}

const char *flag_choice_names(const flag_choice *choices, int listed, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; choices[i].name && (listed == 0 || i < listed) && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", choices[i].name);
    return buf;
}

static int lookup(const flag_choice *c, const char *s)
{
    for (int i = 0; s && c[i].name; i++)
        if (strcmp(c[i].name, s) == 0) return c[i].value;
    return -1;
}

static int set_choice(training *t, const flag_desc *d, const char *v, zs_error *err)
{
    int value = lookup(d->choices, v);
    if (value >= 0) {
        if (d->size != sizeof(int))
            return zs_fail(err, ZS_ERR_USAGE, "internal: --%s is no int field", d->name);
        memcpy((char *)t + d->offset, &value, sizeof(int));
        return ZS_OK;
    }
    char names[160];
    return zs_fail(err, ZS_ERR_USAGE, "--%s: \"%s\" is not one of %s", d->name, v,
        flag_choice_names(d->choices, d->listed, names, sizeof names));
}

int training_flag_set(training *t, const flag_desc *d, const char *v, zs_error *err)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", d->name);
    char *field = (char *)t + d->offset;
    double x;
    int64_t n;
    bool on = d->kind == FLAG_ON;
    switch (d->kind) {
    case FLAG_WHOLE:
        if (d->tokens_binary ? units_parse_seq(v, flag, (int64_t)d->min, (int64_t)d->max, &n, err)
                             : units_parse_int(v, flag, (int64_t)d->min, (int64_t)d->max, &n, err))
            return err->code;
        memcpy(field, &n, sizeof n);
        return ZS_OK;
    case FLAG_ELEMS:
        if (units_parse_count(v, flag, &x, err)) return err->code;
        memcpy(field, &x, sizeof x);
        return ZS_OK;
    case FLAG_FACTOR:
        if (units_parse_count(v, flag, &x, err)) return err->code;
        if (!((d->min_open ? x > d->min : x >= d->min) && x <= d->max))
            return zs_fail(err, ZS_ERR_USAGE, "%s: expected %s", flag, d->expect);
        memcpy(field, &x, sizeof x);
        return ZS_OK;
    case FLAG_CHOICE: return set_choice(t, d, v, err);
    case FLAG_ON:
    case FLAG_OFF: memcpy(field, &on, sizeof on); return ZS_OK;
    }
    return zs_fail(err, ZS_ERR_USAGE, "internal: %s has no kind", flag);
}

void training_flag_copy(training *dst, const training *src, const flag_desc *d)
{
    memcpy((char *)dst + d->offset, (const char *)src + d->offset, d->size);
}

/* Whether row d's field in t is in its range (rows without one always are). Small enough to
 * inline: training_validate runs once per evaluation, on plan's hot path. */
static inline bool in_range(const training *t, const flag_desc *d)
{
    const char *field = (const char *)t + d->offset;
    if (d->kind == FLAG_WHOLE) {
        int64_t v;
        memcpy(&v, field, sizeof v);
        return (v >= (int64_t)d->min && v <= (int64_t)d->max) || (v == 0 && d->zero_unset);
    }
    if (d->kind == FLAG_ELEMS) {
        double v;
        memcpy(&v, field, sizeof v);
        return v >= d->min && v <= d->max;
    }
    return true;
}

/* The message for row d's field in t being out of range. Returns ZS_ERR_USAGE. */
static int range_fail(const training *t, const flag_desc *d, const char *prefix, zs_error *err)
{
    const char *field = (const char *)t + d->offset;
    if (d->kind == FLAG_WHOLE) {
        int64_t v;
        memcpy(&v, field, sizeof v);
        return zs_fail(err, ZS_ERR_USAGE, "%s%s: %lld is out of range (expected %lld to %lld)", prefix,
            d->name, (long long)v, (long long)d->min, (long long)d->max);
    }
    double v;
    memcpy(&v, field, sizeof v);
    return zs_fail(err, ZS_ERR_USAGE, "%s%s: %g is out of range (expected %g to " ELEMS_MAX_TEXT " elements)",
        prefix, d->name, v, d->min);
}

int training_validate(const training *t, zs_error *err)
{
    /* Unrolled, every row's kind, offset and bounds are constants the compiler folds into
     * plain comparisons (it runs once per evaluation: callgrind counts about 150 instructions
     * a call, against 95 for the hand-written checks it replaced). */
#pragma GCC unroll 64
    for (int k = 0; k < RANGED_COUNT; k++) {
        const flag_desc *d = &training_flags[training_ranged_rows[k]];
        if (!in_range(t, d)) return range_fail(t, d, "--", err);
    }
    if (t->gpus % (t->tp * t->pp * t->cp) != 0)
        return t->cp > 1
            ? zs_fail(err, ZS_ERR_USAGE, "--gpus %lld is not a multiple of --tp %lld x --pp %lld x --cp %lld",
                  (long long)t->gpus, (long long)t->tp, (long long)t->pp, (long long)t->cp)
            : zs_fail(err, ZS_ERR_USAGE, "--gpus %lld is not a multiple of --tp %lld x --pp %lld",
                  (long long)t->gpus, (long long)t->tp, (long long)t->pp);
    if (t->cp > 1 && t->seq_len % t->cp != 0)
        return zs_fail(err, ZS_ERR_USAGE, "--seq-len %lld is not a multiple of --cp %lld",
            (long long)t->seq_len, (long long)t->cp);
    /* Megatron-LM asserts "Tensor parallel communication/GEMM overlap can happen only when
     * sequence parallelism is enabled" (megatron/training/arguments.py). */
    if (t->tp_comm_overlap == 1 && t->tp > 1 && !t->sequence_parallel)
        return zs_fail(err, ZS_ERR_USAGE, "--tp-comm-overlap needs --sequence-parallel (Megatron-LM and "
            "Transformer Engine overlap only the sequence-parallel all-gather and reduce-scatter)");
    if (t->param_bytes == 4 && t->precision != PREC_BF16 && t->precision != PREC_FP16)
        return zs_fail(err, ZS_ERR_USAGE,
            "--param-dtype fp32 is autocast over fp32 parameters: it needs --precision bf16 or fp16 "
            "(got %s)",
            precision_name(t->precision));
    if (t->param_bytes == 4 && t->finetune != FT_FULL)
        return zs_fail(err, ZS_ERR_USAGE,
            "--param-dtype fp32 with --finetune: the adapters' dtype is --adapter-dtype's, the frozen "
            "weights' the precision's");
    if (t->grad_bytes != 0 && t->grad_bytes != 2 && t->grad_bytes != 4)
        return zs_fail(err, ZS_ERR_USAGE, "--grad-dtype: expected 16-bit or fp32");
    for (size_t i = 0; i < sizeof unflagged / sizeof unflagged[0]; i++)
        if (!in_range(t, &unflagged[i])) return range_fail(t, &unflagged[i], "", err);
    return ZS_OK;
}

int training_validate_batch(const training *t, zs_error *err)
{
    /* The ranged rows of the three fields, in training_validate's order; none of its other
     * checks reads them (the GPU, sequence and overlap rules, the unflagged rows). */
#pragma GCC unroll 64
    for (int k = 0; k < RANGED_COUNT; k++) {
        const flag_desc *d = &training_flags[training_ranged_rows[k]];
        if (d->offset != offsetof(training, micro_batch) && d->offset != offsetof(training, grad_accum) &&
            d->offset != offsetof(training, checkpointing))
            continue;
        if (!in_range(t, d)) return range_fail(t, d, "--", err);
    }
    return ZS_OK;
}

int training_check_group(int64_t group, int64_t dpc, const char *what, int code, zs_error *err)
{
    if (group <= 0 || (group <= dpc && dpc % group == 0)) return ZS_OK;
    return zs_fail(err, code, "%s %lld does not divide DP x CP = %lld (a group must divide the data-parallel "
        "ranks and not exceed them)", what, (long long)group, (long long)dpc);
}

byte_table training_bytes(const training *t)
{
    /* Mixed precision (ZeRO paper, arXiv 1910.02054 section 3.1): 16-bit params and grads,
     * fp32 master weights; Adam adds fp32 momentum and variance (K = 4 + 4 + 4 = 12).
     * SGD with momentum keeps one moment; 8-bit Adam (Dettmers et al. 2021, arXiv 2110.02861)
     * keeps two 1-byte moments; Adafactor (Shazeer & Stern 2018) factors the second moment
     * into row and column vectors and keeps no first moment, so its state is negligible per
     * parameter and counted as 0 here. */
    static const double moments[] = {
        [OPT_ADAM] = 8, [OPT_ADAMW] = 8, [OPT_SGD] = 4, [OPT_ADAFACTOR] = 0, [OPT_ADAM8BIT] = ADAM8BIT_BYTES,
        [OPT_PAGED_ADAMW] = 8, [OPT_PAGED_ADAM8BIT] = ADAM8BIT_BYTES};
    byte_table bt;
    double mom = moments[t->optimizer];
    switch (t->precision) {
    case PREC_FP32:
        bt = (byte_table){4, 4, 0, mom, 4, "fp32 params and grads, fp32 optimizer moments", 4, 4};
        break;
    case PREC_BF16_PURE:
        /* Everything in bf16, no master copy: moments in bf16 halve (8-bit Adam stays 2). */
        bt = (byte_table){2, 2, 0,
            (t->optimizer == OPT_ADAM8BIT || t->optimizer == OPT_PAGED_ADAM8BIT) ? mom : mom / 2, 2,
            "pure bf16: params, grads and moments in bf16, no fp32 master", 2, 2};
        break;
    case PREC_FP8:
        /* Transformer Engine FP8 (TE docs, "Using FP8 with Transformer Engine"): only GEMMs
         * run in FP8; parameters and gradients stay bf16 with an fp32 master and moments,
         * activations bf16 except the FP8 inputs each linear saves for backward. */
        bt = (byte_table){2, 2, 4, mom, 2,
            "FP8 GEMMs: bf16 params and grads, fp32 master + moments, FP8 linear inputs", 2, 2};
        break;
    default:
        bt = (byte_table){
            2, 2, 4, mom, 2, "mixed precision: 16-bit params and grads, fp32 master + moments", 2, 2};
        break;
    }
    if (t->grad_bytes) bt.grad = bt.reduce = t->grad_bytes;
    /* Autocast over fp32 parameters (FSDP MixedPrecision without param_dtype, plain torch AMP):
     * the fp32 tensor is the parameter and the master, its gradient comes back fp32 through the
     * cast's backward, and FSDP reduces it in reduce_dtype, the run's 16 bits, unless
     * --reduce-dtype fp32 (pytorch torch/distributed/fsdp/api.py MixedPrecision: param_dtype None
     * keeps the original dtype; mosaicml/composer@b71375a3 composer/trainer/dist_strategy.py:
     * DEFAULT sets reduce_dtype to the precision and leaves param_dtype None). */
    if (t->param_bytes == 4) {
        bt.param = bt.gather = 4;
        bt.master = 0;
        bt.grad = 4;
        bt.reduce = 2;
        bt.what = "autocast: fp32 parameters and gradients, cast to 16 bits per use";
    }
    if (t->reduce_bytes) bt.reduce = t->reduce_bytes;
    return bt;
}

/* The tables are in enum order, so a value is its row. */
const char *precision_name(precision_kind p)
{
    return precision_choices[p].name;
}
const char *optimizer_name(optimizer_kind o)
{
    return optimizer_choices[o].name;
}
const char *ckpt_name(ckpt_kind c)
{
    return ckpt_choices[c].name;
}
const char *offload_name(offload_kind o)
{
    return offload_choices[o].name;
}
const char *loss_name(loss_kind l)
{
    return l >= LOSS_EAGER && l <= LOSS_FLASH ? loss_choices[l - LOSS_EAGER].name : "default";
}
int precision_parse(const char *s)
{
    return lookup(precision_choices, s);
}
int ckpt_parse(const char *s)
{
    return lookup(ckpt_choices, s);
}
int offload_parse(const char *s)
{
    return lookup(offload_choices, s);
}
