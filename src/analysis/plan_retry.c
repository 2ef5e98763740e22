/* plan_retry.c -- what plan does around one search: round a batch in tokens to one that
 * divides, say what would fit when nothing does, and the largest-model grid. */
#include "analysis/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/sim.h"
#include "core/units.h"

/* Batches near n, nearest first, that have ever more factors of two: n rounded to a multiple
 * of 2, 4, 8, ... (ties to the smaller). Returns how many were written. */
static int nearby_batches(int64_t n, int64_t *out, int max)
{
    int count = 0;
    for (int64_t q = 2; q <= 2 * n && q > 0 && count < max; q *= 2) {
        int64_t lo = n / q * q, hi = lo + q, c = (lo > 0 && n - lo <= hi - n) ? lo : hi;
        if (c == n) continue;
        bool seen = false;
        for (int k = 0; k < count; k++) seen |= out[k] == c;
        if (!seen) out[count++] = c;
    }
    /* nearest first (stable for equal distance) */
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && llabs(out[j] - n) < llabs(out[j - 1] - n); j--) {
            int64_t tmp = out[j];
            out[j] = out[j - 1];
            out[j - 1] = tmp;
        }
    return count;
}

int plan_search_rounded(const scenario *sc, plan_space *sp, int top_n, bool round_batch, plan_progress cb,
    void *ctx, plan_result *out, zs_error *err)
{
    if (plan_search(sc, sp, top_n, cb, ctx, out, err)) return err->code;
    if (!round_batch || out->n_top > 0 || sp->budget_dollars > 0 || sp->deadline_seconds > 0) return ZS_OK;
    int64_t cand[64];
    int nc = nearby_batches(sp->global_batch, cand, 64);
    for (int k = 0; k < nc; k++) {
        plan_space try_sp = *sp;
        plan_result tr;
        try_sp.global_batch = cand[k];
        if (plan_search(sc, &try_sp, top_n, NULL, NULL, &tr, err)) {
            plan_result_free(out);
            return err->code;
        }
        if (tr.n_top > 0) {
            plan_result_free(out);
            *out = tr;
            sp->global_batch = cand[k];
            return ZS_OK;
        }
        plan_result_free(&tr);
    }
    return ZS_OK;
}

void plan_what_would_fit(const scenario *sc, const plan_space *sp, plan_hint *out)
{
    out->kind = PLAN_HINT_BUDGET;
    if (sp->budget_dollars > 0 || sp->deadline_seconds > 0) return;
    for (int pass = 0; pass < 2; pass++) {
        plan_space t = *sp;
        if (pass == 1) {
            if (sp->allow_offload) break;
            t.allow_offload = true;
        }
        int64_t lo = pass == 0 ? sp->max_gpus + 1 : sp->min_gpus;
        int64_t first = pass == 0 ? sp->max_gpus * 2 : sp->max_gpus;
        for (int64_t hi = first; hi <= 4096 || hi == sp->max_gpus; hi *= 2) {
            t.min_gpus = lo;
            t.max_gpus = hi;
            plan_result r;
            zs_error ignore = {.quiet = true};
            if (plan_search(sc, &t, 1, NULL, NULL, &r, &ignore) == ZS_OK && r.n_top > 0) {
                out->kind = pass == 0 ? PLAN_HINT_MORE_GPUS : PLAN_HINT_OFFLOAD;
                out->entry = r.top[0];
                plan_result_free(&r);
                return;
            }
            plan_result_free(&r);
            if (hi == sp->max_gpus) break;
            lo = hi + 1;
        }
    }
    out->kind = PLAN_HINT_NONE;
}

int plan_max_model_grid(const scenario *sc, const plan_space *sp, const int64_t *gpus, int n,
    plan_progress cb, void *ctx, plan_model_grid *g, zs_error *err)
{
    int ns = 0;
    while (strategies[ns]) ns++;
    g->n = n < PLAN_GRID_MAX ? n : PLAN_GRID_MAX;
    g->n_strategies = ns;
    uint64_t total = (uint64_t)(g->n * ns);
    for (int k = 0; k < g->n; k++) {
        g->gpus[k] = gpus[k];
        for (int i = 0; i < ns; i++) {
            if (cb) cb((uint64_t)(k * ns + i + 1), total, ctx);
            int64_t layers;
            if (plan_max_model_capped(
                    sc, sp, strategies[i], gpus[k], &g->params[k][i], &layers, &g->capped[k][i], err))
                return err->code;
        }
    }
    return ZS_OK;
}

void plan_refusals(const scenario *sc, const plan_result *pr, char *buf, size_t len)
{
    buf[0] = '\0';
    uint64_t total = pr->prepared;
    int top = -1;
    for (int k = 0; k < pr->n_rules; k++) {
        total += pr->refused[k];
        if (top < 0 || pr->refused[k] > pr->refused[top]) top = k;
    }
    if (top < 0 || pr->refused[top] <= pr->prepared) return;
    /* The rule's message for the first configuration it refused, formatted now, once. */
    sim_input in;
    zs_error err = {0};
    if (!sim_prepare(&in, sc->m, sc->pc, sc->hw, &pr->rule_t[top], &err) || !err.msg[0]) return;
    char a[32];
    snprintf(buf, len, "%.0f%% of the %s configurations searched were refused: %s",
        floor(100.0 * (double)pr->refused[top] / (double)total), units_fmt_count((double)total, a, sizeof a),
        err.msg);
}
