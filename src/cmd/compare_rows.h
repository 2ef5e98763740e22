/* compare_rows.h -- compare's searches after setup, shared by `compare` and `report`. */
#ifndef ZS_COMPARE_ROWS_H
#define ZS_COMPARE_ROWS_H

#include "analysis/compare.h"
#include "analysis/plan.h"
#include "cmd/setup.h"

/* What cmd_compare_rows computed: the scenario, the rows (calloc'd: the caller frees them),
 * how many, and how many fit at all. */
typedef struct compare_run_out {
    scenario sc;
    compare_row *rows;
    int n, any;
} compare_run_out;

/* Finish s, warn as every command does, size the searches as compare does (the given batch
 * kept; gb_tokens > 0 sets it in tokens) and run compare. Returns CMD_GO with *out filled, or
 * the exit status after printing the one-line error as `cmd`. */
int cmd_compare_rows(const char *cmd, setup *s, plan_space *sp, double gb_tokens, compare_run_out *out);

#endif
