/* cmd_plot.c -- `zerosim plot`: charts of memory, step time, communication, scaling and validation. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "io/catalog.h"
#include "report/plot.h"
#include "io/runs.h"
#include "cmd/setup.h"

/* Plot's options, then the shared ones less --format (plot's own) and --explain. */
static const char *const not_plot[] = {"format", "explain", NULL};
/* Plot's own --format names, in the order cmd_plot reads the index. */
#define PLOT_FORMATS "png|svg|both"

static void usage(FILE *f, const cli_opt *plot_only)
{
    fprintf(f,
        "usage: zerosim plot [CHART ...] (--model NAME|FILE | --params COUNT) [options] [-o DIR]\n"
        "       zerosim plot validate --runs FILE [-o DIR]\n\n"
        "Draw charts with gnuplot as PNG and SVG, with the data (.dat) and the gnuplot script (.gp)\n"
        "beside them (redraw by hand: cd DIR && gnuplot memory.gp). Without gnuplot (on PATH, or\n"
        "$GNUPLOT) only the .dat and .gp files are written. Charts (default: all the flags allow):\n");
    for (int c = 0; c < plot_chart_count(); c++)
        if (plot_chart_help(c)) fprintf(f, "  %-15s %s\n", plot_chart_name(c), plot_chart_help(c));
    fprintf(f,
        "Exit status: 0 drawn, 2 usage, 3 bad input, 4 output error (or gnuplot failed).\n\n"
        "Options:\n");
    cli_print_options(f, plot_only);
    cli_opt shared[96];
    cli_print_options(f, setup_merge_options(NULL, false, not_plot, shared, 96));
    fprintf(f,
        "\nExamples:\n"
        "  zerosim plot --model llama-2-70b --hardware a100-80gb --gpus 64 --seq-len 4096 --checkpointing "
        "full\n"
        "  zerosim plot memory step --model llama-3-8b --gpus 8 -o /tmp/charts --format png\n"
        "  zerosim plot validate --runs tests/validation/published_runs.csv\n");
}

/* The chart being drawn, and whether its progress line is showing. */
typedef struct progress_line {
    const char *chart;
    bool showing;
} progress_line;

/* Progress of slow charts on a terminal: "zerosim plot: max-model 12/40". */
static void progress(int done, int total, void *ctx)
{
    progress_line *p = ctx;
    fprintf(stderr, "\rzerosim plot: %s %d/%d ", p->chart, done, total);
    p->showing = true;
    if (done >= total) {
        fprintf(stderr, "\r%*s\r", 48, "");
        p->showing = false;
    }
    fflush(stderr);
}

/* Whether `zerosim plot` has what a chart needs: fits it never has. */
static bool needs_met(unsigned needs, bool have_model, bool have_runs)
{
    return !(needs & PLOT_NEEDS_FITS) && (have_model || !(needs & PLOT_NEEDS_SCENARIO)) &&
        (have_runs || !(needs & PLOT_NEEDS_RUNS));
}

enum { P_GPUS_LIST = 1, P_FORMAT }; /* plot's options that take works out */

/* What plot's take fills: the charts named, and the request and images its flags shape. */
typedef struct plot_args {
    setup *s;
    plot_options *o;
    plot_request *q;
    bool *want, any; /* want[chart] for each chart named */
} plot_args;

/* Plot's take: chart names, --gpus-list and --format; the rest goes to setup. */
static int take(void *ctx, int id, const char *v, zs_error *err)
{
    plot_args *a = ctx;
    int k;
    switch (id) {
    case CLI_POSITIONAL:
        if ((k = plot_chart_parse(v)) < 0 || !plot_chart_help(k)) {
            char names[160] = "";
            for (int c = 0, at = 0; c < plot_chart_count() && at < (int)sizeof names; c++)
                if (plot_chart_help(c))
                    at += snprintf(
                        names + at, sizeof names - (size_t)at, "%s%s", at ? ", " : "", plot_chart_name(c));
            /* plot's positionals are charts: a model named there belongs in --model */
            char path[4096];
            zs_error quiet = {.quiet = true};
            bool is_model = catalog_resolve("models", v, path, sizeof path, &quiet) == ZS_OK;
            return zs_fail(err, ZS_ERR_USAGE, "unknown chart \"%.120s\" (%s)%s%.120s", v, names,
                is_model ? "; for a model, use --model " : "", is_model ? v : "");
        }
        a->want[k] = a->any = true;
        return ZS_OK;
    case P_GPUS_LIST: return plot_parse_gpus_list(v, a->q, err);
    case P_FORMAT:
        /* png|svg|both: each leaves out the other kind */
        if ((k = cli_choice("format", v, PLOT_FORMATS, err)) < 0) return err->code;
        if (k == 0) a->o->svg = false;
        if (k == 1) a->o->png = false;
        return ZS_OK;
    }
    return setup_take(a->s, id, v, err);
}

int cmd_plot(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    plot_options o;
    plot_options_init(&o, "plots");
    plot_request q;
    plot_request_init(&q);
    zs_error err = {0};
    bool want[PLOT_MAX_CHARTS] = {false};
    const cli_opt plot_only[] = {
        {"output", "DIR", "output directory, also -o DIR (default plots; created if missing)", .alias = "-o",
            .text = &o.dir},
        {"runs", "FILE", "measured runs (CSV or JSON, as `zerosim validate` reads) for the validate chart",
            .text = &q.runs_path},
        {"gpus-list", "N,N,..",
            "GPU counts of memory-vs-gpus and max-model (default 1..node, then whole nodes x2 up to 1024)",
            .id = P_GPUS_LIST},
        {"format", "F", PLOT_FORMATS " (default both)", .id = P_FORMAT},
        {"no-offload", NULL, "max-model: do not consider CPU/NVMe offload (as `plan`)", .on = &q.no_offload},
        {"no-pp", NULL, "max-model: do not consider pipeline parallelism", .on = &q.no_pp},
        {"no-tp", NULL, "max-model: do not consider tensor parallelism", .on = &q.no_tp},
        {NULL},
    };
    plot_args a = {&s, &o, &q, want, false};
    int rc = cmd_parse(&(cmd_spec){"plot", plot_only, usage, &a, .take = take, .shared = true,
                           .own_first = true, .drop = not_plot},
        argc, argv);
    if (rc != CMD_GO) return rc;
    if (!*o.dir) return cmd_error("plot", ZS_ERR_USAGE, "-o: empty directory name");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o.dir);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = '\0';
    o.dir = dir;

    int nc = plot_chart_count();
    bool have_model = s.model_arg || s.params > 0;
    if (!a.any) {
        if (!have_model && !q.runs_path)
            return cmd_error("plot", ZS_ERR_USAGE,
                "nothing to plot: give --model NAME|FILE or --params COUNT, and/or --runs FILE (see --help)");
        for (int c = 0; c < nc; c++)
            want[c] = needs_met(plot_chart_needs(c), have_model, q.runs_path != NULL);
    }
    for (int c = 0; c < nc; c++)
        if (want[c] && (plot_chart_needs(c) & PLOT_NEEDS_RUNS) && !q.runs_path) {
            zs_fail(&err, ZS_ERR_USAGE, "%s: needs --runs FILE", plot_chart_name(c));
            return cmd_error("plot", err.code, err.msg);
        }
    if (q.runs_path) {
        /* Check the runs file before drawing anything else. */
        run_record *runs;
        int n;
        if (runs_load(q.runs_path, &runs, &n, &err)) return cmd_error("plot", err.code, err.msg);
        free(runs);
    }
    /* The model's flags are read for every chart but those drawn from the runs file alone. */
    bool need_setup = false;
    for (int c = 0; c < nc; c++) need_setup |= want[c] && !(plot_chart_needs(c) & PLOT_NEEDS_RUNS);
    if (need_setup && setup_finish(&s, &err)) return cmd_error("plot", err.code, err.msg);
    if (need_setup) cmd_weights_warn("plot", &s);
    scenario sc = setup_scenario(&s);
    if (plot_dir_prepare(o.dir, &err)) return cmd_error("plot", err.code, err.msg);
    progress_line line = {NULL, false};
    if (isatty(2)) {
        q.progress = progress;
        q.progress_ctx = &line;
    }

    char gnuplot[4096];
    bool draw = plot_find_gnuplot(gnuplot, sizeof gnuplot);
    for (int c = 0; c < nc; c++) {
        if (!want[c]) continue;
        const char *name = plot_chart_name(c);
        line.chart = name;
        rc = plot_chart_draw(c, need_setup ? &sc : NULL, &q, &o, draw ? gnuplot : NULL, &err);
        if (line.showing) fputc('\n', stderr);
        line.showing = false;
        if (rc) return cmd_error("plot", err.code, err.msg);
        if (!draw) continue;
        if (o.png) printf("%s/%s.png%s", o.dir, name, o.svg ? " " : "\n");
        if (o.svg) printf("%s/%s.svg\n", o.dir, name);
    }
    if (!draw) fprintf(stderr, "zerosim plot: gnuplot not found; wrote .dat and .gp files to %s\n", o.dir);
    if (fflush(stdout) != 0 || ferror(stdout)) return cmd_error("plot", ZS_ERR_IO, "cannot write output");
    return 0;
}
