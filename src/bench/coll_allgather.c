/* coll_allgather.c -- all-gather: rank r's block lands at offset r*block on every rank. */
#include "../busbw.h"
#include "coll.h"

#ifdef ZB_NCCL
#include "be_cuda.h"
#else
#include <limits.h>
#include <mpi.h>
#include "mpi_dtype.h"
#endif

/* busbw = algbw * (n-1)/n: each rank receives the n-1 blocks it lacks. */
static double factor(int n) { return busbw_factor("all_gather", n); }

/* size = total gathered buffer; count = per-rank block (nccl-tests). */
static void layout(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    size_t block = coll_block_count(bytes, typesize, nranks);
    l->send_count = l->param_count = block;
    l->recv_count = block * (size_t)nranks;
    l->send_inplace_off = block;
    l->recv_inplace_off = 0;
}

/* Rank r contributes elements [r*block, (r+1)*block) of the global vector. */
static void fill(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in)
{
    coll_vals_fill(v, rank, in, (size_t)rank * l->send_count, l->send_count);
}

static size_t check(const struct coll_vals *v, int rank, const struct coll_layout *l, int root,
                    const void *out)
{
    (void)rank; (void)root;
    size_t wrong = 0, block = l->send_count;
    for (int q = 0; q < v->nranks; q++) {
        const char *p = (const char *)out + (size_t)q * block * coll_vals_typesize(v);
        wrong += coll_vals_check_input(v, q, p, (size_t)q * block, block);
    }
    return wrong;
}

static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    const struct be_cuda_ctx *x = c->comm;
    return (int)ncclAllGather(c->send, c->recv, c->count, nccl_dtype(c->dtype), x->comm, x->stream);
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype t = mpi_dtype(c->dtype);
    return MPI_Allgather(c->in_place ? MPI_IN_PLACE : c->send, (int)c->count, t,
                         c->recv, (int)c->count, t, *(MPI_Comm *)c->comm);
#endif
}

const struct coll_def coll_allgather = {
    .name = "allgather", .uses_op = 0, .uses_root = 0,
    .busbw_factor = factor, .layout = layout, .fill = fill, .check = check, .run = run,
};
