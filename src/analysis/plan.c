/* plan.c -- exhaustive search over strategy, parallelism, batch split, recompute and offload. */
#include "analysis/plan.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plan_cache.h"
#include "core/framework.h"
#include "core/pipeline.h"
#include "core/sim.h"
#include "core/units.h"

void plan_space_init(plan_space *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->max_gpus = 64;
    sp->min_gpus = 1;
    sp->global_batch = 0;
    sp->rank = RANK_TIME;
    for (int i = 0; strategies[i]; i++) sp->strategies[i] = true;
    sp->allow_offload = sp->allow_pp = sp->allow_tp = sp->allow_cp = true;
    sp->max_micro_batch = 32;
}

void plan_result_free(plan_result *r)
{
    free(r->top);
    r->top = NULL;
    r->n_top = 0;
}

/* Offload choices: none; optimizer to CPU; optimizer and (ZeRO-3) parameters to CPU; both to
 * NVMe. */
static const struct {
    offload_kind opt, params;
} offloads[] = {{OFFLOAD_NONE, OFFLOAD_NONE}, {OFFLOAD_CPU, OFFLOAD_NONE}, {OFFLOAD_CPU, OFFLOAD_CPU},
    {OFFLOAD_NVME, OFFLOAD_NVME}};

/* GPU counts: 1, 2, 4 ... below a node, then every whole number of nodes. With out NULL,
 * only counts them (so the caller can allocate exactly). */
static int64_t gpu_counts(const plan_space *sp, int64_t gpn, int64_t *out)
{
    int64_t n = 0;
    for (int64_t g = 1; g < gpn && g <= sp->max_gpus; g *= 2)
        if (g >= sp->min_gpus) {
            if (out) out[n] = g;
            n++;
        }
    for (int64_t g = gpn; g <= sp->max_gpus; g += gpn)
        if (g >= sp->min_gpus) {
            if (out) out[n] = g;
            n++;
        }
    return n;
}

/* Cost and throughput in 1% steps: configurations that far apart are the same within any
 * simulator's error, and the faster one should win the tie, not the 16x slower one that
 * costs 0.002% less. A step index, not a tolerance, keeps the order transitive. */
static double step_of(double x)
{
    return x > 0 ? floor(log(x) / log(1.01)) : x;
}

static double score_of(const plan_space *sp, const result *r, int64_t gpus)
{
    switch (sp->rank) {
    case RANK_COST: return step_of(r->step.total * (double)gpus);
    case RANK_THROUGHPUT: return -step_of(r->tokens_per_second / (double)gpus);
    default: return r->step.total;
    }
}

static bool better(const plan_entry *a, const plan_entry *b);

/* Insert into the sorted top list (best first). */
static void keep_top(plan_entry *top, int *n, int cap, const plan_entry *e)
{
    if (cap <= 0) return;
    if (*n == cap && !better(e, &top[cap - 1])) return;
    int i = *n < cap ? (*n)++ : cap - 1;
    while (i > 0 && better(e, &top[i - 1])) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = *e;
}

/* Everything one worker needs; each writes only its own partial result. */
typedef struct plan_job {
    const scenario *sc;
    const plan_space *sp;
    const int64_t *counts;
    atomic_int *next; /* shared: the next GPU count to search (work stealing) */
    int nc, top_n;
    plan_progress cb; /* called by worker 0 only */
    void *ctx;
    plan_result part;
    plan_cache *cache; /* this worker's prepared inputs and batch rates (NULL: none) */
} plan_job;

/* Whether a comes before b in the search's own order of dimensions. */
static bool earlier(const training *a, const training *b)
{
    const int64_t x[] = {a->gpus, a->tp, a->cp, a->pp, a->virtual_stages, a->micro_batch, a->checkpointing,
        a->offload_optimizer, a->offload_params, a->ep};
    const int64_t y[] = {b->gpus, b->tp, b->cp, b->pp, b->virtual_stages, b->micro_batch, b->checkpointing,
        b->offload_optimizer, b->offload_params, b->ep};
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
        if (x[k] != y[k]) return x[k] < y[k];
    return strcmp(framework_of(a)->name, framework_of(b)->name) < 0;
}

/* Count n refusals by rule (a format string, compared by address), keeping the first
 * configuration it refused; rules past PLAN_RULES are not counted. */
static void count_refusal(plan_result *out, const char *rule, const training *t, uint64_t n)
{
    for (int k = 0; k < out->n_rules; k++)
        if (out->rule[k] == rule) {
            out->refused[k] += n;
            /* the smallest configuration, so the example does not depend on the threads */
            if (earlier(t, &out->rule_t[k])) out->rule_t[k] = *t;
            return;
        }
    if (out->n_rules == PLAN_RULES) return;
    out->rule[out->n_rules] = rule;
    out->rule_t[out->n_rules] = *t;
    out->refused[out->n_rules++] = n;
}

/* Whether strategy si's configuration on `gpus` GPUs, which fits, can change nothing this
 * worker keeps: ranked by time and no budget or deadline, its step is at least `bound`
 * (sim_time_bound), slower than the entries it would have to beat at its GPU count, the best
 * and the last of a full top list. Ties and NaN never replace (better), so skipping its time
 * leaves every answer as it was; feasible still counts it. */
static bool cannot_win(const plan_job *job, int si, int64_t gpus, double bound)
{
    const plan_space *sp = job->sp;
    const plan_result *out = &job->part;
    if (sp->rank == RANK_COST || sp->rank == RANK_THROUGHPUT || sp->budget_dollars > 0 ||
        sp->deadline_seconds > 0)
        return false;
    if (out->min_gpus[si] == 0 || gpus < out->min_gpus[si]) return false;
    if (gpus == out->min_gpus[si] && !(bound > out->min_entry[si].score)) return false;
    if (!out->has_best[si] || !(bound > out->best_per_strategy[si].score)) return false;
    return job->top_n > 0 && out->n_top == job->top_n && bound > out->top[job->top_n - 1].score;
}

/* Whether no strategy searched can win with t at a step of at least bound (cannot_win). */
static bool all_lost(const plan_job *job, const training *t, double bound)
{
    for (int si = 0; strategies[si]; si++) {
        if (!job->sp->strategies[si]) continue;
        if (t->offload_params != OFFLOAD_NONE && !strategies[si]->offload_params) continue;
        if (!cannot_win(job, si, t->gpus, bound)) return false;
    }
    return true;
}

/* One configuration under each framework searched, for every strategy searched. */
static void try_config(plan_job *job, training *t)
{
    const plan_space *sp = job->sp;
    plan_result *out = &job->part;
    for (int fi = 0; fi == 0 || sp->frameworks[fi]; fi++) {
        if (sp->frameworks[0]) t->framework = sp->frameworks[fi];
        /* Answers only (compare): a configuration whose kept rates already lose for every
         * strategy, before its optimizer time, needs no preparation at all. */
        plan_key key;
        bool keyed = plan_cache_key(t, fi, &key);
        double pre;
        if (sp->answers_only && keyed && plan_cache_bound(job->cache, &key, t, &pre) && all_lost(job, t, pre))
            continue;
        sim_input scratch;
        zs_error ignore;
        zs_error_quiet(&ignore);
        const plan_key *kp = keyed ? &key : NULL;
        sim_input *in = plan_cache_prepare(job->cache, job->sc, kp, fi, t, &scratch, &ignore);
        if (!in) {
            count_refusal(out, ignore.rule, t, 1);
            continue;
        }
        bool acts = false; /* the activations, before the first memory */
        out->prepared++;
        for (int si = 0; strategies[si]; si++) {
            if (!sp->strategies[si]) continue;
            /* Combinations no strategy offers are not counted as tried. */
            if (t->offload_params != OFFLOAD_NONE && !strategies[si]->offload_params) continue;
            plan_entry e;
            out->evaluated++;
            /* A configuration that cannot win needs its memory only for the feasible count. */
            bool lost = cannot_win(job, si, t->gpus, sim_time_bound(in, strategies[si]));
            if (lost && sp->answers_only) continue;
            if (!acts) sim_prepare_activations(in);
            acts = true;
            if (!sim_run_memory(in, strategies[si], &e.r)) continue;
            if (lost) {
                out->feasible++;
                continue;
            }
            sim_run_time(in, strategies[si], sp->tokens, &e.r);
            /* The result points at its training through sim_input; the entry keeps its own
             * copy. */
            e.t = *t;
            e.score = score_of(sp, &e.r, t->gpus);
            /* The fewest GPUs that fit at all, and the best configuration at that count. */
            if (out->min_gpus[si] == 0 || t->gpus < out->min_gpus[si] ||
                (t->gpus == out->min_gpus[si] && better(&e, &out->min_entry[si]))) {
                out->min_gpus[si] = t->gpus;
                out->min_entry[si] = e;
            }
            if (sp->budget_dollars > 0 && e.r.cost.dollars > sp->budget_dollars) continue;
            if (sp->deadline_seconds > 0 && e.r.cost.seconds > sp->deadline_seconds) continue;
            out->feasible++;
            if (!out->has_best[si] || better(&e, &out->best_per_strategy[si])) {
                out->best_per_strategy[si] = e;
                out->has_best[si] = true;
            }
            keep_top(out->top, &out->n_top, job->top_n, &e);
        }
    }
}

/* One searched dimension: powers of two from lo to hi; a fixed value is its own range. */
typedef struct {
    int64_t lo, hi;
} range;

static range dim(int64_t fixed, int64_t hi)
{
    return fixed > 0 ? (range){fixed, fixed} : (range){1, hi};
}

/* A framework that needs the layers to divide (Megatron) gets, where they do not, the uneven
 * split large runs use (pipeline_balance: Llama 3's 126 layers on 16 stages as 7 + 14 x 8 + 7)
 * unless the run fixed its own first/last stage layers. */
static void plan_stage_split(const scenario *sc, training *t)
{
    if (sc->t->pp_first_layers > 0 || sc->t->pp_last_layers > 0 || sc->m->params_only) return;
    t->pp_first_layers = t->pp_last_layers = 0;
    if (framework_of(t)->exact_layer_split)
        pipeline_balance(
            sc->m->num_layers, t->pp, t->virtual_stages, &t->pp_first_layers, &t->pp_last_layers);
}

/* Every configuration with `gpus` GPUs. */
static void search_count(plan_job *job, int64_t gpus)
{
    const scenario *sc = job->sc;
    const plan_space *sp = job->sp;
    const model *m = sc->m;
    int64_t gpn = scenario_node_size(sc->hw, sc->t);
    int64_t layers = m->params_only ? 1 : m->num_layers;
    static const ckpt_kind ckpts[] = {CKPT_NONE, CKPT_SELECTIVE, CKPT_FULL};
    int n_ckpt = m->params_only || sp->fixed_ckpt ? 1 : 3;
    int n_off = sp->allow_offload && !sp->fixed_offload ? 4 : 1;
    range tpr = dim(sp->fixed_tp, sp->allow_tp ? gpn : 1), ppr = dim(sp->fixed_pp, sp->allow_pp ? layers : 1);
    range mbr = dim(sp->fixed_micro_batch, sp->max_micro_batch);
    for (int64_t tp = tpr.lo; tp <= tpr.hi && tp <= gpus; tp *= 2) {
        if (!m->params_only && (m->num_heads % tp || (m->num_kv_heads % tp && tp % m->num_kv_heads)))
            continue;
        /* Context parallelism is searched for long sequences only (PLAN_CP_MIN_SEQ), where
         * activations, not states, decide what fits; powers of two up to 8. */
        int64_t max_cp = sp->allow_cp && !m->params_only && sc->t->seq_len >= PLAN_CP_MIN_SEQ ? 8 : 1;
        range cpr = dim(sp->fixed_cp, max_cp);
        for (int64_t cp = cpr.lo; cp <= cpr.hi && tp * cp <= gpus; cp *= 2) {
            if (sc->t->seq_len % cp) continue;
            for (int64_t pp = ppr.lo; pp <= ppr.hi && tp * pp * cp <= gpus; pp *= 2) {
                if (gpus % (tp * pp * cp)) continue;
                int64_t dp = gpus / (tp * pp * cp);
                range vr = dim(sp->fixed_vstages, pp > 1 ? 4 : 1);
                for (int64_t v = vr.lo; v <= vr.hi && pp * v <= layers; v *= 2) {
                    for (int64_t mb = mbr.lo; mb <= mbr.hi; mb *= 2) {
                        if (sp->global_batch % (mb * dp)) continue;
                        int64_t ga = sp->global_batch / (mb * dp);
                        for (int ck = 0; ck < n_ckpt; ck++) {
                            for (int of = 0; of < n_off; of++) {
                                training t = *sc->t;
                                t.gpus = gpus;
                                t.tp = tp;
                                t.pp = pp;
                                t.cp = cp;
                                t.virtual_stages = v;
                                plan_stage_split(sc, &t);
                                t.micro_batch = mb;
                                t.grad_accum = ga;
                                if (!sp->fixed_ckpt) t.checkpointing = ckpts[ck];
                                t.sequence_parallel = tp > 1;
                                if (!sp->fixed_offload) {
                                    t.offload_optimizer = offloads[of].opt;
                                    t.offload_params = offloads[of].params;
                                }
                                /* Expert parallelism for MoE models: powers of two dividing the
                                 * experts and TP x CP x DP, up to PLAN_MAX_EP. */
                                range epr = dim(
                                    sp->fixed_ep, m->num_experts > 0 && !m->params_only ? PLAN_MAX_EP : 1);
                                for (int64_t ep = epr.lo; ep <= epr.hi; ep *= 2) {
                                    if (ep > 1 && (m->num_experts % ep || (tp * dp * cp) % ep)) continue;
                                    t.ep = ep;
                                    try_config(job, &t);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

static void *plan_worker(void *arg)
{
    plan_job *job = arg;
    /* Work comes off a shared counter: GPU counts differ a lot in how many configurations
     * divide the global batch, so a fixed split would leave a core idle. */
    for (int ci; (ci = atomic_fetch_add(job->next, 1)) < job->nc;) {
        if (job->cb) job->cb((uint64_t)ci, (uint64_t)job->nc, job->ctx);
        search_count(job, job->counts[ci]);
    }
    return NULL;
}

/* Fold a worker's partial result into the total; ties go to fewer GPUs, then lower TP and PP,
 * so the answer does not depend on the number of threads. */
static bool better(const plan_entry *a, const plan_entry *b)
{
    if (a->score != b->score) return a->score < b->score;
    if (a->r.step.total != b->r.step.total) return a->r.step.total < b->r.step.total;
    if (a->t.gpus != b->t.gpus) return a->t.gpus < b->t.gpus;
    if (a->t.tp != b->t.tp) return a->t.tp < b->t.tp;
    return a->t.pp < b->t.pp;
}

static void merge(plan_result *out, const plan_result *p, int top_n)
{
    out->evaluated += p->evaluated;
    out->feasible += p->feasible;
    out->prepared += p->prepared;
    for (int k = 0; k < p->n_rules; k++) count_refusal(out, p->rule[k], &p->rule_t[k], p->refused[k]);
    for (int si = 0; strategies[si]; si++) {
        if (p->min_gpus[si] &&
            (!out->min_gpus[si] || p->min_gpus[si] < out->min_gpus[si] ||
                (p->min_gpus[si] == out->min_gpus[si] && better(&p->min_entry[si], &out->min_entry[si])))) {
            out->min_gpus[si] = p->min_gpus[si];
            out->min_entry[si] = p->min_entry[si];
        }
        if (p->has_best[si] &&
            (!out->has_best[si] || better(&p->best_per_strategy[si], &out->best_per_strategy[si]))) {
            out->best_per_strategy[si] = p->best_per_strategy[si];
            out->has_best[si] = true;
        }
    }
    for (int k = 0; k < p->n_top; k++) {
        const plan_entry *e = &p->top[k];
        if (out->n_top == top_n && !better(e, &out->top[top_n - 1])) continue;
        int i = out->n_top < top_n ? out->n_top++ : top_n - 1;
        while (i > 0 && better(e, &out->top[i - 1])) {
            out->top[i] = out->top[i - 1];
            i--;
        }
        out->top[i] = *e;
    }
}

/* Threads plan_search uses: $ZEROSIM_THREADS, else the online cores, at most PLAN_MAX_THREADS.
 * The result does not depend on it. */
static int plan_threads(void)
{
    const char *env = getenv("ZEROSIM_THREADS");
    long n = env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > PLAN_MAX_THREADS ? PLAN_MAX_THREADS : (int)n;
}

int plan_search(const scenario *sc, const plan_space *sp, int top_n, plan_progress cb, void *ctx,
    plan_result *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t gpn = scenario_node_size(sc->hw, sc->t);
    /* Every count up to --max-gpus (a fixed array once dropped those past 4,096 nodes). */
    int64_t total = gpu_counts(sp, gpn, NULL);
    if (total == 0)
        return zs_fail(err, ZS_ERR_USAGE, "--max-gpus %lld: no GPU count to search", (long long)sp->max_gpus);
    if (total > INT32_MAX / 2)
        return zs_fail(
            err, ZS_ERR_USAGE, "--max-gpus %lld: too many GPU counts to search", (long long)sp->max_gpus);
    if (sp->global_batch < 1)
        return zs_fail(err, ZS_ERR_USAGE, "--global-batch: expected at least 1 sequence");
    int nc = (int)total;
    int64_t *counts = malloc((size_t)nc * sizeof *counts);
    if (!counts) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    gpu_counts(sp, gpn, counts);
    if (top_n < 1) top_n = 1;
    int nt = plan_threads();
    if (nt > nc) nt = nc;
    plan_job jobs[PLAN_MAX_THREADS];
    pthread_t tid[PLAN_MAX_THREADS];
    atomic_int next = 0;
    out->top = calloc((size_t)top_n, sizeof *out->top);
    bool ok = out->top != NULL;
    for (int k = 0; k < nt && ok; k++) {
        jobs[k] = (plan_job){sc, sp, counts, &next, nc, top_n, k == 0 ? cb : NULL, ctx, {0}, NULL};
        jobs[k].part.top = calloc((size_t)top_n, sizeof *out->top);
        ok = jobs[k].part.top != NULL;
        if (ok) jobs[k].cache = plan_cache_new();
        if (!ok) nt = k;
    }
    if (!ok) {
        for (int k = 0; k < nt; k++) {
            free(jobs[k].part.top);
            plan_cache_free(jobs[k].cache);
        }
        free(out->top);
        free(counts);
        out->top = NULL;
        return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    /* Worker 0 runs here, the rest in threads; a worker whose thread cannot start runs here
     * afterwards, so nothing is skipped. */
    bool started[PLAN_MAX_THREADS] = {false};
    for (int k = 1; k < nt; k++) started[k] = pthread_create(&tid[k], NULL, plan_worker, &jobs[k]) == 0;
    plan_worker(&jobs[0]);
    for (int k = 1; k < nt; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            plan_worker(&jobs[k]);
    }
    for (int k = 0; k < nt; k++) {
        merge(out, &jobs[k].part, top_n);
        free(jobs[k].part.top);
        plan_cache_free(jobs[k].cache);
    }
    free(counts);
    if (cb) cb((uint64_t)nc, (uint64_t)nc, ctx);
    return ZS_OK;
}

/* Does some configuration of st fit m on `gpus` GPUs? Minimum-memory choices only: full
 * recompute, micro-batch 1, the lightest offload allowed. */
static bool fits_any(const scenario *sc, const plan_space *sp, const model *m, const param_counts *pc,
    const strategy *st, int64_t gpus)
{
    int64_t gpn = scenario_node_size(sc->hw, sc->t);
    int64_t layers = m->params_only ? 1 : m->num_layers;
    int n_off = sp->allow_offload && !sp->fixed_offload ? 4 : 1;
    range tpr = dim(sp->fixed_tp, sp->allow_tp ? gpn : 1), ppr = dim(sp->fixed_pp, sp->allow_pp ? layers : 1);
    for (int64_t tp = tpr.lo; tp <= tpr.hi && tp <= gpus; tp *= 2) {
        if (!m->params_only && (m->num_heads % tp || (m->num_kv_heads % tp && tp % m->num_kv_heads)))
            continue;
        for (int64_t pp = ppr.lo; pp <= ppr.hi && tp * pp <= gpus; pp *= 2) {
            if (gpus % (tp * pp)) continue;
            for (int of = 0; of < n_off; of++) {
                training t = *sc->t;
                t.gpus = gpus;
                t.tp = tp;
                t.pp = pp;
                t.virtual_stages = sp->fixed_vstages > 0 ? sp->fixed_vstages : 1;
                plan_stage_split(sc, &t);
                t.micro_batch = sp->fixed_micro_batch > 0 ? sp->fixed_micro_batch : 1;
                t.grad_accum = pp; /* enough micro-batches to fill the pipeline */
                if (!sp->fixed_ckpt) t.checkpointing = m->params_only ? CKPT_NONE : CKPT_FULL;
                t.sequence_parallel = tp > 1;
                if (!sp->fixed_offload) {
                    t.offload_optimizer = offloads[of].opt;
                    t.offload_params = offloads[of].params;
                }
                if (!strategy_allows(st, &t, NULL, 0)) continue;
                sim_input in;
                zs_error ignore = {.quiet = true};
                result r;
                if (sim_prepare(&in, m, pc, sc->hw, &t, &ignore)) continue;
                if (sim_run_memory(&in, st, &r)) return true;
            }
        }
    }
    return false;
}

int plan_max_model(const scenario *sc, const plan_space *sp, const strategy *st, int64_t gpus, double *params,
    int64_t *layers, zs_error *err)
{
    bool capped;
    return plan_max_model_capped(sc, sp, st, gpus, params, layers, &capped, err);
}

int plan_max_model_capped(const scenario *sc, const plan_space *sp, const strategy *st, int64_t gpus,
    double *params, int64_t *layers, bool *capped, zs_error *err)
{
    *params = 0;
    *capped = false;
    if (layers) *layers = 0;
    if (gpus < 1) return zs_fail(err, ZS_ERR_USAGE, "max model: GPU count must be at least 1");
    if (sc->m->params_only) {
        /* Bisect the parameter count on a log scale between 1e6 and the cap. */
        double lo = 1e6, hi = PLAN_MAX_PARAMS;
        model m;
        param_counts pc;
        double ratio = sc->pc->total > 0 ? sc->pc->largest_module / sc->pc->total : 0;
        model_from_params(&m, &pc, lo, lo * ratio);
        if (!fits_any(sc, sp, &m, &pc, st, gpus)) return ZS_OK;
        model_from_params(&m, &pc, hi, hi * ratio);
        if (fits_any(sc, sp, &m, &pc, st, gpus)) {
            /* The cap fits: the answer is "at least the cap", never the cap as a result. */
            *params = hi;
            *capped = true;
            return ZS_OK;
        }
        for (int it = 0; it < 60 && hi / lo > 1.001; it++) {
            double mid = sqrt(lo * hi);
            model_from_params(&m, &pc, mid, mid * ratio);
            if (fits_any(sc, sp, &m, &pc, st, gpus))
                lo = mid;
            else
                hi = mid;
        }
        *params = lo;
        return ZS_OK;
    }
    /* Depth scaling: the architecture's block, repeated L times. */
    model m = *sc->m;
    param_counts pc;
    int64_t lo = 0, hi = 1;
    /* Double to the layer bound model_validate accepts, never past it. */
    for (;;) {
        m.num_layers = hi;
        if (model_count(&m, sc->t->persistence_threshold, &pc, err)) return err->code;
        if (!fits_any(sc, sp, &m, &pc, st, gpus)) break;
        lo = hi;
        if (hi >= PLAN_MAX_LAYERS) {
            *capped = true;
            break;
        }
        hi = hi * 2 > PLAN_MAX_LAYERS ? PLAN_MAX_LAYERS : hi * 2;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        m.num_layers = mid;
        if (model_count(&m, sc->t->persistence_threshold, &pc, err)) return err->code;
        if (fits_any(sc, sp, &m, &pc, st, gpus))
            lo = mid;
        else
            hi = mid;
    }
    if (lo == 0) return ZS_OK;
    m.num_layers = lo;
    if (model_count(&m, sc->t->persistence_threshold, &pc, err)) return err->code;
    *params = pc.total;
    if (layers) *layers = lo;
    return ZS_OK;
}

/* The first strategy of sc that fits under t; NULL when none (or t is invalid). */
static const strategy *first_fit(const scenario *sc, const training *t, result *r)
{
    sim_input in;
    zs_error ignore = {.quiet = true};
    if (sim_prepare(&in, sc->m, sc->pc, sc->hw, t, &ignore)) return NULL;
    for (int k = 0; sc->chosen[k]; k++)
        if (sim_run_memory(&in, sc->chosen[k], r)) return sc->chosen[k];
    return NULL;
}

void plan_suggest(const scenario *sc, char *buf, size_t len)
{
    buf[0] = '\0';
    result r;
    char b[32];
    const strategy *st;
    training t = *sc->t;
    if (t.checkpointing != CKPT_FULL) {
        t.checkpointing = CKPT_FULL;
        if ((st = first_fit(sc, &t, &r))) {
            snprintf(buf, len, "fits with --checkpointing full (%s: %s per GPU)", st->label,
                units_fmt_bytes(r.mem.total, b, sizeof b));
            return;
        }
    }
    t = *sc->t;
    if (t.offload_optimizer == OFFLOAD_NONE) {
        t.offload_optimizer = OFFLOAD_CPU;
        if ((st = first_fit(sc, &t, &r))) {
            snprintf(buf, len, "fits with --offload-optimizer cpu (%s: %s per GPU)", st->label,
                units_fmt_bytes(r.mem.total, b, sizeof b));
            return;
        }
        t.offload_params = OFFLOAD_CPU;
        if ((st = first_fit(sc, &t, &r))) {
            snprintf(buf, len, "fits with --offload-optimizer cpu --offload-params cpu (%s: %s per GPU)",
                st->label, units_fmt_bytes(r.mem.total, b, sizeof b));
            return;
        }
    }
    /* A smaller micro-batch, the global batch kept by more accumulation. */
    for (int64_t mb = sc->t->micro_batch / 2; mb >= 1; mb /= 2) {
        t = *sc->t;
        t.grad_accum = t.grad_accum * (t.micro_batch / mb);
        t.micro_batch = mb;
        if ((st = first_fit(sc, &t, &r))) {
            snprintf(buf, len, "fits with --micro-batch %lld --grad-accum %lld (%s: %s per GPU)",
                (long long)mb, (long long)t.grad_accum, st->label, units_fmt_bytes(r.mem.total, b, sizeof b));
            return;
        }
    }
    /* Model parallelism on the same GPUs: TP within a node, then PP. */
    int64_t gpn = scenario_gpus_per_node(sc->hw, sc->t);
    for (int kind = 0; kind < 2; kind++)
        for (int64_t d = 2; d <= (kind ? sc->t->gpus : gpn); d *= 2) {
            t = *sc->t;
            if (kind == 0)
                t.tp = d;
            else
                t.pp = d;
            if (t.gpus % (t.tp * t.pp) != 0) break;
            if ((st = first_fit(sc, &t, &r))) {
                snprintf(buf, len, "fits with --%s %lld (%s: %s per GPU)", kind ? "pp" : "tp", (long long)d,
                    st->label, units_fmt_bytes(r.mem.total, b, sizeof b));
                return;
            }
        }
    /* More GPUs: as given, then with full recompute, then also TP over a node and PP over
     * the rest (up to the layer count). */
    int64_t layers = sc->m->params_only ? 1 : sc->m->num_layers;
    for (int pass = 0; pass < 3; pass++) {
        for (int64_t g = sc->t->gpus * 2; g <= (1 << 20); g *= 2) {
            t = *sc->t;
            t.gpus = g;
            if (pass > 0) t.checkpointing = CKPT_FULL;
            if (pass == 2) {
                int64_t node = scenario_node_size(sc->hw, sc->t);
                t.tp = node < g ? node : g;
                t.pp = 1;
                while (t.pp * 2 * t.tp <= g && t.pp * 2 <= layers) t.pp *= 2;
            }
            if ((st = first_fit(sc, &t, &r))) {
                char extra[96] = "";
                if (pass == 2)
                    snprintf(extra, sizeof extra, " --tp %lld --pp %lld", (long long)t.tp, (long long)t.pp);
                snprintf(buf, len, "fits with --gpus %lld%s%s (%s: %s per GPU)", (long long)g,
                    pass ? " --checkpointing full" : "", extra, st->label,
                    units_fmt_bytes(r.mem.total, b, sizeof b));
                return;
            }
        }
    }
}
