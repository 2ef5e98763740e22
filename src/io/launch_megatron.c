/* launch_megatron.c -- a Megatron-LM launch (pretrain_gpt.py's arguments, or the shell script that
 * runs it) to training fields and a model, with Megatron's own checks (NVIDIA/Megatron-LM@d98e8a64
 * megatron/training/arguments.py validate_args, megatron/core/transformer/transformer_config.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compat_megatron.h"
#include "io/launch_int.h"
#include "io/launch_shell.h"
#include "io/yamlutil.h"

/* A launch script or argument list: Megatron's shape or batch flags, outside a JSON object. */
static bool mg_sniff(const char *text, size_t len)
{
    size_t i = strspn(text, " \t\r\n");
    if (i < len && text[i] == '{') return false;
    if (len > 2 && text[0] == '#' && text[1] == '!') return true; /* a shell script */
    if (strncmp(text, "MODEL_ARGS:", 11) == 0 || strstr(text, "\nMODEL_ARGS:")) return true; /* a test's */
    static const char *const marks[] = {
        "--num-layers", "--micro-batch-size", "--tensor-model-parallel-size", "pretrain_gpt.py", NULL};
    for (const char *const *m = marks; *m; m++)
        if (strstr(text, *m)) return true;
    return false;
}

/* Megatron-LM's functional-test configs (tests/functional_tests/test_cases/.../model_config.yaml): its
 * MODEL_ARGS mapping ("--num-layers": 12, a switch as true) as the flat object a launch gives. */
static int mg_model_args(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err)
{
    cJSON *y = NULL;
    if (yaml_parse_object(text, len, origin, &y, err)) return err->code;
    const cJSON *ma = cJSON_GetObjectItemCaseSensitive(y, "MODEL_ARGS");
    cJSON *o = cJSON_IsObject(ma) ? cJSON_CreateObject() : NULL;
    for (const cJSON *c = o ? ma->child : NULL; c; c = c->next) {
        char val[64];
        cJSON *v = NULL;
        if (cJSON_IsTrue(c))
            v = cJSON_CreateTrue();
        else if (cJSON_IsNumber(c) && snprintf(val, sizeof val, "%.17g", c->valuedouble) > 0)
            v = cJSON_CreateString(val);
        else if (cJSON_IsString(c))
            v = cJSON_CreateString(c->valuestring);
        if (v && !cJSON_AddItemToObject(o, c->string, v)) cJSON_Delete(v);
    }
    /* The harness's other sections (ENV_VARS, TEST_TYPE...) are listed with the ignored keys. */
    for (const cJSON *c = o ? y->child : NULL; c; c = c->next)
        if (strcmp(c->string, "MODEL_ARGS") && !cJSON_GetObjectItemCaseSensitive(o, c->string))
            cJSON_AddItemToObject(o, c->string, cJSON_CreateTrue());
    cJSON_Delete(y);
    if (!o)
        return zs_fail(err, ZS_ERR_INPUT, "%s: MODEL_ARGS: expected a mapping of Megatron arguments", origin);
    *root = o;
    return ZS_OK;
}

/* The words as an object: "--flag" -> the words after it up to the next flag ("": a switch, read
 * as true), the last occurrence winning as argparse's. */
static int mg_to_tree(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err)
{
    if (strncmp(text, "MODEL_ARGS:", 11) == 0 || strstr(text, "\nMODEL_ARGS:"))
        return mg_model_args(text, len, origin, root, err);
    shell_words w;
    if (shell_words_read(text, len, origin, &w, err)) return err->code;
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; o && i < w.n; i++) {
        if (strncmp(w.word[i], "--", 2) != 0 || !w.word[i][2]) continue;
        char val[1024] = "", key[128];
        int j = i + 1;
        /* --flag=value (argparse and torchrun take both spellings). */
        const char *eq = strchr(w.word[i], '=');
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - w.word[i]) : (int)strlen(w.word[i]), w.word[i]);
        if (eq) launch_join(val, sizeof val, eq + 1);
        /* A value stops at the next flag and at the script (torchrun's options are before it). */
        bool launcher = w.args_at > 0 && i < w.args_at - 1;
        for (; !eq && j < w.n && strncmp(w.word[j], "--", 2) != 0 && !(launcher && j >= w.args_at - 1); j++)
            launch_join(val, sizeof val, w.word[j]);
        /* torchrun's options before the script, Megatron's after; a value is one word but
         * --data-path's weights and prefixes. */
        cJSON_DeleteItemFromObjectCaseSensitive(o, key);
        cJSON *v = val[0] ? cJSON_CreateString(val) : cJSON_CreateTrue();
        if (!v || !cJSON_AddItemToObject(o, key, v)) {
            cJSON_Delete(v);
            cJSON_Delete(o);
            o = NULL;
        }
        i = j - 1;
    }
    shell_words_free(&w);
    if (!o) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", origin);
    *root = o;
    return ZS_OK;
}

/* A whole-number argument (>= 0 with zero_ok), dflt when absent; *given says if present. */
static int mg_int(reader *r, const char *key, long long dflt, long long *out, bool *given)
{
    const cJSON *v = launch_top(r, key);
    *out = dflt;
    if (given) *given = v != NULL;
    if (!v) return ZS_OK;
    if (cJSON_IsString(v)) {
        char *e;
        long long n = strtoll(v->valuestring, &e, 10);
        if (*e || n < 0 || n > 1000000000000LL) return launch_bad(r, key, "a whole number");
        *out = n;
        return ZS_OK;
    }
    /* No value: a variable the script leaves to the environment ($SLURM_NNODES), unset here. */
    if (cJSON_IsTrue(v)) {
        if (given) *given = false;
        if (!strstr(r->lc->defaulted, key))
            DEFAULTED(r, "%s (no value: a variable the environment sets; %lld assumed)", key, dflt);
        return ZS_OK;
    }
    return launch_bad(r, key, "a whole number");
}

static bool mg_on(reader *r, const char *key)
{
    return launch_top(r, key) != NULL;
}

static const char *mg_str(reader *r, const char *key)
{
    const cJSON *v = launch_top(r, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One whole-number argument into flag id (its default noted when absent). */
static int mg_flag(reader *r, const char *key, int id, long long dflt, long long *out)
{
    bool given;
    if (mg_int(r, key, dflt, out, &given)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", *out);
    if (*out >= 1 && launch_set_flag(r, id, buf, key)) return r->err->code;
    if (given)
        USED(r, "%s %lld -> --%s", key, *out, training_flag(id)->name);
    else
        DEFAULTED(r, "%s %lld (Megatron's default)", key, dflt);
    return ZS_OK;
}

/* torchrun's --nproc_per_node x --nnodes: the world size. */
static int mg_world(reader *r)
{
    long long ppn = 1, nodes = 1;
    bool g1 = false, g2 = false;
    const char *k1 = launch_item(r->root, "--nproc-per-node") ? "--nproc-per-node" : "--nproc_per_node";
    if (mg_int(r, k1, 1, &ppn, &g1)) return r->err->code;
    const char *nn = mg_str(r, "--nnodes");
    if (nn) {
        g2 = true;
        nodes = strtoll(nn, NULL, 10); /* "1:4" (elastic): the minimum */
        if (nodes < 1 || nodes > 1000000) return launch_bad(r, "--nnodes", "a node count");
    }
    if (ppn < 1) return launch_bad(r, k1, "a GPU count of at least 1");
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", ppn * nodes);
    if (launch_set_flag(r, OPT_GPUS, buf, g1 ? k1 : "--nnodes")) return r->err->code;
    snprintf(buf, sizeof buf, "%lld", ppn);
    if (g1 && launch_set_flag(r, OPT_GPN, buf, k1)) return r->err->code;
    if (g1 || g2)
        USED(r, "torchrun %s %lld --nnodes %lld -> --gpus %lld (world size)", k1, ppn, nodes, ppn * nodes);
    else
        DEFAULTED(r, "world size 1 (no torchrun --nproc_per_node/--nnodes: give --gpus)");
    return ZS_OK;
}

/* TP, PP, CP, EP, expert TP, virtual stages, sequence parallelism, the distributed optimizer. */
static int mg_parallel(reader *r, long long layers)
{
    long long tp, pp, cp, ep, etp, n;
    if (mg_flag(r, "--tensor-model-parallel-size", OPT_TP, 1, &tp) ||
        mg_flag(r, "--pipeline-model-parallel-size", OPT_PP, 1, &pp) ||
        mg_flag(r, "--context-parallel-size", OPT_CP, 1, &cp) ||
        mg_flag(r, "--expert-model-parallel-size", OPT_EP, 1, &ep))
        return r->err->code;
    bool given;
    if (mg_int(r, "--expert-tensor-parallel-size", 0, &etp, &given)) return r->err->code;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", etp);
    if (given && (etp < 1 || launch_set_flag(r, OPT_ETP, buf, "--expert-tensor-parallel-size")))
        return etp < 1 ? launch_bad(r, "--expert-tensor-parallel-size", "at least 1") : r->err->code;
    if (given) USED(r, "--expert-tensor-parallel-size %lld -> --expert-tp %lld", etp, etp);
    if (mg_int(r, "--num-layers-per-virtual-pipeline-stage", 0, &n, &given)) return r->err->code;
    long long v = 1;
    if (given) {
        long long per = pp > 0 && layers % pp == 0 ? layers / pp : 0;
        if (n < 1 || !per || per % n)
            return zs_fail(r->err, ZS_ERR_INPUT,
                "%s: --num-layers-per-virtual-pipeline-stage %lld: the %lld layers per pipeline stage must "
                "be "
                "divisible by it (Megatron asserts it, megatron/training/arguments.py)",
                r->path, n, per);
        v = per / n;
    } else if (mg_int(r, "--virtual-pipeline-model-parallel-size", 1, &v, &given) ||
        (!given && mg_int(r, "--num-virtual-stages-per-pipeline-rank", 1, &v, &given)))
        return r->err->code;
    snprintf(buf, sizeof buf, "%lld", v < 1 ? 1 : v);
    if (launch_set_flag(r, OPT_VSTAGES, buf, "--num-layers-per-virtual-pipeline-stage")) return r->err->code;
    if (given) USED(r, "virtual pipeline: %lld chunks per stage -> --virtual-stages %lld", v, v);
    long long g;
    if (mg_int(r, "--microbatch-group-size-per-virtual-pipeline-stage", 0, &g, &given)) return r->err->code;
    if (given) {
        snprintf(buf, sizeof buf, "%lld", g);
        if (g < 1) return launch_bad(r, "--microbatch-group-size-per-virtual-pipeline-stage", "at least 1");
        if (launch_set_flag(r, OPT_MB_GROUP, buf, "--microbatch-group-size-per-virtual-pipeline-stage"))
            return r->err->code;
        USED(r, "--microbatch-group-size-per-virtual-pipeline-stage %lld -> --microbatch-group %lld", g, g);
    }
    if (mg_on(r, "--sequence-parallel")) {
        if (tp > 1 && launch_set_flag(r, OPT_SP, "", "--sequence-parallel")) return r->err->code;
        USED(r, "--sequence-parallel%s",
            tp > 1 ? " -> --sequence-parallel" : " (off: Megatron disables it at TP 1)");
    }
    bool dist = mg_on(r, "--use-distributed-optimizer");
    launch_set_strategy(r, dist ? "zero1" : "ddp", dist ? "--use-distributed-optimizer" : "--num-layers");
    launch_set_framework(r, "megatron", "pretrain_gpt.py");
    if (dist)
        USED(r, "--use-distributed-optimizer -> --strategy zero1 (optimizer states sharded over DP)");
    else
        DEFAULTED(r, "--use-distributed-optimizer off -> --strategy ddp");
    return ZS_OK;
}

/* --micro-batch-size, --global-batch-size (the accumulation setup derives), --seq-length. */
static int mg_batch(reader *r)
{
    long long mb, gb, s;
    bool given;
    if (mg_flag(r, "--micro-batch-size", OPT_MICRO, 1, &mb)) return r->err->code;
    if (mg_int(r, "--global-batch-size", 0, &gb, &given)) return r->err->code;
    if (given && gb < 1) return launch_bad(r, "--global-batch-size", "at least 1");
    launch_config *lc = r->lc;
    lc->global_batch = gb;
    snprintf(lc->global_key, sizeof lc->global_key, "--global-batch-size");
    if (given)
        USED(r, "--global-batch-size %lld -> --grad-accum = %lld / (micro-batch x DP)", gb, gb);
    else
        DEFAULTED(r, "--global-batch-size micro-batch x DP (Megatron's default: no accumulation)");
    if (mg_flag(r, "--seq-length", OPT_SEQ, 2048, &s)) return r->err->code;
    return ZS_OK;
}

/* --bf16 / --fp16 (both refused, as validate_args asserts), --fp8-format. */
static int mg_precision(reader *r)
{
    bool b = mg_on(r, "--bf16"), f = mg_on(r, "--fp16");
    const char *f8 = mg_str(r, "--fp8-format");
    if (b && f)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: --fp16 and --bf16 both given (Megatron asserts not args.bf16 with --fp16, "
            "megatron/training/arguments.py)",
            r->path);
    const char *p = f8 ? "fp8" : b ? "bf16" : f ? "fp16" : "fp32";
    if (launch_set_flag(r, OPT_PRECISION, p, f8 ? "--fp8-format" : b ? "--bf16" : "--fp16"))
        return r->err->code;
    if (f8) USED(r, "--fp8-format %s -> --precision fp8 (FP8 GEMMs, bf16 elsewhere)", f8);
    if (b || f)
        USED(r, "--%s -> %s", b ? "bf16" : "fp16", f8 ? "the non-FP8 precision" : p);
    else if (!f8)
        DEFAULTED(r, "neither --bf16 nor --fp16: fp32 (Megatron's default params dtype)");
    /* --grad-reduce-in-bf16: the main gradients (and their reduction) in bf16, not fp32. */
    if (mg_on(r, "--grad-reduce-in-bf16")) {
        if (launch_set_flag(r, OPT_GRAD_DTYPE, "bf16", "--grad-reduce-in-bf16")) return r->err->code;
        USED(r, "--grad-reduce-in-bf16 -> --grad-dtype bf16");
    }
    const char *o = mg_str(r, "--optimizer");
    bool sgd = o && strcmp(o, "sgd") == 0;
    if (launch_set_flag(r, OPT_OPTIMIZER, sgd ? "sgd" : "adamw", "--optimizer")) return r->err->code;
    if (o)
        USED(r, "--optimizer %s -> --optimizer %s", o, sgd ? "sgd" : "adamw");
    else
        DEFAULTED(r, "--optimizer adam (Megatron's default; decoupled weight decay) -> adamw");
    return ZS_OK;
}

/* --recompute-granularity/-method/-num-layers (transformer_config.py's checks). */
static int mg_recompute(reader *r, long long layers, long long pp)
{
    const char *g = mg_str(r, "--recompute-granularity"), *m = mg_str(r, "--recompute-method");
    long long n;
    bool given;
    if (mg_int(r, "--recompute-num-layers", 0, &n, &given)) return r->err->code;
    if (!g && mg_on(r, "--recompute-activations")) g = "selective";
    if (g && strcmp(g, "full") && strcmp(g, "selective"))
        return launch_bad(r, "--recompute-granularity", "full or selective");
    if (m && strcmp(m, "uniform") && strcmp(m, "block"))
        return launch_bad(r, "--recompute-method", "uniform or block");
    if (g && !strcmp(g, "selective") && (m || given))
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: --recompute-granularity selective with --recompute-method/--recompute-num-layers: "
            "Megatron requires them unset (transformer_config.py)",
            r->path);
    long long per = pp > 0 ? layers / pp : layers;
    if (g && !strcmp(g, "full") && (!m || !given || n < 1 || (per > 0 && n > per)))
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: --recompute-granularity full needs --recompute-method uniform|block and "
            "--recompute-num-layers between 1 and the %lld layers per pipeline rank (Megatron's "
            "transformer_config.py)",
            r->path, per);
    if (launch_set_flag(r, OPT_CKPT, g ? g : "none", "--recompute-granularity")) return r->err->code;
    if (!g) {
        DEFAULTED(r, "--recompute-granularity none (Megatron's default)");
        return ZS_OK;
    }
    USED(r, "--recompute-granularity %s -> --checkpointing %s", g, g);
    if (!m) return ZS_OK;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", n);
    if (launch_set_flag(r, OPT_RECOMPUTE_METHOD, m, "--recompute-method") ||
        launch_set_flag(r, OPT_RECOMPUTE_LAYERS, buf, "--recompute-num-layers"))
        return r->err->code;
    USED(r,
        "--recompute-method %s --recompute-num-layers %lld -> --recompute-method %s --recompute-layers %lld",
        m, n, m, n);
    return ZS_OK;
}

/* The vocabulary: --vocab-size, else the tokenizer's (GPT2BPETokenizer: GPT-2's 50257 tokens,
 * openai/gpt-2 encoder.json; Llama2Tokenizer: 32000, Touvron et al. 2023), padded as Megatron
 * pads it (--make-vocab-size-divisible-by, default 128, times TP). */
static int mg_vocab(reader *r, long long tp, long long *out)
{
    long long v, div;
    bool given, dgiven;
    if (mg_int(r, "--vocab-size", 0, &v, &given) ||
        mg_int(r, "--make-vocab-size-divisible-by", 128, &div, &dgiven))
        return r->err->code;
    const char *tok = mg_str(r, "--tokenizer-type");
    /* A --vocab-file/--merge-file pair with no --tokenizer-type is GPT-2's BPE (the script's
     * gpt2-vocab.json and gpt2-merges.txt). */
    bool bpe = !tok && launch_item(r->root, "--vocab-file") && launch_item(r->root, "--merge-file");
    if (bpe) launch_mark(r, "--vocab-file"), launch_mark(r, "--merge-file");
    if (!given && ((tok && strcmp(tok, "GPT2BPETokenizer") == 0) || bpe))
        v = 50257;
    else if (!given && tok && strcmp(tok, "Llama2Tokenizer") == 0)
        v = 32000;
    if (v < 1) {
        v = 32000;
        DEFAULTED(r,
            "vocabulary: no --vocab-size and a tokenizer (%s) zerosim cannot read: 32000 assumed "
            "(LLaMA-2's; give --model for the real one)",
            tok ? tok : "none");
    } else
        USED(r, "%s %lld",
            given     ? "--vocab-size"
                : bpe ? "--vocab-file and --merge-file: GPT-2 BPE's vocabulary"
                      : "--tokenizer-type's vocabulary",
            v);
    if (tok && given) USED(r, "--tokenizer-type %s (the vocabulary is --vocab-size's)", tok);
    *out = compat_megatron_padded_vocab(v, div < 1 ? 128 : div, tp);
    if (*out < 1) return launch_bad(r, "--make-vocab-size-divisible-by", "at least 1");
    USED(r, "vocabulary padded to %lld (a multiple of %lld x TP %lld, as Megatron pads it)", *out, div, tp);
    return ZS_OK;
}

/* The block's shape flags into o (our "transformer" model type spells them out). */
static int mg_shape(reader *r, cJSON *o, long long h, long long heads)
{
    bool swiglu = mg_on(r, "--swiglu"), nobias = mg_on(r, "--disable-bias-linear");
    bool untie = mg_on(r, "--untie-embeddings-and-output-weights");
    const char *norm = mg_str(r, "--normalization"), *pos = mg_str(r, "--position-embedding-type");
    long long ffn, kv, groups, maxpos, seq;
    bool fgiven, kgiven, ggiven, pgiven;
    if (mg_int(r, "--ffn-hidden-size", 0, &ffn, &fgiven) || mg_int(r, "--kv-channels", 0, &kv, &kgiven) ||
        mg_int(r, "--num-query-groups", 1, &groups, &ggiven) ||
        mg_int(r, "--max-position-embeddings", 0, &maxpos, &pgiven) ||
        mg_int(r, "--seq-length", 2048, &seq, NULL))
        return r->err->code;
    /* validate_args: ffn_hidden_size 4h, or int(4h * 2/3 / 64) * 64 with SwiGLU. */
    if (!fgiven) ffn = swiglu ? (long long)(4.0 * (double)h * 2 / 3 / 64) * 64 : 4 * h;
    bool gqa = mg_on(r, "--group-query-attention");
    bool rms = norm && strcmp(norm, "RMSNorm") == 0;
    bool rope = (pos && strcmp(pos, "rope") == 0) || mg_on(r, "--use-rotary-position-embeddings");
    cJSON_AddNumberToObject(o, "intermediate_size", (double)ffn);
    cJSON_AddNumberToObject(o, "num_key_value_heads", (double)(gqa ? groups : heads));
    if (kgiven) cJSON_AddNumberToObject(o, "head_dim", (double)kv);
    cJSON_AddBoolToObject(o, "gated_mlp", swiglu);
    cJSON_AddStringToObject(o, "norm_type", rms ? "rmsnorm" : "layernorm");
    cJSON_AddStringToObject(
        o, "position_embedding_type", rope || mg_on(r, "--no-position-embedding") ? "rotary" : "learned");
    cJSON_AddNumberToObject(o, "max_position_embeddings", (double)(pgiven ? maxpos : seq));
    cJSON_AddBoolToObject(o, "tie_word_embeddings", !untie);
    cJSON_AddBoolToObject(o, "attention_bias", !nobias);
    cJSON_AddBoolToObject(o, "mlp_bias", !nobias);
    USED(r, "model shape: FFN %lld%s, %lld KV heads%s, %s, %s, %s positions, embeddings %s, %s linear biases",
        ffn, fgiven ? "" : " (Megatron's default)", gqa ? groups : heads,
        gqa ? " (--group-query-attention)" : "", swiglu ? "SwiGLU" : "GeLU MLP",
        rms ? "RMSNorm" : "LayerNorm", rope ? "rotary" : "learned", untie ? "untied" : "tied",
        nobias ? "no" : "with");
    /* Each flag that went into the shape named, as the report names every key. */
    static const char *const shape_keys[] = {"--ffn-hidden-size", "--kv-channels", "--group-query-attention",
        "--num-query-groups", "--swiglu", "--normalization", "--disable-bias-linear",
        "--untie-embeddings-and-output-weights", "--position-embedding-type", "--no-position-embedding",
        "--use-rotary-position-embeddings", "--max-position-embeddings", "--add-qkv-bias", NULL};
    static const char *const no_size[] = {
        "--apply-layernorm-1p", "--rotary-base", "--rotary-percent", "--use-mcore-models", NULL};
    char from[512] = "", none[256] = "";
    for (const char *const *k = shape_keys; *k; k++)
        if (mg_on(r, *k)) launch_join(from, sizeof from, *k);
    for (const char *const *k = no_size; *k; k++)
        if (mg_on(r, *k)) launch_join(none, sizeof none, *k);
    if (from[0]) USED(r, "shape flags: %s", from);
    if (none[0]) USED(r, "%s (no effect on sizes)", none);
    return ZS_OK;
}

/* --num-experts, --moe-router-topk (default 2), --moe-ffn-hidden-size (default the FFN's). */
static int mg_moe(reader *r, cJSON *o)
{
    long long e, k, ffn, shared, freq;
    bool eg, kg, fg, sg, qg;
    /* --moe-layer-freq is a number or a Python list expression ("([0]*3+[1]*58)"). */
    const char *fq = mg_str(r, "--moe-layer-freq");
    qg = fq != NULL;
    freq = fq && strspn(fq, "0123456789") == strlen(fq) ? atoll(fq) : 0;
    if (mg_int(r, "--num-experts", 0, &e, &eg) || mg_int(r, "--moe-router-topk", 2, &k, &kg) ||
        mg_int(r, "--moe-ffn-hidden-size", 0, &ffn, &fg) ||
        mg_int(r, "--moe-shared-expert-intermediate-size", 0, &shared, &sg))
        return r->err->code;
    if (!eg || e < 1) {
        if (kg || fg) IGNORED(r, "--moe-router-topk/--moe-ffn-hidden-size (no --num-experts)");
        return ZS_OK;
    }
    cJSON_AddNumberToObject(o, "num_local_experts", (double)e);
    cJSON_AddNumberToObject(o, "num_experts_per_tok", (double)k);
    if (fg) cJSON_ReplaceItemInObject(o, "intermediate_size", cJSON_CreateNumber((double)ffn));
    USED(r, "--num-experts %lld --moe-router-topk %lld%s, experts %s wide", e, k,
        kg ? "" : " (Megatron's default)", fg ? "--moe-ffn-hidden-size" : "--ffn-hidden-size");
    if (sg && shared > 0)
        IGNORED(r,
            "--moe-shared-expert-intermediate-size (a shared expert beside the routed ones is not in "
            "the model built from arguments: give --model)");
    if (qg && freq != 1)
        IGNORED(r, "--moe-layer-freq %s (every layer is counted as MoE: give --model for the pattern)", fq);
    return ZS_OK;
}

/* Shape arguments the model built from arguments lacks (its blocks are plain attention + MLP). */
static void mg_absent(reader *r)
{
    static const char *const absent[] = {"--multi-latent-attention", "--hybrid-layer-pattern",
        "--hybrid-override-pattern", "--is-hybrid-model", "--linear-attention-freq", NULL};
    for (const char *const *k = absent; *k; k++)
        if (mg_on(r, *k))
            IGNORED(r, "%s (not in the model built from arguments, which has plain attention blocks: give "
                       "--model)",
                *k);
}

/* The model the shape arguments describe, as a config.json zerosim reads (model_json). */
static int mg_model(reader *r, long long layers)
{
    long long h, heads, tp, vocab = 0;
    bool hg, ag;
    if (mg_int(r, "--hidden-size", 0, &h, &hg) || mg_int(r, "--num-attention-heads", 0, &heads, &ag) ||
        mg_int(r, "--tensor-model-parallel-size", 1, &tp, NULL))
        return r->err->code;
    if (layers < 1 || h < 1 || heads < 1) {
        IGNORED(r,
            "model shape (--num-layers, --hidden-size and --num-attention-heads are not all given: "
            "give --model)");
        return ZS_OK;
    }
    cJSON *o = cJSON_CreateObject();
    if (!o) return zs_fail(r->err, ZS_ERR_NOMEM, "%s: out of memory", r->path);
    const char *name = strrchr(r->path, '/');
    char buf[160];
    snprintf(buf, sizeof buf, "megatron:%s", name ? name + 1 : r->path);
    cJSON_AddStringToObject(o, "model_type", "transformer");
    cJSON_AddStringToObject(o, "name", buf);
    cJSON_AddNumberToObject(o, "num_hidden_layers", (double)layers);
    cJSON_AddNumberToObject(o, "hidden_size", (double)h);
    cJSON_AddNumberToObject(o, "num_attention_heads", (double)heads);
    double ad = 0.1, hd = 0.1; /* --attention-dropout, --hidden-dropout: Megatron's default 0.1 */
    const char *a = mg_str(r, "--attention-dropout"), *d = mg_str(r, "--hidden-dropout");
    if (a) ad = atof(a);
    if (d) hd = atof(d);
    if (a || d) USED(r, "--attention-dropout/--hidden-dropout: dropout masks stored when above 0");
    cJSON_AddNumberToObject(o, "attention_dropout", ad);
    cJSON_AddNumberToObject(o, "hidden_dropout", hd);
    int rc = mg_vocab(r, tp < 1 ? 1 : tp, &vocab);
    if (rc == ZS_OK) cJSON_AddNumberToObject(o, "vocab_size", (double)vocab);
    if (rc == ZS_OK) rc = mg_shape(r, o, h, heads);
    if (rc == ZS_OK) rc = mg_moe(r, o);
    mg_absent(r);
    USED(r, "--num-layers %lld --hidden-size %lld --num-attention-heads %lld -> the model (%s)", layers, h,
        heads, buf);
    if (rc == ZS_OK && !cJSON_PrintPreallocated(o, r->lc->model_json, (int)sizeof r->lc->model_json, false))
        rc = zs_fail(r->err, ZS_ERR_INPUT, "%s: the model built from the arguments is too long", r->path);
    cJSON_Delete(o);
    return rc;
}

/* Uneven first/last pipeline stages and TP communication overlap (megatron/training/arguments.py:
 * --decoder-first/last-pipeline-num-layers, --tp-comm-overlap, NVIDIA/Megatron-LM@d98e8a64). */
static int mg_stages(reader *r)
{
    static const char *const keys[] = {
        "--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers"};
    static const int ids[] = {OPT_PP_FIRST, OPT_PP_LAST};
    for (int i = 0; i < 2; i++) {
        long long n;
        bool given;
        if (mg_int(r, keys[i], 0, &n, &given)) return r->err->code;
        if (!given) continue;
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", n);
        if (n < 1) return launch_bad(r, keys[i], "a whole number of at least 1");
        if (launch_set_flag(r, ids[i], buf, keys[i])) return r->err->code;
        USED(r, "%s %lld -> --%s %lld", keys[i], n, training_flag(ids[i])->name, n);
    }
    /* --attention-backend unfused|local: the softmax over a stored s x s score matrix */
    const char *ab = mg_str(r, "--attention-backend");
    if (ab && (strcmp(ab, "unfused") == 0 || strcmp(ab, "local") == 0)) {
        if (launch_set_flag(r, OPT_EAGER, "", "--attention-backend")) return r->err->code;
        USED(r, "--attention-backend %s -> --eager-attention (the s^2 scores stored)", ab);
    } else if (ab)
        USED(r, "--attention-backend %s (flash or fused: no s^2 matrix stored)", ab);
    if (mg_on(r, "--tp-comm-overlap")) {
        if (launch_set_flag(r, OPT_TP_OVERLAP, "on", "--tp-comm-overlap")) return r->err->code;
        USED(r, "--tp-comm-overlap -> --tp-comm-overlap on");
    }
    return ZS_OK;
}

static int mg_read(reader *r)
{
    static const char *const marks[] = {"--num-layers", "--hidden-size", "--micro-batch-size",
        "--global-batch-size", "--tensor-model-parallel-size", "--pipeline-model-parallel-size",
        "--seq-length", NULL};
    bool any = false;
    for (const char *const *m = marks; *m && !any; m++) any = launch_item(r->root, *m) != NULL;
    if (!any)
        return zs_fail(r->err, ZS_ERR_INPUT,
            "%s: a shell script, but the command it runs has no Megatron-LM training arguments "
            "(--num-layers, --micro-batch-size, --tensor-model-parallel-size...)",
            r->path);
    long long layers = 0, pp = 1;
    bool given;
    if (mg_int(r, "--num-layers", 0, &layers, &given)) return r->err->code;
    if (mg_world(r) || mg_parallel(r, layers) || mg_stages(r) || mg_batch(r) || mg_precision(r))
        return r->err->code;
    if (mg_int(r, "--pipeline-model-parallel-size", 1, &pp, &given)) return r->err->code;
    if (mg_recompute(r, layers, pp) || mg_model(r, layers)) return r->err->code;
    snprintf(r->lc->batch_rule, sizeof r->lc->batch_rule, "%s",
        "Megatron asserts global batch size % (micro batch size x data parallel size) == 0, "
        "megatron/core/num_microbatches_calculator.py");
    return ZS_OK;
}

const launch_format_desc launch_megatron_format = {
    LAUNCH_MEGATRON, "megatron", mg_sniff, mg_to_tree, NULL, mg_read};
