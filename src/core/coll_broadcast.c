/* coll_broadcast.c -- broadcast: pipelined chain (ring) on one level, network then node. */
#include "core/collective.h"

/* A pipelined chain: n-1 hops of latency, the buffer once at link speed (NCCL's ring
 * broadcast; nccl-tests busbw factor 1). */
static double flat_time(double s, int64_t n, coll_link l)
{
    return coll_ring_time((double)(n - 1), s, l);
}

static double flat_bytes(double s, int64_t n)
{
    (void)n;
    return s;
}

static void hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    double gl = (double)g.n_local, k = (double)(g.n / g.n_local);
    out->seconds = coll_ring_time(k - 1, s, inter) + coll_ring_time(gl - 1, s, intra);
    out->bytes[LEVEL_INTER] = s;
    out->bytes[LEVEL_INTRA] = s;
}

const coll_ops coll_broadcast = {"broadcast", "broadcast", busbw_one, flat_time, flat_bytes, hier};
