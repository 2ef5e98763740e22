/* coll_allgather.c -- all-gather: rank r's block lands at offset r*block on every rank. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: each rank receives the n-1 blocks it lacks. */
static double factor(int n) { return busbw_factor("all_gather", n); }

/* Layout (coll_layout_gathered): size = total gathered buffer; count =
 * per-rank block (nccl-tests). Rank q's block must hold q's input. */
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
    .busbw_factor = factor, .layout = coll_layout_gathered, .fill = coll_fill_block, .check = check, .run = run,
};
