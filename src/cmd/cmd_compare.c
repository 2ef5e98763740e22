/* cmd_compare.c -- `zerosim compare`: which strategy (and framework), and what it buys, in one screen. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/commands.h"
#include "cmd/compare_rows.h"
#include "analysis/compare.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "cmd/setup.h"
#include "core/framework.h"

static void usage(FILE *f, const cli_opt *compare_only)
{
    fprintf(f,
        "usage: zerosim compare ([--model] NAME|FILE | --params COUNT) [--hardware H] [options]\n\n"
        "One column per strategy (and per framework with --framework all): memory per GPU at the\n"
        "given settings, the largest micro-batch that fits (with and without recomputation) and\n"
        "the speed there, the fewest GPUs with which it fits at all, the fastest configuration up\n"
        "to --max-gpus, the cost of --tokens, and what each saves against DDP (or the weakest\n"
        "strategy that fits). The answers come from estimate's and plan's core.\n"
        "Exit status: 0 compared, 1 nothing fits anywhere, 2 usage, 3 bad input, 4 output error.\n\n"
        "Compare options:\n");
    cli_print_options(f, compare_only);
    fprintf(f, "\nConfiguration options:\n");
    cli_print_options(f, setup_options);
    fprintf(f,
        "\nExamples:\n"
        "  zerosim compare --model llama-2-70b --hardware a100-80gb --gpus 64 --seq-len 4096 --tokens 2e12\n"
        "  zerosim compare --model llama-3-8b --gpus 8 --framework all --format json\n");
}

int cmd_compare_rows(const char *cmd, setup *s, plan_space *sp, double gb_tokens, compare_run_out *out)
{
    zs_error err = {0};
    if (setup_finish(s, &err)) return cmd_error(cmd, err.code, err.msg);
    cmd_weights_warn(cmd, s);
    if (sp->max_gpus == 0) sp->max_gpus = s->t.gpus > 64 ? s->t.gpus : 64;
    /* The searches keep the batch the given settings train with, so their rows compare. */
    int64_t dp = training_dp(&s->t);
    if (gb_tokens > 0) sp->global_batch = (int64_t)ceil(gb_tokens / (double)s->t.seq_len);
    if (sp->global_batch == 0) {
        /* In double: the flags' largest values overflow int64 (UB, found by fuzz_flags). */
        double gb = (double)s->t.micro_batch * (double)s->t.grad_accum * (double)dp;
        if (gb > PLAN_MAX_GLOBAL_BATCH)
            return cmd_error(cmd, ZS_ERR_USAGE,
                "the run's global batch (micro-batch x grad-accum x DP) is above 1e8 sequences, "
                "--global-batch's limit: give --global-batch");
        sp->global_batch = (int64_t)gb;
    }
    sp->tokens = s->tokens;
    const framework *fws[FRAMEWORK_MAX + 1] = {NULL};
    int nf = s->all_frameworks ? frameworks_real(fws) : 0;
    out->sc = setup_scenario(s);
    /* Room for the rows this compare can have (compare_run clears each it fills): all of
     * COMPARE_MAX_ROWS cleared was a tenth of a computed compare under zerosim serve. */
    int cap = (nf ? nf : 1) * STRATEGY_MAX;
    out->rows = malloc((size_t)cap * sizeof *out->rows);
    if (!out->rows) return cmd_error(cmd, ZS_ERR_NOMEM, "out of memory");
    out->n = 0;
    if (compare_run(&out->sc, sp, nf ? fws : NULL, out->rows, cap, &out->n, &err)) {
        free(out->rows);
        return cmd_error(cmd, err.code, err.msg);
    }
    out->any = 0;
    for (int k = 0; k < out->n; k++) out->any += out->rows[k].min_gpus > 0 || out->rows[k].given.fits;
    return CMD_GO;
}

int cmd_compare(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    plan_space sp;
    plan_space_init(&sp);
    sp.max_gpus = 0;
    double gb_tokens = 0;
    const cli_opt compare_only[] = {
        {"max-gpus", "N",
            "largest cluster for the fewest-GPU and fastest searches (default: max(64, --gpus))",
            .whole = &sp.max_gpus, .min = 1, .max = 1000000},
        {"global-batch", "SEQS",
            "sequences per step in those searches (default: --micro-batch x --grad-accum x DP)",
            .whole = &sp.global_batch, .min = 1, .max = PLAN_MAX_GLOBAL_BATCH},
        {"global-batch-tokens", "TOKENS", "the same in tokens, e.g. 4M", .count = &gb_tokens},
        {"no-offload", NULL, "searches leave out CPU/NVMe offload", .off = &sp.allow_offload},
        {"no-pp", NULL, "searches leave out pipeline parallelism", .off = &sp.allow_pp},
        {"no-tp", NULL, "searches leave out tensor parallelism", .off = &sp.allow_tp},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"compare", compare_only, usage, &s, .shared = true}, argc, argv);
    if (rc != CMD_GO) return rc;
    compare_run_out cr;
    rc = cmd_compare_rows("compare", &s, &sp, gb_tokens, &cr);
    if (rc != CMD_GO) return rc;
    scenario sc = cr.sc;
    compare_row *rows = cr.rows;
    int n = cr.n, any = cr.any;
    report_options ro = setup_report_options(&s);
    ro.notes = cmd_errs();
    report_compare(
        cmd_out(), s.format, &(compare_report){&sc, &sp, rows, n, s.t.framework || s.all_frameworks, &ro});
    free(rows);
    if (fflush(cmd_out()) || ferror(cmd_out()))
        return cmd_error("compare", ZS_ERR_IO, "cannot write the output");
    return any ? 0 : ZS_ERR_NOFIT;
}
