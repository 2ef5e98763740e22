/* coll_allgather.c -- all-gather: rank r's block lands at offset r*block on every rank. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: each rank receives the n-1 blocks it lacks. */
static double factor(int n) { return busbw_factor("all_gather", n); }

/* Layout and check: coll_layout_gathered, coll_check_gathered (rank q's block holds q's input). */
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
    .busbw_factor = factor, .layout = coll_layout_gathered, .fill = coll_fill_block, .check = coll_check_gathered, .run = run,
};
