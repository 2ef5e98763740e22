/* compare.c -- one strategy decision: the same core as estimate and plan, no second search. */
#include "analysis/compare.h"

#include <math.h>
#include <string.h>

#include "core/sim.h"

static bool fits_with(const scenario *sc, const training *t, const strategy *s, int64_t mb)
{
    training x = *t;
    x.micro_batch = mb;
    sim_input in;
    zs_error ignore = {.quiet = true};
    result r;
    if (sim_prepare(&in, sc->m, sc->pc, sc->hw, &x, &ignore)) return false;
    return sim_run_memory(&in, s, &r);
}

/* Largest micro-batch of strategy s that fits with training t (its micro-batch ignored);
 * 0 when micro-batch 1 does not fit or the configuration does not prepare. Searches up to
 * 2^20 by doubling then bisection (fit is monotone in the micro-batch). Pure. */
static int64_t compare_max_micro_batch(const scenario *sc, const training *t, const strategy *s)
{
    if (!fits_with(sc, t, s, 1)) return 0;
    int64_t lo = 1, hi = 2;
    while (hi <= (1 << 20) && fits_with(sc, t, s, hi)) {
        lo = hi;
        hi *= 2;
    }
    if (hi > (1 << 20)) return lo;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits_with(sc, t, s, mid))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static bool seq_fits(const scenario *sc, const training *t, const strategy *s, int64_t seq)
{
    training x = *t;
    x.seq_len = seq;
    sim_input in;
    zs_error ignore = {.quiet = true};
    result r;
    if (sim_prepare(&in, sc->m, sc->pc, sc->hw, &x, &ignore)) return false;
    return sim_run_memory(&in, s, &r);
}

/* Longest sequence of strategy s that fits with training t (its seq_len ignored), in steps of
 * 128 x CP tokens (the sequence splits over CP ranks; 128 is flash attention's block), up to
 * 2^24 tokens; 0 when one step does not fit. Doubling then bisection (memory grows with the
 * sequence). Pure. */
static int64_t compare_max_seq(const scenario *sc, const training *t, const strategy *s)
{
    int64_t q = 128 * (t->cp > 0 ? t->cp : 1), lo = 1, hi = 2, top = ((int64_t)1 << 24) / q;
    if (sc->m->params_only || !seq_fits(sc, t, s, q)) return 0;
    while (hi <= top && seq_fits(sc, t, s, hi * q)) {
        lo = hi;
        hi *= 2;
    }
    if (hi > top) return lo * q;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (seq_fits(sc, t, s, mid * q))
            lo = mid;
        else
            hi = mid;
    }
    return lo * q;
}

static double diff(bool ok, double base, double mine)
{
    return ok ? base - mine : NAN;
}

int compare_run(const scenario *sc, const plan_space *sp, const framework *const *given, compare_row *rows,
    int max, int *n, zs_error *err)
{
    *n = 0;
    const framework *own[2] = {framework_of(sc->t), NULL};
    const framework *const *fws = given && given[0] ? given : own;
    for (int f = 0; fws[f]; f++) {
        training t = *sc->t;
        t.framework = fws[f];
        scenario one = *sc;
        one.t = &t;
        sim_input in;
        zs_error prep = {0};
        bool prepared = sim_prepare(&in, sc->m, sc->pc, sc->hw, &t, &prep) == ZS_OK;
        /* A framework that cannot run the given layout at all still has a fewest-GPU and a
         * fastest answer elsewhere in the space; with one framework, say why instead. */
        if (!prepared && !given) return zs_fail(err, prep.code, "%s", prep.msg);
        plan_space fsp = *sp;
        fsp.frameworks[0] = fws[f];
        fsp.frameworks[1] = NULL;
        fsp.answers_only = true; /* the rows read no feasible count */
        plan_result pr;
        if (plan_search(&one, &fsp, 1, NULL, NULL, &pr, err)) return err->code;
        int first = *n;
        for (int si = 0; sc->chosen[si] && *n < max; si++) {
            const strategy *s = sc->chosen[si];
            int k = strategy_index(s);
            if (k < 0 || !fws[f]->runs[k]) continue;
            compare_row *row = &rows[(*n)++];
            memset(row, 0, sizeof *row);
            row->s = s;
            row->fw = fws[f];
            if (prepared) {
                sim_run(&in, s, sc->tokens, &row->given);
                row->max_micro_batch = compare_max_micro_batch(&one, &t, s);
                training full = t;
                full.checkpointing = CKPT_FULL;
                row->max_micro_batch_recompute = compare_max_micro_batch(&one, &full, s);
                row->max_seq_len = compare_max_seq(&one, &t, s);
                if (row->max_micro_batch > 0) {
                    row->at_max_t = t;
                    row->at_max_t.micro_batch = row->max_micro_batch;
                    sim_input mi;
                    zs_error ignore = {.quiet = true};
                    if (sim_prepare(&mi, sc->m, sc->pc, sc->hw, &row->at_max_t, &ignore) == ZS_OK)
                        sim_run(&mi, s, sc->tokens, &row->at_max);
                }
            } else {
                row->given.strategy = s;
                row->given.framework = fws[f];
                size_t l = strlen(prep.msg);
                if (l >= sizeof row->given.why) l = sizeof row->given.why - 1;
                memcpy(row->given.why, prep.msg, l);
                row->given.why[l] = '\0';
            }
            row->min_gpus = pr.min_gpus[k];
            if (row->min_gpus) row->min_entry = pr.min_entry[k];
            row->has_best = pr.has_best[k];
            if (row->has_best) row->best = pr.best_per_strategy[k];
        }
        plan_result_free(&pr);
        /* Baseline within the framework: DDP when it fits somewhere, else the weakest strategy
         * (fewest shards, table order) that does. */
        const compare_row *base = NULL;
        for (int i = first; i < *n && !base; i++)
            if (rows[i].min_gpus > 0) base = &rows[i];
        for (int i = first; i < *n; i++) {
            compare_row *r = &rows[i];
            r->baseline = base;
            bool b = base != NULL;
            r->saved_gpus = diff(b && r->min_gpus > 0, b ? (double)base->min_gpus : 0, (double)r->min_gpus);
            r->saved_memory_bytes = diff(b && base->given.applicable && r->given.applicable,
                b ? base->given.mem.total : 0, r->given.mem.total);
            r->saved_step_seconds = diff(
                b && base->has_best && r->has_best, b ? base->best.r.step.total : 0, r->best.r.step.total);
            r->saved_dollars = diff(b && base->has_best && r->has_best && sc->tokens > 0,
                b ? base->best.r.cost.dollars : 0, r->best.r.cost.dollars);
        }
    }
    return ZS_OK;
}
