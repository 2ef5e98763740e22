/* setup.c -- shared flags: parse values, load the catalogs, apply ds_config then flags. */
#include "cmd/setup.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/catalog.h"
#include "core/finetune.h"
#include "core/framework.h"
#include "core/strategy.h"
#include "io/hardware_json.h"
#include "io/hub.h"
#include "io/model_json.h"
#include "io/safetensors.h"
#include "cmd/setup_cfg.h"
#include "cmd/setup_ds.h"
#include "core/units.h"

/* The output formats, in out_format's order. */
static const flag_choice format_choices[] = {
    {"table", FMT_TABLE}, {"json", FMT_JSON}, {"csv", FMT_CSV}, {NULL, 0}};

static char format_names[64];
static pthread_once_t format_once = PTHREAD_ONCE_INIT;

static void build_format_names(void)
{
    flag_choice_names(format_choices, 0, format_names, sizeof format_names);
}

const char *setup_format_names(void)
{
    pthread_once(&format_once, build_format_names);
    return format_names;
}

/* A shared option that is no training flag (setup_take reads it), listed in --help before the
 * training flag `before` (0: after them all); names, when set, begin its help. */
typedef struct own_opt {
    cli_opt opt;
    int before;
    const char *(*names)(void);
} own_opt;

static const own_opt own_opts[] = {
    {{.name = "model",
         .arg = "NAME|FILE",
         .help = "catalog model or a HF config.json / zerosim model JSON",
         .id = OPT_MODEL},
        OPT_GPUS, NULL},
    {{.name = "weights",
         .arg = "PATH",
         .help = "with --model: a safetensors checkpoint (file, folder, index.json) counted against it",
         .id = OPT_WEIGHTS},
        OPT_GPUS, NULL},
    {{.name = "strict",
         .arg = NULL,
         .help = "refuse a config whose model_type zerosim does not know (default: a generic decoder, with a "
                 "warning)",
         .id = OPT_STRICT},
        OPT_GPUS, NULL},
    {{.name = "params",
         .arg = "COUNT",
         .help = "a bare parameter count instead of a model (model states only), e.g. 7e9",
         .id = OPT_PARAMS},
        OPT_GPUS, NULL},
    {{.name = "largest-layer-params",
         .arg = "COUNT",
         .help = "largest layer's parameters with --params (ZeRO-3 gathers it whole)",
         .id = OPT_LARGEST},
        OPT_GPUS, NULL},
    {{.name = "hardware",
         .arg = "NAME|FILE",
         .help = "hardware profile (default a100-80gb)",
         .id = OPT_HARDWARE},
        OPT_GPUS, NULL},
    {{.name = "hbm",
         .arg = "SIZE",
         .help = "override the GPU memory, with its unit: 80GiB (2^30 B) or 80GB (10^9 B)",
         .id = OPT_HBM},
        OPT_GPUS, NULL},
    {{.name = "network-bandwidth",
         .arg = "BITS/S",
         .help = "inter-node bandwidth per node over its compute NICs, e.g. 800Gb/s or 3.2Tb/s (default: the "
                 "profile's NICs x rate)",
         .id = OPT_NET_BW},
        OPT_GPUS, NULL},
    {{.name = "nics-per-node",
         .arg = "N",
         .help = "compute NICs per node (default: the profile's); with --network-bandwidth they share it",
         .id = OPT_NICS},
        OPT_GPUS, NULL},
    {{.name = "power-cap",
         .arg = "W",
         .help = "GPU power limit in watts (nvidia-smi -pl): compute peaks x (W / TDP)^(1/3), the DVFS law",
         .id = OPT_POWER_CAP},
        OPT_GPUS, NULL},
    {{.name = "strategy", .arg = "S", .help = "|all, or a comma list (default all)", .id = OPT_STRATEGY},
        OPT_SHARD_GROUP, strategy_names},
    {{.name = "framework",
         .arg = "F",
         .help = " (plan: also all), or NAME@RELEASE (deepspeed@0.12.6: the version whose code that"
                 " release runs); default generic, deepspeed with --deepspeed",
         .id = OPT_FRAMEWORK},
        OPT_SHARD_GROUP, framework_names},
    {{.name = "decoder-seq-len",
         .arg = "N",
         .help = "encoder-decoder: decoder tokens per sequence (default: the model's ratio x --seq-len, 1:1)",
         .id = OPT_DEC_SEQ},
        OPT_ACCUM, NULL},
    {{.name = "config",
         .arg = "FILE",
         .help = "read an Axolotl, LLaMA-Factory, accelerate or TRL/Trainer YAML, a Megatron-LM launch or "
                 "torchtitan JSON (flags given explicitly win)",
         .id = OPT_CONFIG},
        OPT_REDUCE_BUCKET, NULL},
    {{.name = "deepspeed",
         .arg = "FILE",
         .help = "read a DeepSpeed ds_config.json (flags given explicitly win)",
         .id = OPT_DEEPSPEED},
        OPT_REDUCE_BUCKET, NULL},
    {{.name = "tokens",
         .arg = "COUNT",
         .help = "training budget, e.g. 300e9: adds time, GPU-hours, dollars, energy",
         .id = OPT_TOKENS},
        0, NULL},
    {{.name = "price-per-gpu-hour",
         .arg = "USD",
         .help = "price override (default: the hardware profile's)",
         .id = OPT_PRICE},
        0, NULL},
    {{.name = "format", .arg = "F", .help = " (default table)", .id = OPT_FORMAT}, 0, setup_format_names},
    {{.name = "explain", .arg = NULL, .help = "print the formulas and byte table used", .id = OPT_EXPLAIN}, 0,
        NULL},
};

#define N_OWN (sizeof own_opts / sizeof own_opts[0])
#define N_SHARED (N_OWN + TRAINING_FLAG_COUNT)
_Static_assert(TRAINING_FLAG_COUNT <= 64, "setup.given has a bit per training flag");
_Static_assert((int)TRAINING_FLAG_END <= (int)OPT_MODEL, "training flag ids run into setup's");

/* Room for one option's help with its names, and a choice flag's generated metavariable. */
static char helps[N_SHARED][320], metavars[N_SHARED][160];

/* Append own option k to the table at n (names before its help). */
static void add_own(cli_opt *table, size_t n, size_t k)
{
    table[n] = own_opts[k].opt;
    if (!own_opts[k].names) return;
    snprintf(helps[n], sizeof helps[n], "%s%s", own_opts[k].names(), own_opts[k].opt.help);
    table[n].help = helps[n];
}

/* Append training flag id to the table at n: its row as an option with an id. */
static void add_flag(cli_opt *table, size_t n, int id)
{
    const flag_desc *d = training_flag(id);
    table[n] = (cli_opt){.name = d->name, .arg = d->arg, .help = d->help, .id = id};
    if (d->kind != FLAG_CHOICE) return;
    char names[160];
    flag_choice_names(d->choices, d->listed, names, sizeof names);
    if (!d->arg) {
        snprintf(metavars[n], sizeof metavars[n], "%s", names);
        table[n].arg = metavars[n];
    }
    if (d->names_first) {
        snprintf(helps[n], sizeof helps[n], "%s%s", names, d->help);
        table[n].help = helps[n];
    }
}

static cli_opt options_table[N_SHARED + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* The tables built once for every thread (the library answers from several at a time): the
 * shared options, the format names, and the core's lazily joined name lists. */
static void build_tables(void)
{
    cli_opt *table = options_table;
    (void)strategy_names();
    (void)framework_names();
    size_t n = 0;
    for (int id = TRAINING_FLAG_FIRST; id <= TRAINING_FLAG_END; id++) {
        for (size_t k = 0; k < N_OWN; k++)
            if (own_opts[k].before == (id < TRAINING_FLAG_END ? id : 0)) add_own(table, n++, k);
        if (id < TRAINING_FLAG_END && training_flag(id)) add_flag(table, n++, id);
    }
    table[n] = (cli_opt){0};
}

const cli_opt *setup_options_table(void)
{
    pthread_once(&tables_once, build_tables);
    return options_table;
}

const char *setup_sweepable(char *buf, size_t len, int col, int width)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int id = TRAINING_FLAG_FIRST; id < TRAINING_FLAG_END && n < len; id++) {
        const flag_desc *d = training_flag(id);
        if (!d || !d->sweep) continue;
        int w = (int)strlen(d->name) + 2;
        bool wrap = n > 0 && col + 1 + w > width;
        const char *sep = n == 0 ? "" : wrap ? "\n" : " ";
        col = wrap ? w : col + (n > 0) + w;
        n += (size_t)snprintf(buf + n, len - n, "%s--%s", sep, d->name);
    }
    return buf;
}

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
    case OPT_MODEL:
        if (s->model_positional)
            return zs_fail(err, ZS_ERR_USAGE, "--model %.120s: the model was already given as \"%.120s\"", v,
                s->model_arg);
        s->model_arg = v;
        return ZS_OK;
    case OPT_WEIGHTS: s->weights_arg = v; return ZS_OK;
    case OPT_STRICT: s->strict = true; return ZS_OK;
    case OPT_HARDWARE: s->hw_arg = v; return ZS_OK;
    case OPT_DEEPSPEED: s->ds_arg = v; return ZS_OK;
    case OPT_CONFIG: s->cfg_arg = v; return ZS_OK;
    case OPT_STRATEGY: s->strategy_arg = v; return ZS_OK;
    case OPT_FRAMEWORK:
        if (strcmp(v, "all") != 0 && !framework_find(v))
            return framework_refuse("--framework", v, ZS_ERR_USAGE, err);
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
        if (!(s->decoder_seq >= 1 && s->decoder_seq <= 1e8 &&
                s->decoder_seq == (double)(long long)s->decoder_seq))
            return zs_fail(
                err, ZS_ERR_USAGE, "--decoder-seq-len: expected a whole number of tokens from 1 to 1e8");
        return ZS_OK;
    case OPT_NET_BW:
    case OPT_NICS:
    case OPT_POWER_CAP:
        return hwvariant_set(&s->variant, id == OPT_NET_BW ? "network-bandwidth"
                : id == OPT_NICS                           ? "nics-per-node"
                                                           : "power-cap",
            v, err);
    case OPT_HBM:
        if (units_parse_bytes(v, "--hbm", &s->hbm_override, err)) return err->code;
        if (s->hbm_override < 1)
            return zs_fail(err, ZS_ERR_USAGE, "--hbm: expected a positive size such as 80GiB");
        return ZS_OK;
    case OPT_FORMAT: {
        char names[64];
        for (const flag_choice *c = format_choices; c->name; c++)
            if (strcmp(v, c->name) == 0) {
                s->format = (out_format)c->value;
                return ZS_OK;
            }
        return zs_fail(err, ZS_ERR_USAGE, "--format: \"%s\" is not one of %s", v,
            flag_choice_names(format_choices, 0, names, sizeof names));
    }
    default:
        /* Parsed now, typed, so a bad value fails before any file is read. */
        if (setup_apply(&s->flag_t, id, v, err)) return err->code;
        s->given |= 1ull << (id - TRAINING_FLAG_FIRST);
        return ZS_OK;
    }
}

int setup_apply(training *t, int id, const char *v, zs_error *err)
{
    const flag_desc *d = training_flag(id);
    if (!d) return zs_fail(err, ZS_ERR_USAGE, "internal: unhandled option %d", id);
    return training_flag_set(t, d, v, err);
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
            return zs_fail(err, ZS_ERR_USAGE, "--strategy: \"%.*s\" is not one of %s|all",
                (int)(len > 64 ? 64 : len), p, strategy_names());
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

/* Append one "; "-separated note to buf (len bytes); dropped when full. */
__attribute__((format(printf, 3, 4))) static void note_to(char *buf, size_t len, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 3 >= len) return;
    if (n) {
        memcpy(buf + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* --model and --params: exactly one, and --largest-layer-params only beside --params. Fails
 * with ZS_ERR_USAGE naming the flags. */
static int check_model_flags(const setup *s, zs_error *err)
{
    if (s->model_arg && s->params > 0)
        return zs_fail(err, ZS_ERR_USAGE, "give --model or --params, not both");
    if (!s->model_arg && s->params <= 0 && !s->cfg.model_json[0])
        return zs_fail(err, ZS_ERR_USAGE,
            "missing --model NAME|FILE or --params COUNT (see 'zerosim list models')%s",
            s->cfg_arg ? ": the --config file names no model and gives no model shape" : "");
    if (s->weights_arg && !s->model_arg)
        return zs_fail(err, ZS_ERR_USAGE,
            "--weights needs --model NAME|FILE: the config whose parameter count the checkpoint is checked "
            "against");
    if (s->largest_layer > 0 && s->model_arg)
        return zs_fail(err, ZS_ERR_USAGE,
            "--largest-layer-params goes with --params (a --model's layers come from its shapes)");
    if (s->largest_layer > 0 && s->params > 0 && s->largest_layer > s->params)
        return zs_fail(
            err, ZS_ERR_USAGE, "--largest-layer-params %g exceeds --params %g", s->largest_layer, s->params);
    return ZS_OK;
}

/* Flags that would change nothing are refused, as --ep on a dense model is: a planner that
 * silently ignores what a user typed answers a question they did not ask. */
static int refuse_idle_flags(const setup *s, zs_error *err)
{
    if ((setup_flag_given(s, OPT_LORA_RANK) || setup_flag_given(s, OPT_LORA_TARGETS)) &&
        !setup_flag_given(s, OPT_FINETUNE) && s->t.finetune == FT_FULL)
        return zs_fail(err, ZS_ERR_USAGE,
            "--lora-rank and --lora-targets shape LoRA's adapters: add --finetune lora or --finetune qlora");
    if (setup_flag_given(s, OPT_MOE_IMBALANCE) && (s->m.params_only || s->m.num_experts <= 0))
        return zs_fail(err, ZS_ERR_USAGE, "--moe-imbalance: %s has no routed experts",
            s->m.params_only ? "--params" : s->m.name);
    /* What goes to the host is the stored input of each recomputed block (memory.c): without
     * full recomputation nothing is stored that way, and the flag would change nothing. */
    if (s->t.offload_activations && s->t.checkpointing != CKPT_FULL)
        return zs_fail(err, ZS_ERR_USAGE,
            "--activation-offload keeps the checkpointed layer inputs in host memory: it needs "
            "--checkpointing full (got %s)",
            s->t.checkpointing == CKPT_SELECTIVE ? "selective" : "none");
    if (setup_flag_given(s, OPT_OFFLOAD_ACT_SYNC) && !s->t.offload_activations)
        return zs_fail(err, ZS_ERR_USAGE,
            "--activation-offload-sync says how --activation-offload copies: add --activation-offload");
    /* plan searches the recomputation unless --checkpointing fixes it: the placement then
     * applies to the full-recompute configurations it tries (nothing else reads it). */
    bool searched = s->searches_gpus && !setup_flag_given(s, OPT_CKPT);
    if (setup_flag_given(s, OPT_CKPT_PLACEMENT) && s->t.checkpointing != CKPT_FULL && !searched)
        return zs_fail(err, ZS_ERR_USAGE,
            "--checkpoint-placement says where --checkpointing full's checkpoint sits: it needs "
            "--checkpointing full (got %s)",
            s->t.checkpointing == CKPT_SELECTIVE ? "selective" : "none");
    if (setup_flag_given(s, OPT_ETP) && (s->m.params_only || s->m.num_experts <= 0))
        return zs_fail(err, ZS_ERR_USAGE, "--expert-tp: %s has no routed experts",
            s->m.params_only ? "--params" : s->m.name);
    /* Said here with the flag's default named; the core refuses each such configuration too. */
    if (!s->m.params_only && s->m.pos == POS_LEARNED && s->t.seq_len > s->m.max_positions)
        return zs_fail(err, ZS_ERR_USAGE,
            "--seq-len %lld%s is longer than %s's learned position table (n_positions / "
            "max_position_embeddings %lld): give --seq-len %lld or less",
            (long long)s->t.seq_len, setup_flag_given(s, OPT_SEQ) ? "" : " (the default)", s->m.name,
            (long long)s->m.max_positions, (long long)s->m.max_positions);
    return ZS_OK;
}

/* --model: a path that exists, else a Hub id "org/name[@revision]" from the Hugging Face cache,
 * else a catalog entry (a plain id only: a revision asks for that commit's config), else the
 * Hub's config.json downloaded into the cache unless HF_HUB_OFFLINE. */
static int resolve_model(setup *s, zs_error *err)
{
    hub_ref r;
    const char *name = s->model_arg;
    if (!hub_parse(name, &r) || access(name, F_OK) == 0)
        return catalog_resolve_named(
            "models", name, s->model_path, sizeof s->model_path, s->model_used, sizeof s->model_used, err);
    char cache[4096];
    if (hub_cache_dir(cache, sizeof cache, err)) return err->code;
    s->model_used[0] = '\0';
    if (hub_cached(&r, cache, s->model_path, sizeof s->model_path)) return ZS_OK;
    if (!strchr(name, '@')) {
        zs_error quiet = {.quiet = true};
        if (catalog_resolve_named("models", name, s->model_path, sizeof s->model_path, s->model_used,
                sizeof s->model_used, &quiet) == ZS_OK)
            return ZS_OK;
    }
    if (hub_offline())
        return zs_fail(
            err, ZS_ERR_INPUT, "%s is not in the Hugging Face cache (%s) and HF_HUB_OFFLINE=1", name, cache);
    return hub_download(&r, cache, s->model_path, sizeof s->model_path, err);
}

/* --config: read the launcher YAML; its model and ds_config stand in for --model and
 * --deepspeed when those are not given. Fails with the reader's error. */
static int read_config(setup *s, zs_error *err)
{
    launch_config *c = &s->cfg;
    if (launchcfg_load(s->cfg_arg, c, err)) return err->code;
    if (c->model[0] && (s->model_arg || s->params > 0))
        note_to(s->cfg_over, sizeof s->cfg_over, "%s: %s wins", c->model_key,
            s->model_arg ? "--model" : "--params");
    else if (c->model[0])
        s->model_arg = c->model;
    if (c->ds_path[0] && s->ds_arg)
        note_to(s->cfg_over, sizeof s->cfg_over, "%s: --deepspeed wins", c->ds_key);
    else if (c->ds_path[0])
        s->ds_arg = c->ds_path;
    return ZS_OK;
}

/* The config's training fields over the ds_config's, under the flags given (said in cfg_over),
 * and the strategy it implies unless --strategy names one. */
static void apply_config(setup *s)
{
    const launch_config *c = &s->cfg;
    for (int id = TRAINING_FLAG_FIRST; id < TRAINING_FLAG_END; id++) {
        if (!(c->set >> (id - TRAINING_FLAG_FIRST) & 1)) continue;
        if (setup_flag_given(s, id))
            note_to(s->cfg_over, sizeof s->cfg_over, "%s: --%s wins", c->key_of[id - TRAINING_FLAG_FIRST],
                training_flag(id)->name);
        /* A ds_config with an optimizer section runs DeepSpeed's optimizer, not the Trainer's
         * optim (transformers integrations/deepspeed.py, deepspeed_optim_sched). */
        else if (id == OPT_OPTIMIZER && s->ds.optimizer_set)
            note_to(s->cfg_over, sizeof s->cfg_over, "%s: the ds_config's optimizer.type wins",
                c->key_of[id - TRAINING_FLAG_FIRST]);
        else
            training_flag_copy(&s->t, &c->t, training_flag(id));
    }
    const strategy *st = c->strategy ? strategy_find(c->strategy) : NULL;
    if (st && strcmp(s->strategy_arg, "all") == 0) {
        s->chosen[0] = st;
        s->chosen[1] = NULL;
    } else if (st)
        note_to(s->cfg_over, sizeof s->cfg_over, "%s: --strategy wins", c->strategy_key);
    if (c->framework && s->framework_arg)
        note_to(s->cfg_over, sizeof s->cfg_over, "%s: --framework wins", c->framework_key);
}

/* A config's global batch (Megatron --global-batch-size, torchtitan training.global_batch_size):
 * the accumulation it implies once the flags are in, refused by the framework's own rule (in
 * cfg.batch_rule) when micro-batch x DP does not divide it. Megatron's world size must hold its
 * TP x PP x CP (megatron/training/arguments.py asserts it). Fails with ZS_ERR_INPUT. */
static int config_batch(setup *s, zs_error *err)
{
    const launch_config *c = &s->cfg;
    int64_t mp = s->t.tp * s->t.pp * s->t.cp, dp = training_dp(&s->t);
    if (c->format == LAUNCH_MEGATRON && !s->searches_gpus && mp > 0 && s->t.gpus % mp)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: world size (%lld) is not divisible by TP x PP x CP (%lld), as Megatron asserts "
            "(megatron/training/arguments.py): give --gpus",
            s->cfg_arg, (long long)s->t.gpus, (long long)mp);
    if (c->global_batch <= 0 || s->searches_gpus) return ZS_OK;
    if (setup_flag_given(s, OPT_ACCUM)) {
        note_to(s->cfg_over, sizeof s->cfg_over, "%s: --grad-accum wins", c->global_key);
        return ZS_OK;
    }
    int64_t per = s->t.micro_batch * dp;
    if (per <= 0 || c->global_batch % per)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: %s %lld is not divisible by micro-batch %lld x data-parallel %lld (%s)", s->cfg_arg,
            c->global_key, (long long)c->global_batch, (long long)s->t.micro_batch, (long long)dp,
            c->batch_rule);
    s->t.grad_accum = c->global_batch / per;
    return ZS_OK;
}

/* torchtitan's layer-wise checkpointing (one block in each `every`, layer_id % every == 0) as
 * that many blocks of each stage (torchtitan/distributed/activation_checkpoint.py). */
static void config_recompute_every(setup *s)
{
    int64_t every = s->cfg.recompute_every, pp = s->t.pp > 0 ? s->t.pp : 1;
    if (every <= 1 || s->m.params_only || setup_flag_given(s, OPT_RECOMPUTE_LAYERS)) return;
    int64_t ckpt = (s->m.num_layers + every - 1) / every;
    s->t.recompute_layers = (ckpt + pp - 1) / pp;
}

/* The model a config's shape arguments describe (Megatron's --num-layers...). */
static int config_model(setup *s, zs_error *err)
{
    cJSON *j = cJSON_Parse(s->cfg.model_json);
    if (!j) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", s->cfg_arg);
    int rc = model_from_json_ex(j, s->cfg_arg, s->strict, &s->m, &s->notes, err);
    cJSON_Delete(j);
    if (rc == ZS_OK) snprintf(s->model_path, sizeof s->model_path, "%s", s->cfg_arg);
    return rc;
}

/* HYBRID_SHARD: shard within a node, replicate across nodes, when the run spans nodes. */
static void config_shard_group(setup *s)
{
    int64_t gpn = s->t.gpus_per_node > 0 ? s->t.gpus_per_node : s->hw.gpus_per_node;
    int64_t dp = training_dp(&s->t);
    if (!s->cfg.shard_per_node || setup_flag_given(s, OPT_SHARD_GROUP)) return;
    if (gpn > 0 && dp > gpn && dp % gpn == 0)
        s->t.shard_group = gpn;
    else
        note_to(s->cfg_over, sizeof s->cfg_over, "%s: one node's ranks or fewer: sharded over all",
            s->cfg.strategy_key);
}

int setup_finish(setup *s, zs_error *err)
{
    if (choose_strategies(s, err)) return err->code;
    if (s->cfg_arg && read_config(s, err)) return err->code;
    if (check_model_flags(s, err)) return err->code;
    if (catalog_resolve_named(
            "hardware", s->hw_arg, s->hw_path, sizeof s->hw_path, s->hw_used, sizeof s->hw_used, err))
        return err->code;
    if (hardware_load(s->hw_path, &s->hw, err)) return err->code;
    if (s->hbm_override > 0) {
        s->hw.profile_hbm_bytes = s->hw.hbm_bytes;
        s->hw.hbm_bytes = s->hbm_override;
    }
    if (s->price >= 0) s->hw.price_per_gpu_hour = s->price;
    if (hwvariant_apply(&s->hw, &s->variant, err)) return err->code;

    if (s->model_arg) {
        if (resolve_model(s, err)) return err->code;
        if (model_load_ex(s->model_path, s->strict, &s->m, &s->notes, err)) return err->code;
    } else if (s->params <= 0 && s->cfg.model_json[0]) {
        if (config_model(s, err)) return err->code;
    } else {
        model_from_params(&s->m, &s->pc, s->params, s->largest_layer);
    }
    if (s->ds_arg && setup_read_ds(s, err)) return err->code;
    if (s->cfg_arg && s->ds_arg == s->cfg.ds_path && setup_config_ds_match(s, err)) return err->code;
    if (s->cfg_arg) apply_config(s);
    /* The framework: the flag's, else the --config's, else DeepSpeed when a ds_config was read,
     * else generic. */
    if (s->framework_arg && strcmp(s->framework_arg, "all") == 0)
        s->all_frameworks = true;
    else if (s->framework_arg)
        s->t.framework = framework_find(s->framework_arg);
    else if (s->cfg.framework)
        s->t.framework = framework_find(s->cfg.framework);
    else if (s->ds_arg)
        s->t.framework = &fw_deepspeed;
    /* A GPU without bf16 (V100) trains in fp16 unless the user insists. */
    if (s->t.precision == PREC_BF16 && s->hw.peak_bf16 <= 0 && s->hw.peak_fp16 > 0)
        s->t.precision = PREC_FP16;
    /* DeepSpeed before v0.5.5 has no bf16 (fw_deepspeed.c): fp16 where no file said bf16. */
    if (s->t.precision == PREC_BF16 && s->t.framework && s->t.framework->no_bf16 && !s->ds_arg && !s->cfg_arg)
        s->t.precision = PREC_FP16;
    for (int id = TRAINING_FLAG_FIRST; id < TRAINING_FLAG_END; id++)
        if (setup_flag_given(s, id)) training_flag_copy(&s->t, &s->flag_t, training_flag(id));
    if (s->ds_arg && setup_ds_release(s, err)) return err->code;
    if (s->ds.train_batch_size > 0 && setup_ds_batch(s, err)) return err->code;
    if (s->cfg_arg) config_shard_group(s);
    if (s->cfg_arg && config_batch(s, err)) return err->code;
    if (s->cfg_arg) config_recompute_every(s);
    /* Each pipeline stage holds virtual_stages chunks of at least one layer (Narayanan et al.
     * 2021, section 2.2): more chunks than layers is no configuration at all. */
    if (!s->m.params_only && s->t.pp * s->t.virtual_stages > s->m.num_layers)
        return zs_fail(err, ZS_ERR_USAGE,
            "--pp %lld x --virtual-stages %lld = %lld model chunks, more than the model's %lld layers",
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
    if (s->weights_arg) {
        if (safetensors_load(s->weights_arg, s->m.num_layers, &s->weights, err)) return err->code;
        weights_compare(&s->weights, s->pc.total, s->pc.mtp);
    }
    /* reduce_bucket_size 0: DeepSpeed flushes the bucket before each gradient is added, so a
     * bucket holds one tensor, at most the largest. */
    if (s->ds.reduce_bucket_zero && !setup_flag_given(s, OPT_REDUCE_BUCKET)) {
        double big = s->m.params_only ? s->pc.largest_module : s->pc.largest_tensor;
        s->t.reduce_bucket = big > 1 ? big : 1;
        setup_note_ds(s, "reduce_bucket_size 0: one tensor per reduction, the largest %.0f elements",
            s->t.reduce_bucket);
    }
    /* plan searches the GPU count: a fixed --tp/--pp/--cp is checked against the smallest
     * count that holds it, not against the default single GPU. */
    if (s->searches_gpus && !setup_flag_given(s, OPT_GPUS)) s->t.gpus = s->t.tp * s->t.pp * s->t.cp;
    if (refuse_idle_flags(s, err)) return err->code;
    /* hpZ over 1 rank is off (DeepSpeed's default zero_hpz_partition_size 1): kept as 0 so the
     * reports show none. */
    if (s->t.hpz_group == 1) s->t.hpz_group = 0;
    if (training_validate(&s->t, err)) return err->code;
    return s->searches_gpus ? ZS_OK : setup_ds_groups(s, err);
}

bool setup_weights_warning(const setup *s, char *buf, size_t len)
{
    const wt_summary *w = &s->weights;
    if (!s->weights_arg || w->explained) return false;
    snprintf(buf, len,
        "%s: %.0f parameters in the checkpoint, %.0f in the config of %s (difference %+.0f), more than "
        "its buffers (%.0f) and extra layers (%.0f) explain",
        s->weights_arg, w->parameters, w->config_parameters, s->m.name, w->difference, w->buffer_elements,
        w->extra_layer_params);
    return true;
}

scenario setup_scenario(const setup *s)
{
    return (scenario){&s->m, &s->pc, &s->hw, &s->t, s->chosen, s->tokens};
}

report_options setup_report_options(const setup *s)
{
    report_options o = {.format = s->format,
        .explain = s->explain,
        .ds_path = s->ds_arg ? s->ds_path : NULL,
        .ds_defaulted = s->ds.defaulted,
        .ds_notes = s->ds_notes,
        .ds_ignored = s->ds.ignored,
        .ds_filled = s->ds.filled,
        .weights_path = s->weights_arg,
        .weights = s->weights_arg ? &s->weights : NULL};
    if (s->cfg_arg) {
        o.config_path = s->cfg_arg;
        o.config_format = launch_format_name(s->cfg.format);
        o.config_used = s->cfg.used;
        o.config_defaulted = s->cfg.defaulted;
        o.config_ignored = s->cfg.ignored;
        o.config_overridden = s->cfg_over;
    }
    return o;
}

const cli_opt *setup_merge_options(
    const cli_opt *extra, bool extra_first, const char *const *drop, cli_opt *out, int cap)
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
    out[n] = (cli_opt){0};
    return out;
}
