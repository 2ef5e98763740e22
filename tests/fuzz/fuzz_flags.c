/* fuzz_flags.c -- libFuzzer target: estimate's command line through setup, the simulator and its answers. */
#define _GNU_SOURCE /* open_memstream (POSIX 2008, declared under _POSIX_C_SOURCE too on glibc) */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "analysis/plan.h"
#include "analysis/uncertainty.h"
#include "cmd/setup.h"
#include "core/framework.h"
#include "core/sim.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "report/report_html.h"

/* The input is a command line, one argument a line (so a value may hold spaces; a first line
 * "#plan" plans around the run too); or, after a first byte 0 (1: plan too), pairs of bytes
 * that each choose an option of the flag table and one of its values, so most inputs are runs,
 * not refusals. Models come from the catalog and hardware from 10 of its profiles (a name
 * zerosim does not know would be a Hub id, a fetch): any other value picks one of them by its
 * bytes. Options that read other files (--deepspeed, --config, --weights) are dropped; their
 * own targets fuzz those readers. */

/* Every catalog model (the .json files of models/, read once by LLVMFuzzerInitialize),
 * NULL-terminated; llama-2-7b first, the default. */
enum { MAX_MODELS = 128 };
static const char *models[MAX_MODELS + 1] = {"llama-2-7b"};
static int n_models = 1;
static const char *const hws[] = {"a100-80gb", "h100-80gb", "v100-32gb", "h200-141gb", "b200-180gb",
    "gb200-nvl72", "mi300x-192gb", "l4-24gb", "h100-pcie-80gb", "a100-80gb-jeanzay", NULL};

enum { MAX_ARGS = 48 };

static const char *pick(const char *const *names, const char *v)
{
    int n = 0;
    for (; names[n]; n++)
        if (strcmp(names[n], v) == 0) return v;
    unsigned h = 5381;
    for (const char *p = v; *p; p++) h = h * 33 + (unsigned char)*p;
    return names[h % (unsigned)n];
}

/* A result the estimate prints: finite, not negative, and within what physics allows. */
static void check_physics(const setup *s, const result *r)
{
    fuzz_check_result(r); /* finite, >= 0, MFU and HFU at most 1, step >= compute */
    const memory *mm = &r->mem;
    FUZZ_CHECK(mm->total >= mm->activations * (1 - 1e-12) - 1);
    if (mm->fits_gpu) FUZZ_CHECK(mm->total <= s->hw.hbm_bytes * (1 + 1e-12));
    /* One GPU talks to no other: nothing over NVLink or the network. */
    if (s->t.gpus == 1)
        FUZZ_CHECK(r->comm.bytes_level[LEVEL_INTRA] == 0 && r->comm.bytes_level[LEVEL_INTER] == 0);
    FUZZ_CHECK(r->step_lo <= r->step.total * (1 + 1e-12) && r->step_hi >= r->step.total * (1 - 1e-12));
}

/* More sharding never keeps more model states: of two strategies the run allows, the one that
 * partitions a superset of the other's states (DDP < ZeRO-1 < ZeRO-2 < ZeRO-3) holds at most
 * as many parameter, gradient and optimizer bytes on the GPU. Not under FSDP, whose
 * SHARD_GRAD_OP books its whole 16-bit copy (kept from forward to backward) with the fp32
 * shard, against DDP's casts saved as activations: at DP 1 it holds more. Nor where states
 * sit on the host (offload, or a paged optimizer, whose pages fill what the GPU has left). */
static void check_sharding(const result *r, int n)
{
    if (n > 0 && r[0].framework && r[0].framework->flat_params) return;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            const shard_set *x = &r[a].strategy->shards, *y = &r[b].strategy->shards;
            if (a == b || !r[a].applicable || !r[b].applicable) continue;
            if (r[a].mem.host_per_gpu > 0 || r[b].mem.host_per_gpu > 0) continue;
            bool more = (x->optimizer || !y->optimizer) && (x->gradients || !y->gradients) &&
                (x->parameters || !y->parameters);
            if (more) FUZZ_CHECK(r[a].mem.model_states <= r[b].mem.model_states * (1 + 1e-9) + 1);
        }
}

/* Every number of a JSON answer is finite, and no size or time is negative. cJSON prints NaN
 * and infinities as null, so null is allowed only where the answer means "not asked": a cost
 * without --tokens or a price, a model without a vision tower. */
static void check_json(const cJSON *j, const char *key, const char *parent)
{
    if (cJSON_IsNumber(j)) {
        FUZZ_CHECK(isfinite(j->valuedouble));
        if (key && (strstr(key, "bytes") || strstr(key, "seconds") || strstr(key, "gib")))
            FUZZ_CHECK(j->valuedouble >= 0);
    }
    if (cJSON_IsNull(j))
        FUZZ_CHECK((parent && strcmp(parent, "cost") == 0) ||
            (key && strcmp(key, "vision_tower_counted") == 0));
    for (const cJSON *c = j->child; c; c = c->next)
        check_json(c, c->string ? c->string : key, c->string ? key : parent);
}

/* Fill what the simulator is to write with 0xff bytes: a field it leaves unset then reads as
 * NaN (a double), an invalid bool (UBSan) or -1, and a check or the sanitizer sees it, where
 * stack garbage could pass by chance. */
static void poison(void *p, size_t n)
{
    memset(p, 0xff, n);
}

/* Whether text holds a NaN or an infinity as printf or a JavaScript number writes them: "nan",
 * "inf" or "NaN", "Infinity" as a word of its own (not inside "finance", "nano" or
 * "ZeRO-Infinity"). */
static bool printed_nonfinite(const char *text)
{
    static const char *const words[] = {"nan", "inf", "NaN", "Infinity"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        for (const char *p = text; (p = strstr(p, words[w])); p++) {
            size_t k = strlen(words[w]);
            /* a word's own start; "-inf" is a number, "ZeRO-Infinity" a name */
            bool hyphen = p - text >= 2 && p[-1] == '-' && isalpha((unsigned char)p[-2]);
            bool before = p == text || (!isalpha((unsigned char)p[-1]) && !hyphen);
            bool after = !isalpha((unsigned char)p[k]);
            if (before && after) return true;
        }
    return false;
}

/* The answer in one format; the text carries no NaN or infinity, and JSON parses. */
static void check_answer(const setup *s, const scenario *sc, const result *r, int n, out_format f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    FUZZ_CHECK(mf != NULL);
    report_options ro = setup_report_options(s);
    ro.format = f;
    FUZZ_CHECK(report_estimate(mf, sc, &ro, r, n) == 0);
    FUZZ_CHECK(fclose(mf) == 0);
    FUZZ_CHECK(!printed_nonfinite(buf));
    if (f == FMT_JSON) {
        cJSON *j = cJSON_Parse(buf);
        FUZZ_CHECK(j != NULL);
        check_json(j, NULL, NULL);
        cJSON_Delete(j);
    }
    free(buf);
}

/* compare's rows over the plan's space, as `zerosim report` draws them: the HTML page (tables
 * and inline SVG charts) holds no NaN or infinity, in its text or its coordinates. */
static void check_page(const setup *s, const scenario *sc, const plan_space *sp)
{
    static compare_row rows[COMPARE_MAX_ROWS];
    int n = 0;
    zs_error err = {.quiet = true};
    if (compare_run(sc, sp, NULL, rows, COMPARE_MAX_ROWS, &n, &err)) {
        fuzz_check_error(&err);
        return;
    }
    report_options ro = setup_report_options(s);
    compare_report cr = {sc, sp, rows, n, true, &ro};
    html_report h = {&cr, "model.json", "hardware.json", NULL, NULL, "fuzz", NULL, NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    FUZZ_CHECK(mf != NULL);
    report_html(mf, &h);
    FUZZ_CHECK(!ferror(mf) && fclose(mf) == 0);
    FUZZ_CHECK(!printed_nonfinite(buf));
    free(buf);
}

/* A plan over up to the run's GPUs (at most 64) at its global batch: every configuration it
 * ranks, prepared afresh and run alone, gives the answer the search's kept preparations gave
 * (plan_cache.c promises the same bytes), and obeys the physics above. */
static void check_plan(const setup *s, const scenario *sc)
{
    plan_space sp;
    plan_space_init(&sp);
    const training *t = &s->t;
    sp.max_gpus = t->gpus < 64 ? t->gpus : 64;
    /* The run's global batch (in double: the flags' largest values overflow int64). */
    double gb = (double)training_dp(t) * (double)t->micro_batch * (double)t->grad_accum;
    if (gb > 1e12) return;
    sp.global_batch = (int64_t)gb;
    sp.max_micro_batch = 8;
    plan_result pr;
    zs_error err = {.quiet = true};
    if (plan_search(sc, &sp, 4, NULL, NULL, &pr, &err)) {
        fuzz_check_error(&err);
        return;
    }
    for (int i = 0; i < pr.n_top; i++) {
        const plan_entry *e = &pr.top[i];
        FUZZ_CHECK(e->r.applicable && e->r.fits);
        check_physics(s, &e->r);
        sim_input in;
        zs_error e2 = {0};
        FUZZ_CHECK(sim_prepare(&in, sc->m, sc->pc, sc->hw, &e->t, &e2) == ZS_OK);
        result r;
        sim_run(&in, e->r.strategy, 0, &r);
        FUZZ_CHECK(r.applicable && r.fits);
        FUZZ_CHECK(fabs(r.step.total - e->r.step.total) <= 1e-9 * e->r.step.total);
        FUZZ_CHECK(fabs(r.mem.total - e->r.mem.total) <= 1e-9 * e->r.mem.total);
    }
    /* Reading only the answers (compare's search) prunes on time bounds: the same answers. */
    plan_result pa;
    sp.answers_only = true;
    if (plan_search(sc, &sp, 4, NULL, NULL, &pa, &err) == ZS_OK) {
        FUZZ_CHECK(pa.n_top == pr.n_top);
        for (int i = 0; i < pa.n_top && i < pr.n_top; i++) FUZZ_CHECK(pa.top[i].score == pr.top[i].score);
        for (int k = 0; k < STRATEGY_MAX; k++) {
            FUZZ_CHECK(pa.has_best[k] == pr.has_best[k] && pa.min_gpus[k] == pr.min_gpus[k]);
            if (pa.has_best[k]) FUZZ_CHECK(pa.best_per_strategy[k].score == pr.best_per_strategy[k].score);
        }
        plan_result_free(&pa);
    }
    plan_result_free(&pr);
    check_page(s, sc, &sp);
}

/* sc's strategies on training t and hardware hw instead of its own (either NULL: sc's) into
 * out, poisoned first; how many, or -1 where sim_prepare refuses the variant. */
static int run_variant(const scenario *sc, const training *t, const hardware *hw, result *out)
{
    scenario v = *sc;
    if (t) v.t = t;
    if (hw) v.hw = hw;
    poison(out, sizeof(result) * STRATEGY_MAX);
    int n = 0;
    zs_error err = {.quiet = true};
    return sim_run_scenario(&v, out, &n, &err) ? -1 : n;
}

/* Half the micro-batch never needs more memory: fewer tokens in flight (each strategy the run
 * allows both ways, its states on the GPU). */
static void check_half_batch(const scenario *sc, const result *r, int n)
{
    if (sc->t->micro_batch < 2) return;
    training half = *sc->t;
    half.micro_batch /= 2;
    result h[STRATEGY_MAX];
    int hn = run_variant(sc, &half, NULL, h);
    for (int k = 0; k < n && k < hn; k++)
        if (r[k].applicable && h[k].applicable && r[k].mem.host_per_gpu <= 0 && h[k].mem.host_per_gpu <= 0)
            FUZZ_CHECK(h[k].mem.total <= r[k].mem.total * (1 + 1e-12));
}

/* Twice the bandwidth on every link (NVLink, the network, the host link) never slows a step,
 * under every flag. */
static void check_bandwidth(const scenario *sc, const result *r, int n)
{
    hardware fast = *sc->hw;
    fast.intra.bandwidth *= 2;
    fast.inter.bandwidth *= 2;
    fast.host.bandwidth *= 2;
    result f[STRATEGY_MAX];
    int fn = run_variant(sc, NULL, &fast, f);
    for (int k = 0; k < n && k < fn; k++)
        if (r[k].applicable && f[k].applicable) FUZZ_CHECK(f[k].step.total <= r[k].step.total * (1 + 1e-12));
}

/* plan_suggest's hint ("fits with --offload-optimizer cpu (ZeRO-1: ...)") applied to the run:
 * then some strategy fits. */
static void check_hint(const scenario *sc, const char *hint)
{
    const char *p = strstr(hint, "fits with ");
    if (!p) {
        FUZZ_CHECK(hint[0] == '\0');
        return;
    }
    char flags[256];
    snprintf(flags, sizeof flags, "%s", p + strlen("fits with "));
    char *end = strstr(flags, " (");
    FUZZ_CHECK(end != NULL);
    *end = '\0';
    char *argv[16];
    int argc = 0;
    for (char *q = flags, *save = NULL, *a; argc < 16 && (a = strtok_r(q, " ", &save)); q = NULL)
        argv[argc++] = a;
    training t = *sc->t;
    for (int i = 0; i < argc;) {
        const char *v = NULL;
        zs_error err = {0};
        int id = cli_next(argc, argv, &i, setup_options, &v, &err);
        FUZZ_CHECK(id > 0 && training_flag(id) != NULL); /* the hint names training flags */
        FUZZ_CHECK(setup_apply(&t, id, v, &err) == ZS_OK);
    }
    result r[STRATEGY_MAX];
    int n = run_variant(sc, &t, NULL, r), fits = 0;
    FUZZ_CHECK(n >= 0);
    for (int k = 0; k < n; k++) fits += r[k].applicable && r[k].fits;
    FUZZ_CHECK(fits > 0);
}

static void run(setup *s, bool plan)
{
    zs_error err = {0};
    if (setup_finish(s, &err)) {
        fuzz_check_error(&err);
        FUZZ_CHECK(err.code == ZS_ERR_USAGE || err.code == ZS_ERR_INPUT);
        return;
    }
    if (s->all_frameworks) return; /* estimate refuses it before simulating */
    scenario sc = setup_scenario(s);
    result r[STRATEGY_MAX];
    poison(r, sizeof r);
    int n = 0, fits = 0;
    if (sim_run_scenario(&sc, r, &n, &err)) {
        fuzz_check_error(&err);
        return;
    }
    for (int k = 0; k < n; k++) {
        if (!r[k].applicable) {
            FUZZ_CHECK(r[k].why[0] != '\0');
            continue;
        }
        uncertainty_add(&sc, &r[k]);
        check_physics(s, &r[k]);
        fits += r[k].fits;
    }
    check_sharding(r, n);
    check_half_batch(&sc, r, n);
    check_bandwidth(&sc, r, n);
    check_answer(s, &sc, r, n, FMT_JSON);
    check_answer(s, &sc, r, n, FMT_TABLE);
    if (plan) check_plan(s, &sc);
    if (!fits) {
        char hint[256];
        plan_suggest(&sc, hint, sizeof hint);
        FUZZ_CHECK(memchr(hint, '\0', sizeof hint) && !printed_nonfinite(hint));
        check_hint(&sc, hint);
    }
}

/* Values a number flag takes in the choice form, clipped to its range. */
static const double numbers[] = {
    0, 1, 2, 3, 4, 6, 8, 16, 32, 64, 128, 1024, 4096, 32768, 1e5, 5e8, 1e9, 0.5, 1.5};

/* The choice form: option a (the training flags, then setup's) into opt and its value from b
 * into val ("" for a switch), len bytes each. */
static void choose(uint8_t a, uint8_t b, char *opt, char *val, size_t len)
{
    static const char *const setup_opts[] = {"model", "hardware", "strategy", "framework", "explain",
        "tokens", "hbm", "network-bandwidth", "nics-per-node", "power-cap", "params", "decoder-seq-len"};
    static const char *const strategies_[] = {"ddp", "zero1", "zero2", "zero3", "all", "zero3,ddp"};
    static const char *const setup_vals[][6] = {{"1e10", "1e12"}, {"16GiB", "24GiB", "80GiB", "192GB"},
        {"100Gbps", "400Gbps", "800Gbps", "3.2Tbps"}, {"1", "2", "4", "8"}, {"300", "450", "700"},
        {"1e8", "7e9", "7e10", "1e12"}, {"128", "512", "4096"}};
    int ntf = TRAINING_FLAG_COUNT, nso = (int)(sizeof setup_opts / sizeof setup_opts[0]);
    int k = a % (ntf + nso);
    val[0] = '\0';
    if (k < ntf) {
        const flag_desc *d = training_flag(TRAINING_FLAG_FIRST + k);
        if (!d || !d->name) return;
        snprintf(opt, len, "--%s", d->name);
        if (d->kind == FLAG_ON || d->kind == FLAG_OFF) return;
        if (d->kind == FLAG_CHOICE) {
            int n = 0;
            while (d->choices[n].name) n++;
            snprintf(val, len, "%s", d->choices[b % n].name);
            return;
        }
        double v = numbers[b % (sizeof numbers / sizeof numbers[0])];
        v = v < d->min ? d->min : v > d->max ? d->max : v;
        snprintf(val, len, "%.17g", d->kind == FLAG_WHOLE ? floor(v) : v);
        return;
    }
    k -= ntf;
    snprintf(opt, len, "--%s", setup_opts[k]);
    if (k == 0) snprintf(val, len, "%s", models[b % n_models]);
    if (k == 1) snprintf(val, len, "%s", hws[b % (sizeof hws / sizeof hws[0] - 1)]);
    if (k == 2) snprintf(val, len, "%s", strategies_[b % 6]);
    if (k == 3) {
        /* a framework, or one of its versions */
        int n = 0;
        while (frameworks[n]) n++;
        const framework *fw = frameworks[b % n];
        int nv = 0;
        while (fw->versions && fw->versions[nv]) nv++;
        int v = nv ? (b / n) % (nv + 1) : 0;
        if (v == 0) snprintf(val, len, "%s", fw->name);
        else snprintf(val, len, "%s@%s", fw->name, fw->versions[v - 1]->first);
    }
    if (k >= 5) {
        const char *const *vs = setup_vals[k - 5];
        int n = 0;
        while (n < 6 && vs[n]) n++;
        snprintf(val, len, "%s", vs[b % n]);
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One search thread: a finding replays the same way, and libFuzzer's own timing holds. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("ZEROSIM_THREADS", "1", 1);
    DIR *d = opendir("models");
    for (struct dirent *e; d && n_models < MAX_MODELS && (e = readdir(d));) {
        size_t k = strlen(e->d_name);
        if (k < 6 || strcmp(e->d_name + k - 5, ".json") != 0 || strcmp(e->d_name, "llama-2-7b.json") == 0)
            continue;
        char *name = strndup(e->d_name, k - 5);
        if (name) models[n_models++] = name; /* kept for the process's life */
    }
    if (d) closedir(d);
    /* In name order, as readdir's order is the file system's: a choice-form input then picks
     * the same model on every machine. */
    qsort(models + 1, (size_t)(n_models - 1), sizeof models[0], by_name);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char *argv[MAX_ARGS];
    int argc = 0;
    static char words[MAX_ARGS][40];
    /* The choice form's first byte 0 is estimate's run; 1 plans around it too. */
    bool plan = size > 0 && data[0] == 1;
    if (size > 0 && data[0] <= 1) {
        for (size_t i = 1; i + 1 < size && argc + 2 <= MAX_ARGS; i += 2) {
            choose(data[i], data[i + 1], words[argc], words[argc + 1], sizeof words[0]);
            argv[argc] = words[argc];
            argc++;
            if (words[argc][0]) {
                argv[argc] = words[argc];
                argc++;
            }
        }
    } else {
        for (char *p = text, *save = NULL, *a; argc < MAX_ARGS && (a = strtok_r(p, "\n", &save)); p = NULL)
            argv[argc++] = a;
        /* A first line "#plan" plans around the run, as the choice form's first byte 1 does
         * (regression inputs are kept as command lines: they name their models). */
        if (argc > 0 && strcmp(argv[0], "#plan") == 0) {
            plan = true;
            memmove(argv, argv + 1, (size_t)--argc * sizeof argv[0]);
        }
    }
    bool print = getenv("FUZZ_FLAGS_PRINT") != NULL; /* the command line run (tests/fuzz/README.md) */
    setup s;
    setup_init(&s);
    const cli_opt *opts = setup_options;
    bool model = false;
    for (int i = 0; i < argc;) {
        const char *v = NULL;
        zs_error err = {0};
        int id = cli_next(argc, argv, &i, opts, &v, &err);
        if (id == CLI_END) break;
        if (id == CLI_HELP) continue;
        if (id == CLI_ERROR) { /* the command line stops at its first bad argument */
            fuzz_check_error(&err);
            free(text);
            return 0;
        }
        if (id == OPT_DEEPSPEED || id == OPT_CONFIG || id == OPT_WEIGHTS) continue;
        if (id == CLI_POSITIONAL || id == OPT_MODEL) {
            if (model) continue;
            id = OPT_MODEL;
            v = pick(models, v);
            model = true;
        }
        if (id == OPT_HARDWARE) v = pick(hws, v);
        for (const cli_opt *o = opts; print && o->name; o++)
            if (o->id == id) fprintf(stderr, "--%s%s%s\n", o->name, v ? "\n" : "", v ? v : "");
        if (setup_take(&s, id, v, &err)) {
            fuzz_check_error(&err);
            free(text);
            return 0;
        }
    }
    if (!model && s.params <= 0) setup_take(&s, OPT_MODEL, models[0], &(zs_error){0});
    if (print) fprintf(stderr, "%s--\n", !model && s.params <= 0 ? "--model\nllama-2-7b\n" : "");
    run(&s, plan);
    free(text);
    return 0;
}
