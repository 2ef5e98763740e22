/* zb_coll_allgather.c -- all-gather: rank r's block lands at offset r*block on every rank. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: each rank receives the n-1 blocks it lacks. */
static double factor(int n)
{
    return busbw_factor("all_gather", n);
}

/* Layout and check: coll_layout_gathered, coll_check_gathered (rank q's block holds q's input). */
static int run(const struct coll_call *c)
{
    return coll_run_move(c, COLL_CALL(ncclAllGather, MPI_Allgather));
}

const struct coll_def coll_allgather = {
    .name = "allgather",
    .uses_op = 0,
    .uses_root = 0,
    .busbw_factor = factor,
    .layout = coll_layout_gathered,
    .fill = coll_fill_block,
    .check = coll_check_gathered,
    .run = run,
};
