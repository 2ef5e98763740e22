/* coll_reduce.c -- reduce: the root gets op over all ranks' inputs. */
#include "coll_run.h"

/* busbw = algbw: the root receives (a reduction of) the whole buffer once
 * (nccl-tests doc/PERFORMANCE.md: reduce, factor 1). */
static double factor(int n)
{
    return busbw_factor("reduce", n);
}

/* Only the root's buffer is defined after a reduce (as nccl-tests checks). */
static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    if (rank != root) return 0;
    return coll_vals_check_reduced(v, out, 0, l->recv_count);
}

static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    struct be_cuda_ctx *x = c->comm;
    ncclRedOp_t op;
    ncclResult_t r = nccl_op(x, c->dtype, c->op, &op);
    if (r != ncclSuccess) return (int)r;
    return (int)ncclReduce(c->send, c->recv, c->count, nccl_dtype(c->dtype), op, c->root, x->comm, x->stream);
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    const void *in = mpi_reduce_pre(c->dtype, c->op, c->send, c->count, c->in_place);
    if (!in) return MPI_ERR_NO_MEM;
    /* MPI_IN_PLACE is the root's only; in place the others send from recv */
    int root_ip = c->in_place && c->rank == c->root;
    int rc = MPI_Reduce(root_ip ? MPI_IN_PLACE : in, c->recv, (int)c->count, mpi_dtype(c->dtype),
        mpi_op(c->dtype, c->op), c->root, *(MPI_Comm *)c->comm);
    if (rc == MPI_SUCCESS && c->rank == c->root)
        mpi_reduce_post(c->dtype, c->op, c->nranks, c->recv, c->count);
    return rc;
#endif
}

const struct coll_def coll_reduce = {
    .name = "reduce",
    .uses_op = 1,
    .uses_root = 1,
    .busbw_factor = factor,
    .layout = coll_layout_whole,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
};
