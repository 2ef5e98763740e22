/* coll_reducescatter.c -- reduce-scatter: ring on one level, node then network across two. */
#include "collective.h"

static double factor(int64_t n) { return (double)(n - 1) / (double)n; }

/* Ring: n-1 steps, (n-1)/n of the input buffer (Thakur et al. 2005). */
static double flat_time(double s, int64_t n, coll_link l)
{
    return coll_ring_time((double)(n - 1), factor(n) * s, l);
}

static double flat_bytes(double s, int64_t n) { return factor(n) * s; }

/* Inside the node first, where bandwidth is cheap ((g-1)/g of the buffer over NVLink), then
 * across nodes on the 1/g slice each rank now owns ((k-1)/k of it over its NIC share). */
static void hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    double gl = (double)g.n_local, k = (double)(g.n / g.n_local);
    double net = (k - 1) / k * s / gl, nv = (gl - 1) / gl * s;
    out->seconds = coll_ring_time(k - 1, net, inter) + coll_ring_time(gl - 1, nv, intra);
    out->bytes[LEVEL_INTER] = net;
    out->bytes[LEVEL_INTRA] = nv;
}

const coll_ops coll_reducescatter = {"reduce_scatter", "reduce-scatter", factor, flat_time, flat_bytes, hier};
