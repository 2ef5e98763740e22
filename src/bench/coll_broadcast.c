/* coll_broadcast.c -- broadcast: root's buffer is copied to every rank. */
#include "../busbw.h"
#include "coll.h"

#ifdef ZB_NCCL
#include "be_cuda.h"
#else
#include <limits.h>
#include <mpi.h>
#include "mpi_dtype.h"
#endif

/* busbw = algbw: every rank but the root receives the whole buffer once. */
static double factor(int n) { return busbw_factor("broadcast", n); }

static void layout(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    (void)nranks;
    l->send_count = l->recv_count = l->param_count = bytes / typesize;
    l->send_inplace_off = l->recv_inplace_off = 0;
}

/* Every rank fills its input; only the root's is used. The expected output
 * is the root's input, so a rank that kept its own data is caught. */
static void fill(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in)
{
    coll_vals_fill(v, rank, in, 0, l->send_count);
}

static size_t check(const struct coll_vals *v, int rank, const struct coll_layout *l, int root,
                    const void *out)
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
    return (int)ncclBroadcast(c->send, c->recv, c->count, nccl_dtype(c->dtype), c->root,
                              x->comm, x->stream);
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
    .name = "broadcast", .uses_op = 0, .uses_root = 1,
    .busbw_factor = factor, .layout = layout, .fill = fill, .check = check, .run = run,
#ifndef ZB_NCCL
    .result = result,
#endif
};
