/* cmd_sweep.c -- `zerosim sweep`: evaluate a grid of configurations, one row each (CSV or JSON lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/grid.h"
#include "report/report.h"
#include "report/report_row.h"
#include "cmd/setup.h"
#include "core/sim.h"
#include "core/strategy.h"
#include "core/units.h"

#define MAX_DIMS 16

/* Flags that take lists and ranges: those their rows mark (training.c), plus --strategy. */
static bool sweepable(int id)
{
    const flag_desc *d = training_flag(id);
    return d && d->sweep;
}

/* Rows a sweep writes unless --max-rows says more: a million rows is ~500 MB of CSV. */
#define SWEEP_DEFAULT_MAX_ROWS 1000000ULL

static void usage(FILE *f, const cli_opt *sweep_only)
{
    char sweepable_names[1024];
    fprintf(f,
        "usage: zerosim sweep ([--model] M | --params P) [--hardware H] [FLAG LIST|RANGE ...] [--format "
        "csv|json]\n\n"
        "Evaluate every combination of the listed values and write one row per configuration and\n"
        "strategy (CSV, or JSON lines with --format json), columns named like estimate's JSON keys.\n"
        "Rows that do not fit, or whose combination is invalid, stay in the output, marked.\n\n"
        "Values: a list 1,2,4; a range a:b (step 1), a:b:+STEP, a:b:xFACTOR (e.g. --gpus 8:4096:x2).\n"
        "Sweepable: %s, and --strategy (a list, or all).\n\nOptions:\n",
        setup_sweepable(sweepable_names, sizeof sweepable_names, 11, 90));
    cli_print_options(f, sweep_only);
    cli_print_options(f, setup_options);
    fprintf(f,
        "\nExample:\n  zerosim sweep --model llama-2-13b --gpus 8:512:x2 --strategy all --micro-batch 1,2,4 "
        "> grid.csv\n");
}

typedef struct dim {
    int id;
    const char *flag;
    int n;
    char (*vals)[32];
} dim;

/* Grid size in overflow-safe arithmetic: rows = product of the value counts x strategies,
 * stopping as soon as it passes limit. Returns false when it does (*rows is then > limit). */
static bool grid_rows(const dim *dims, int nd, unsigned long long n_strategies, unsigned long long limit,
    unsigned long long *rows)
{
    unsigned long long total = n_strategies;
    for (int d = 0; d < nd; d++) {
        unsigned long long n = (unsigned long long)dims[d].n;
        if (n && total > limit / n) {
            *rows = limit + 1;
            return false;
        }
        total *= n;
    }
    *rows = total;
    return total <= limit;
}

static void free_dims(dim *dims, int nd)
{
    for (int k = 0; k < nd; k++) free(dims[k].vals);
}

static int fail(dim *dims, int nd, int code, const char *msg)
{
    free_dims(dims, nd);
    return cmd_error("sweep", code, msg);
}

/* What the command line gives beyond setup's flags: the swept flags and the strategy list. */
typedef struct sweep_args {
    setup *s;
    dim dims[MAX_DIMS];
    int nd;
    const char *strategy_list;
} sweep_args;

/* Sweep's take: a list or range of a sweepable flag becomes a dimension (its first value
 * stands in while the files load); the rest goes to setup. */
static int take(void *ctx, int id, const char *v, zs_error *err)
{
    sweep_args *a = ctx;
    if (id == OPT_STRATEGY) {
        if (a->strategy_list)
            return zs_fail(
                err, ZS_ERR_USAGE, "--strategy given twice: give one list, e.g. --strategy zero2,zero3");
        a->strategy_list = v;
        return ZS_OK;
    }
    if (!sweepable(id) || !v) return cmd_take_setup(a->s, id, v, err);
    const char *flag = "?";
    for (const cli_opt *o = setup_options; o->name; o++)
        if (o->id == id) flag = o->name;
    /* A second --gpus would add a dimension of the same flag: rows twice over, the first
     * values silently overwritten. One flag, one list. */
    for (int d = 0; d < a->nd; d++)
        if (a->dims[d].id == id)
            return zs_fail(
                err, ZS_ERR_USAGE, "--%s given twice: give one list or range, e.g. --%s 8,16,32", flag, flag);
    if (a->nd == MAX_DIMS) return zs_fail(err, ZS_ERR_USAGE, "too many swept flags");
    dim *d = &a->dims[a->nd];
    d->id = id;
    d->flag = flag;
    d->vals = malloc(sizeof(char[32]) * GRID_MAX_VALUES);
    if (!d->vals) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    a->nd++;
    if ((d->n = grid_expand(flag, v, d->vals, GRID_MAX_VALUES, err)) < 0) return err->code;
    return setup_take(a->s, id, d->vals[0], err);
}

int cmd_sweep(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    zs_error err = {0};
    sweep_args a = {.s = &s};
    int64_t max_rows = (int64_t)SWEEP_DEFAULT_MAX_ROWS;
    const cli_opt sweep_only[] = {
        {"max-rows", "N", "refuse a grid of more rows than this (default 1e6)", .whole = &max_rows, .min = 1,
            .max = INT64_MAX},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"sweep", sweep_only, usage, &a, .take = take, .shared = true}, argc, argv);
    dim *dims = a.dims;
    int nd = a.nd;
    if (rc != CMD_GO) {
        free_dims(dims, nd);
        return rc;
    }
    const char *strategy_list = a.strategy_list;
    s.strategy_arg = strategy_list ? strategy_list : "all";
    if (setup_finish(&s, &err)) return fail(dims, nd, err.code, err.msg);
    cmd_weights_warn("sweep", &s);
    /* Check every value parses before writing a row. */
    for (int d = 0; d < nd; d++)
        for (int k = 0; k < dims[d].n; k++) {
            training t = s.t;
            if (setup_apply(&t, dims[d].id, dims[d].vals[k], &err)) return fail(dims, nd, err.code, err.msg);
        }
    unsigned long long ns = 0, total = 0, done = 0;
    while (s.chosen[ns]) ns++;
    if (!grid_rows(dims, nd, ns, (unsigned long long)max_rows, &total)) {
        snprintf(err.msg, sizeof err.msg,
            "the grid has more than %lld rows (--max-rows); narrow a range or raise --max-rows",
            (long long)max_rows);
        return fail(dims, nd, ZS_ERR_USAGE, err.msg);
    }
    bool json = s.format == FMT_JSON;
    if (!json) report_row_header(cmd_out());
    int idx[MAX_DIMS] = {0};
    bool tty = cmd_err_tty() && total > 10000;
    for (;;) {
        training t = s.t;
        for (int d = 0; d < nd; d++) setup_apply(&t, dims[d].id, dims[d].vals[idx[d]], &err);
        sim_input in;
        zs_error e = {0};
        bool ok = sim_prepare(&in, &s.m, &s.pc, &s.hw, &t, &e) == ZS_OK;
        for (int k = 0; s.chosen[k]; k++) {
            result r;
            memset(&r, 0, sizeof r);
            if (ok) sim_run(&in, s.chosen[k], s.tokens, &r);
            report_row_write(cmd_out(), &s.m, &s.hw, &t, s.chosen[k], &r, ok ? NULL : e.msg, json);
            done++;
        }
        if (tty && done % 4096 < ns) fprintf(stderr, "\rsweep: %llu/%llu rows", done, total);
        int d = nd - 1;
        while (d >= 0 && ++idx[d] == dims[d].n) idx[d--] = 0;
        if (d < 0) break;
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");
    free_dims(dims, nd);
    return ferror(cmd_out()) ? ZS_ERR_IO : 0;
}
