/* coll_gather.c -- gather: rank r's block lands at offset r*block on the root. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: the root receives the n-1 blocks it lacks
 * (nccl-tests doc/PERFORMANCE.md, as all-gather). */
static double factor(int n) { return busbw_factor("gather", n); }

/* Layout (coll_layout_gathered): size = whole gathered buffer; count =
 * per-rank block (nccl-tests); in place, rank r's block already sits at
 * recvbuf + r*block. Only the root's receive buffer is defined after a gather. */
static size_t check(const struct coll_vals *v, int rank, const struct coll_layout *l, int root,
                    const void *out)
{
    if (rank != root) return 0;
    return coll_check_gathered(v, rank, l, root, out);
}

static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    const struct be_cuda_ctx *x = c->comm;
#if NCCL_VERSION_CODE >= 22800
    return (int)ncclGather(c->send, c->recv, c->count, nccl_dtype(c->dtype), c->root, x->comm, x->stream);
#else
    /* before NCCL 2.28: grouped point-to-point, every rank sends to the root */
    size_t blk = c->count * c->typesize;
    ncclResult_t rc = ncclGroupStart();
    if (c->rank == c->root)
        for (int r = 0; r < c->nranks && rc == ncclSuccess; r++)
            rc = ncclRecv((char *)c->recv + r * blk, c->count, nccl_dtype(c->dtype), r, x->comm, x->stream);
    if (rc == ncclSuccess)
        rc = ncclSend(c->send, c->count, nccl_dtype(c->dtype), c->root, x->comm, x->stream);
    ncclResult_t rc2 = ncclGroupEnd();
    return (int)(rc != ncclSuccess ? rc : rc2);
#endif
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype t = mpi_dtype(c->dtype);
    int root_ip = c->in_place && c->rank == c->root;   /* MPI_IN_PLACE is the root's only */
    return MPI_Gather(root_ip ? MPI_IN_PLACE : c->send, (int)c->count, t, c->recv, (int)c->count, t,
                      c->root, *(MPI_Comm *)c->comm);
#endif
}

const struct coll_def coll_gather = {
    .name = "gather", .uses_op = 0, .uses_root = 1,
    .busbw_factor = factor, .layout = coll_layout_gathered, .fill = coll_fill_block, .check = check, .run = run,
};
