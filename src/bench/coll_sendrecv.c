/* coll_sendrecv.c -- send/receive ring: rank r sends to r+1 and receives from r-1 (pipeline stages). */
#include "coll_run.h"

/* busbw = algbw: each rank sends and receives the whole buffer once
 * (nccl-tests doc/PERFORMANCE.md: sendrecv, factor 1). */
static double factor(int n)
{
    return busbw_factor("sendrecv", n);
}

/* Rank r must hold rank r-1's input. */
static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    (void)root;
    int from = (rank - 1 + v->nranks) % v->nranks;
    return coll_vals_check_input(v, from, out, 0, l->recv_count);
}

static int run(const struct coll_call *c)
{
    int to = (c->rank + 1) % c->nranks, from = (c->rank - 1 + c->nranks) % c->nranks;
#ifdef ZB_NCCL
    return (int)coll_nccl_p2p(c, to, from);
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype t = mpi_dtype(c->dtype);
    if (c->in_place)
        return MPI_Sendrecv_replace(
            c->recv, (int)c->count, t, to, 0, from, 0, *(MPI_Comm *)c->comm, MPI_STATUS_IGNORE);
    return MPI_Sendrecv(c->send, (int)c->count, t, to, 0, c->recv, (int)c->count, t, from, 0,
        *(MPI_Comm *)c->comm, MPI_STATUS_IGNORE);
#endif
}

/* NCCL sends and receives from separate buffers with no staging guarantee:
 * in place, the incoming data may overwrite what is still to be sent, so
 * the in-place pass is N/A there (MPI_Sendrecv_replace is well defined). */
const struct coll_def coll_sendrecv = {
    .name = "sendrecv",
    .uses_op = 0,
    .uses_root = 0,
    .in_place_na = COLL_ON_NCCL,
    .busbw_factor = factor,
    .layout = coll_layout_whole,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
};
