/* coll_alltoall.c -- all-to-all: block d of rank s lands in block s of rank d. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: n-1 of the n blocks leave the rank. */
static double factor(int n) { return busbw_factor("all_to_all", n); }

/* size = whole send (= receive) buffer; count = one block (nccl-tests). */
static void layout(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    size_t block = coll_block_count(bytes, typesize, nranks);
    l->param_count = block;
    l->send_count = l->recv_count = block * (size_t)nranks;
    l->send_inplace_off = l->recv_inplace_off = 0;
}

/* Rank s's input element j is value(s, j) (coll_fill_whole): block d
 * (for rank d) holds global indices [d*block, (d+1)*block). Rank r's block s must be value(s, r*block + j). */
static size_t check(const struct coll_vals *v, int rank, const struct coll_layout *l, int root,
                    const void *out)
{
    (void)root;
    size_t wrong = 0, block = l->param_count;
    for (int s = 0; s < v->nranks; s++) {
        const char *p = (const char *)out + (size_t)s * block * coll_vals_typesize(v);
        wrong += coll_vals_check_input(v, s, p, (size_t)rank * block, block);
    }
    return wrong;
}

static int run(const struct coll_call *c)
{
#ifdef ZB_NCCL
    const struct be_cuda_ctx *x = c->comm;
#if NCCL_VERSION_CODE >= 22800
    return (int)ncclAlltoAll(c->send, c->recv, c->count, nccl_dtype(c->dtype), x->comm, x->stream);
#else
    /* before NCCL 2.28: grouped point-to-point, one block per peer */
    size_t blk = c->count * c->typesize;
    ncclResult_t rc = ncclGroupStart();
    for (int r = 0; r < c->nranks && rc == ncclSuccess; r++) {
        rc = ncclSend((const char *)c->send + r * blk, c->count, nccl_dtype(c->dtype), r, x->comm,
                      x->stream);
        if (rc == ncclSuccess)
            rc = ncclRecv((char *)c->recv + r * blk, c->count, nccl_dtype(c->dtype), r, x->comm,
                          x->stream);
    }
    ncclResult_t rc2 = ncclGroupEnd();
    return (int)(rc != ncclSuccess ? rc : rc2);
#endif
#else
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    MPI_Datatype t = mpi_dtype(c->dtype);
    return MPI_Alltoall(c->in_place ? MPI_IN_PLACE : c->send, (int)c->count, t,
                        c->recv, (int)c->count, t, *(MPI_Comm *)c->comm);
#endif
}

/* NCCL has no in-place all-to-all: with send == recv a peer's block can
 * land before this rank has sent the block it overwrites. nccl-tests
 * prints the in-place columns as N/A; so do we. MPI_IN_PLACE is standard. */
const struct coll_def coll_alltoall = {
    .name = "alltoall", .uses_op = 0, .uses_root = 0,
#ifdef ZB_NCCL
    .in_place_na = 1,
#endif
    .busbw_factor = factor, .layout = layout, .fill = coll_fill_whole, .check = check, .run = run,
};
