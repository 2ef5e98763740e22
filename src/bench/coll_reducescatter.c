/* coll_reducescatter.c -- reduce-scatter: rank r gets block r of op over all inputs. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: each rank sends the n-1 blocks it does not keep. */
static double factor(int n) { return busbw_factor("reduce_scatter", n); }

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

static size_t check(const struct coll_vals *v, int rank, const struct coll_layout *l, int root,
                    const void *out)
{
    (void)root;
    return coll_vals_check_reduced(v, out, (size_t)rank * l->recv_count, l->recv_count);
}

static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    struct be_cuda_ctx *x = c->comm;
    ncclRedOp_t op;
    ncclResult_t r = nccl_op(x, c->dtype, c->op, &op);
    if (r != ncclSuccess) return (int)r;
    return (int)ncclReduceScatter(c->send, c->recv, c->count, nccl_dtype(c->dtype), op, x->comm,
                                  x->stream);
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    const void *in = mpi_reduce_pre(c->dtype, c->op, c->send, c->count * (size_t)c->nranks, c->in_place);
    if (!in) return MPI_ERR_NO_MEM;
    int rc = MPI_Reduce_scatter_block(c->in_place ? MPI_IN_PLACE : in, c->recv, (int)c->count,
                                      mpi_dtype(c->dtype), mpi_op(c->dtype, c->op),
                                      *(MPI_Comm *)c->comm);
    if (rc == MPI_SUCCESS) mpi_reduce_post(c->dtype, c->op, c->nranks, c->recv, c->count);
    return rc;
#endif
}

const struct coll_def coll_reducescatter = {
    .name = "reducescatter", .uses_op = 1, .uses_root = 0,
    .busbw_factor = factor, .layout = layout, .fill = coll_fill_whole, .check = check, .run = run,
};
