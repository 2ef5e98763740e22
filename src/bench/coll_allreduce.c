/* coll_allreduce.c -- all-reduce: every rank gets op over all ranks' inputs. */
#include "coll_run.h"

/* busbw = algbw * 2(n-1)/n: each rank sends and receives 2(n-1)/n of the data. */
static double factor(int n) { return busbw_factor("all_reduce", n); }

static size_t check(const struct coll_vals *v, int rank, const struct coll_layout *l, int root,
                    const void *out)
{
    (void)rank; (void)root;
    return coll_vals_check_reduced(v, out, 0, l->recv_count);
}

static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    struct be_cuda_ctx *x = c->comm;
    ncclRedOp_t op;
    ncclResult_t r = nccl_op(x, c->dtype, c->op, &op);
    if (r != ncclSuccess) return (int)r;
    return (int)ncclAllReduce(c->send, c->recv, c->count, nccl_dtype(c->dtype), op, x->comm, x->stream);
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    const void *in = mpi_reduce_pre(c->dtype, c->op, c->send, c->count, c->in_place);
    if (!in) return MPI_ERR_NO_MEM;
    int rc = MPI_Allreduce(c->in_place ? MPI_IN_PLACE : in, c->recv, (int)c->count,
                           mpi_dtype(c->dtype), mpi_op(c->dtype, c->op), *(MPI_Comm *)c->comm);
    if (rc == MPI_SUCCESS) mpi_reduce_post(c->dtype, c->op, c->nranks, c->recv, c->count);
    return rc;
#endif
}

const struct coll_def coll_allreduce = {
    .name = "allreduce", .uses_op = 1, .uses_root = 0,
    .busbw_factor = factor, .layout = coll_layout_whole, .fill = coll_fill_whole, .check = check, .run = run,
};
