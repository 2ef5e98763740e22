/* coll_alltoall.c -- all-to-all: pairwise exchange; across nodes the network part dominates. */
#include <math.h>

#include "collective.h"

static double factor(int64_t n) { return (double)(n - 1) / (double)n; }

/* Pairwise exchange: n-1 rounds, each sending 1/n of the buffer (Thakur et al. 2005). */
static double flat_time(double s, int64_t n, coll_link l)
{
    return coll_ring_time((double)(n - 1), factor(n) * s, l);
}

static double flat_bytes(double s, int64_t n) { return factor(n) * s; }

/* (n - g)/n of each rank's buffer leaves the node, (g - 1)/n stays; both run at once. */
static void hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    double n = (double)g.n, gl = (double)g.n_local;
    double net = (n - gl) / n * s, nv = (gl - 1) / n * s;
    out->seconds = fmax(coll_ring_time(n - gl, net, inter), coll_ring_time(gl - 1, nv, intra));
    out->bytes[LEVEL_INTER] = net;
    out->bytes[LEVEL_INTRA] = nv;
}

const coll_ops coll_alltoall = {"all_to_all", "all-to-all", factor, flat_time, flat_bytes, hier};
