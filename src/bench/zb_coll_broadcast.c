/* zb_coll_broadcast.c -- broadcast: root's buffer is copied to every rank. */
#include "coll_run.h"

/* busbw = algbw: every rank but the root receives the whole buffer once. */
static double factor(int n)
{
    return busbw_factor("broadcast", n);
}

/* Every rank fills its input (coll_fill_whole); only the root's is used.
 * The expected output is the root's input, so a rank that kept its own
 * data is caught. */
static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    (void)rank;
    return coll_vals_check_input(v, root, out, 0, l->recv_count);
}

/* MPI_Bcast has one buffer per rank: out of place, the root broadcasts
 * from its send buffer and the others receive into recv, so both columns
 * time a bare MPI_Bcast (ncclBroadcast also copies send to recv on the
 * root; MPI has no such step). */
static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    const struct be_cuda_ctx *x = c->comm;
    return (int)ncclBroadcast(c->send, c->recv, c->count, nccl_dtype(c->dtype), c->root, x->comm, x->stream);
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    void *buf = (!c->in_place && c->rank == c->root) ? (void *)c->send : c->recv;
    return MPI_Bcast(buf, (int)c->count, mpi_dtype(c->dtype), c->root, *(MPI_Comm *)c->comm);
#endif
}

#ifndef ZB_NCCL
/* Out of place, the MPI root's data stays in (and is checked in) send. */
static const void *result(const struct coll_call *c)
{
    return (!c->in_place && c->rank == c->root) ? c->send : c->recv;
}
#endif

const struct coll_def coll_broadcast = {
    .name = "broadcast",
    .uses_op = 0,
    .uses_root = 1,
    .busbw_factor = factor,
    .layout = coll_layout_whole,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
#ifndef ZB_NCCL
    .result = result,
#endif
};
