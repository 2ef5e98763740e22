/* cmd_plan.c -- `zerosim plan`: the fastest or cheapest configurations that fit, minimum GPUs
 * per strategy, and the largest trainable model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/commands.h"
#include "core/framework.h"
#include "analysis/plan.h"
#include "report/report.h"
#include "cmd/setup.h"
#include "analysis/uncertainty.h"
#include "core/units.h"

static void usage(FILE *f, const cli_opt *plan_only)
{
    fprintf(f, "usage: zerosim plan (--model NAME|FILE | --params COUNT) [--hardware H] [options]\n\n"
               "Search strategy (DDP, ZeRO-1/2/3), offload, TP, PP (and interleaving), micro-batch,\n"
               "gradient accumulation, activation checkpointing and GPU count in whole nodes; keep what\n"
               "fits; rank by step time, cost or throughput. Precision, optimizer, sequence length and\n"
               "bucket sizes come from the flags below as in 'zerosim estimate'.\n\nPlan options:\n");
    cli_print_options(f, plan_only);
    fprintf(f, "\nConfiguration options (fixed during the search):\n");
    cli_print_options(f, setup_options);
    fprintf(f, "\nExamples:\n"
               "  zerosim plan --model llama-2-70b --hardware h100-80gb --max-gpus 256 --tokens 2e12\n"
               "  zerosim plan --model llama-3-8b --max-gpus 64 --rank cost --tokens 1e12 --budget 5e5\n"
               "  zerosim plan --max-model --params 1e9 --hardware v100-32gb --gpus-list 1,16,64,400\n");
}

static void progress(uint64_t done, uint64_t total, void *ctx)
{
    (void)ctx;
    if (done < total) fprintf(stderr, "\rplan: %llu/%llu GPU counts searched", (unsigned long long)done, (unsigned long long)total);
    else fprintf(stderr, "\r%60s\r", "");
}

static void print_entry(int rank, const plan_entry *e, bool tokens, bool fw)
{
    const training *t = &e->t;
    const result *r = &e->r;
    char v[24] = "";
    if (t->virtual_stages > 1) snprintf(v, sizeof v, "x%lld", (long long)t->virtual_stages);
    if (fw) printf("%3d  %-10s", rank, framework_of(t)->name);
    else printf("%3d", rank);
    printf("  %-6s %5lld %3lld %3lld%-3s %4lld %3lld %4lld  %-9s %-14s %7.1f %9.3f %10.0f %5.1f",
           r->strategy->label, (long long)t->gpus, (long long)t->tp, (long long)t->pp, v,
           (long long)training_dp(t), (long long)t->micro_batch, (long long)t->grad_accum,
           ckpt_name(t->checkpointing), report_offload_name(t), r->mem.total / GiB, r->step.total,
           r->tokens_per_second, 100 * r->mfu);
    if (tokens) printf(" %8.1f %12.0f", r->cost.seconds / 86400, r->cost.dollars);
    if (r->has_interval) printf("  (%.3f to %.3f s, 90%%)", r->step_lo, r->step_hi);
    if (t->cp > 1) printf("  CP %lld", (long long)t->cp);
    printf("\n");
}

/* With a calibrated profile, each printed configuration gets its 90% step-time interval. */
static void add_interval(const scenario *sc, plan_entry *e)
{
    scenario one = *sc;
    one.t = &e->t;
    uncertainty_add(&one, &e->r);
}

static void header(bool tokens, bool fw)
{
    if (fw) printf("%3s  %-10s", "#", "framework");
    else printf("%3s", "#");
    printf("  %-6s %5s %3s %6s %4s %3s %4s  %-9s %-14s %7s %9s %10s %5s", "strat", "GPUs", "TP", "PP",
           "DP", "mb", "GA", "recompute", "offload", "GiB/GPU", "step s", "tokens/s", "MFU%");
    if (tokens) printf(" %8s %12s", "days", "dollars");
    printf("\n");
}

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
            int64_t tmp = out[j]; out[j] = out[j - 1]; out[j - 1] = tmp;
        }
    return count;
}

/* When the search found nothing: search on, in doubling GPU ranges up to 4096 (only the
 * counts not yet searched), then with offload if it was off, and name the first that fits. */
static void what_would_fit(const scenario *sc, const plan_space *sp, char *out, size_t len)
{
    out[0] = '\0';
    if (sp->budget_dollars > 0 || sp->deadline_seconds > 0) {
        snprintf(out, len, "drop --budget/--deadline to see what fits at all");
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        plan_space t = *sp;
        if (pass == 1) {
            if (sp->allow_offload) break;
            t.allow_offload = true;
        }
        int64_t lo = pass == 0 ? sp->max_gpus + 1 : sp->min_gpus;
        for (int64_t hi = pass == 0 ? sp->max_gpus * 2 : sp->max_gpus; hi <= 4096 || hi == sp->max_gpus; hi *= 2) {
            t.min_gpus = lo;
            t.max_gpus = hi;
            plan_result r;
            zs_error ignore;
            if (plan_search(sc, &t, 1, NULL, NULL, &r, &ignore) == ZS_OK && r.n_top > 0) {
                const plan_entry *e = &r.top[0];
                char change[64];
                if (pass == 0) snprintf(change, sizeof change, "with --max-gpus %lld", (long long)e->t.gpus);
                else snprintf(change, sizeof change, "without --no-offload");
                snprintf(out, len, "fits %s (%s on %lld GPUs: TP %lld, PP %lld, micro-batch %lld, recompute %s, offload %s)",
                         change, e->r.strategy->label, (long long)e->t.gpus, (long long)e->t.tp, (long long)e->t.pp,
                         (long long)e->t.micro_batch, ckpt_name(e->t.checkpointing), report_offload_name(&e->t));
                plan_result_free(&r);
                return;
            }
            plan_result_free(&r);
            if (hi == sp->max_gpus) break;
            lo = hi + 1;
        }
    }
    snprintf(out, len, "nothing up to 4096 GPUs either: try --global-batch, a shorter --seq-len or offload");
}

/* Every cell is computed before anything is printed: an error leaves no half table. */
static int max_model(const scenario *s, out_format format, const plan_space *sp, const char *list)
{
    int64_t counts[64];
    int n = 0;
    if (list) {
        char buf[512];
        if (strlen(list) >= sizeof buf) return cmd_error("plan", ZS_ERR_USAGE, "--gpus-list: longer than 511 characters");
        snprintf(buf, sizeof buf, "%s", list);
        zs_error err = {0};
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (n == 64) return cmd_error("plan", ZS_ERR_USAGE, "--gpus-list: at most 64 GPU counts");
            if (units_parse_int(tok, "--gpus-list", 1, 10000000, &counts[n++], &err))
                return cmd_error("plan", err.code, err.msg);
        }
        if (n == 0) return cmd_error("plan", ZS_ERR_USAGE, "--gpus-list: expected GPU counts such as 8,64,512");
    } else {
        for (int64_t g = 1; g <= sp->max_gpus && n < 64; g *= 2) counts[n++] = g;
    }
    int ns = 0;
    while (strategies[ns]) ns++;
    double params[64][STRATEGY_MAX];
    bool capped[64][STRATEGY_MAX];
    bool tty = isatty(2);
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < ns; i++) {
            if (tty) fprintf(stderr, "\rplan: max model %d/%d", k * ns + i + 1, n * ns);
            int64_t layers;
            zs_error err = {0};
            if (plan_max_model_capped(s, sp, strategies[i], counts[k], &params[k][i], &layers, &capped[k][i], &err)) {
                if (tty) fprintf(stderr, "\r%40s\r", "");
                return cmd_error("plan", err.code, err.msg);
            }
        }
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");
    if (format == FMT_TABLE) {
        printf("Largest trainable model (parameters) on %s, %s%s\n", s->hw->name,
               s->m->params_only ? "model states + overhead only (--params)" : "scaling the depth of ",
               s->m->params_only ? "" : s->m->name);
        printf("%8s", "GPUs");
        for (int i = 0; i < ns; i++) printf("%12s", strategies[i]->label);
        printf("\n");
        bool any_cap = false;
        for (int k = 0; k < n; k++) {
            printf("%8lld", (long long)counts[k]);
            for (int i = 0; i < ns; i++) {
                char b[32], c[40];
                snprintf(c, sizeof c, "%s%s", capped[k][i] ? ">= " : "",
                         params[k][i] > 0 ? units_fmt_short(params[k][i], b, sizeof b) : "-");
                any_cap |= capped[k][i];
                printf("%12s", c);
            }
            printf("\n");
        }
        if (any_cap)
            printf(">= : the search limit (%s) fits; the largest trainable model is at least that.\n",
                   s->m->params_only ? "1e16 parameters" : "100,000 layers");
        return 0;
    }
    cJSON *root = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(root, "max_model");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    for (int k = 0; k < n; k++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "gpus", (double)counts[k]);
        cJSON *cap = cJSON_CreateArray();
        for (int i = 0; i < ns; i++) {
            cJSON_AddNumberToObject(row, strategies[i]->name, params[k][i]);
            if (capped[k][i]) cJSON_AddItemToArray(cap, cJSON_CreateString(strategies[i]->name));
        }
        /* Strategies whose value is the search limit, a lower bound. */
        cJSON_AddItemToObject(row, "at_least", cap);
        cJSON_AddItemToArray(rows, row);
    }
    char *text = cJSON_Print(root);
    if (text) puts(text);
    free(text);
    cJSON_Delete(root);
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    s.searches_gpus = true;
    plan_space sp;
    plan_space_init(&sp);
    zs_error err = {0};
    int64_t top = 10;
    bool maxmodel = false;
    const char *list = NULL;
    double gb_tokens = 0, deadline_hours = 0;
    int rank = RANK_TIME;
    const cli_opt plan_only[] = {
        {"max-gpus", "N", "largest cluster to consider, searched in whole nodes (default 64)", .whole = &sp.max_gpus, .min = 1, .max = 1000000},
        {"min-gpus", "N", "smallest GPU count to consider (default 1)", .whole = &sp.min_gpus, .min = 1, .max = 1000000},
        {"global-batch", "SEQS", "sequences per optimizer step (default: 4Mi = 4,194,304 tokens, Llama's batch)", .whole = &sp.global_batch, .min = 1, .max = 100000000},
        {"global-batch-tokens", "TOKENS", "the global batch in tokens instead, e.g. 4Mi (2^22) or 4M (4e6); rounded to a feasible batch", .count = &gb_tokens},
        {"budget", "USD", "keep configurations whose --tokens run costs at most this", .count = &sp.budget_dollars},
        {"deadline", "HOURS", "keep configurations whose --tokens run finishes in time", .count = &deadline_hours},
        /* in plan_rank's order */
        {"rank", "BY", "time|cost|throughput (default time; cost = GPU-hours)", .choice = &rank, .choices = "time|cost|throughput"},
        {"top", "N", "how many configurations to print (default 10)", .whole = &top, .min = 1, .max = 1000},
        {"no-offload", NULL, "do not consider CPU/NVMe offload", .off = &sp.allow_offload},
        {"no-pp", NULL, "do not consider pipeline parallelism", .off = &sp.allow_pp},
        {"no-tp", NULL, "do not consider tensor parallelism", .off = &sp.allow_tp},
        {"max-micro-batch", "N", "largest micro-batch to try (default 32)", .whole = &sp.max_micro_batch, .min = 1, .max = 4096},
        {"max-model", NULL, "instead: the largest model each strategy can train (depth scaling, or --params)", .on = &maxmodel},
        {"gpus-list", "LIST", "GPU counts for --max-model, e.g. 8,64,512 (default: powers of two to --max-gpus)", .text = &list},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"plan", plan_only, usage, &s, .shared = true}, argc, argv);
    if (rc != CMD_GO) return rc;
    sp.deadline_seconds = deadline_hours * 3600;
    sp.rank = (plan_rank)rank;
    if (setup_finish(&s, &err)) return cmd_error("plan", err.code, err.msg);
    /* Configuration flags are fixed during the search, as --help says. --max-model keeps its
     * own definition (the most memory-saving choices: micro-batch 1, full recompute, any
     * offload allowed), which plot's max-model chart shares. */
    if (!maxmodel) {
        if (setup_flag_given(&s, OPT_MICRO)) sp.fixed_micro_batch = s.t.micro_batch;
        if (setup_flag_given(&s, OPT_TP)) sp.fixed_tp = s.t.tp;
        if (setup_flag_given(&s, OPT_PP)) sp.fixed_pp = s.t.pp;
        if (setup_flag_given(&s, OPT_VSTAGES)) sp.fixed_vstages = s.t.virtual_stages;
        if (setup_flag_given(&s, OPT_CP)) sp.fixed_cp = s.t.cp;
        if (setup_flag_given(&s, OPT_EP)) sp.fixed_ep = s.t.ep;
        sp.fixed_ckpt = setup_flag_given(&s, OPT_CKPT);
        sp.fixed_offload = setup_flag_given(&s, OPT_OFF_OPT) || setup_flag_given(&s, OPT_OFF_PARAM);
    }
    for (int k = 0; k < STRATEGY_MAX; k++) sp.strategies[k] = false;
    for (int k = 0; s.chosen[k]; k++) sp.strategies[strategy_index(s.chosen[k])] = true;
    sp.tokens = s.tokens;
    if ((sp.budget_dollars > 0 || sp.deadline_seconds > 0) && s.tokens <= 0)
        return cmd_error("plan", ZS_ERR_USAGE, "--budget and --deadline need --tokens (the training run to cost)");
    /* --framework all: every real framework (not the abstract generic one), each row named. */
    int nf = 0;
    if (s.all_frameworks) {
        for (int k = 0; frameworks[k]; k++)
            if (frameworks[k] != &fw_generic) sp.frameworks[nf++] = frameworks[k];
    } else if (s.t.framework) {
        sp.frameworks[nf++] = s.t.framework;
    }
    sp.frameworks[nf] = NULL;
    bool show_fw = nf > 0;
    scenario sc = setup_scenario(&s);
    if (maxmodel) return max_model(&sc, s.format, &sp, list);
    /* The default batch: Llama's 4M tokens, which is 2048 sequences of 2048 = 4Mi (Touvron et
     * al. 2023, arXiv 2302.13971, section 2.2). */
    bool from_tokens = sp.global_batch == 0;
    if (from_tokens) {
        double tokens = gb_tokens > 0 ? gb_tokens : 4194304.0;
        double seqs = fmax(1, round(tokens / (double)s.t.seq_len));
        if (seqs > 100000000) return cmd_error("plan", ZS_ERR_USAGE, "--global-batch-tokens: more than 1e8 sequences per step");
        sp.global_batch = (int64_t)seqs;
    }

    plan_result pr;
    bool tty = isatty(2);
    if (plan_search(&sc, &sp, (int)top, tty ? progress : NULL, NULL, &pr, &err)) return cmd_error("plan", err.code, err.msg);
    /* A batch in tokens is approximate: when no configuration divides it (4M = 4e6 tokens at
     * 4096 is 977 sequences, a prime), take the nearest batch that one does, and say so. */
    int64_t asked = sp.global_batch;
    if (from_tokens && pr.n_top == 0 && !(sp.budget_dollars > 0 || sp.deadline_seconds > 0)) {
        int64_t cand[64];
        int nc = nearby_batches(asked, cand, 64);
        for (int k = 0; k < nc; k++) {
            plan_space try_sp = sp;
            plan_result tr;
            try_sp.global_batch = cand[k];
            if (plan_search(&sc, &try_sp, (int)top, NULL, NULL, &tr, &err)) { plan_result_free(&pr); return cmd_error("plan", err.code, err.msg); }
            if (tr.n_top > 0) {
                plan_result_free(&pr);
                pr = tr;
                sp.global_batch = cand[k];
                break;
            }
            plan_result_free(&tr);
        }
    }
    bool tokens = s.tokens > 0;
    for (int k = 0; k < pr.n_top; k++) add_interval(&sc, &pr.top[k]);
    for (int k = 0; strategies[k]; k++) if (pr.has_best[k]) add_interval(&sc, &pr.best_per_strategy[k]);
    if (s.format == FMT_TABLE) {
        char a[32], b[32];
        printf("plan: %s on %s, up to %lld GPUs, global batch %lld x %lld tokens; ranked by %s\n",
               s.m.params_only ? units_fmt_short(s.pc.total, a, sizeof a) : s.m.name, s.hw.name,
               (long long)sp.max_gpus, (long long)sp.global_batch, (long long)s.t.seq_len,
               sp.rank == RANK_COST ? "cost (GPU-seconds per step)" : sp.rank == RANK_THROUGHPUT ? "tokens/s per GPU" : "step time");
        if (sp.global_batch != asked)
            printf("note: no configuration divides %lld sequences (%.0f tokens); rounded to the nearest feasible batch, %lld sequences\n",
                   (long long)asked, (double)asked * (double)s.t.seq_len, (long long)sp.global_batch);
        printf("evaluated %s configurations, %s feasible\n\n", units_fmt_count((double)pr.evaluated, a, sizeof a),
               units_fmt_count((double)pr.feasible, b, sizeof b));
        if (pr.n_top == 0) {
            char hint[256];
            what_would_fit(&sc, &sp, hint, sizeof hint);
            printf("Nothing fits%s%s%s.\n", sp.budget_dollars > 0 || sp.deadline_seconds > 0 ? " within the budget/deadline" : "",
                   hint[0] ? "; " : "", hint);
        }
        else {
            header(tokens, show_fw);
            for (int k = 0; k < pr.n_top; k++) print_entry(k + 1, &pr.top[k], tokens, show_fw);
        }
        printf("\nBest per strategy, and the fewest GPUs with which it fits at all:\n");
        header(tokens, show_fw);
        for (int k = 0; strategies[k]; k++) {
            if (!sp.strategies[k]) continue;
            if (pr.has_best[k]) print_entry(0, &pr.best_per_strategy[k], tokens, show_fw);
            else printf("  -  %-6s does not fit (within the constraints)\n", strategies[k]->label);
            if (pr.min_gpus[k]) {
                const training *mt = &pr.min_entry[k].t;
                printf("     %-6s fits from %lld GPU%s%s%s: TP %lld, PP %lld, micro-batch %lld, recompute %s, offload %s\n",
                       strategies[k]->label, (long long)pr.min_gpus[k], pr.min_gpus[k] == 1 ? "" : "s",
                       show_fw ? " under " : "", show_fw ? framework_of(mt)->name : "",
                       (long long)mt->tp, (long long)mt->pp, (long long)mt->micro_batch,
                       ckpt_name(mt->checkpointing), report_offload_name(mt));
            }
        }
    } else {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", 1);
        cJSON_AddNumberToObject(root, "global_batch", (double)sp.global_batch);
        if (sp.global_batch != asked) cJSON_AddNumberToObject(root, "global_batch_requested", (double)asked);
        cJSON_AddNumberToObject(root, "evaluated", (double)pr.evaluated);
        cJSON_AddNumberToObject(root, "feasible", (double)pr.feasible);
        cJSON *ranked = cJSON_AddArrayToObject(root, "ranked");
        for (int k = 0; k < pr.n_top; k++) cJSON_AddItemToArray(ranked, report_entry_json(&pr.top[k].t, &pr.top[k].r));
        cJSON *best = cJSON_AddObjectToObject(root, "best_per_strategy");
        cJSON *ming = cJSON_AddObjectToObject(root, "min_gpus");
        for (int k = 0; strategies[k]; k++) {
            if (!sp.strategies[k]) continue;
            if (pr.has_best[k]) cJSON_AddItemToObject(best, strategies[k]->name, report_entry_json(&pr.best_per_strategy[k].t, &pr.best_per_strategy[k].r));
            else cJSON_AddNullToObject(best, strategies[k]->name);
            if (pr.min_gpus[k]) cJSON_AddNumberToObject(ming, strategies[k]->name, (double)pr.min_gpus[k]);
            else cJSON_AddNullToObject(ming, strategies[k]->name);
        }
        char *text = cJSON_Print(root);
        if (text) puts(text);
        free(text);
        cJSON_Delete(root);
    }
    rc = pr.n_top ? 0 : ZS_ERR_NOFIT;
    plan_result_free(&pr);
    return rc;
}
