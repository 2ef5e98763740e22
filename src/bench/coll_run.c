/* coll_run.c -- the library calls the collectives share, on NCCL (ZB_NCCL) or MPI. */
#include "coll_run.h"

#ifdef ZB_NCCL

int coll_run_reduce(const struct coll_call *c, size_t send_elems, coll_reduce_fn fn)
{
    (void)send_elems;
    struct be_cuda_ctx *x = c->comm;
    ncclRedOp_t op;
    ncclResult_t r = nccl_op(x, c->dtype, c->op, &op);
    if (r == ncclSuccess) r = fn(c->send, c->recv, c->count, nccl_dtype(c->dtype), op, x->comm, x->stream);
    return (int)r;
}

int coll_run_move(const struct coll_call *c, coll_move_fn fn)
{
    const struct be_cuda_ctx *x = c->comm;
    if (!fn) return (int)coll_nccl_p2p(c, COLL_P2P_ALL, COLL_P2P_ALL);
    return (int)fn(c->send, c->recv, c->count, nccl_dtype(c->dtype), x->comm, x->stream);
}

int coll_run_rooted(const struct coll_call *c, coll_rooted_fn fn, int to_root)
{
    const struct be_cuda_ctx *x = c->comm;
    if (fn) return (int)fn(c->send, c->recv, c->count, nccl_dtype(c->dtype), c->root, x->comm, x->stream);
    /* every rank sends to the root, which receives block r from rank r; or the reverse */
    int all = c->rank == c->root ? COLL_P2P_ALL : COLL_P2P_NONE;
    return (int)(to_root ? coll_nccl_p2p(c, c->root, all) : coll_nccl_p2p(c, all, c->root));
}

/* peer r takes part when p is r or COLL_P2P_ALL; its data is block r, or the buffer's start */
static int takes(int p, int r)
{
    return p == COLL_P2P_ALL || p == r;
}
static size_t block_at(int p, int r, size_t blk)
{
    return p == COLL_P2P_ALL ? (size_t)r * blk : 0;
}

ncclResult_t coll_nccl_p2p(const struct coll_call *c, int to, int from)
{
    const struct be_cuda_ctx *x = c->comm;
    ncclDataType_t t = nccl_dtype(c->dtype);
    size_t blk = c->count * c->typesize;
    ncclResult_t rc = ncclGroupStart();
    for (int r = 0; r < c->nranks && rc == ncclSuccess; r++) {
        if (takes(to, r))
            rc = ncclSend((const char *)c->send + block_at(to, r, blk), c->count, t, r, x->comm, x->stream);
        if (rc == ncclSuccess && takes(from, r))
            rc = ncclRecv((char *)c->recv + block_at(from, r, blk), c->count, t, r, x->comm, x->stream);
    }
    ncclResult_t rc2 = ncclGroupEnd();
    return rc != ncclSuccess ? rc : rc2;
}

#else

int coll_run_reduce(const struct coll_call *c, size_t send_elems, coll_reduce_fn fn)
{
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    const void *in = mpi_reduce_pre(c->dtype, c->op, c->send, send_elems, c->in_place);
    if (!in) return MPI_ERR_NO_MEM;
    int rc = fn(c->in_place ? MPI_IN_PLACE : in, c->recv, (int)c->count, mpi_dtype(c->dtype),
        mpi_op(c->dtype, c->op), *(MPI_Comm *)c->comm);
    if (rc == MPI_SUCCESS) mpi_reduce_post(c->dtype, c->op, c->nranks, c->recv, c->count);
    return rc;
}

int coll_run_move(const struct coll_call *c, coll_move_fn fn)
{
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype t = mpi_dtype(c->dtype);
    return fn(c->in_place ? MPI_IN_PLACE : c->send, (int)c->count, t, c->recv, (int)c->count, t,
        *(MPI_Comm *)c->comm);
}

int coll_run_rooted(const struct coll_call *c, coll_rooted_fn fn, int to_root)
{
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype t = mpi_dtype(c->dtype);
    int root_ip = c->in_place && c->rank == c->root; /* MPI_IN_PLACE is the root's only */
    const void *send = root_ip && to_root ? MPI_IN_PLACE : c->send;
    void *recv = root_ip && !to_root ? MPI_IN_PLACE : c->recv;
    return fn(send, (int)c->count, t, recv, (int)c->count, t, c->root, *(MPI_Comm *)c->comm);
}

#endif
