/* collective.h -- alpha-beta cost of collectives on flat and two-level (node/network) groups. */
#ifndef ZS_COLLECTIVE_H
#define ZS_COLLECTIVE_H

#include "core/busbw.h"
#include "core/hardware.h"
#include "core/nccl.h"

typedef enum {
    COLL_ALL_REDUCE,
    COLL_REDUCE_SCATTER,
    COLL_ALL_GATHER,
    COLL_BROADCAST,
    COLL_ALL_TO_ALL,
    COLL_P2P,
    COLL_COUNT
} coll_kind;

typedef enum { LEVEL_INTRA, LEVEL_INTER, LEVEL_HOST, LEVEL_COUNT } link_level;

/* One link level as a collective sees it: Hockney alpha-beta. */
typedef struct coll_link {
    double alpha;     /* seconds per message step */
    double bandwidth; /* achieved bytes/s per GPU, one direction */
    /* NCCL's tuning model (nccl.c) for all-reduce, reduce-scatter and all-gather when
     * nccl_version > 0 (the hardware profile's; the same on every level); 0 = plain
     * alpha-beta rings, as before. */
    int nccl_version;  /* NCCL_VERSION_CODE, 20804 = 2.8.4 */
    int nccl_channels; /* channels one collective runs on; 0 = unknown */
    int nccl_arch;     /* 0 Volta, 1 Ampere, 2 Hopper or newer */
    bool pcie;         /* the node's GPUs talk over PCIe */
    double nvls_bandwidth; /* NVLink SHARP all-reduce bus bandwidth, bytes/s; 0 = none */
} coll_link;

/* Where a group's ranks sit: n ranks, n_local of them in each node (n = n_local * nodes). */
typedef struct coll_group {
    int64_t n;       /* ranks in the group */
    int64_t n_local; /* ranks of the group inside one node */
} coll_group;

/* A collective's cost on one group: time and bytes each rank sends per level. */
typedef struct coll_cost {
    double seconds;
    double bytes[LEVEL_COUNT]; /* bytes sent by one rank over each level */
} coll_cost;

/* Each collective is a small file (coll_allreduce.c, ...) that fills this table; the common
 * code in collective.c composes flat and hierarchical schedules and never switches on kind.
 * `size` is the collective's size as nccl-tests counts it (doc/PERFORMANCE.md): the
 * all-reduce/broadcast buffer, the all-gather output, the reduce-scatter input, the
 * all-to-all buffer per rank. */
typedef struct coll_ops {
    const char *name;  /* JSON key: "all_reduce", ... */
    const char *label; /* "all-reduce" */
    /* nccl-tests bus bandwidth factor: busbw = algbw x factor(n) (busbw.h) */
    double (*busbw_factor)(int64_t n);
    /* Time of the best flat algorithm (ring, tree, ...) on one link, and bytes sent per rank. */
    double (*flat_time)(double size, int64_t n, coll_link l);
    double (*flat_bytes)(double size, int64_t n);
    /* Two-level schedule for a group spanning nodes: inner on NVLink, outer on the network. */
    void (*hier)(double size, coll_group g, coll_link intra, coll_link inter, coll_cost *out);
} coll_ops;

extern const coll_ops coll_allreduce, coll_reducescatter, coll_allgather, coll_broadcast, coll_alltoall,
    coll_p2p;

/* The table indexed by coll_kind. */
extern const coll_ops *const coll_table[COLL_COUNT];

/* Links of a hardware profile at achieved rates: intra-node per GPU, inter-node as each GPU's
 * share of the node's NICs, host PCIe per GPU. gpus_per_node is the run's. */
void coll_links(const hardware *hw, int64_t gpus_per_node, coll_link out[LEVEL_COUNT]);

/* Cost of one collective of `size` bytes on group g: flat on NVLink inside a node, flat on
 * the network when each node holds one rank, hierarchical otherwise. With an NCCL version on
 * the links, all-reduce, reduce-scatter and all-gather take NCCL's own time instead (one
 * ring or tree through every rank, NCCL's algorithm and protocol choice; nccl.c), keeping
 * the bytes per level of the schedule above. Pure (NCCL's per-thread store of call shapes
 * aside: nccl_cost_kept); a group of one rank costs nothing. */
void coll_cost_of(coll_kind k, double size, coll_group g, const coll_link links[LEVEL_COUNT], coll_cost *out);
/* The "half ring" that reduce-scatter and all-gather share (Thakur et al. 2005): factor
 * (n-1)/n, n-1 steps, and the two-level schedule NVLink (g-1)/g of the buffer, network
 * (k-1)/k of the 1/g slice each rank owns. */
double coll_half_ring_time(double size, int64_t n, coll_link l);
double coll_half_ring_bytes(double size, int64_t n);
void coll_half_ring_hier(double size, coll_group g, coll_link intra, coll_link inter, coll_cost *out);

/* Ring building blocks shared by the collective files (Thakur, Rabenseifner, Gropp 2005). */
double coll_ring_time(double steps, double bytes_per_step_total, coll_link l);
double coll_log2ceil(int64_t n);

/* NCCL's choice for one call of kind k (all-reduce, reduce-scatter, all-gather) on group g;
 * seconds 0 for other kinds, links without an NCCL version, or a group of one. Pure. */
nccl_choice coll_nccl_choice(coll_kind k, double size, coll_group g, const coll_link links[LEVEL_COUNT]);

#endif
