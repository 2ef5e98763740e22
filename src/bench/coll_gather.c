/* coll_gather.c -- gather: rank r's block lands at offset r*block on the root. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: the root receives the n-1 blocks it lacks
 * (nccl-tests doc/PERFORMANCE.md, as all-gather). */
static double factor(int n)
{
    return busbw_factor("gather", n);
}

/* Layout (coll_layout_gathered): size = whole gathered buffer; count =
 * per-rank block (nccl-tests); in place, rank r's block already sits at
 * recvbuf + r*block. Only the root's receive buffer is defined after a gather. */
static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    if (rank != root) return 0;
    return coll_check_gathered(v, rank, l, root, out);
}

static int run(const struct coll_call *c)
{
    return coll_run_rooted(c, COLL_CALL(COLL_SINCE_NCCL_2_28(ncclGather), MPI_Gather), 1);
}

const struct coll_def coll_gather = {
    .name = "gather",
    .uses_op = 0,
    .uses_root = 1,
    .busbw_factor = factor,
    .layout = coll_layout_gathered,
    .fill = coll_fill_block,
    .check = check,
    .run = run,
};
