/* coll_allgather.c -- all-gather: a half ring, across nodes first, then inside the node. */
#include "core/collective.h"

/* Ring: n-1 steps moving (n-1)/n of the output buffer (Thakur et al. 2005). Across nodes: the
 * mirror of reduce-scatter, gathering the 1/g slice across nodes, then the buffer inside. */
const coll_ops coll_allgather = {
    "all_gather", "all-gather", busbw_share, coll_half_ring_time, coll_half_ring_bytes, coll_half_ring_hier};
