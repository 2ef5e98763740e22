/* cmd_plan.c -- `zerosim plan`: the fastest or cheapest configurations that fit, minimum GPUs
 * per strategy, and the largest trainable model. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "core/framework.h"
#include "analysis/plan.h"
#include "report/report.h"
#include "report/report_plan.h"
#include "cmd/setup.h"
#include "analysis/uncertainty.h"
#include "core/units.h"

/* --rank's names, in plan_rank order (the index is the rank). */
#define PLAN_RANKS "time|cost|throughput"

static void usage(FILE *f, const cli_opt *plan_only)
{
    fprintf(f,
        "usage: zerosim plan ([--model] NAME|FILE | --params COUNT) [--hardware H] [options]\n\n"
        "Search strategy (DDP, ZeRO-1/2/3), offload, TP, PP (and interleaving), micro-batch,\n"
        "gradient accumulation, activation checkpointing and GPU count in whole nodes; keep what\n"
        "fits; rank by step time, cost or throughput. Precision, optimizer, sequence length and\n"
        "bucket sizes come from the flags below as in 'zerosim estimate'.\n\nPlan options:\n");
    cli_print_options(f, plan_only);
    fprintf(f, "\nConfiguration options (fixed during the search):\n");
    cli_print_options(f, setup_options);
    fprintf(f,
        "\nExamples:\n"
        "  zerosim plan --model llama-2-70b --hardware h100-80gb --max-gpus 256 --tokens 2e12\n"
        "  zerosim plan --model llama-3-8b --max-gpus 64 --rank cost --tokens 1e12 --budget 5e5\n"
        "  zerosim plan --max-model --params 1e9 --hardware v100-32gb --gpus-list 1,16,64,400\n");
}

static void progress(uint64_t done, uint64_t total, void *ctx)
{
    (void)ctx;
    if (done < total)
        fprintf(stderr, "\rplan: %llu/%llu GPU counts searched", (unsigned long long)done,
            (unsigned long long)total);
    else
        fprintf(stderr, "\r%60s\r", "");
}

/* With a calibrated profile, each printed configuration gets its 90% step-time interval. */
static void add_interval(const scenario *sc, plan_entry *e)
{
    scenario one = *sc;
    one.t = &e->t;
    uncertainty_add(&one, &e->r);
}

static void max_model_progress(uint64_t done, uint64_t total, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "\rplan: max model %d/%d", (int)done, (int)total);
}

/* --gpus-list into counts (at most PLAN_GRID_MAX) and *n, or the powers of two up to
 * --max-gpus. Returns 0, or an exit status after printing the error. */
static int gpu_counts(const char *list, int64_t max_gpus, int64_t *counts, int *n)
{
    *n = 0;
    if (!list) {
        for (int64_t g = 1; g <= max_gpus && *n < PLAN_GRID_MAX; g *= 2) counts[(*n)++] = g;
        return 0;
    }
    char buf[512];
    if (strlen(list) >= sizeof buf)
        return cmd_error("plan", ZS_ERR_USAGE, "--gpus-list: longer than 511 characters");
    snprintf(buf, sizeof buf, "%s", list);
    zs_error err = {0};
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == PLAN_GRID_MAX) return cmd_error("plan", ZS_ERR_USAGE, "--gpus-list: at most 64 GPU counts");
        if (units_parse_int(tok, "--gpus-list", 1, 10000000, &counts[(*n)++], &err))
            return cmd_error("plan", err.code, err.msg);
    }
    if (*n == 0) return cmd_error("plan", ZS_ERR_USAGE, "--gpus-list: expected GPU counts such as 8,64,512");
    return 0;
}

/* Every cell is computed before anything is printed: an error leaves no half table. */
static int max_model(const scenario *s, out_format format, const plan_space *sp, const char *list)
{
    int64_t counts[PLAN_GRID_MAX];
    int n;
    int rc = gpu_counts(list, sp->max_gpus, counts, &n);
    if (rc) return rc;
    plan_model_grid g;
    zs_error err = {0};
    bool tty = cmd_err_tty();
    rc = plan_max_model_grid(s, sp, counts, n, tty ? max_model_progress : NULL, NULL, &g, &err);
    if (tty) fprintf(stderr, "\r%40s\r", "");
    if (rc) return cmd_error("plan", err.code, err.msg);
    report_plan_max_model(cmd_out(), format, s, &g);
    return 0;
}

/* Configuration flags are fixed during the search, as --help says. --max-model keeps its own
 * definition (the most memory-saving choices: micro-batch 1, full recompute, any offload
 * allowed), which plot's max-model chart shares. Then the strategies and frameworks chosen. */
static void space_from_setup(const setup *s, bool maxmodel, plan_space *sp)
{
    if (!maxmodel) {
        if (setup_flag_given(s, OPT_MICRO)) sp->fixed_micro_batch = s->t.micro_batch;
        if (setup_flag_given(s, OPT_TP)) sp->fixed_tp = s->t.tp;
        if (setup_flag_given(s, OPT_PP)) sp->fixed_pp = s->t.pp;
        if (setup_flag_given(s, OPT_VSTAGES)) sp->fixed_vstages = s->t.virtual_stages;
        if (setup_flag_given(s, OPT_CP)) sp->fixed_cp = s->t.cp;
        if (setup_flag_given(s, OPT_EP)) sp->fixed_ep = s->t.ep;
        sp->fixed_ckpt = setup_flag_given(s, OPT_CKPT);
        sp->fixed_offload = setup_flag_given(s, OPT_OFF_OPT) || setup_flag_given(s, OPT_OFF_PARAM);
    }
    for (int k = 0; k < STRATEGY_MAX; k++) sp->strategies[k] = false;
    for (int k = 0; s->chosen[k]; k++) sp->strategies[strategy_index(s->chosen[k])] = true;
    sp->tokens = s->tokens;
    /* --framework all: every real framework (not the abstract generic one), each row named. */
    sp->frameworks[0] = NULL;
    if (s->all_frameworks)
        frameworks_real(sp->frameworks);
    else if (s->t.framework) {
        sp->frameworks[0] = s->t.framework;
        sp->frameworks[1] = NULL;
    }
}

/* The search, its rounding retry, the intervals, and the report. */
static int search_and_report(const setup *s, const scenario *sc, plan_space *sp, int top, bool from_tokens)
{
    zs_error err = {0};
    plan_result pr;
    int64_t asked = sp->global_batch;
    bool tty = cmd_err_tty();
    if (plan_search_rounded(sc, sp, top, from_tokens, tty ? progress : NULL, NULL, &pr, &err))
        return cmd_error("plan", err.code, err.msg);
    for (int k = 0; k < pr.n_top; k++) add_interval(sc, &pr.top[k]);
    for (int k = 0; strategies[k]; k++)
        if (pr.has_best[k]) add_interval(sc, &pr.best_per_strategy[k]);
    /* What would fit, for the table only: it searches on, up to 4096 GPUs. */
    plan_hint hint;
    bool hinted = s->format == FMT_TABLE && pr.n_top == 0;
    if (hinted) {
        plan_what_would_fit(sc, sp, &hint);
        plan_refusals(sc, &pr, hint.refused, sizeof hint.refused);
    }
    plan_report rep = {sc, sp, &pr, asked, sp->frameworks[0] != NULL, hinted ? &hint : NULL};
    report_plan(cmd_out(), s->format, &rep);
    int rc = pr.n_top ? 0 : ZS_ERR_NOFIT;
    plan_result_free(&pr);
    return rc;
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
        {"max-gpus", "N", "largest cluster to consider, searched in whole nodes (default 64)",
            .whole = &sp.max_gpus, .min = 1, .max = 1000000},
        {"min-gpus", "N", "smallest GPU count to consider (default 1)", .whole = &sp.min_gpus, .min = 1,
            .max = 1000000},
        {"global-batch", "SEQS",
            "sequences per optimizer step (default: 4Mi = 4,194,304 tokens, Llama's batch)",
            .whole = &sp.global_batch, .min = 1, .max = PLAN_MAX_GLOBAL_BATCH},
        {"global-batch-tokens", "TOKENS",
            "the global batch in tokens instead, e.g. 4Mi (2^22) or 4M (4e6); rounded to a feasible batch",
            .count = &gb_tokens},
        {"budget", "USD", "keep configurations whose --tokens run costs at most this",
            .count = &sp.budget_dollars},
        {"deadline", "HOURS", "keep configurations whose --tokens run finishes in time",
            .count = &deadline_hours},
        /* in plan_rank's order */
        {"rank", "BY", PLAN_RANKS " (default time; cost = GPU-hours)", .choice = &rank,
            .choices = PLAN_RANKS},
        {"top", "N", "how many configurations to print (default 10)", .whole = &top, .min = 1, .max = 1000},
        {"no-offload", NULL, "do not consider CPU/NVMe offload", .off = &sp.allow_offload},
        {"no-pp", NULL, "do not consider pipeline parallelism", .off = &sp.allow_pp},
        {"no-tp", NULL, "do not consider tensor parallelism", .off = &sp.allow_tp},
        {"max-micro-batch", "N", "largest micro-batch to try (default 32)", .whole = &sp.max_micro_batch,
            .min = 1, .max = 4096},
        {"max-model", NULL, "instead: the largest model each strategy can train (depth scaling, or --params)",
            .on = &maxmodel},
        {"gpus-list", "LIST",
            "GPU counts for --max-model, e.g. 8,64,512 (default: powers of two to --max-gpus)",
            .text = &list},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"plan", plan_only, usage, &s, .shared = true}, argc, argv);
    if (rc != CMD_GO) return rc;
    sp.deadline_seconds = deadline_hours * 3600;
    sp.rank = (plan_rank)rank;
    if (setup_finish(&s, &err)) return cmd_error("plan", err.code, err.msg);
    cmd_weights_warn("plan", &s);
    space_from_setup(&s, maxmodel, &sp);
    if ((sp.budget_dollars > 0 || sp.deadline_seconds > 0) && s.tokens <= 0)
        return cmd_error(
            "plan", ZS_ERR_USAGE, "--budget and --deadline need --tokens (the training run to cost)");
    scenario sc = setup_scenario(&s);
    if (maxmodel) return max_model(&sc, s.format, &sp, list);
    /* The default batch: Llama's 4M tokens, which is 2048 sequences of 2048 = 4Mi (Touvron et
     * al. 2023, arXiv 2302.13971, section 2.2). */
    bool from_tokens = sp.global_batch == 0;
    if (from_tokens) {
        double tokens = gb_tokens > 0 ? gb_tokens : 4194304.0;
        double seqs = fmax(1, round(tokens / (double)s.t.seq_len));
        if (seqs > PLAN_MAX_GLOBAL_BATCH)
            return cmd_error("plan", ZS_ERR_USAGE, "--global-batch-tokens: more than 1e8 sequences per step");
        sp.global_batch = (int64_t)seqs;
    }
    return search_and_report(&s, &sc, &sp, (int)top, from_tokens);
}
