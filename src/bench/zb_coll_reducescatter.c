/* zb_coll_reducescatter.c -- reduce-scatter: rank r gets block r of op over all inputs. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: each rank sends the n-1 blocks it does not keep. */
static double factor(int n)
{
    return busbw_factor("reduce_scatter", n);
}

/* size = total input buffer; count = per-rank result block (nccl-tests).
 * In place, NCCL leaves block r at recvbuf + r*block while
 * MPI_Reduce_scatter_block(MPI_IN_PLACE) leaves it at recvbuf. */
static void layout(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    size_t block = coll_block_count(bytes, typesize, nranks);
    l->send_count = block * (size_t)nranks;
    l->recv_count = l->param_count = block;
    l->send_inplace_off = 0;
#ifdef ZB_NCCL
    l->recv_inplace_off = block;
#else
    l->recv_inplace_off = 0;
#endif
}

static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    (void)root;
    return coll_vals_check_reduced(v, out, (size_t)rank * l->recv_count, l->recv_count);
}

static int run(const struct coll_call *c)
{
    return coll_run_reduce(c, c->count * (size_t)c->nranks, /* the input is nranks blocks */
        COLL_CALL(ncclReduceScatter, MPI_Reduce_scatter_block));
}

const struct coll_def coll_reducescatter = {
    .name = "reducescatter",
    .uses_op = 1,
    .uses_root = 0,
    .busbw_factor = factor,
    .layout = layout,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
};
