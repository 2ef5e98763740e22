/* cmd_report.c -- `zerosim report`: compare's answer as one self-contained HTML file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/compare_rows.h"
#include "analysis/compare.h"
#include "analysis/validate.h"
#include "io/atomicfile.h"
#include "report/report.h"
#include "report/report_compare.h"
#include "report/report_html.h"
#include "cmd/setup.h"
#include "core/framework.h"

static void usage(FILE *f, const cli_opt *own)
{
    fprintf(f,
        "usage: zerosim report -o FILE.html ([--model] NAME|FILE | --params COUNT) [--hardware H] "
        "[options]\n\n"
        "compare's answer as one self-contained HTML page: the question and its inputs, the comparison\n"
        "as tables, memory per GPU against HBM and the step's parts as inline SVG charts, the fewest-GPU\n"
        "and fastest configurations, the cost of --tokens, and the assumptions (--explain's text); with\n"
        "--runs FILE, the validation too (predicted against measured, the errors and the MAPE). No\n"
        "scripts, fonts, images or links: it opens offline, in light or dark mode, and prints.\n"
        "The file is written whole or not at all.\n"
        "Exit status: 0 written, 1 nothing fits anywhere (still written), 2 usage, 3 bad input,\n"
        "4 output error.\n\n"
        "Report options:\n");
    cli_print_options(f, own);
    fprintf(f, "\nConfiguration options:\n");
    cli_print_options(f, setup_options);
    fprintf(f,
        "\nExamples:\n"
        "  zerosim report --model llama-2-70b --hardware a100-80gb --gpus 64 --seq-len 4096 --tokens 2e12 "
        "-o plan.html\n"
        "  zerosim report --model llama-3-8b --gpus 8 --framework all -o llama.html\n"
        "  zerosim report --model llama-2-70b --gpus 64 --runs tests/validation/published_runs.csv "
        "-o val.html\n");
}

/* path relative to the working directory when it lies under it (the catalog's absolute paths
 * read better, and do not name the machine's folders, as models/llama-2-7b.json). */
static const char *shorter(const char *path, const char *cwd)
{
    size_t n = strlen(cwd);
    if (n > 1 && strncmp(path, cwd, n) == 0 && path[n] == '/') return path + n + 1;
    return path;
}

/* Write the page to path whole or not at all ("-": to cmd_out(), as the library asks).
 * Returns 0 or ZS_ERR_IO (after the message). */
static int write_page(const char *path, const html_report *h)
{
    if (strcmp(path, "-") == 0) {
        report_html(cmd_out(), h);
        if (fflush(cmd_out()) != 0 || ferror(cmd_out()))
            return cmd_error("report", ZS_ERR_IO, "cannot write the page to standard output");
        return 0;
    }
    atomicfile a;
    if (atomicfile_open(&a, path) != 0) {
        char msg[4200];
        snprintf(msg, sizeof msg, "cannot write %s: %s", path, strerror(errno));
        return cmd_error("report", ZS_ERR_IO, msg);
    }
    report_html(a.f, h);
    if (ferror(a.f)) {
        int e = errno;
        atomicfile_abort(&a);
        char msg[4200];
        snprintf(msg, sizeof msg, "cannot write %s: %s", path, strerror(e ? e : EIO));
        return cmd_error("report", ZS_ERR_IO, msg);
    }
    if (atomicfile_commit(&a) != 0) {
        char msg[4200];
        snprintf(msg, sizeof msg, "cannot write %s: %s", path, strerror(errno));
        return cmd_error("report", ZS_ERR_IO, msg);
    }
    return 0;
}

int cmd_report(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    plan_space sp;
    plan_space_init(&sp);
    sp.max_gpus = 0;
    double gb_tokens = 0;
    const char *out = NULL, *runs = NULL;
    const cli_opt own[] = {
        {"output", "FILE.html", "write the page here (also -o; required; - for standard output)",
            .alias = "-o", .text = &out},
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
        {"runs", "FILE", "add validation: the measured runs of FILE predicted (as zerosim validate FILE)",
            .text = &runs},
        {NULL},
    };
    static const char *const drop[] = {"format", "explain", NULL};
    int rc = cmd_parse(&(cmd_spec){"report", own, usage, &s, .shared = true, .drop = drop}, argc, argv);
    if (rc != CMD_GO) return rc;
    if (!out || !out[0]) return cmd_error("report", ZS_ERR_USAGE, "-o FILE.html is required");
    if (runs && !runs[0]) return cmd_error("report", ZS_ERR_USAGE, "--runs: expected a runs file");
    /* Each run with its own model and hardware, as `zerosim validate FILE` predicts it. */
    validate_report val = {0};
    if (runs) {
        zs_error err = {0};
        if (validate_file(runs, NULL, NULL, NULL, NULL, &val, &err))
            return cmd_error("report", err.code, err.msg);
        /* The file's warnings (unknown columns), a line each, as validate prints them. */
        for (const char *p = val.notes; *p;) {
            size_t k = strcspn(p, "\n");
            fprintf(cmd_errs(), "zerosim report: warning: %.*s\n", (int)k, p);
            p += k + (p[k] == '\n');
        }
    }
    /* The same searches as compare's, so the page shows compare's numbers. */
    compare_run_out run;
    rc = cmd_compare_rows("report", &s, &sp, gb_tokens, &run);
    if (rc != CMD_GO) {
        validate_report_free(&val);
        return rc;
    }
    scenario sc = run.sc;
    compare_row *rows = run.rows;
    int n = run.n, any = run.any;
    report_options ro = setup_report_options(&s);
    compare_report cr = {&sc, &sp, rows, n, s.t.framework || s.all_frameworks, &ro};
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    html_report h = {&cr, s.m.params_only ? "" : shorter(s.model_path, cwd), shorter(s.hw_path, cwd),
        s.ds_arg ? shorter(s.ds_path, cwd) : NULL, s.framework_arg, ZS_VERSION, runs ? &val : NULL,
        runs};
    rc = write_page(out, &h);
    free(rows);
    validate_report_free(&val);
    if (rc) return rc;
    return any ? 0 : ZS_ERR_NOFIT;
}
