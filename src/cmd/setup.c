/* setup.c -- shared flags: parse values, load the catalogs, apply ds_config then flags. */
#include "cmd/setup.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "io/catalog.h"
#include "core/finetune.h"
#include "core/framework.h"
#include "io/hardware_json.h"
#include "io/model_json.h"
#include "core/units.h"

const cli_opt setup_options[] = {
    {"model", "NAME|FILE", "catalog model or a HF config.json / zerosim model JSON", .id = OPT_MODEL},
    {"params", "COUNT", "a bare parameter count instead of a model (model states only), e.g. 7e9", .id = OPT_PARAMS},
    {"largest-layer-params", "COUNT", "largest layer's parameters with --params (ZeRO-3 gathers it whole)", .id = OPT_LARGEST},
    {"hardware", "NAME|FILE", "hardware profile (default a100-80gb)", .id = OPT_HARDWARE},
    {"hbm", "SIZE", "override the GPU memory, with its unit: 80GiB (2^30 B) or 80GB (10^9 B)", .id = OPT_HBM},
    {"gpus", "N", "total GPUs (default 1)", .id = OPT_GPUS},
    {"gpus-per-node", "N", "GPUs per node (default: the profile's)", .id = OPT_GPN},
    {"strategy", "S", "ddp|zero1|zero2|zero3|all, or a comma list (default all)", .id = OPT_STRATEGY},
    {"framework", "F", "generic|deepspeed|fsdp|fsdp2|megatron (plan: also all); default generic, deepspeed with --deepspeed", .id = OPT_FRAMEWORK},
    {"shard-group", "N", "hybrid sharding: shard over N data-parallel ranks, replicate across (HSDP, MiCS)", .id = OPT_SHARD_GROUP},
    {"zero-hpz", "N", "ZeRO++ hpZ: secondary parameter partition over N ranks (a node)", .id = OPT_HPZ},
    {"zero-quantized-weights", NULL, "ZeRO++ qwZ: int8 parameter all-gathers", .id = OPT_QWZ},
    {"zero-quantized-gradients", NULL, "ZeRO++ qgZ: int4 gradient reduce-scatters", .id = OPT_QGZ},
    {"gemm-efficiency", "X", "override the framework's GEMM efficiency (x the profile's matmul fraction)", .id = OPT_GEMM_EFF},
    {"precision", "P", "fp32|fp16|bf16|bf16-pure|fp8 (default bf16 mixed precision)", .id = OPT_PRECISION},
    {"optimizer", "O", "adam|adamw|sgd|adafactor|adam8bit (default adamw)", .id = OPT_OPTIMIZER},
    {"grad-dtype", "D", "16-bit (default, the ZeRO paper's) or fp32 (as Megatron keeps)", .id = OPT_GRAD_DTYPE},
    {"micro-batch", "N", "sequences per GPU per micro-batch (default 1)", .id = OPT_MICRO},
    {"seq-len", "N", "tokens per sequence (default 2048; 8Ki = 8192, 8k = 8000)", .id = OPT_SEQ},
    {"decoder-seq-len", "N", "encoder-decoder: decoder tokens per sequence (default: the model's ratio x --seq-len, 1:1)", .id = OPT_DEC_SEQ},
    {"grad-accum", "N", "micro-batches per step (default 1)", .id = OPT_ACCUM},
    {"tp", "N", "tensor-parallel degree (default 1)", .id = OPT_TP},
    {"pp", "N", "pipeline-parallel degree (default 1)", .id = OPT_PP},
    {"cp", "N", "context-parallel degree: the sequence split over N ranks, ring attention (default 1)", .id = OPT_CP},
    {"ep", "N", "expert-parallel degree: routed experts split over N ranks, all-to-all dispatch (default 1)", .id = OPT_EP},
    {"moe-imbalance", "X", "busiest expert rank's tokens over the mean, >= 1 (default 1: balanced)", .id = OPT_MOE_IMBALANCE},
    {"virtual-stages", "N", "interleaved pipeline chunks per stage (default 1)", .id = OPT_VSTAGES},
    {"checkpointing", "C", "none|selective|full activation recomputation (default none)", .id = OPT_CKPT},
    {"sequence-parallel", NULL, "Megatron sequence parallelism (with --tp)", .id = OPT_SP},
    {"eager-attention", NULL, "store the s^2 attention matrix (default: flash attention)", .id = OPT_EAGER},
    {"finetune", "MODE", "full|lora|qlora: train everything, LoRA adapters on a frozen 16-bit base, or on a 4-bit NF4 base (QLoRA)", .id = OPT_FINETUNE},
    {"lora-rank", "R", "LoRA rank r (default 16)", .id = OPT_LORA_RANK},
    {"lora-targets", "T", "attn|mlp|all: which linear layers get adapters (default all, as QLoRA)", .id = OPT_LORA_TARGETS},
    {"offload-optimizer", "D", "none|cpu|nvme (ZeRO-Offload)", .id = OPT_OFF_OPT},
    {"offload-params", "D", "none|cpu|nvme (ZeRO-3 only, ZeRO-Infinity)", .id = OPT_OFF_PARAM},
    {"deepspeed", "FILE", "read a DeepSpeed ds_config.json (flags given explicitly win)", .id = OPT_DEEPSPEED},
    {"reduce-bucket", "ELEMS", "DeepSpeed reduce_bucket_size (default 5e8)", .id = OPT_REDUCE_BUCKET},
    {"allgather-bucket", "ELEMS", "DeepSpeed allgather_bucket_size (default 5e8)", .id = OPT_AG_BUCKET},
    {"prefetch-bucket", "ELEMS", "DeepSpeed stage3_prefetch_bucket_size (default 5e7)", .id = OPT_PREFETCH},
    {"max-live-params", "ELEMS", "DeepSpeed stage3_max_live_parameters (default 1e9)", .id = OPT_MAX_LIVE},
    {"persistence-threshold", "ELEMS", "DeepSpeed stage3_param_persistence_threshold (default 1e5)", .id = OPT_PERSIST},
    {"overlap-comm", "on|off", "DeepSpeed overlap_comm (default: off for stages 1-2, on for 3)", .id = OPT_OVERLAP},
    {"ddp-bucket-view", NULL, "PyTorch DDP gradient_as_bucket_view=True (no bucket copy)", .id = OPT_BUCKET_VIEW},
    {"tokens", "COUNT", "training budget, e.g. 300e9: adds time, GPU-hours, dollars, energy", .id = OPT_TOKENS},
    {"price-per-gpu-hour", "USD", "price override (default: the hardware profile's)", .id = OPT_PRICE},
    {"format", "F", "table|json|csv (default table)", .id = OPT_FORMAT},
    {"explain", NULL, "print the formulas and byte table used", .id = OPT_EXPLAIN},
    {NULL},
};

void setup_init(setup *s)
{
    memset(s, 0, sizeof *s);
    training_init(&s->t);
    training_init(&s->flag_t);
    s->hw_arg = "a100-80gb";
    s->strategy_arg = "all";
    s->format = FMT_TABLE;
    s->price = -1;
}

int setup_take(setup *s, int id, const char *v, zs_error *err)
{
    switch (id) {
    case OPT_MODEL: s->model_arg = v; return ZS_OK;
    case OPT_HARDWARE: s->hw_arg = v; return ZS_OK;
    case OPT_DEEPSPEED: s->ds_arg = v; return ZS_OK;
    case OPT_STRATEGY: s->strategy_arg = v; return ZS_OK;
    case OPT_FRAMEWORK:
        if (strcmp(v, "all") != 0 && !framework_find(v))
            return zs_fail(err, ZS_ERR_USAGE, "--framework: \"%s\" is not one of %s|all", v, framework_names());
        s->framework_arg = v;
        return ZS_OK;
    case OPT_EXPLAIN: s->explain = true; return ZS_OK;
    case OPT_PARAMS:
        if (units_parse_count(v, "--params", &s->params, err)) return err->code;
        if (s->params < 1) return zs_fail(err, ZS_ERR_USAGE, "--params: expected at least 1 parameter");
        return ZS_OK;
    case OPT_LARGEST: return units_parse_count(v, "--largest-layer-params", &s->largest_layer, err);
    case OPT_TOKENS:
        if (units_parse_count(v, "--tokens", &s->tokens, err)) return err->code;
        if (s->tokens < 1) return zs_fail(err, ZS_ERR_USAGE, "--tokens: expected at least 1 token");
        return ZS_OK;
    case OPT_PRICE: return units_parse_count(v, "--price-per-gpu-hour", &s->price, err);
    case OPT_DEC_SEQ:
        if (units_parse_count(v, "--decoder-seq-len", &s->decoder_seq, err)) return err->code;
        if (!(s->decoder_seq >= 1 && s->decoder_seq <= 1e8 && s->decoder_seq == (double)(long long)s->decoder_seq))
            return zs_fail(err, ZS_ERR_USAGE, "--decoder-seq-len: expected a whole number of tokens from 1 to 1e8");
        return ZS_OK;
    case OPT_HBM:
        if (units_parse_bytes(v, "--hbm", &s->hbm_override, err)) return err->code;
        if (s->hbm_override < 1) return zs_fail(err, ZS_ERR_USAGE, "--hbm: expected a positive size such as 80GiB");
        return ZS_OK;
    case OPT_FORMAT:
        if (strcmp(v, "table") == 0) s->format = FMT_TABLE;
        else if (strcmp(v, "json") == 0) s->format = FMT_JSON;
        else if (strcmp(v, "csv") == 0) s->format = FMT_CSV;
        else return zs_fail(err, ZS_ERR_USAGE, "--format: \"%s\" is not one of table|json|csv", v);
        return ZS_OK;
    default:
        if (s->n_flags >= (int)(sizeof s->flags / sizeof s->flags[0]))
            return zs_fail(err, ZS_ERR_USAGE, "too many options");
        /* Parsed now, typed, so a bad value fails before any file is read. */
        if (setup_apply(&s->flag_t, id, v, err)) return err->code;
        s->flags[s->n_flags++] = id;
        return ZS_OK;
    }
}

/* Which training field each flag sets: finish() copies exactly these from flag_t. */
#define FIELD(id, member) {id, offsetof(training, member), sizeof ((training *)0)->member}
static const struct { int id; size_t offset, size; } flag_fields[] = {
    FIELD(OPT_GPUS, gpus), FIELD(OPT_GPN, gpus_per_node), FIELD(OPT_MICRO, micro_batch),
    FIELD(OPT_SEQ, seq_len), FIELD(OPT_ACCUM, grad_accum), FIELD(OPT_TP, tp), FIELD(OPT_PP, pp),
    FIELD(OPT_VSTAGES, virtual_stages), FIELD(OPT_PRECISION, precision),
    FIELD(OPT_OPTIMIZER, optimizer), FIELD(OPT_GRAD_DTYPE, grad_bytes),
    FIELD(OPT_CKPT, checkpointing), FIELD(OPT_SP, sequence_parallel),
    FIELD(OPT_EAGER, flash_attention), FIELD(OPT_OFF_OPT, offload_optimizer),
    FIELD(OPT_OFF_PARAM, offload_params), FIELD(OPT_REDUCE_BUCKET, reduce_bucket),
    FIELD(OPT_AG_BUCKET, allgather_bucket), FIELD(OPT_PREFETCH, prefetch_bucket),
    FIELD(OPT_MAX_LIVE, max_live_params), FIELD(OPT_PERSIST, persistence_threshold),
    FIELD(OPT_OVERLAP, overlap_comm), FIELD(OPT_BUCKET_VIEW, ddp_bucket_view),
    FIELD(OPT_SHARD_GROUP, shard_group), FIELD(OPT_HPZ, hpz_group), FIELD(OPT_QWZ, quant_weights),
    FIELD(OPT_QGZ, quant_grads), FIELD(OPT_GEMM_EFF, gemm_efficiency),
    FIELD(OPT_CP, cp), FIELD(OPT_EP, ep), FIELD(OPT_MOE_IMBALANCE, moe_imbalance), FIELD(OPT_FINETUNE, finetune), FIELD(OPT_LORA_RANK, lora_rank),
    FIELD(OPT_LORA_TARGETS, lora_targets),
};
#undef FIELD

static void copy_flag(training *dst, const training *src, int id)
{
    for (size_t k = 0; k < sizeof flag_fields / sizeof flag_fields[0]; k++)
        if (flag_fields[k].id == id)
            memcpy((char *)dst + flag_fields[k].offset, (const char *)src + flag_fields[k].offset, flag_fields[k].size);
}

int setup_apply(training *t, int id, const char *v, zs_error *err)
{
    int64_t n;
    int e = 0;
    const struct { int id; const char *flag; int64_t *dst; int64_t min, max; } ints[] = {
        {OPT_GPUS, "--gpus", &t->gpus, 1, 10000000},
        {OPT_GPN, "--gpus-per-node", &t->gpus_per_node, 1, 4096},
        {OPT_MICRO, "--micro-batch", &t->micro_batch, 1, 1000000},
        {OPT_SEQ, "--seq-len", &t->seq_len, 1, 100000000},
        {OPT_ACCUM, "--grad-accum", &t->grad_accum, 1, 1000000},
        {OPT_TP, "--tp", &t->tp, 1, 4096},
        {OPT_PP, "--pp", &t->pp, 1, 4096},
        {OPT_CP, "--cp", &t->cp, 1, 4096},
        {OPT_EP, "--ep", &t->ep, 1, 65536},
        {OPT_LORA_RANK, "--lora-rank", &t->lora_rank, 1, 65536},
        {OPT_VSTAGES, "--virtual-stages", &t->virtual_stages, 1, 1024},
        {OPT_SHARD_GROUP, "--shard-group", &t->shard_group, 1, 10000000},
        {OPT_HPZ, "--zero-hpz", &t->hpz_group, 1, 10000000},
    };
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        if (ints[k].id != id) continue;
        if (units_parse_int(v, ints[k].flag, ints[k].min, ints[k].max, &n, err)) return err->code;
        *ints[k].dst = n;
        return ZS_OK;
    }
    const struct { int id; const char *flag; double *dst; } sizes[] = {
        {OPT_REDUCE_BUCKET, "--reduce-bucket", &t->reduce_bucket},
        {OPT_AG_BUCKET, "--allgather-bucket", &t->allgather_bucket},
        {OPT_PREFETCH, "--prefetch-bucket", &t->prefetch_bucket},
        {OPT_MAX_LIVE, "--max-live-params", &t->max_live_params},
        {OPT_PERSIST, "--persistence-threshold", &t->persistence_threshold},
    };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (sizes[k].id == id) return units_parse_count(v, sizes[k].flag, sizes[k].dst, err);
    /* Named values, read by the core's own parsers; the index goes to its field below. */
    const struct { int id; const char *flag; int (*parse)(const char *); const char *choices; } named[] = {
        {OPT_PRECISION, "precision", precision_parse, "fp32|fp16|bf16|bf16-pure"},
        {OPT_OPTIMIZER, "optimizer", optimizer_parse, "adam|adamw|sgd|adafactor|adam8bit"},
        {OPT_CKPT, "checkpointing", ckpt_parse, "none|selective|full"},
        {OPT_OFF_OPT, "offload-optimizer", offload_parse, "none|cpu|nvme"},
        {OPT_OFF_PARAM, "offload-params", offload_parse, "none|cpu|nvme"},
        {OPT_FINETUNE, "finetune", finetune_parse, "full|lora|qlora"},
        {OPT_LORA_TARGETS, "lora-targets", finetune_targets_parse, "attn|mlp|all"},
    };
    for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
        if (named[k].id == id && (e = named[k].parse(v)) < 0)
            return zs_fail(err, ZS_ERR_USAGE, "--%s: \"%s\" is not one of %s", named[k].flag, v, named[k].choices);
    switch (id) {
    case OPT_PRECISION: t->precision = (precision_kind)e; return ZS_OK;
    case OPT_OPTIMIZER: t->optimizer = (optimizer_kind)e; return ZS_OK;
    case OPT_CKPT: t->checkpointing = (ckpt_kind)e; return ZS_OK;
    case OPT_OFF_OPT: t->offload_optimizer = (offload_kind)e; return ZS_OK;
    case OPT_OFF_PARAM: t->offload_params = (offload_kind)e; return ZS_OK;
    case OPT_FINETUNE: t->finetune = e; return ZS_OK;
    case OPT_LORA_TARGETS: t->lora_targets = e; return ZS_OK;
    case OPT_GRAD_DTYPE:
        if (strcmp(v, "fp32") == 0) t->grad_bytes = 4;
        else if (strcmp(v, "16-bit") == 0 || strcmp(v, "bf16") == 0 || strcmp(v, "fp16") == 0) t->grad_bytes = 2;
        else return zs_fail(err, ZS_ERR_USAGE, "--grad-dtype: \"%s\" is not one of 16-bit|bf16|fp16|fp32", v);
        return ZS_OK;
    case OPT_OVERLAP:
        if (strcmp(v, "on") == 0 || strcmp(v, "true") == 0) t->overlap_comm = 1;
        else if (strcmp(v, "off") == 0 || strcmp(v, "false") == 0) t->overlap_comm = 0;
        else return zs_fail(err, ZS_ERR_USAGE, "--overlap-comm: \"%s\" is not one of on|off", v);
        return ZS_OK;
    case OPT_SP: t->sequence_parallel = true; return ZS_OK;
    case OPT_EAGER: t->flash_attention = false; return ZS_OK;
    case OPT_BUCKET_VIEW: t->ddp_bucket_view = true; return ZS_OK;
    case OPT_QWZ: t->quant_weights = true; return ZS_OK;
    case OPT_MOE_IMBALANCE:
        if (units_parse_count(v, "--moe-imbalance", &t->moe_imbalance, err)) return err->code;
        if (!(t->moe_imbalance >= 1 && t->moe_imbalance <= 1000))
            return zs_fail(err, ZS_ERR_USAGE, "--moe-imbalance: expected a factor from 1 (balanced) to 1000");
        return ZS_OK;
    case OPT_GEMM_EFF:
        if (units_parse_count(v, "--gemm-efficiency", &t->gemm_efficiency, err)) return err->code;
        if (!(t->gemm_efficiency > 0 && t->gemm_efficiency <= 2))
            return zs_fail(err, ZS_ERR_USAGE, "--gemm-efficiency: expected a factor in (0, 2], e.g. 0.9");
        return ZS_OK;
    case OPT_QGZ: t->quant_grads = true; return ZS_OK;
    }
    return zs_fail(err, ZS_ERR_USAGE, "internal: unhandled option %d", id);
}

static int choose_strategies(setup *s, zs_error *err)
{
    int n = 0;
    if (strcmp(s->strategy_arg, "all") == 0) {
        for (int i = 0; strategies[i]; i++) s->chosen[n++] = strategies[i];
        s->chosen[n] = NULL;
        return ZS_OK;
    }
    /* Walk the list in place: a copy into a fixed buffer once cut long lists at 127
     * characters and read the cut name as a strategy. */
    for (const char *p = s->strategy_arg; *p;) {
        size_t len = strcspn(p, ",");
        char tok[32] = "";
        const strategy *st = NULL;
        if (len > 0 && len < sizeof tok) {
            memcpy(tok, p, len);
            tok[len] = '\0';
            st = strategy_find(tok);
        }
        if (!st && len > 0)
            return zs_fail(err, ZS_ERR_USAGE, "--strategy: \"%.*s\" is not one of %s|all", (int)(len > 64 ? 64 : len), p, strategy_names());
        p += len;
        if (*p == ',') p++;
        if (!st) continue;
        bool dup = false;
        for (int i = 0; i < n; i++) dup |= s->chosen[i] == st;
        if (!dup && n < STRATEGY_MAX) s->chosen[n++] = st;
    }
    if (n == 0) return zs_fail(err, ZS_ERR_USAGE, "--strategy: expected %s|all", strategy_names());
    s->chosen[n] = NULL;
    return ZS_OK;
}

bool setup_flag_given(const setup *s, int id)
{
    for (int k = 0; k < s->n_flags; k++)
        if (s->flags[k] == id) return true;
    return false;
}

/* Append one "; "-separated note to the ds_config line of the report. */
__attribute__((format(printf, 2, 3)))
static void note_ds(setup *s, const char *fmt, ...)
{
    size_t n = strlen(s->ds_notes);
    if (n + 3 >= sizeof s->ds_notes) return;
    if (n) { memcpy(s->ds_notes + n, "; ", 3); n += 2; }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->ds_notes + n, sizeof s->ds_notes - n, fmt, ap);
    va_end(ap);
}

int setup_finish(setup *s, zs_error *err)
{
    if (choose_strategies(s, err)) return err->code;
    if (s->model_arg && s->params > 0)
        return zs_fail(err, ZS_ERR_USAGE, "give --model or --params, not both");
    if (!s->model_arg && s->params <= 0)
        return zs_fail(err, ZS_ERR_USAGE, "missing --model NAME|FILE or --params COUNT (see 'zerosim list models')");
    if (s->largest_layer > 0 && s->model_arg)
        return zs_fail(err, ZS_ERR_USAGE, "--largest-layer-params goes with --params (a --model's layers come from its shapes)");
    if (s->largest_layer > 0 && s->params > 0 && s->largest_layer > s->params)
        return zs_fail(err, ZS_ERR_USAGE, "--largest-layer-params %g exceeds --params %g", s->largest_layer, s->params);

    if (catalog_resolve("hardware", s->hw_arg, s->hw_path, sizeof s->hw_path, err)) return err->code;
    if (hardware_load(s->hw_path, &s->hw, err)) return err->code;
    if (s->hbm_override > 0) s->hw.hbm_bytes = s->hbm_override;
    if (s->price >= 0) s->hw.price_per_gpu_hour = s->price;

    if (s->model_arg) {
        if (catalog_resolve("models", s->model_arg, s->model_path, sizeof s->model_path, err)) return err->code;
        if (model_load(s->model_path, &s->m, err)) return err->code;
    } else {
        model_from_params(&s->m, &s->pc, s->params, s->largest_layer);
    }
    if (s->ds_arg) {
        snprintf(s->ds_path, sizeof s->ds_path, "%s", s->ds_arg);
        if (dsconfig_load(s->ds_path, &s->t, &s->ds, err)) return err->code;
        dsconfig_fill_auto(&s->ds, s->m.params_only ? 0 : s->m.hidden_size, &s->t);
        if (s->ds.defaulted[0]) note_ds(s, "defaulted: %s", s->ds.defaulted);
        if (s->ds.filled[0]) note_ds(s, "\"auto\" filled as the HF Trainer does (h = %lld: reduce h^2, prefetch 0.9 h^2, persistence 10 h): %s",
                                     (long long)s->m.hidden_size, s->ds.filled);
        if (s->ds.ignored[0]) note_ds(s, "ignored (not modelled): %s", s->ds.ignored);
        /* The config's ZeRO stage picks the strategy unless --strategy says otherwise: stage k
         * partitions the first k of optimizer states, gradients, parameters (DeepSpeed docs,
         * zero_optimization.stage). */
        const strategy *st = s->ds.stage < 0 ? NULL
            : strategy_find_shards((shard_set){s->ds.stage >= 1, s->ds.stage >= 2, s->ds.stage >= 3});
        if (st && strcmp(s->strategy_arg, "all") == 0) {
            s->chosen[0] = st;
            s->chosen[1] = NULL;
        }
    }
    /* The framework: the flag's, else DeepSpeed when a ds_config was read, else generic. */
    if (s->framework_arg && strcmp(s->framework_arg, "all") == 0) s->all_frameworks = true;
    else if (s->framework_arg) s->t.framework = framework_find(s->framework_arg);
    else if (s->ds_arg) s->t.framework = &fw_deepspeed;
    /* A GPU without bf16 (V100) trains in fp16 unless the user insists. */
    if (s->t.precision == PREC_BF16 && s->hw.peak_bf16 <= 0 && s->hw.peak_fp16 > 0) s->t.precision = PREC_FP16;
    for (int k = 0; k < s->n_flags; k++) copy_flag(&s->t, &s->flag_t, s->flags[k]);
    /* train_batch_size = micro x accum x dp: derive whichever of the first two is missing. */
    if (s->ds.train_batch_size > 0) {
        int64_t dp = training_dp(&s->t);
        bool micro = s->ds.micro_batch_set || setup_flag_given(s, OPT_MICRO);
        bool accum = s->ds.grad_accum_set || setup_flag_given(s, OPT_ACCUM);
        if (dp > 0 && !accum && micro && s->ds.train_batch_size % (s->t.micro_batch * dp) == 0)
            s->t.grad_accum = s->ds.train_batch_size / (s->t.micro_batch * dp);
        else if (dp > 0 && !micro && s->ds.train_batch_size % (s->t.grad_accum * dp) == 0)
            s->t.micro_batch = s->ds.train_batch_size / (s->t.grad_accum * dp);
        /* DeepSpeed asserts train_batch_size == micro x accum x world size / model parallel
         * (deepspeed/runtime/config.py, _batch_assertion): so do we, naming the three. */
        double got = (double)s->t.micro_batch * (double)s->t.grad_accum * (double)dp;
        if (!s->searches_gpus && dp > 0 && got != (double)s->ds.train_batch_size)
            return zs_fail(err, ZS_ERR_INPUT,
                           "%s: train_batch_size %lld is not micro-batch %lld x gradient accumulation %lld x data-parallel %lld = %.0f (DeepSpeed asserts they agree)",
                           s->ds_path, (long long)s->ds.train_batch_size, (long long)s->t.micro_batch,
                           (long long)s->t.grad_accum, (long long)dp, got);
    }
    /* Each pipeline stage holds virtual_stages chunks of at least one layer (Narayanan et al.
     * 2021, section 2.2): more chunks than layers is no configuration at all. */
    if (!s->m.params_only && s->t.pp * s->t.virtual_stages > s->m.num_layers)
        return zs_fail(err, ZS_ERR_USAGE, "--pp %lld x --virtual-stages %lld = %lld model chunks, more than the model's %lld layers",
                       (long long)s->t.pp, (long long)s->t.virtual_stages, (long long)(s->t.pp * s->t.virtual_stages),
                       (long long)s->m.num_layers);
    /* Decoder tokens travel as a ratio to the encoder's (the model field decoder_seq_ratio),
     * so a sweep over --seq-len keeps the proportion the flag gave. */
    if (s->decoder_seq > 0) {
        if (s->m.params_only || s->m.encoder_layers <= 0)
            return zs_fail(err, ZS_ERR_USAGE, "--decoder-seq-len: %s is not an encoder-decoder model",
                           s->model_arg ? s->model_arg : "--params");
        if (s->decoder_seq / (double)s->t.seq_len > 1000)
            return zs_fail(err, ZS_ERR_USAGE, "--decoder-seq-len %.0f: more than 1000 x --seq-len %lld",
                           s->decoder_seq, (long long)s->t.seq_len);
        s->m.decoder_seq_ratio = s->decoder_seq / (double)s->t.seq_len;
    }
    /* Count once, with the run's ZeRO-3 persistence threshold, so evaluations reuse it. */
    if (!s->m.params_only && model_count(&s->m, s->t.persistence_threshold, &s->pc, err)) return err->code;
    /* reduce_bucket_size 0: DeepSpeed flushes the bucket before each gradient is added, so a
     * bucket holds one tensor, at most the largest. */
    if (s->ds.reduce_bucket_zero && !setup_flag_given(s, OPT_REDUCE_BUCKET)) {
        double big = s->m.params_only ? s->pc.largest_module : s->pc.largest_tensor;
        s->t.reduce_bucket = big > 1 ? big : 1;
        note_ds(s, "reduce_bucket_size 0: one tensor per reduction, the largest %.0f elements", s->t.reduce_bucket);
    }
    /* plan searches the GPU count: a fixed --tp/--pp/--cp is checked against the smallest
     * count that holds it, not against the default single GPU. */
    if (s->searches_gpus && !setup_flag_given(s, OPT_GPUS)) s->t.gpus = s->t.tp * s->t.pp * s->t.cp;
    return training_validate(&s->t, err);
}

scenario setup_scenario(const setup *s)
{
    return (scenario){&s->m, &s->pc, &s->hw, &s->t, s->chosen, s->tokens};
}

report_options setup_report_options(const setup *s)
{
    return (report_options){s->format, s->explain, s->ds_arg ? s->ds_path : NULL, s->ds.defaulted, s->ds_notes,
                            s->ds.ignored, s->ds.filled};
}

const cli_opt *setup_merge_options(const cli_opt *extra, bool extra_first, const char *const *drop,
                                   cli_opt *out, int cap)
{
    const cli_opt *parts[2] = {extra_first ? extra : setup_options, extra_first ? setup_options : extra};
    int n = 0;
    for (int p = 0; p < 2; p++) {
        for (const cli_opt *o = parts[p]; o && o->name && n < cap - 1; o++) {
            bool dropped = false;
            for (const char *const *d = drop; parts[p] == setup_options && d && *d; d++)
                dropped |= strcmp(*d, o->name) == 0;
            if (!dropped) out[n++] = *o;
        }
    }
    out[n] = (cli_opt){NULL};
    return out;
}
