/* launch_extra.c -- launcher keys several readers share: Liger / Cut Cross Entropy loss kernels and
 * Axolotl's parallelism and activation offloading keys, to training flags. */
#include <stdio.h>
#include <string.h>

#include "io/launch_int.h"

/* The keys that fuse the LM head with the cross entropy, so the logits are never stored whole:
 * Axolotl's Liger plugin (axolotl-ai-cloud/axolotl@067b021c src/axolotl/integrations/liger/args.py)
 * and Cut Cross Entropy plugin (integrations/cut_cross_entropy/args.py), the HF Trainer's
 * use_liger_kernel (Liger's apply_liger_kernel_to_* default fused_linear_cross_entropy=True), and
 * LLaMA-Factory's enable_liger_kernel (hiyouga/LLaMA-Factory@ff6d4d12
 * src/llamafactory/model/model_utils/liger_kernel.py: fused linear cross entropy unless logits are
 * needed). The other Liger kernels (RMSNorm, SwiGLU, RoPE) save a few activations not modelled. */
static const char *const fused_keys[] = {"liger_fused_linear_cross_entropy", "cut_cross_entropy",
    "use_liger_kernel", "enable_liger_kernel", NULL};
static const char *const kernel_keys[] = {"liger_rms_norm", "liger_glu_activation", "liger_rope",
    "liger_layer_norm", "liger_rms_norm_gated", "liger_cross_entropy", "lora_mlp_kernel", "lora_qkv_kernel",
    "lora_o_kernel", "tiled_mlp", NULL};

int launch_kernel_keys(reader *r)
{
    const char *on_key = NULL;
    /* Axolotl's CutCrossEntropyPlugin turns it on by itself (cut_cross_entropy defaults to true) */
    const cJSON *pl = launch_item(r->root, "plugins"), *cce = launch_item(r->root, "cut_cross_entropy");
    for (const cJSON *c = cJSON_IsArray(pl) && !cce ? pl->child : NULL; c && !on_key; c = c->next)
        if (cJSON_IsString(c) && strstr(c->valuestring, "CutCrossEntropyPlugin")) on_key = "plugins";
    if (on_key) launch_mark(r, "plugins");
    for (const char *const *k = fused_keys; *k; k++) {
        const cJSON *v = launch_top(r, *k);
        bool on = false;
        if (v && launch_boolean(r, v, *k, &on)) return r->err->code;
        if (v && on && !on_key) on_key = *k;
        if (v && !on) USED(r, "%s false", *k);
    }
    if (on_key) {
        if (launch_set_flag(r, OPT_LOSS, "fused-linear", on_key)) return r->err->code;
        USED(r, "%s%s -> --loss fused-linear (the LM head and cross entropy fused in chunks: no whole "
                "logits stored)",
            on_key, strcmp(on_key, "plugins") ? " true" : " CutCrossEntropyPlugin (cut_cross_entropy: true)");
    }
    const cJSON *ch = launch_top(r, "chunked_cross_entropy");
    bool chunked = false;
    if (ch && launch_boolean(r, ch, "chunked_cross_entropy", &chunked)) return r->err->code;
    if (chunked && !on_key) {
        if (launch_set_flag(r, OPT_LOSS, "chunked", "chunked_cross_entropy")) return r->err->code;
        USED(r, "chunked_cross_entropy true -> --loss chunked");
    }
    for (const char *const *k = kernel_keys; *k; k++)
        if (launch_top(r, *k))
            IGNORED(r, "%s (a fused kernel: the few activations it saves are not modelled, an over-estimate)",
                *k);
    return ZS_OK;
}

/* LLaMA-Factory's flash_attn (hparams/model_args.py, AttentionFunction auto|disabled|sdpa|fa2|fa3:
 * disabled is eager attention) and packing / neat_packing (hparams/data_args.py). */
int launch_lf_attention(reader *r)
{
    const cJSON *fa = launch_top(r, "flash_attn");
    if (fa && !cJSON_IsString(fa)) return launch_bad(r, "flash_attn", "auto, disabled, sdpa, fa2 or fa3");
    if (fa && strcmp(fa->valuestring, "disabled") == 0) {
        if (launch_set_flag(r, OPT_EAGER, "", "flash_attn")) return r->err->code;
        USED(r, "flash_attn disabled -> --eager-attention (eager attention stores the s^2 matrix)");
    } else if (fa)
        USED(r, "flash_attn %s (no s^2 matrix stored: flash attention)", fa->valuestring);
    static const char *const packs[] = {"packing", "neat_packing", NULL};
    for (const char *const *k = packs; *k; k++) {
        const cJSON *v = launch_top(r, *k);
        bool on = false;
        if (v && launch_boolean(r, v, *k, &on)) return r->err->code;
        if (v)
            USED(r, "%s %s%s", *k, on ? "true" : "false",
                on ? " (documents packed: --doc-len gives their mean length, else one document a sequence)"
                   : "");
    }
    return ZS_OK;
}

/* One Axolotl degree key into flag id (*n: its value, 1 when absent). */
static int degree(reader *r, const char *key, int id, const char *what, long long *n_out)
{
    const cJSON *v = launch_top(r, key);
    long long n;
    *n_out = 1;
    if (!v) return ZS_OK;
    if (launch_whole(r, v, key, &n)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", n);
    if (launch_set_flag(r, id, buf, key)) return r->err->code;
    USED(r, "%s %lld -> --%s%s", key, n, training_flag(id)->name, what);
    *n_out = n;
    return ZS_OK;
}

/* dp_shard_size (and dp_replicate_size, default 1) fix the world size: Axolotl builds its device
 * mesh as dp_replicate x dp_shard x cp x tp (utils/schemas/config.py; src/axolotl/utils/distributed
 * mesh); replicas of a shard group are HSDP: --shard-group dp_shard_size. */
static int axolotl_mesh(reader *r, long long tp, long long cp, long long ep)
{
    const cJSON *sh = launch_top(r, "dp_shard_size"), *re = launch_top(r, "dp_replicate_size");
    long long shard = 0, reps = 1;
    if (sh && launch_whole(r, sh, "dp_shard_size", &shard)) return r->err->code;
    if (re && launch_whole(r, re, "dp_replicate_size", &reps)) return r->err->code;
    if (!sh) {
        if (re) IGNORED(r, "dp_replicate_size (without dp_shard_size Axolotl shards over all devices)");
        return ZS_OK;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", reps * shard * tp * cp * ep);
    if (launch_set_flag(r, OPT_GPUS, buf, "dp_shard_size")) return r->err->code;
    USED(r,
        "dp_shard_size %lld x dp_replicate_size %lld x TP %lld x CP %lld x EP %lld -> --gpus %s (the device "
        "mesh)",
        shard, reps, tp, cp, ep, buf);
    /* Replicas (HSDP) and the EP axis (integrations/expert_parallel/README.md: non-expert
     * parameters sharded over dp_shard, replicated across ep) both shard over dp_shard alone. */
    if (reps * ep > 1) {
        snprintf(buf, sizeof buf, "%lld", shard);
        if (launch_set_flag(r, OPT_SHARD_GROUP, buf, "dp_shard_size")) return r->err->code;
        USED(r, "dp_replicate_size %lld, EP %lld -> --shard-group %lld (shard within, replicate across)",
            reps, ep, shard);
    }
    return ZS_OK;
}

/* Axolotl's N-D parallelism (utils/schemas/config.py: context_parallel_size, tensor_parallel_size,
 * expert_parallel_size, fsdp_version, dp_shard_size), fp8, and activation_offloading
 * (legacy|disk|hidden_states|bool: the checkpointed activations in host memory). */
int launch_axolotl_parallel(reader *r)
{
    long long cp, tp, ep;
    if (degree(r, "context_parallel_size", OPT_CP,
            " (Axolotl splits each sequence over the group: ring attention)", &cp) ||
        degree(r, "tensor_parallel_size", OPT_TP, "", &tp) ||
        degree(r, "expert_parallel_size", OPT_EP, " (the ExpertParallelPlugin's experts axis)", &ep) ||
        axolotl_mesh(r, tp, cp, ep))
        return r->err->code;
    /* integrations/liger/args.py, check_tensor_parallel_size_liger_fused_linear_cross_entropy */
    bool flce = false;
    const cJSON *fl = launch_item(r->root, "liger_fused_linear_cross_entropy");
    if (tp > 1 && fl && launch_boolean(r, fl, "liger_fused_linear_cross_entropy", &flce) == ZS_OK && flce)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: tensor_parallel_size %lld with liger_fused_linear_cross_entropy: Axolotl refuses it "
            "(\"Tensor parallelism is not compatible with liger losses\")",
            r->path, tp);
    /* fp8: torchao's float8 training of the linear layers (utils/schemas/config.py) */
    const cJSON *f8 = launch_top(r, "fp8");
    bool on8 = false;
    if (f8 && launch_boolean(r, f8, "fp8", &on8)) return r->err->code;
    if (on8 && launch_set_flag(r, OPT_PRECISION, "fp8", "fp8")) return r->err->code;
    if (f8)
        USED(r, "fp8 %s%s", on8 ? "true" : "false", on8 ? " -> --precision fp8 (torchao float8 GEMMs)" : "");
    if (launch_top(r, "gradient_checkpointing_kwargs"))
        USED(r, "gradient_checkpointing_kwargs (use_reentrant changes how, not what, is recomputed)");
    const cJSON *fv = launch_top(r, "fsdp_version");
    long long v = 0;
    if (fv && (launch_whole(r, fv, "fsdp_version", &v) || v > 2))
        return launch_bad(r, "fsdp_version", "1 or 2");
    if (fv) {
        launch_set_framework(r, v == 2 ? "fsdp2" : "fsdp", "fsdp_version");
        USED(r, "fsdp_version %lld -> --framework %s", v, v == 2 ? "fsdp2" : "fsdp");
    }
    const cJSON *ao = launch_top(r, "activation_offloading");
    bool on = cJSON_IsString(ao);
    if (ao && !on && launch_boolean(r, ao, "activation_offloading", &on)) return r->err->code;
    if (on) {
        /* Copied on a side stream, beside the compute, as gradient_checkpointing: offload. */
        if (launch_set_flag(r, OPT_OFFLOAD_ACT, "", "activation_offloading") ||
            launch_set_flag(r, OPT_OFFLOAD_ACT_SYNC, "off", "activation_offloading"))
            return r->err->code;
        USED(r, "activation_offloading %s -> --activation-offload --activation-offload-sync off%s",
            cJSON_IsString(ao) ? ao->valuestring : "true",
            cJSON_IsString(ao) && !strcmp(ao->valuestring, "disk") ? " (to disk: counted as host memory)"
                                                                   : "");
    } else if (ao)
        USED(r, "activation_offloading false");
    return ZS_OK;
}

/* accelerate's parallelism_config section (huggingface/accelerate@16cb6eb8
 * src/accelerate/parallelism_config.py): dp_replicate x dp_shard x tp x cp x sp ranks, which must be
 * num_processes (ParallelismConfig._validate_accelerator, but for DeepSpeed's sp backend); cp (FSDP2's
 * ring attention) is --cp; sp (DeepSpeed Ulysses/ALST) is not modelled (its ranks count as data
 * parallel, each holding the whole sequence's activations: an over-estimate); replicas of a shard
 * group are HSDP. */
int launch_accel_parallel(reader *r, long long procs)
{
    const cJSON *pc = launch_top(r, "parallelism_config");
    if (!pc) return ZS_OK;
    if (!cJSON_IsObject(pc))
        return launch_bad(r, "parallelism_config", "a mapping of parallelism_config_* keys");
    static const char *const names[] = {
        "dp_replicate_size", "dp_shard_size", "tp_size", "cp_size", "sp_size"};
    long long n[5] = {1, 1, 1, 1, 1}, total = 1;
    char key[96], buf[32];
    for (const cJSON *c = pc->child; c; c = c->next) {
        const char *k = strncmp(c->string, "parallelism_config_", 19) == 0 ? c->string + 19 : c->string;
        snprintf(key, sizeof key, "parallelism_config.%s", c->string);
        int i = 0;
        while (i < 5 && strcmp(k, names[i])) i++;
        if (i == 5) {
            IGNORED(r, "%s (a backend or sequence-length setting, not modelled)", key);
            continue;
        }
        if (!cJSON_IsNull(c) && launch_whole(r, c, key, &n[i])) return r->err->code;
    }
    for (int i = 0; i < 5; i++) total *= n[i];
    const cJSON *sb = launch_item(pc, "parallelism_config_sp_backend");
    bool ds_sp = n[4] > 1 && (!sb || (cJSON_IsString(sb) && strcmp(sb->valuestring, "deepspeed") == 0));
    if (total != procs && !ds_sp)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: parallelism_config's dp_replicate %lld x dp_shard %lld x tp %lld x cp %lld x sp %lld = %lld "
            "is not num_processes %lld (accelerate's ParallelismConfig refuses it)",
            r->path, n[0], n[1], n[2], n[3], n[4], total, procs);
    snprintf(buf, sizeof buf, "%lld", n[2]);
    if (launch_set_flag(r, OPT_TP, buf, "parallelism_config")) return r->err->code;
    snprintf(buf, sizeof buf, "%lld", n[3]);
    if (launch_set_flag(r, OPT_CP, buf, "parallelism_config")) return r->err->code;
    USED(r,
        "parallelism_config: dp_replicate %lld x dp_shard %lld x tp %lld x cp %lld x sp %lld -> --tp %lld "
        "--cp %lld",
        n[0], n[1], n[2], n[3], n[4], n[2], n[3]);
    if (n[4] > 1)
        IGNORED(r, "parallelism_config_sp_size %lld (Ulysses sequence parallelism is not modelled: its ranks "
                   "count as data parallel with whole sequences, an over-estimate of activations)",
            n[4]);
    if (n[0] > 1 && n[1] > 1) {
        snprintf(buf, sizeof buf, "%lld", n[1]);
        if (launch_set_flag(r, OPT_SHARD_GROUP, buf, "parallelism_config")) return r->err->code;
        USED(r, "-> --shard-group %lld (HSDP: dp_shard within, dp_replicate across)", n[1]);
    }
    return ZS_OK;
}

/* LLaMA-Factory's Megatron backends (mcore_adapter with USE_MCA=1, Megatron Bridge:
 * hiyouga/LLaMA-Factory@ff6d4d12 src/llamafactory/hparams/megatron_bridge_args.py, all degrees
 * default 1): the degrees, sequence_parallel, use_distributed_optimizer (ZeRO-1 over DP) and
 * recompute_granularity (HF gradient checkpointing does not apply there). */
int launch_lf_megatron(reader *r)
{
    static const char *const keys[] = {"tensor_model_parallel_size", "pipeline_model_parallel_size",
        "context_parallel_size", "expert_model_parallel_size", "virtual_pipeline_model_parallel_size"};
    static const int ids[] = {OPT_TP, OPT_PP, OPT_CP, OPT_EP, OPT_VSTAGES};
    bool any = false;
    for (int i = 0; i < 5; i++) any |= launch_item(r->root, keys[i]) != NULL;
    if (!any) return ZS_OK;
    for (int i = 0; i < 5; i++) {
        long long n;
        if (degree(r, keys[i], ids[i], "", &n)) return r->err->code;
    }
    launch_set_framework(r, "megatron", "tensor_model_parallel_size");
    USED(r, "the Megatron degrees -> --framework megatron");
    const cJSON *sp = launch_top(r, "sequence_parallel"), *dopt = launch_top(r, "use_distributed_optimizer");
    bool on = false;
    if (sp && launch_boolean(r, sp, "sequence_parallel", &on)) return r->err->code;
    if (on && launch_set_flag(r, OPT_SP, "", "sequence_parallel")) return r->err->code;
    if (sp) USED(r, "sequence_parallel %s%s", on ? "true" : "false", on ? " -> --sequence-parallel" : "");
    on = false;
    if (dopt && launch_boolean(r, dopt, "use_distributed_optimizer", &on)) return r->err->code;
    launch_set_strategy(r, on ? "zero1" : "ddp", "use_distributed_optimizer");
    if (dopt)
        USED(r, "use_distributed_optimizer %s -> --strategy %s", on ? "true" : "false", on ? "zero1" : "ddp");
    else
        DEFAULTED(r, "use_distributed_optimizer false -> --strategy ddp");
    const cJSON *rg = launch_top(r, "recompute_granularity");
    const char *g = cJSON_IsString(rg) ? rg->valuestring : "none";
    if (rg && strcmp(g, "full") && strcmp(g, "selective"))
        return launch_bad(r, "recompute_granularity", "full or selective");
    if (launch_set_flag(r, OPT_CKPT, g, "recompute_granularity")) return r->err->code;
    USED(r, "recompute_granularity %s -> --checkpointing %s (under Megatron, not HF gradient checkpointing)",
        g, g);
    return ZS_OK;
}
