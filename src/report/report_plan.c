/* report_plan.c -- what `plan` prints: the ranked configurations, the best per strategy, the
 * fewest GPUs, and the largest-model grid. */
#include "report/report_plan.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core/framework.h"
#include "core/units.h"
#include "report/report_json.h"

static void print_entry(FILE *f, int rank, const plan_entry *e, bool tokens, bool fw)
{
    const training *t = &e->t;
    const result *r = &e->r;
    char v[24] = "";
    if (t->virtual_stages > 1) snprintf(v, sizeof v, "x%lld", (long long)t->virtual_stages);
    if (fw)
        fprintf(f, "%3d  %-10s", rank, framework_of(t)->name);
    else
        fprintf(f, "%3d", rank);
    fprintf(f, "  %-6s %5lld %3lld %3lld%-3s %4lld %3lld %4lld  %-9s %-14s %7.1f %9.3f %10.0f %5.1f",
        r->strategy->label, (long long)t->gpus, (long long)t->tp, (long long)t->pp, v,
        (long long)training_dp(t), (long long)t->micro_batch, (long long)t->grad_accum,
        ckpt_name(t->checkpointing), report_offload_name(t), r->mem.total / GiB, r->step.total,
        r->tokens_per_second, 100 * r->mfu);
    if (tokens) fprintf(f, " %8.1f %12.0f", r->cost.seconds / 86400, r->cost.dollars);
    if (r->has_interval) fprintf(f, "  (%.3f to %.3f s, 90%%)", r->step_lo, r->step_hi);
    if (t->cp > 1) fprintf(f, "  CP %lld", (long long)t->cp);
    if (t->pp_first_layers > 0 || t->pp_last_layers > 0)
        fprintf(
            f, "  stages first %lld last %lld", (long long)t->pp_first_layers, (long long)t->pp_last_layers);
    fprintf(f, "\n");
}

static void header(FILE *f, bool tokens, bool fw)
{
    if (fw)
        fprintf(f, "%3s  %-10s", "#", "framework");
    else
        fprintf(f, "%3s", "#");
    fprintf(f, "  %-6s %5s %3s %6s %4s %3s %4s  %-9s %-14s %7s %9s %10s %5s", "strat", "GPUs", "TP", "PP",
        "DP", "mb", "GA", "recompute", "offload", "GiB/GPU", "step s", "tokens/s", "MFU%");
    if (tokens) fprintf(f, " %8s %12s", "days", "dollars");
    fprintf(f, "\n");
}

/* "fits with --max-gpus 128 (ZeRO-3 on 128 GPUs: ...)": the hint as one phrase. */
static void hint_text(const plan_hint *h, char *out, size_t len)
{
    if (h->kind == PLAN_HINT_BUDGET) {
        snprintf(out, len, "drop --budget/--deadline to see what fits at all");
        return;
    }
    if (h->kind == PLAN_HINT_NONE) {
        snprintf(
            out, len, "nothing up to 4096 GPUs either: try --global-batch, a shorter --seq-len or offload");
        return;
    }
    const plan_entry *e = &h->entry;
    char change[64];
    if (h->kind == PLAN_HINT_MORE_GPUS)
        snprintf(change, sizeof change, "with --max-gpus %lld", (long long)e->t.gpus);
    else
        snprintf(change, sizeof change, "without --no-offload");
    snprintf(out, len,
        "fits %s (%s on %lld GPUs: TP %lld, PP %lld, micro-batch %lld, recompute %s, offload %s)", change,
        e->r.strategy->label, (long long)e->t.gpus, (long long)e->t.tp, (long long)e->t.pp,
        (long long)e->t.micro_batch, ckpt_name(e->t.checkpointing), report_offload_name(&e->t));
}

/* The title lines: what was searched, the rounding note, how much was evaluated. */
static void table_title(FILE *f, const plan_report *rp)
{
    const scenario *sc = rp->sc;
    const plan_space *sp = rp->sp;
    char a[32], b[32];
    fprintf(f, "plan: %s on %s, up to %lld GPUs, global batch %lld x %lld tokens; ranked by %s\n",
        sc->m->params_only ? units_fmt_short(sc->pc->total, a, sizeof a) : sc->m->name, sc->hw->name,
        (long long)sp->max_gpus, (long long)sp->global_batch, (long long)sc->t->seq_len,
        sp->rank == RANK_COST             ? "cost (GPU-seconds per step)"
            : sp->rank == RANK_THROUGHPUT ? "tokens/s per GPU"
                                          : "step time");
    if (sp->global_batch != rp->asked)
        fprintf(f,
            "note: no configuration divides %lld sequences (%.0f tokens); rounded to the nearest feasible "
            "batch, %lld sequences\n",
            (long long)rp->asked, (double)rp->asked * (double)sc->t->seq_len, (long long)sp->global_batch);
    fprintf(f, "evaluated %s configurations, %s feasible\n\n",
        units_fmt_count((double)rp->pr->evaluated, a, sizeof a),
        units_fmt_count((double)rp->pr->feasible, b, sizeof b));
}

static void table(FILE *f, const plan_report *rp)
{
    const plan_space *sp = rp->sp;
    const plan_result *pr = rp->pr;
    bool tokens = rp->sc->tokens > 0, show_fw = rp->show_framework;
    table_title(f, rp);
    if (pr->n_top == 0) {
        char hint[256] = "";
        if (rp->hint) hint_text(rp->hint, hint, sizeof hint);
        /* The rule that refused most configurations first: that is the reason, the hint a way
         * around it. */
        const char *refused = rp->hint ? rp->hint->refused : "";
        fprintf(f, "Nothing fits%s%s%s%s%s.\n",
            sp->budget_dollars > 0 || sp->deadline_seconds > 0 ? " within the budget/deadline" : "",
            refused[0] ? ": " : "", refused, hint[0] ? "; " : "", hint);
    } else {
        header(f, tokens, show_fw);
        for (int k = 0; k < pr->n_top; k++) print_entry(f, k + 1, &pr->top[k], tokens, show_fw);
    }
    fprintf(f, "\nBest per strategy, and the fewest GPUs with which it fits at all:\n");
    header(f, tokens, show_fw);
    for (int k = 0; strategies[k]; k++) {
        if (!sp->strategies[k]) continue;
        if (pr->has_best[k])
            print_entry(f, 0, &pr->best_per_strategy[k], tokens, show_fw);
        else
            fprintf(f, "  -  %-6s does not fit (within the constraints)\n", strategies[k]->label);
        if (pr->min_gpus[k]) {
            const training *mt = &pr->min_entry[k].t;
            fprintf(f,
                "     %-6s fits from %lld GPU%s%s%s: TP %lld, PP %lld, micro-batch %lld, recompute %s, "
                "offload %s\n",
                strategies[k]->label, (long long)pr->min_gpus[k], pr->min_gpus[k] == 1 ? "" : "s",
                show_fw ? " under " : "", show_fw ? framework_of(mt)->name : "", (long long)mt->tp,
                (long long)mt->pp, (long long)mt->micro_batch, ckpt_name(mt->checkpointing),
                report_offload_name(mt));
        }
    }
}

static void json(FILE *f, const plan_report *rp)
{
    const plan_space *sp = rp->sp;
    const plan_result *pr = rp->pr;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON_AddNumberToObject(root, "global_batch", (double)sp->global_batch);
    if (sp->global_batch != rp->asked)
        cJSON_AddNumberToObject(root, "global_batch_requested", (double)rp->asked);
    cJSON_AddNumberToObject(root, "evaluated", (double)pr->evaluated);
    cJSON_AddNumberToObject(root, "feasible", (double)pr->feasible);
    cJSON *ranked = cJSON_AddArrayToObject(root, "ranked");
    for (int k = 0; k < pr->n_top; k++)
        cJSON_AddItemToArray(ranked, report_entry_json(&pr->top[k].t, &pr->top[k].r));
    cJSON *best = cJSON_AddObjectToObject(root, "best_per_strategy");
    cJSON *ming = cJSON_AddObjectToObject(root, "min_gpus");
    for (int k = 0; strategies[k]; k++) {
        if (!sp->strategies[k]) continue;
        const plan_entry *b = &pr->best_per_strategy[k];
        if (pr->has_best[k])
            cJSON_AddItemToObject(best, strategies[k]->name, report_entry_json(&b->t, &b->r));
        else
            cJSON_AddNullToObject(best, strategies[k]->name);
        if (pr->min_gpus[k])
            cJSON_AddNumberToObject(ming, strategies[k]->name, (double)pr->min_gpus[k]);
        else
            cJSON_AddNullToObject(ming, strategies[k]->name);
    }
    report_json_print(f, root);
}

void report_plan(FILE *f, out_format format, const plan_report *r)
{
    if (format == FMT_TABLE)
        table(f, r);
    else
        json(f, r);
}

static void max_model_table(FILE *f, const scenario *s, const plan_model_grid *g)
{
    fprintf(f, "Largest trainable model (parameters) on %s, %s%s\n", s->hw->name,
        s->m->params_only ? "model states + overhead only (--params)" : "scaling the depth of ",
        s->m->params_only ? "" : s->m->name);
    fprintf(f, "%8s", "GPUs");
    for (int i = 0; i < g->n_strategies; i++) fprintf(f, "%12s", strategies[i]->label);
    fprintf(f, "\n");
    bool any_cap = false;
    for (int k = 0; k < g->n; k++) {
        fprintf(f, "%8lld", (long long)g->gpus[k]);
        for (int i = 0; i < g->n_strategies; i++) {
            char b[32], c[40];
            snprintf(c, sizeof c, "%s%s", g->capped[k][i] ? ">= " : "",
                g->params[k][i] > 0 ? units_fmt_short(g->params[k][i], b, sizeof b) : "-");
            any_cap |= g->capped[k][i];
            fprintf(f, "%12s", c);
        }
        fprintf(f, "\n");
    }
    if (any_cap)
        fprintf(f, ">= : the search limit (%s) fits; the largest trainable model is at least that.\n",
            s->m->params_only ? "1e16 parameters" : "100,000 layers");
}

void report_plan_max_model(FILE *f, out_format format, const scenario *sc, const plan_model_grid *g)
{
    if (format == FMT_TABLE) {
        max_model_table(f, sc, g);
        return;
    }
    cJSON *root = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(root, "max_model");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    for (int k = 0; k < g->n; k++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "gpus", (double)g->gpus[k]);
        cJSON *cap = cJSON_CreateArray();
        for (int i = 0; i < g->n_strategies; i++) {
            cJSON_AddNumberToObject(row, strategies[i]->name, g->params[k][i]);
            if (g->capped[k][i]) cJSON_AddItemToArray(cap, cJSON_CreateString(strategies[i]->name));
        }
        /* Strategies whose value is the search limit, a lower bound. */
        cJSON_AddItemToObject(row, "at_least", cap);
        cJSON_AddItemToArray(rows, row);
    }
    report_json_print(f, root);
}
