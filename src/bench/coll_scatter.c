/* coll_scatter.c -- scatter: block r of the root's buffer lands on rank r. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: the root sends the n-1 blocks it does not keep
 * (nccl-tests doc/PERFORMANCE.md, as reduce-scatter). */
static double factor(int n)
{
    return busbw_factor("scatter", n);
}

/* size = root's whole send buffer; count = per-rank block (nccl-tests). In
 * place, rank r's block is expected at sendbuf + r*block. */
static void layout(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    size_t block = coll_block_count(bytes, typesize, nranks);
    l->recv_count = l->param_count = block;
    l->send_count = block * (size_t)nranks;
    l->send_inplace_off = 0;
    l->recv_inplace_off = block;
}

/* Every rank fills a full send buffer (coll_fill_whole); only the root's is used, and the
 * expected block is the root's, so a rank that kept its own is caught. */
static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    return coll_vals_check_input(v, root, out, (size_t)rank * l->recv_count, l->recv_count);
}

static int run(const struct coll_call *c)
{
    return coll_run_rooted(c, COLL_CALL(COLL_SINCE_NCCL_2_28(ncclScatter), MPI_Scatter), 0);
}

const struct coll_def coll_scatter = {
    .name = "scatter",
    .uses_op = 0,
    .uses_root = 1,
    .busbw_factor = factor,
    .layout = layout,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
};
