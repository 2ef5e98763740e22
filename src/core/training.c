/* training.c -- training configuration defaults, checks and the model-state byte table. */
#include "core/training.h"

#include <stddef.h>
#include <string.h>

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

/* The ranges, once: X(field, flag, min, max). The tables below name the field in a message;
 * the expansion in training_validate checks them inline (plan validates every configuration it
 * tries, so the common case must not loop over tables). */
#define INT_RANGES(X)                                                                          \
    X(gpus, "--gpus", 1, 10000000) X(gpus_per_node, "--gpus-per-node", 0, 4096)               \
    X(tp, "--tp", 1, 4096) X(pp, "--pp", 1, 4096) X(cp, "--cp", 1, 4096) X(ep, "--ep", 1, 65536) \
    X(virtual_stages, "--virtual-stages", 1, 1024) X(micro_batch, "--micro-batch", 1, 1000000) \
    X(seq_len, "--seq-len", 1, 100000000) X(grad_accum, "--grad-accum", 1, 1000000)
/* Buckets split traffic into calls: at least one element each, or the call count explodes. */
#define BUCKET_RANGES(X)                                                                       \
    X(reduce_bucket, "--reduce-bucket", 1) X(allgather_bucket, "--allgather-bucket", 1)       \
    X(prefetch_bucket, "--prefetch-bucket", 0) X(max_live_params, "--max-live-params", 0)     \
    X(persistence_threshold, "--persistence-threshold", 0) X(ddp_bucket_bytes, "DDP bucket_cap", 1) \
    X(sub_group_size, "sub_group_size", 1)

#define INT_ROW(f, flag, lo, hi) {flag, offsetof(training, f), lo, hi},
#define BUCKET_ROW(f, flag, lo) {flag, offsetof(training, f), lo},
static const struct { const char *flag; size_t off; int64_t min, max; } int_ranges[] = {INT_RANGES(INT_ROW)};
static const struct { const char *flag; size_t off; double min; } bucket_ranges[] = {BUCKET_RANGES(BUCKET_ROW)};

int training_validate(const training *t, zs_error *err)
{
#define INT_OK(f, flag, lo, hi) &&t->f >= (lo) && t->f <= (hi)
#define BUCKET_OK(f, flag, lo) &&t->f >= (lo) && t->f <= 1e15
    if (1 INT_RANGES(INT_OK) BUCKET_RANGES(BUCKET_OK) && (t->grad_bytes == 0 || t->grad_bytes == 2 || t->grad_bytes == 4) &&
        t->gpus % (t->tp * t->pp * t->cp) == 0 && (t->cp == 1 || t->seq_len % t->cp == 0))
        return ZS_OK;
#undef INT_OK
#undef BUCKET_OK
    const char *base = (const char *)t;
    for (size_t i = 0; i < sizeof int_ranges / sizeof int_ranges[0]; i++) {
        int64_t v = *(const int64_t *)(base + int_ranges[i].off);
        if (v < int_ranges[i].min || v > int_ranges[i].max)
            return zs_fail(err, ZS_ERR_USAGE, "%s: %lld is out of range (expected %lld to %lld)", int_ranges[i].flag,
                           (long long)v, (long long)int_ranges[i].min, (long long)int_ranges[i].max);
    }
    if (t->gpus % (t->tp * t->pp * t->cp) != 0)
        return t->cp > 1 ? zs_fail(err, ZS_ERR_USAGE, "--gpus %lld is not a multiple of --tp %lld x --pp %lld x --cp %lld",
                                   (long long)t->gpus, (long long)t->tp, (long long)t->pp, (long long)t->cp)
                         : zs_fail(err, ZS_ERR_USAGE, "--gpus %lld is not a multiple of --tp %lld x --pp %lld",
                                   (long long)t->gpus, (long long)t->tp, (long long)t->pp);
    if (t->cp > 1 && t->seq_len % t->cp != 0)
        return zs_fail(err, ZS_ERR_USAGE, "--seq-len %lld is not a multiple of --cp %lld",
                       (long long)t->seq_len, (long long)t->cp);
    if (t->grad_bytes != 0 && t->grad_bytes != 2 && t->grad_bytes != 4)
        return zs_fail(err, ZS_ERR_USAGE, "--grad-dtype: expected 16-bit or fp32");
    for (size_t i = 0; i < sizeof bucket_ranges / sizeof bucket_ranges[0]; i++) {
        double v = *(const double *)(base + bucket_ranges[i].off);
        if (!(v >= bucket_ranges[i].min && v <= 1e15))
            return zs_fail(err, ZS_ERR_USAGE, "%s: %g is out of range (expected %g to 1e15 elements)",
                           bucket_ranges[i].flag, v, bucket_ranges[i].min);
    }
    return ZS_OK;
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
        [OPT_ADAM] = 8, [OPT_ADAMW] = 8, [OPT_SGD] = 4, [OPT_ADAFACTOR] = 0, [OPT_ADAM8BIT] = 2};
    byte_table bt;
    double mom = moments[t->optimizer];
    switch (t->precision) {
    case PREC_FP32:
        bt = (byte_table){4, 4, 0, mom, 4, "fp32 params and grads, fp32 optimizer moments"};
        break;
    case PREC_BF16_PURE:
        /* Everything in bf16, no master copy: moments in bf16 halve (8-bit Adam stays 2). */
        bt = (byte_table){2, 2, 0, t->optimizer == OPT_ADAM8BIT ? mom : mom / 2, 2,
                          "pure bf16: params, grads and moments in bf16, no fp32 master"};
        break;
    case PREC_FP8:
        /* Transformer Engine FP8 (TE docs, "Using FP8 with Transformer Engine"): only GEMMs
         * run in FP8; parameters and gradients stay bf16 with an fp32 master and moments,
         * activations bf16 except the FP8 inputs each linear saves for backward. */
        bt = (byte_table){2, 2, 4, mom, 2,
                          "FP8 GEMMs: bf16 params and grads, fp32 master + moments, FP8 linear inputs"};
        break;
    default:
        bt = (byte_table){2, 2, 4, mom, 2,
                          "mixed precision: 16-bit params and grads, fp32 master + moments"};
        break;
    }
    if (t->grad_bytes) bt.grad = t->grad_bytes;
    return bt;
}

static const char *const precision_names[] = {"fp32", "fp16", "bf16", "bf16-pure", "fp8", NULL};
static const char *const optimizer_names[] = {"adam", "adamw", "sgd", "adafactor", "adam8bit", NULL};
static const char *const ckpt_names[] = {"none", "selective", "full", NULL};
static const char *const offload_names[] = {"none", "cpu", "nvme", NULL};

static int lookup(const char *const *names, const char *s)
{
    for (int i = 0; s && names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

const char *precision_name(precision_kind p) { return precision_names[p]; }
const char *optimizer_name(optimizer_kind o) { return optimizer_names[o]; }
const char *ckpt_name(ckpt_kind c) { return ckpt_names[c]; }
const char *offload_name(offload_kind o) { return offload_names[o]; }
int precision_parse(const char *s) { return lookup(precision_names, s); }
int optimizer_parse(const char *s) { return lookup(optimizer_names, s); }
int ckpt_parse(const char *s) { return lookup(ckpt_names, s); }
int offload_parse(const char *s) { return lookup(offload_names, s); }
