/* coll_p2p.c -- point-to-point send/receive (pipeline activations, host copies). */
#include "core/collective.h"

static double flat_time(double s, int64_t n, coll_link l)
{
    (void)n;
    return coll_ring_time(1, s, l);
}

static double flat_bytes(double s, int64_t n)
{
    (void)n;
    return s;
}

/* Neighbouring stages sit on different nodes when the group spans them: the network hop. */
static void hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    (void)g;
    (void)intra;
    out->seconds = coll_ring_time(1, s, inter);
    out->bytes[LEVEL_INTER] = s;
}

const coll_ops coll_p2p = {"p2p", "send/recv", busbw_one, flat_time, flat_bytes, hier};
