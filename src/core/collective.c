/* collective.c -- the common collective harness: links, level choice, ring helpers. */
#include "core/collective.h"

#include <math.h>
#include <string.h>

const coll_ops *const coll_table[COLL_COUNT] = {
    [COLL_ALL_REDUCE] = &coll_allreduce,
    [COLL_REDUCE_SCATTER] = &coll_reducescatter,
    [COLL_ALL_GATHER] = &coll_allgather,
    [COLL_BROADCAST] = &coll_broadcast,
    [COLL_ALL_TO_ALL] = &coll_alltoall,
    [COLL_P2P] = &coll_p2p,
};

void coll_links(const hardware *hw, int64_t gpus_per_node, coll_link out[LEVEL_COUNT])
{
    double g = gpus_per_node > 0 ? (double)gpus_per_node : 1;
    out[LEVEL_INTRA] =
        (coll_link){.alpha = hw->intra.latency, .bandwidth = hw->intra.bandwidth * hw->intra.efficiency};
    /* Rail-optimised nodes give each GPU its share of the node's NICs. */
    double nic = (double)hw->nics_per_node * hw->inter.bandwidth / g;
    out[LEVEL_INTER] = (coll_link){.alpha = hw->inter.latency, .bandwidth = nic * hw->inter.efficiency};
    out[LEVEL_HOST] =
        (coll_link){.alpha = hw->host.latency, .bandwidth = hw->host.bandwidth * hw->host.efficiency};
    /* NCCL's tuning model: the profile's release and channels; the GPU generation as
     * tuning.cc indexes it (compCap 70/80/90): FP8 tensor cores came with Hopper, BF16 with
     * Ampere. A PCIe node (intra_node.kind "pcie...") uses NCCL's PCI latencies. */
    int arch = hw->peak_fp8 > 0 ? 2 : hw->peak_bf16 > 0 ? 1 : 0;
    const char *kind = hw->intra.kind; /* "pcie...": a prefix test without a libc call */
    bool pcie = kind[0] == 'p' && kind[1] == 'c' && kind[2] == 'i' && kind[3] == 'e';
    for (int l = 0; l < LEVEL_COUNT; l++) {
        out[l].nccl_version = (int)hw->nccl_version;
        out[l].nccl_channels = (int)hw->nccl_channels;
        out[l].nccl_arch = arch;
        out[l].pcie = pcie;
        out[l].nvls_bandwidth = hw->intra.bandwidth * hw->nccl_nvls_fraction;
    }
}

/* The NCCL function and environment of kind k on these links; false where NCCL's model does
 * not apply (no release in the profile, or a collective it does not cost). */
static bool coll_nccl_env(coll_kind k, const coll_link links[LEVEL_COUNT], nccl_fn *fn, nccl_env *e)
{
    const coll_link *in = &links[LEVEL_INTRA], *net = &links[LEVEL_INTER];
    if (in->nccl_version <= 0) return false;
    if (k == COLL_ALL_REDUCE)
        *fn = NCCL_FN_ALL_REDUCE;
    else if (k == COLL_REDUCE_SCATTER)
        *fn = NCCL_FN_REDUCE_SCATTER;
    else if (k == COLL_ALL_GATHER)
        *fn = NCCL_FN_ALL_GATHER;
    else
        return false;
    *e = (nccl_env){in->nccl_version, in->nccl_channels, in->nccl_arch, in->pcie, in->bandwidth,
        net->bandwidth, in->alpha, net->alpha, in->nvls_bandwidth};
    return true;
}

nccl_choice coll_nccl_choice(coll_kind k, double size, coll_group g, const coll_link links[LEVEL_COUNT])
{
    nccl_choice none = {NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 0, 0, 0};
    nccl_fn fn;
    nccl_env e;
    if (g.n <= 1 || size <= 0 || !coll_nccl_env(k, links, &fn, &e)) return none;
    return nccl_cost_kept(fn, size, g.n, g.n_local, &e);
}

double coll_ring_time(double steps, double bytes, coll_link l)
{
    return steps * l.alpha + bytes / l.bandwidth;
}

/* The half ring's share of the buffer each rank sends: (n-1)/n. */
static double coll_half_ring_factor(int64_t n)
{
    return (double)(n - 1) / (double)n;
}

double coll_half_ring_time(double s, int64_t n, coll_link l)
{
    return coll_ring_time((double)(n - 1), coll_half_ring_factor(n) * s, l);
}

double coll_half_ring_bytes(double s, int64_t n)
{
    return coll_half_ring_factor(n) * s;
}

void coll_half_ring_hier(double s, coll_group g, coll_link intra, coll_link inter, coll_cost *out)
{
    double gl = (double)g.n_local, k = (double)(g.n / g.n_local);
    double net = (k - 1) / k * s / gl, nv = (gl - 1) / gl * s;
    out->seconds = coll_ring_time(k - 1, net, inter) + coll_ring_time(gl - 1, nv, intra);
    out->bytes[LEVEL_INTER] = net;
    out->bytes[LEVEL_INTRA] = nv;
}

double coll_log2ceil(int64_t n)
{
    /* Integer ceil(log2 n): the bits of n - 1 (exact where log2 of a double may round). */
    return n > 1 ? (double)(64 - __builtin_clzll((unsigned long long)(n - 1))) : 0;
}

/* The group with its ranks per node clamped to [1, n]. */
static coll_group coll_clamp(coll_group g)
{
    g.n_local = g.n_local < 1 ? 1 : g.n_local > g.n ? g.n : g.n_local;
    return g;
}

/* out for kind k of size bytes on the clamped group g, given NCCL's choice c for it. */
static void coll_cost_with(
    coll_kind k, double size, coll_group g, const coll_link links[LEVEL_COUNT], nccl_choice c, coll_cost *out)
{
    const coll_ops *op = coll_table[k];
    int64_t local = g.n_local;
    if (local == g.n) {
        if (c.seconds <= 0) out->seconds = op->flat_time(size, g.n, links[LEVEL_INTRA]);
        out->bytes[LEVEL_INTRA] = op->flat_bytes(size, g.n);
    } else if (local == 1) {
        if (c.seconds <= 0) out->seconds = op->flat_time(size, g.n, links[LEVEL_INTER]);
        out->bytes[LEVEL_INTER] = op->flat_bytes(size, g.n);
    } else {
        op->hier(size, g, links[LEVEL_INTRA], links[LEVEL_INTER], out);
    }
    if (c.seconds > 0) out->seconds = c.seconds;
}

void coll_cost_of(coll_kind k, double size, coll_group g, const coll_link links[LEVEL_COUNT], coll_cost *out)
{
    memset(out, 0, sizeof *out);
    if (g.n <= 1 || size <= 0) return;
    g = coll_clamp(g);
    /* NCCL runs all-reduce, reduce-scatter and all-gather as one ring (or tree) through all
     * the ranks, not as the two-level schedule below: its time replaces the schedule's, whose
     * bytes per level stay. */
    coll_cost_with(k, size, g, links, coll_nccl_choice(k, size, g, links), out);
}
