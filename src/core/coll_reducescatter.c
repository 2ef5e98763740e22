/* coll_reducescatter.c -- reduce-scatter: a half ring, inside the node first, then across nodes. */
#include "core/collective.h"

/* Ring: n-1 steps moving (n-1)/n of the input buffer (Thakur et al. 2005). Across nodes:
 * reduce-scatter inside the node first, where bandwidth is cheap ((g-1)/g of the buffer over
 * NVLink), then across nodes on the 1/g slice each rank now owns ((k-1)/k of it). */
const coll_ops coll_reducescatter = {"reduce_scatter", "reduce-scatter", busbw_share, coll_half_ring_time,
    coll_half_ring_bytes, coll_half_ring_hier};
