/* cmd_validate.c -- `zerosim validate FILE`: predicted vs measured step time of real runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "analysis/fwfit.h"
#include "io/runs.h"
#include "cmd/cli.h"
#include "report/report.h"
#include "report/report_validate.h"
#include "cmd/setup.h"
#include "analysis/validate.h"

static void usage(FILE *f, const cli_opt *validate_opts)
{
    fprintf(f,
        "usage: zerosim validate FILE... | --runs FILE [--hardware NAME|FILE] [--filter TEXT] [--fit] "
        "[--format %s]\n\n"
        "Predict each measured run in FILE (CSV or JSON; columns in tests/validation/README.md) and\n"
        "compare with what was measured: step time when known, else MFU. Prints each error,\n"
        "the mean absolute percentage error (MAPE) and the worst case.\n\nOptions:\n",
        setup_format_names());
    cli_print_options(f, validate_opts);
    fprintf(f, "\nExample:\n  zerosim validate tests/validation/published_runs.csv\n");
}

/* `validate --fit`: each framework with runs in the file, its shipped efficiency against the
 * one its training half gives, and both judged on its held-out half; every fit is made before
 * anything is printed. */
static int fit_all(const run_record *runs, int n, const char *hw, out_format fmt)
{
    fwfit_result fits[FRAMEWORK_MAX];
    int nf = 0;
    for (int f = 0; frameworks[f] && nf < FRAMEWORK_MAX; f++) {
        zs_error err = {0};
        bool any = false;
        for (int j = 0; j < n; j++) any |= strcmp(runs[j].framework, frameworks[f]->name) == 0;
        if (!any) continue;
        if (fwfit_efficiency(runs, n, frameworks[f], hw, &fits[nf], &err)) {
            if (err.code != ZS_ERR_INPUT) return cmd_error("validate", err.code, err.msg);
            continue; /* too few runs of this framework to split */
        }
        nf++;
    }
    report_validate_fits(cmd_out(), fmt, fits, nf);
    return ferror(cmd_out()) ? ZS_ERR_IO : 0;
}

/* The runs files' warnings (unknown columns), a line each, on stderr. */
static void print_notes(const char *notes)
{
    while (*notes) {
        size_t k = strcspn(notes, "\n");
        fprintf(cmd_errs(), "zerosim validate: warning: %.*s\n", (int)k, notes);
        notes += k + (notes[k] == '\n');
    }
}

/* "validate: 12/80" on a terminal while the runs are predicted. */
static void progress(int done, int total, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "\rvalidate: %d/%d", done, total);
}

/* The runs files named on the command line. */
typedef struct runs_files {
    const char *path[16];
    int n;
} runs_files;

/* Validate's take: each argument is a runs file, and so is --runs FILE (as plot takes it). */
static int take_file(void *ctx, int id, const char *v, zs_error *err)
{
    runs_files *f = ctx;
    (void)id; /* positional arguments and --runs: every other option is bound */
    if (f->n == 16) return zs_fail(err, ZS_ERR_USAGE, "at most 16 runs files");
    f->path[f->n++] = v;
    return ZS_OK;
}

int cmd_validate(int argc, char **argv)
{
    zs_error err = {0};
    const char *hw = NULL, *filter = NULL;
    runs_files rf = {{NULL}, 0};
    int format = FMT_TABLE;
    bool fit = false;
    char format_help[64];
    snprintf(format_help, sizeof format_help, "%s (default table)", setup_format_names());
    const cli_opt validate_opts[] = {
        {"runs", "FILE", "a runs file, as a FILE argument (repeat for more; as plot's --runs)", .id = 1},
        {"hardware", "NAME|FILE", "use this profile for every run (e.g. a calibrated one)", .text = &hw},
        {"filter", "TEXT", "only runs whose name contains TEXT", .text = &filter},
        {"format", "F", format_help, .choice = &format, .choices = setup_format_names()},
        {"fit", NULL, "per framework: fit its GEMM efficiency on the 1st, 3rd.. of its runs, report the rest",
            .on = &fit},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"validate", validate_opts, usage, &rf, .take = take_file}, argc, argv);
    if (rc != CMD_GO) return rc;
    if (rf.n == 0) return cmd_error("validate", ZS_ERR_USAGE, "missing the runs FILE (see --help)");
    out_format fmt = (out_format)format;
    if (fit) {
        /* More files: their runs follow the first file's, in order (one set for --fit). */
        run_record *runs;
        int n;
        char notes[1200];
        if (validate_load_runs(rf.path, rf.n, &runs, &n, NULL, notes, sizeof notes, &err))
            return cmd_error("validate", err.code, err.msg);
        print_notes(notes);
        rc = fit_all(runs, n, hw, fmt);
        free(runs);
        return rc;
    }
    validate_report rep;
    bool tty = cmd_err_tty();
    rc = validate_files(rf.path, rf.n, hw, filter, tty ? progress : NULL, NULL, &rep, &err);
    if (tty) fprintf(stderr, "\r%*s\r", 24, "");
    if (rc) return cmd_error("validate", err.code, err.msg);
    print_notes(rep.notes);
    for (int j = 0; j < rep.n && fmt == FMT_CSV; j++) /* CSV lists predictions only: say who is out */
        if (rep.o[j].refused[0])
            fprintf(cmd_errs(), "zerosim validate: %s%sline %d: %s excluded: %s\n",
                rf.n == 1 ? rf.path[0] : "", rf.n == 1 ? ":" : "", rep.o[j].run->line, rep.o[j].run->name,
                rep.o[j].refused);
    report_validate(cmd_out(), fmt, &rep);
    validate_report_free(&rep);
    return 0;
}
