/* coll_alltoall.c -- all-to-all: pairwise exchange; across nodes the network part dominates. */
#include <math.h>

#include "core/collective.h"
#include "core/minmax.h"

/* Pairwise exchange: n-1 rounds, each sending 1/n of the buffer (Thakur et al. 2005), the same
 * cost as a half ring on one level. Across nodes (n - g)/n of each rank's buffer leaves the
 * node while (g - 1)/n stays; both run at once. */
static void hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    double n = (double)g.n, gl = (double)g.n_local;
    double net = (n - gl) / n * s, nv = (gl - 1) / n * s;
    out->seconds = zs_fmax(coll_ring_time(n - gl, net, inter), coll_ring_time(gl - 1, nv, intra));
    out->bytes[LEVEL_INTER] = net;
    out->bytes[LEVEL_INTRA] = nv;
}

const coll_ops coll_alltoall = {
    "all_to_all", "all-to-all", busbw_share, coll_half_ring_time, coll_half_ring_bytes, hier};
