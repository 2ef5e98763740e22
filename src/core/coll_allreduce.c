/* coll_allreduce.c -- all-reduce: ring or tree on one level, RS + AR + AG across two. */
#include <math.h>

#include "core/collective.h"
#include "core/minmax.h"

static double factor(int64_t n)
{
    return 2.0 * (double)(n - 1) / (double)n;
}

/* Ring: 2(n-1) steps moving 2(n-1)/n of the buffer (Thakur et al. 2005, section 4.4). Tree
 * (NCCL's double binary tree): 2 log2(n) steps, the whole buffer twice. NCCL picks the faster
 * (src/graph/tuning.cc); so do we. */
static double flat_time(double s, int64_t n, coll_link l)
{
    double ring = coll_ring_time(2.0 * (double)(n - 1), factor(n) * s, l);
    double tree = coll_ring_time(2.0 * coll_log2ceil(n), 2.0 * s, l);
    return zs_fmin(ring, tree);
}

static double flat_bytes(double s, int64_t n)
{
    return factor(n) * s;
}

/* Reduce-scatter inside the node, all-reduce of 1/g of the buffer across nodes (one rank per
 * node per slice, on that GPU's NIC share), all-gather inside the node. */
static void hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    double gl = (double)g.n_local, k = (double)(g.n / g.n_local);
    double in = (gl - 1) / gl * s;
    out->seconds = 2 * coll_ring_time(gl - 1, in, intra) + flat_time(s / gl, (int64_t)k, inter);
    out->bytes[LEVEL_INTRA] = 2 * in;
    out->bytes[LEVEL_INTER] = flat_bytes(s / gl, (int64_t)k);
}

const coll_ops coll_allreduce = {"all_reduce", "all-reduce", busbw_all_reduce, flat_time, flat_bytes, hier};
