/* framework.c -- the framework table and the rules the harness applies from a descriptor. */
#include "core/framework.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/descriptor.h"

/* One line per framework, generic first; a new one is its file and a line here. */
#define FRAMEWORKS(X) \
    X(fw_generic)     \
    X(fw_deepspeed)   \
    X(fw_fsdp)        \
    X(fw_fsdp2)       \
    X(fw_megatron)

#define FW_DECLARE(fw) extern const framework fw;
#define FW_ENTRY(fw) &fw,
FRAMEWORKS(FW_DECLARE)
const framework *const frameworks[] = {FRAMEWORKS(FW_ENTRY) NULL};
#undef FW_DECLARE
#undef FW_ENTRY

_Static_assert(sizeof frameworks / sizeof frameworks[0] <= FRAMEWORK_MAX + 1, "raise FRAMEWORK_MAX");

/* Whether version string v is what `want` (len bytes) names: equal, or v continues it at a
 * dot ("0.3" names "0.3.13"). */
static bool version_matches(const char *v, const char *want, size_t len)
{
    return v && len > 0 && strncmp(v, want, len) == 0 && (v[len] == '\0' || v[len] == '.');
}

/* Whether `want` (len bytes) reads as a release: dot-separated numbers of 1-6 digits. */
static bool version_valid(const char *want, size_t len)
{
    size_t digits = 0;
    for (size_t i = 0; i < len; i++) {
        if (want[i] == '.') {
            if (digits == 0) return false;
            digits = 0;
        } else if (want[i] < '0' || want[i] > '9' || ++digits > 6)
            return false;
    }
    return digits > 0;
}

/* Release a against b (alen, blen bytes of valid releases; missing parts count 0): <0, 0, >0. */
static int version_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;
    while (i < alen || j < blen) {
        long x = 0, y = 0;
        for (; i < alen && a[i] != '.'; i++) x = 10 * x + (a[i] - '0');
        for (; j < blen && b[j] != '.'; j++) y = 10 * y + (b[j] - '0');
        if (x != y) return x < y ? -1 : 1;
        i += i < alen;
        j += j < blen;
    }
    return 0;
}

/* The dots in a release string: a descriptor's last of one dot ("0.16") names its series. */
static int version_dots(const char *v)
{
    int n = 0;
    for (; *v; v++) n += *v == '.';
    return n;
}

/* Whether release `want` (len bytes) lies in v's first..last; a last of fewer parts compares
 * only as many of want's ("0.16.9" cut like "0.16" is "0.16"). */
static bool version_covers(const framework *v, const char *want, size_t len)
{
    if (!v->first || !version_valid(want, len)) return false;
    if (version_cmp(want, len, v->first, strlen(v->first)) < 0) return false;
    if (!v->last) return true;
    size_t cut = len;
    for (int parts = version_dots(v->last) + 1, i = 0; (size_t)i < len; i++)
        if (want[i] == '.' && --parts == 0) {
            cut = (size_t)i;
            break;
        }
    return version_cmp(want, cut, v->last, strlen(v->last)) <= 0;
}

const char *framework_release_text(const framework *fw, char *buf, size_t len)
{
    if (!buf || len == 0) return buf;
    bool series = fw->last && version_dots(fw->last) == 1;
    if (!fw->version)
        buf[0] = '\0';
    else if (!fw->first)
        snprintf(buf, len, "%s", fw->version);
    else if (fw->last)
        snprintf(buf, len, "%s-%s%s", fw->first, fw->last, series ? ".x" : "");
    else
        snprintf(buf, len, "%s and later", fw->first);
    return buf;
}

const char *framework_versions_text(const framework *fw, char *buf, size_t len)
{
    if (!buf || len == 0) return buf;
    buf[0] = '\0';
    const framework *fam[FRAMEWORK_VERSIONS_MAX];
    int n = 0;
    for (int v = 0; fw->versions && fw->versions[v] && n < FRAMEWORK_VERSIONS_MAX - 1; v++)
        fam[n++] = fw->versions[v];
    if (n == 0) return buf;
    fam[n++] = fw;
    /* In release order: the descriptors' first releases. */
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && fam[k - 1]->first && fam[k]->first; k--) {
            const char *a = fam[k - 1]->first, *b = fam[k]->first;
            if (version_cmp(a, strlen(a), b, strlen(b)) <= 0) break;
            const framework *x = fam[k];
            fam[k] = fam[k - 1];
            fam[k - 1] = x;
        }
    size_t o = 0;
    for (int i = 0; i < n && o < len; i++) {
        char range[64];
        framework_release_text(fam[i], range, sizeof range);
        int w = snprintf(buf + o, len - o, "%s%s", i ? ", " : "", range);
        if (w < 0) break;
        o += (size_t)w;
        if (fam[i] == fw && o < len) {
            w = snprintf(buf + o, len - o, " (default)");
            if (w > 0) o += (size_t)w;
        }
    }
    return buf;
}

const framework *framework_find(const char *name)
{
    if (!name) return NULL;
    const char *at = strchr(name, '@');
    size_t base = at ? (size_t)(at - name) : strlen(name);
    for (int i = 0; frameworks[i]; i++) {
        const framework *fw = frameworks[i];
        if (strlen(fw->name) != base || strncmp(fw->name, name, base) != 0) continue;
        if (!at) return fw;
        size_t len = strlen(at + 1);
        if (version_matches(fw->version, at + 1, len)) return fw;
        for (int v = 0; fw->versions && fw->versions[v]; v++)
            if (version_matches(fw->versions[v]->version, at + 1, len)) return fw->versions[v];
        if (version_covers(fw, at + 1, len)) return fw;
        for (int v = 0; fw->versions && fw->versions[v]; v++)
            if (version_covers(fw->versions[v], at + 1, len)) return fw->versions[v];
        return NULL;
    }
    return NULL;
}

int framework_refuse(const char *what, const char *v, int code, zs_error *err)
{
    const char *at = strchr(v, '@');
    char name[32], list[256];
    size_t n = at ? (size_t)(at - v) : 0;
    const framework *fw = NULL;
    if (at && n < sizeof name) {
        memcpy(name, v, n);
        name[n] = '\0';
        fw = framework_find(name);
    }
    if (fw && framework_versions_text(fw, list, sizeof list)[0])
        return zs_fail(err, code, "%s: no %s version covers \"%s\" (%s@RELEASE: %s)", what,
            fw->label, at + 1, fw->name, list);
    if (fw)
        return zs_fail(err, code, "%s: %s has no versions to choose (give \"%s\")", what,
            fw->label, fw->name);
    return zs_fail(err, code,
        "%s: \"%s\" is not one of %s (a version: NAME@RELEASE, e.g. deepspeed@0.12.6)", what, v,
        framework_names());
}

static const char *name_of(int i)
{
    return frameworks[i] ? frameworks[i]->name : NULL;
}

const char *framework_names(void)
{
    static char names[FRAMEWORK_MAX * 16];
    return names[0] ? names : descriptor_names(name_of, names, sizeof names);
}

const framework *framework_of(const training *t)
{
    return t->framework ? t->framework : &fw_generic;
}

/* A degree above 1 needs the framework to offer it. */
typedef struct degree_rule {
    size_t degree;  /* offset of the int64_t degree in training */
    size_t offered; /* offset of the bool in framework that offers it */
    const char *what, *flag;
} degree_rule;

#define DEGREE(deg, off)                     \
    _Generic(((training *)0)->deg, int64_t   \
             : offsetof(training, deg)),     \
        _Generic(((framework *)0)->off, bool \
                 : offsetof(framework, off))
static const degree_rule degrees[] = {
    {DEGREE(tp, tensor_parallel), "tensor parallelism", "--tp"},
    {DEGREE(pp, pipeline_parallel), "pipeline parallelism", "--pp"},
    {DEGREE(cp, context_parallel), "context parallelism", "--cp"},
    {DEGREE(virtual_stages, interleaving), "interleaved pipeline schedule", "--virtual-stages"},
};
#undef DEGREE

static bool offers(const framework *fw, const degree_rule *d)
{
    return *(const bool *)((const char *)fw + d->offered);
}

/* "; use deepspeed, fsdp2 or megatron": the frameworks but generic that offer d, in table
 * order; "" when none does. Writes into buf and returns it. */
/* Append text to buf (len bytes, o used), cut short when full. Returns the new length. */
static size_t append(char *buf, size_t len, size_t o, const char *text)
{
    while (*text && o + 1 < len) buf[o++] = *text++;
    buf[o] = '\0';
    return o;
}

static const char *alternatives(const degree_rule *d, char *buf, size_t len)
{
    /* Plain appends, not snprintf: plan meets this refusal for every configuration a
     * framework cannot run, and formats it each time. */
    int n = 0, k = 0;
    for (int i = 0; frameworks[i]; i++) n += frameworks[i] != &fw_generic && offers(frameworks[i], d);
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; frameworks[i]; i++) {
        if (frameworks[i] == &fw_generic || !offers(frameworks[i], d)) continue;
        o = append(buf, len, o, k == 0 ? "; use " : k == n - 1 ? " or " : ", ");
        o = append(buf, len, o, frameworks[i]->name);
        k++;
    }
    return buf;
}

/* The interleaved schedule's micro-batch group rules (framework_check). */
static int check_interleave(const framework *fw, const training *t, zs_error *err)
{
    /* Megatron-Core asks PP <= N <= M for the micro-batches per virtual stage group N
     * ("should range in [PP, M]", a ValueError), and that M % N be 0 or at least PP ("The
     * remainder of M (the total micro-batches) divided by N ... should be 0, or larger than or
     * equal to the pipeline-parallel size", a RuntimeError): NVIDIA/Megatron-LM@d98e8a64
     * megatron/core/pipeline_parallel/schedules.py forward_backward_pipelining_with_interleaving.
     * N defaults to PP (megatron/core/model_parallel_config.py __post_init__), which makes the
     * rule M % PP == 0. */
    if (fw->interleave_divisible && t->virtual_stages > 1) {
        int64_t n = t->microbatch_group > 0 ? t->microbatch_group : t->pp, rest = t->grad_accum % n;
        if (n < t->pp || n > t->grad_accum)
            return zs_fail(err, ZS_ERR_USAGE,
                "--framework %s: --microbatch-group %lld must range in [--pp %lld, --grad-accum %lld] "
                "(Megatron-Core: the number of contiguous micro-batches in a virtual pipeline stage "
                "should range in [PP, M])",
                fw->name, (long long)n, (long long)t->pp, (long long)t->grad_accum);
        if (rest > 0 && rest < t->pp)
            return zs_fail(err, ZS_ERR_USAGE,
                "--framework %s: the interleaved schedule needs the micro-batches (--grad-accum %lld) "
                "modulo the group of %lld (--microbatch-group, default --pp) to be 0 or at least --pp "
                "%lld, not %lld (Megatron-Core: otherwise it introduces dependency bubbles)",
                fw->name, (long long)t->grad_accum, (long long)n, (long long)t->pp, (long long)rest);
    }
    return ZS_OK;
}

static int check_selective(const framework *fw, const training *t, zs_error *err)
{
    if (t->checkpointing == CKPT_SELECTIVE && fw->selective == SELECTIVE_NONE)
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s: no selective recomputation (use --checkpointing full or none)", fw->name);
    return ZS_OK;
}

int framework_check_batch(const framework *fw, const training *t, zs_error *err)
{
    /* framework_check's rules that read the micro-batch, the accumulation or the
     * recomputation, in its order. */
    if (check_interleave(fw, t, err) || check_selective(fw, t, err)) return err->code;
    return ZS_OK;
}

int framework_check(const framework *fw, const model *m, const training *t, zs_error *err)
{
    for (size_t k = 0; k < sizeof degrees / sizeof degrees[0]; k++) {
        const degree_rule *d = &degrees[k];
        int64_t v = *(const int64_t *)((const char *)t + d->degree);
        char alt[FRAMEWORK_MAX * 24];
        if (v > 1 && !offers(fw, d))
            return zs_fail(err, ZS_ERR_USAGE, "--framework %s: no %s (%s %lld)%s", fw->name, d->what, d->flag,
                (long long)v, alternatives(d, alt, sizeof alt));
    }
    if (!m->params_only && fw->exact_layer_split && m->num_layers % (t->pp * t->virtual_stages) != 0 &&
        t->pp_first_layers == 0 && t->pp_last_layers == 0) /* an uneven split: pipeline_split's rules */
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s: %lld layers do not divide evenly into --pp %lld x --virtual-stages %lld "
            "(Megatron-LM requires num_layers divisible by the pipeline and virtual stages; "
            "--pp-first-layers / --pp-last-layers put fewer on the end stages)",
            fw->name, (long long)m->num_layers, (long long)t->pp, (long long)t->virtual_stages);
    if (check_interleave(fw, t, err)) return err->code;
    /* MoELayer.forward raises in training for TP > 1 without sequence parallelism, whatever EP
     * ("During training, performance may degrade if MoE and tensor parallelism are enabled
     * without also enabling sequence parallelism", NVIDIA/Megatron-LM@d98e8a64
     * megatron/core/transformer/moe/moe_layer.py); model_parallel_config.py only warns. */
    if (fw->ep_tp_needs_sp && t->tp > 1 && !t->sequence_parallel &&
        (t->ep > 1 || (!m->params_only && m->num_experts > 0)))
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s: --ep %lld with --tp %lld needs --sequence-parallel "
            "(Megatron-Core: MoE and tensor parallelism are enabled without also enabling "
            "sequence parallelism)",
            fw->name, (long long)t->ep, (long long)t->tp);
    if (check_selective(fw, t, err)) return err->code;
    if (t->shard_group > 0 && !fw->hybrid_shard)
        return zs_fail(err, ZS_ERR_USAGE, "--framework %s: no hybrid sharding (--shard-group)", fw->name);
    if ((t->hpz_group > 1 || t->quant_weights || t->quant_grads) && !fw->zeropp)
        return zs_fail(err, ZS_ERR_USAGE, "--framework %s: ZeRO++ (hpZ, qwZ, qgZ) is DeepSpeed's", fw->name);
    if (t->param_bytes == 4 && fw->own_16bit_params)
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s: --param-dtype fp32: its bf16/fp16 modes keep 16-bit parameter copies "
            "beside the fp32 master (give 16-bit)",
            fw->name);
    if (fw->no_bf16 && (t->precision == PREC_BF16 || t->precision == PREC_BF16_PURE))
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s@%s: no bf16 mode (DeepSpeed's \"bf16\" section came in v0.5.5): give "
            "--precision fp16 or fp32",
            fw->name, fw->version);
    if (t->bf16_optimizer && !fw->bf16_optimizer)
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s%s%s: --bf16-optimizer is DeepSpeed's BF16_Optimizer (from v0.6.2)", fw->name,
            fw->version ? "@" : "", fw->version ? fw->version : "");
    if (t->bf16_optimizer && (t->precision != PREC_BF16 || t->offload_optimizer != OFFLOAD_NONE))
        return zs_fail(err, ZS_ERR_USAGE,
            "--bf16-optimizer: DeepSpeed takes BF16_Optimizer for bf16 without optimizer offload "
            "(engine.py _do_optimizer_sanity_check)");
    if (t->ckpt_in_unit == 1 && fw->fetch_by_module_hooks)
        return zs_fail(err, ZS_ERR_USAGE,
            "--framework %s: --checkpoint-placement inside: ZeRO-3 fetches parameters in each "
            "submodule's forward pre-hook, which the recomputed forward runs again (give outside)",
            fw->name);
    return ZS_OK;
}

/* Whether DDP under bf16 mixed precision is what fw runs for it (fw_deepspeed.c,
 * DEEPSPEED_BF16_OPTIMIZER: by release, BF16_Optimizer or bf16 alone without ZeRO); else why. */
static bool ddp_bf16_runs(const framework *fw, const training *t, char *why, int whylen)
{
    int k = fw->bf16_stage0;
    if (k == BF16_STAGE0_MIXED || (k == BF16_STAGE0_PIPE_OPT && t->pp <= 1)) return true;
    char rel[40];
    snprintf(why, (size_t)whylen,
        k == BF16_STAGE0_PURE
            ? "%s %s runs bf16 without ZeRO as bf16 weights and optimizer, no fp32 master: "
              "--precision bf16-pure"
        : k == BF16_STAGE0_OPTIMIZER
            ? "%s %s runs bf16 without ZeRO as BF16_Optimizer: --strategy zero1 --bf16-optimizer"
            : "%s %s's pipeline engine: bf16 stage 0 is BF16_Optimizer (zero1 --bf16-optimizer "
              "--grad-dtype 16-bit)",
        fw->label, framework_release_text(fw, rel, sizeof rel));
    return false;
}

bool framework_allows(const framework *fw, const strategy *s, const training *t, char *why, int whylen)
{
    int i = strategy_index(s);
    if (i < 0 || !fw->runs[i]) {
        snprintf(why, (size_t)whylen, "%s does not run %s", fw->label, s->label);
        return false;
    }
    bool sharded = s->shards.gradients || s->shards.parameters;
    if (t->pp > 1 && sharded && !fw->pipeline_sharded_grads) {
        snprintf(why, (size_t)whylen, "%s's pipeline engine accepts ZeRO stage 0 or 1 only", fw->label);
        return false;
    }
    bool opt = t->offload_optimizer != OFFLOAD_NONE, par = t->offload_params != OFFLOAD_NONE;
    if ((opt || par) && fw->offload == FW_OFFLOAD_NONE) {
        snprintf(why, (size_t)whylen, "%s has no offload", fw->label);
        return false;
    }
    if ((opt || par) && fw->offload == FW_OFFLOAD_TOGETHER &&
        (t->offload_optimizer != OFFLOAD_CPU || t->offload_params != OFFLOAD_CPU || !s->shards.parameters)) {
        snprintf(why, (size_t)whylen,
            "%s offloads parameters and optimizer together, to CPU, when fully sharded", fw->label);
        return false;
    }
    if ((t->shard_group > 0 || t->hpz_group > 1) && !sharded && !s->shards.optimizer) {
        snprintf(why, (size_t)whylen, "hybrid sharding needs a sharded strategy");
        return false;
    }
    if (t->ep > 1 && s->shards.parameters && !fw->expert_sharded_params) {
        snprintf(why, (size_t)whylen, "%s does not shard expert-parallel parameters (EP with %s)", fw->label,
            s->label);
        return false;
    }
    /* torchtitan (pytorch/torchtitan@73a0e697, v0.2.2): parallelize.py raises "DDP has not
     * supported > 1D parallelism" unless the replicate mesh is the world; with no data
     * parallelism, TP or PP run outside FSDP, where distributed/utils.py maybe_enable_amp
     * disables mixed precision ("only supported when FSDP/HSDP/CP is enabled"); CP enables
     * FSDP over its ranks (parallel_dims.py fsdp_enabled), so it is not DDP either. */
    if (fw->ddp_alone && s->id == STRAT_DDP && (t->tp > 1 || t->pp > 1 || t->cp > 1)) {
        bool beside = training_dp(t) > 1 || t->cp > 1;
        bool mixed = t->precision == PREC_BF16 || t->precision == PREC_FP16 || t->precision == PREC_FP8;
        if (beside || mixed) {
            snprintf(why, (size_t)whylen,
                beside
                    ? "%s's DDP takes no TP, PP or CP (torchtitan: \"DDP has not supported > 1D "
                      "parallelism\")"
                    : "%s: TP or PP without DP run outside FSDP, mixed precision off (torchtitan): fp32 or "
                      "bf16-pure",
                fw->label);
            return false;
        }
    }
    if (s->id == STRAT_DDP && t->precision == PREC_BF16 && !ddp_bf16_runs(fw, t, why, whylen)) return false;
    if (t->bf16_optimizer && s->id != STRAT_ZERO1) {
        snprintf(why, (size_t)whylen, "BF16_Optimizer is DeepSpeed's own ZeRO stage 1 (--bf16-optimizer)");
        return false;
    }
    if ((t->hpz_group > 1 || t->quant_weights) && !s->shards.parameters) {
        snprintf(why, (size_t)whylen, "ZeRO++ hpZ and qwZ work on ZeRO-3's parameter gathers");
        return false;
    }
    return true;
}

const char *framework_strategy_label(const framework *fw, const strategy *s, char *buf, int len)
{
    int i = strategy_index(s);
    if (i < 0 || !fw->runs[i])
        snprintf(buf, (size_t)len, "%s", s->label);
    else
        snprintf(buf, (size_t)len, "%s%s%s", fw->prefix, fw->prefix[0] ? " " : "", fw->runs[i]);
    return buf;
}

int frameworks_real(const framework **out)
{
    int n = 0;
    for (int k = 0; frameworks[k] && n < FRAMEWORK_MAX; k++)
        if (frameworks[k] != &fw_generic) out[n++] = frameworks[k];
    out[n] = NULL;
    return n;
}
