/* zb_coll_alltoall.c -- all-to-all: block d of rank s lands in block s of rank d. */
#include "coll_run.h"

/* busbw = algbw * (n-1)/n: n-1 of the n blocks leave the rank. */
static double factor(int n)
{
    return busbw_factor("all_to_all", n);
}

/* size = whole send (= receive) buffer; count = one block (nccl-tests). */
static void layout(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    size_t block = coll_block_count(bytes, typesize, nranks);
    l->param_count = block;
    l->send_count = l->recv_count = block * (size_t)nranks;
    l->send_inplace_off = l->recv_inplace_off = 0;
}

/* Rank s's input element j is value(s, j) (coll_fill_whole): block d
 * (for rank d) holds global indices [d*block, (d+1)*block). Rank r's block s must be value(s, r*block + j).
 */
static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
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
    return coll_run_move(c, COLL_CALL(COLL_SINCE_NCCL_2_28(ncclAlltoAll), MPI_Alltoall));
}

/* NCCL has no in-place all-to-all: with send == recv a peer's block can
 * land before this rank has sent the block it overwrites. nccl-tests
 * prints the in-place columns as N/A; so do we. MPI_IN_PLACE is standard. */
const struct coll_def coll_alltoall = {
    .name = "alltoall",
    .uses_op = 0,
    .uses_root = 0,
    .in_place_na = COLL_ON_NCCL,
    .busbw_factor = factor,
    .layout = layout,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
};
