/* nccl.c -- NCCL's tuning model (src/graph/tuning.cc) for ring, tree and PAT, by NCCL release. */
#include "core/nccl.h"

#include <math.h>

enum { HW_NVLINK, HW_PCI, HW_NET, HW_N };

/* One release's constants, read from NVIDIA/nccl src/graph/tuning.cc at the tag's commit:
 * baseLat and hwLat (us), the LL and LL128 bandwidth caps (GB/s per channel, llMaxBws per
 * rank), and the model refinements that changed between releases. Rows are {Tree, Ring} x
 * {LL, LL128, Simple}; arch rows Volta, Ampere, Hopper (releases before Hopper's row give
 * compCap 90 the Volta row, as their `compCap80 ? 1 : 0` index does). */
typedef struct nccl_table {
    int version;
    double base[2][NCCL_PROTO_N];
    double hw[HW_N][2][NCCL_PROTO_N];
    double ll_max[3][3];       /* [arch for one node | 0: Intel host][min(nNodes-1, 2)] */
    double ring_ll128_ch[3];   /* perChMaxRingLL128Bws by arch (same for N1/N2/N4) */
    double ll128_by_fn[3];     /* 2.8: ll128MaxBwPerCh by collective (AR, RS, AG); 0 = unused */
    double tree_ch[3][3];      /* perChMaxTreeBws [arch][index2] */
    double tree_ll128_ch[3];   /* perChMaxTreeLL128Bws [arch], N4 column */
    double tree_ll128_multi;   /* tree LL128 factor across nodes */
    double ampere_cap;         /* GB/s cap on compCap 80 bus bandwidth; 0 = none */
    double plateau_ampere;     /* ring/Simple all-reduce plateau factor on compCap >= 80 */
    double ll_intra_multinode; /* intra-node LL latency factor when nNodes > 1 */
    double net_overhead;       /* us per inter-node ring step of host work (Intel host), x3 Simple */
    bool ll128_hopper;         /* LL128 enabled by default on compCap 90 */
    bool ll128_ppn_discount;   /* ring LL128 x0.7 instead of x0.92 with one rank per node */
    bool pat;                  /* PAT all-gather/reduce-scatter for one rank per node */
} nccl_table;

static const nccl_table tables[] = {
    /* v2.8.4-1 = 911d61f214d45c98df1ee8c0ac23c33fb94b63de */
    {20804, {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}},
        {{{.52, 1.25, 28}, {.47, 1.9, 3.4}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
            {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}}},
        {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {39.0, 39.0, 20.4}}, {0, 0, 0}, {16.9, 15.2, 18.3},
        {{26.5, 18.5, 10.0}, {24.0, 22.5, 16.0}, {26.5, 18.5, 10.0}}, {16.9, 16.9, 16.9}, 0.915, 235, 1.9,
        1.8, 0, false, true, false},
    /* v2.12.12-1 = 7aa1c46fd551d5514474cfc55848219dc67ca683 */
    {21212, {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}},
        {{{.52, 1.25, 28}, {.47, 1.9, 3.4}}, {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
            {{5.0, 8.5, 28}, {2.7, 4.0, 28}}},
        {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {39.0, 39.0, 20.4}}, {20, 20, 20}, {0, 0, 0},
        {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {26.5, 18.5, 10.0}}, {20, 20, 20}, 120.0 / 128, 0, 1.9,
        1.8, 0, false, true, false},
    /* v2.18.3-1 = ea38312273e5b9a19a224c9ff4c10b7fcf441eaf */
    {21803, {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}},
        {{{.6, 1.25, 4}, {.6, 1.9, 3.4}}, {{1.0, 1.9, 6}, {1.0, 2.5, 5.7}},
            {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}}},
        {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}, {20, 20, 36.7}, {0, 0, 0},
        {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}}, {20, 20, 29.0}, 120.0 / 128, 0, 1.4,
        1, 1.0, true, true, false},
    /* v2.23.4-1 = 68b542363f9a44cdaac480f51ebe0fc26de96139 */
    {22304, {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}},
        {{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}}, {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},
            {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}}},
        {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}}, {20, 20, 36.7}, {0, 0, 0},
        {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}}, {20, 20, 29.0}, 120.0 / 128, 0, 1.4,
        1, 1.0, true, false, true},
};
#define N_TABLES (int)(sizeof tables / sizeof tables[0])

static const nccl_table *table_of(int version)
{
    const nccl_table *t = &tables[0];
    for (int i = 0; i < N_TABLES; i++)
        if (tables[i].version <= version) t = &tables[i];
    return t;
}

int nccl_table_version(int version)
{
    return table_of(version)->version;
}

static int log2i(int64_t n)
{
    int l = 0;
    while (n > 1) {
        n >>= 1;
        l++;
    }
    return l;
}

/* The bus bandwidth of (algo, proto) after tuning.cc's refinements, GB/s; 0 = not run. */
static double model_busbw(const nccl_table *t, const nccl_env *e, nccl_fn fn, nccl_algo a, nccl_proto p,
    int64_t nodes, double ppn, double bw)
{
    int arch = e->arch < 0 ? 0 : e->arch > 2 ? 2 : e->arch, i2 = nodes <= 2 ? (int)nodes - 1 : 2;
    double ch = e->channels > 0 ? (double)e->channels : INFINITY;
    /* llMaxBw: one node looks at the GPU, several at the CPU (the Intel row taken). */
    double ll_max = t->ll_max[nodes == 1 ? arch : 0][i2];
    if (t->ampere_cap > 0 && arch == 1) bw = fmin(bw, t->ampere_cap);
    double ll128 = t->ll128_by_fn[fn] > 0 ? t->ll128_by_fn[fn] : t->ring_ll128_ch[arch];
    if (p == NCCL_PROTO_LL128) {
        /* LL128 only on NVLink, and on Hopper from the release that enabled it. */
        if (e->pcie || (arch == 2 && !t->ll128_hopper)) return 0;
    }
    if (a == NCCL_ALGO_RING) {
        if (p == NCCL_PROTO_LL)
            return fmin(ll_max, bw * (nodes > 1 || fn == NCCL_FN_ALL_REDUCE ? 1.0 / 4 : 1.0 / 3));
        if (p == NCCL_PROTO_LL128)
            return fmin(bw * (t->ll128_ppn_discount && ppn < 2 ? 0.7 : 0.92), ch * ll128);
        return bw;
    }
    if (a == NCCL_ALGO_PAT) return p == NCCL_PROTO_SIMPLE ? bw * .85 : 0;
    double tree = fmin(bw * .92, ch * t->tree_ch[arch][i2]);
    if (p == NCCL_PROTO_LL) return fmin(tree / 3.8, ll_max);
    if (p == NCCL_PROTO_LL128) {
        double cap = t->ll128_by_fn[fn] > 0 ? t->ll128_by_fn[fn] : t->tree_ll128_ch[arch];
        return fmin(tree * (nodes == 1 ? 7.0 / 9 : t->tree_ll128_multi), ch * cap);
    }
    return tree;
}

/* The latency of (algo, proto), us, with the profile's measured Simple ring step latencies
 * scaling the table's (scale_intra, scale_net: profile / table). */
static double model_latency(const nccl_table *t, const nccl_env *e, nccl_fn fn, nccl_algo a, nccl_proto p,
    int64_t n, int64_t nodes, double s_in, double s_net)
{
    int ihw = e->pcie ? HW_PCI : HW_NVLINK;
    int ai = a == NCCL_ALGO_TREE ? 0 : 1;
    double intra = t->hw[ihw][ai][p] * s_in, inter = t->hw[HW_NET][ai][p] * s_net;
    if (nodes > 1 && p == NCCL_PROTO_LL) intra *= t->ll_intra_multinode;
    if (a == NCCL_ALGO_PAT) /* 2.23: base 8 + log2(nNodes) interLat / 3.5 + 2.8 per rank */
        return 8 + log2i(nodes) * inter / 3.5 + (double)n * 2.8;
    double lat = t->base[ai][p];
    if (a == NCCL_ALGO_TREE) return lat + 2 * ((double)(n / nodes - 1) * intra + log2i(nodes) * inter);
    double steps = fn == NCCL_FN_ALL_REDUCE ? 2.0 * (double)(n - 1) : (double)(n - 1);
    /* All-reduce counts 2(nNodes-1) network steps up to 2.12, 2 nNodes from 2.18. */
    double net = fn == NCCL_FN_ALL_REDUCE ? (nodes > 1 ? 2.0 * (double)(nodes - (t->version < 21800)) : 0)
                                          : (double)(nodes - 1);
    if (nodes > 1 && t->net_overhead > 0) /* inter-node rings pay host work per step */
        intra = fmax(intra, t->net_overhead * (p == NCCL_PROTO_SIMPLE ? 3 : 1));
    return lat + (steps - net) * intra + net * inter;
}

nccl_choice nccl_cost(nccl_fn fn, double size, int64_t n, int64_t n_local, const nccl_env *e)
{
    nccl_choice best = {NCCL_ALGO_RING, NCCL_PROTO_SIMPLE, 0, 0, 0};
    if (n <= 1 || size <= 0) return best;
    const nccl_table *t = table_of(e->version);
    int64_t local = n_local < 1 ? 1 : n_local > n ? n : n_local, nodes = n / local;
    double ppn = (double)local;
    /* The bottleneck of a ring through all n ranks: NVLink inside, the node's NICs (ppn ranks'
     * shares) at each node boundary; pipelined, so the slower of the two sets the rate. */
    double bw = nodes == 1 ? e->intra_bw
        : local == 1       ? e->inter_bw
                           : fmin(e->intra_bw, ppn * e->inter_bw);
    int ihw = e->pcie ? HW_PCI : HW_NVLINK;
    double s_in = e->intra_lat > 0 ? e->intra_lat * 1e6 / t->hw[ihw][1][NCCL_PROTO_SIMPLE] : 1;
    double s_net = e->inter_lat > 0 ? e->inter_lat * 1e6 / t->hw[HW_NET][1][NCCL_PROTO_SIMPLE] : 1;
    double factor = (fn == NCCL_FN_ALL_REDUCE ? 2.0 : 1.0) * (double)(n - 1) / (double)n;
    best.seconds = INFINITY;
    for (int a = 0; a < NCCL_ALGO_N; a++) {
        if (a == NCCL_ALGO_TREE && fn != NCCL_FN_ALL_REDUCE) continue; /* tree: all-reduce only */
        if (a == NCCL_ALGO_PAT && (!t->pat || fn == NCCL_FN_ALL_REDUCE || local != 1)) continue;
        for (int p = 0; p < NCCL_PROTO_N; p++) {
            double busbw = model_busbw(t, e, fn, (nccl_algo)a, (nccl_proto)p, nodes, ppn, bw / 1e9) * 1e9;
            if (!(busbw > 0)) continue;
            double lat = model_latency(t, e, fn, (nccl_algo)a, (nccl_proto)p, n, nodes, s_in, s_net);
            if (a == NCCL_ALGO_RING && p == NCCL_PROTO_SIMPLE && nodes > 1 && fn == NCCL_FN_ALL_REDUCE)
                lat *= e->arch >= 1 ? t->plateau_ampere : 1.9; /* "plateau effect of ring" */
            /* Tree moves the buffer up and down (tuning.cc's ratio .5); ring the bus factor. */
            double sec = lat * 1e-6 + size * (a == NCCL_ALGO_TREE ? 2.0 : factor) / busbw;
            if (sec < best.seconds) best = (nccl_choice){(nccl_algo)a, (nccl_proto)p, lat * 1e-6, busbw, sec};
        }
    }
    return best;
}

const char *nccl_algo_name(nccl_algo a)
{
    return a == NCCL_ALGO_TREE ? "tree" : a == NCCL_ALGO_PAT ? "pat" : "ring";
}

const char *nccl_proto_name(nccl_proto p)
{
    return p == NCCL_PROTO_LL ? "LL" : p == NCCL_PROTO_LL128 ? "LL128" : "Simple";
}
