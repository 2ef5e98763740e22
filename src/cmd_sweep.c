/* cmd_sweep.c -- `zerosim sweep`: evaluate a grid of configurations, one row each (CSV or JSON lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "grid.h"
#include "report.h"
#include "report_row.h"
#include "setup.h"
#include "sim.h"
#include "strategy.h"
#include "units.h"

#define MAX_DIMS 16

/* Flags that take lists and ranges: every training flag, plus --strategy. */
static bool sweepable(int id)
{
    return (id >= OPT_GPUS && id <= OPT_PERSIST && id != OPT_SP && id != OPT_EAGER && id != OPT_DEEPSPEED) ||
           id == OPT_OVERLAP;
}

/* Rows a sweep writes unless --max-rows says more: a million rows is ~500 MB of CSV. */
#define SWEEP_DEFAULT_MAX_ROWS 1000000ULL

enum { S_MAX_ROWS = 1 };
static const cli_opt sweep_only[] = {
    {"max-rows", "N", "refuse a grid of more rows than this (default 1e6)", S_MAX_ROWS},
    {NULL, NULL, NULL, 0},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: zerosim sweep (--model M | --params P) [--hardware H] [FLAG LIST|RANGE ...] [--format csv|json]\n\n"
               "Evaluate every combination of the listed values and write one row per configuration and\n"
               "strategy (CSV, or JSON lines with --format json), columns named like estimate's JSON keys.\n"
               "Rows that do not fit, or whose combination is invalid, stay in the output, marked.\n\n"
               "Values: a list 1,2,4; a range a:b (step 1), a:b:+STEP, a:b:xFACTOR (e.g. --gpus 8:4096:x2).\n"
               "Sweepable: --gpus --gpus-per-node --micro-batch --seq-len --grad-accum --tp --pp\n"
               "--virtual-stages --precision --optimizer --grad-dtype --checkpointing --offload-optimizer\n"
               "--offload-params --reduce-bucket --allgather-bucket --prefetch-bucket --max-live-params\n"
               "--persistence-threshold --overlap-comm, and --strategy (a list, or all).\n\nOptions:\n");
    cli_print_options(f, sweep_only);
    cli_print_options(f, setup_options);
    fprintf(f, "\nExample:\n  zerosim sweep --model llama-2-13b --gpus 8:512:x2 --strategy all --micro-batch 1,2,4 > grid.csv\n");
}

typedef struct dim {
    int id;
    const char *flag;
    int n;
    char (*vals)[32];
} dim;

/* Grid size in overflow-safe arithmetic: rows = product of the value counts x strategies,
 * stopping as soon as it passes limit. Returns false when it does (*rows is then > limit). */
static bool grid_rows(const dim *dims, int nd, unsigned long long strategies, unsigned long long limit,
                      unsigned long long *rows)
{
    unsigned long long total = strategies;
    for (int d = 0; d < nd; d++) {
        unsigned long long n = (unsigned long long)dims[d].n;
        if (n && total > limit / n) { *rows = limit + 1; return false; }
        total *= n;
    }
    *rows = total;
    return total <= limit;
}

static int fail(dim *dims, int nd, int code, const char *msg)
{
    for (int k = 0; k < nd; k++) free(dims[k].vals);
    return cmd_error("sweep", code, msg);
}

int cmd_sweep(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    zs_error err = {0};
    dim dims[MAX_DIMS];
    int nd = 0, i = 1, id;
    const char *v;
    const char *strategy_list = NULL;
    int64_t max_rows = (int64_t)SWEEP_DEFAULT_MAX_ROWS;
    cli_opt opts[96];
    setup_merge_options(sweep_only, false, NULL, opts, 96);
    while ((id = cli_next(argc, argv, &i, opts, &v, &err)) != CLI_END) {
        if (id == CLI_HELP) {
            usage(stdout);
            for (int k = 0; k < nd; k++) free(dims[k].vals);
            return 0;
        }
        if (id == CLI_ERROR) return fail(dims, nd, err.code, err.msg);
        if (id == CLI_POSITIONAL) return fail(dims, nd, ZS_ERR_USAGE, "unexpected argument (see --help)");
        if (id == S_MAX_ROWS) {
            if (units_parse_int(v, "--max-rows", 1, INT64_MAX, &max_rows, &err)) return fail(dims, nd, err.code, err.msg);
            continue;
        }
        if (id == OPT_STRATEGY) {
            if (strategy_list) return fail(dims, nd, ZS_ERR_USAGE, "--strategy given twice: give one list, e.g. --strategy zero2,zero3");
            strategy_list = v;
            continue;
        }
        if (!sweepable(id) || !v) {
            if (setup_take(&s, id, v, &err)) return fail(dims, nd, err.code, err.msg);
            continue;
        }
        const char *flag = "?";
        for (const cli_opt *o = setup_options; o->name; o++)
            if (o->id == id) flag = o->name;
        /* A second --gpus would add a dimension of the same flag: rows twice over, the first
         * values silently overwritten. One flag, one list. */
        for (int d = 0; d < nd; d++)
            if (dims[d].id == id) {
                snprintf(err.msg, sizeof err.msg, "--%s given twice: give one list or range, e.g. --%s 8,16,32", flag, flag);
                return fail(dims, nd, ZS_ERR_USAGE, err.msg);
            }
        if (nd == MAX_DIMS) return fail(dims, nd, ZS_ERR_USAGE, "too many swept flags");
        dims[nd].id = id;
        dims[nd].flag = flag;
        dims[nd].vals = malloc(sizeof(char[32]) * GRID_MAX_VALUES);
        if (!dims[nd].vals) return fail(dims, nd, ZS_ERR_NOMEM, "out of memory");
        nd++;
        dims[nd - 1].n = grid_expand(flag, v, dims[nd - 1].vals, GRID_MAX_VALUES, &err);
        if (dims[nd - 1].n < 0) return fail(dims, nd, ZS_ERR_USAGE, err.msg);
        /* the first value stands in while the files load */
        if (setup_take(&s, id, dims[nd - 1].vals[0], &err)) return fail(dims, nd, err.code, err.msg);
    }
    s.strategy_arg = strategy_list ? strategy_list : "all";
    if (setup_finish(&s, &err)) return fail(dims, nd, err.code, err.msg);
    /* Check every value parses before writing a row. */
    for (int d = 0; d < nd; d++)
        for (int k = 0; k < dims[d].n; k++) {
            training t = s.t;
            if (setup_apply(&t, dims[d].id, dims[d].vals[k], &err)) return fail(dims, nd, err.code, err.msg);
        }
    unsigned long long ns = 0, total = 0, done = 0;
    while (s.chosen[ns]) ns++;
    if (!grid_rows(dims, nd, ns, (unsigned long long)max_rows, &total)) {
        snprintf(err.msg, sizeof err.msg, "the grid has more than %lld rows (--max-rows); narrow a range or raise --max-rows",
                 (long long)max_rows);
        return fail(dims, nd, ZS_ERR_USAGE, err.msg);
    }
    bool json = s.format == FMT_JSON;
    if (!json) report_row_header(stdout);
    int idx[MAX_DIMS] = {0};
    bool tty = isatty(2) && total > 10000;
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
            report_row_write(stdout, &s.m, &s.hw, &t, s.chosen[k], &r, ok ? NULL : e.msg, json);
            done++;
        }
        if (tty && done % 4096 < ns) fprintf(stderr, "\rsweep: %llu/%llu rows", done, total);
        int d = nd - 1;
        while (d >= 0 && ++idx[d] == dims[d].n) idx[d--] = 0;
        if (d < 0) break;
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");
    for (int d = 0; d < nd; d++) free(dims[d].vals);
    return ferror(stdout) ? ZS_ERR_IO : 0;
}
