/* zb_coll_allreduce.c -- all-reduce: every rank gets op over all ranks' inputs. */
#include "coll_run.h"

/* busbw = algbw * 2(n-1)/n: each rank sends and receives 2(n-1)/n of the data. */
static double factor(int n)
{
    return busbw_factor("all_reduce", n);
}

static size_t check(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    (void)rank;
    (void)root;
    return coll_vals_check_reduced(v, out, 0, l->recv_count);
}

static int run(const struct coll_call *c)
{
    return coll_run_reduce(c, c->count, COLL_CALL(ncclAllReduce, MPI_Allreduce));
}

const struct coll_def coll_allreduce = {
    .name = "allreduce",
    .uses_op = 1,
    .uses_root = 0,
    .busbw_factor = factor,
    .layout = coll_layout_whole,
    .fill = coll_fill_whole,
    .check = check,
    .run = run,
};
