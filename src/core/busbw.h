/* busbw.h -- nccl-tests' collective names and bus-bandwidth factors, defined once (header-only,
 * so zerobench in src/bench shares it without linking the simulator's library). */
#ifndef ZS_BUSBW_H
#define ZS_BUSBW_H

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/* How busbw relates to algbw = size / time for a collective on n ranks. Source: NVIDIA/nccl-tests
 * doc/PERFORMANCE.md @ 03a204a1f38aaea17f1a777885bb2d9600ba7eff ("Summary": AllReduce 2(n-1)/n,
 * ReduceScatter, AllGather, AlltoAll (n-1)/n, Broadcast, Reduce 1); gather and scatter (n-1)/n
 * and sendrecv 1 from the GetBw functions of src/gather.cu, src/scatter.cu, src/sendrecv.cu in
 * the same repository. */
typedef enum {
    BUSBW_NONE = 0,   /* unknown collective */
    BUSBW_ALL_REDUCE, /* 2(n-1)/n: every byte is reduced and then broadcast around a ring */
    BUSBW_SHARE,      /* (n-1)/n: each rank receives (or sends) the n-1 blocks it lacks */
    BUSBW_ONE,        /* 1: the root's (or the one peer's) link carries the whole buffer */
} busbw_kind;

typedef struct busbw_coll {
    const char *name;     /* our canonical name */
    const char *squashed; /* lower case without separators: nccl-tests and zerobench spellings */
    busbw_kind kind;      /* busbw / (size / time) that the fit uses */
    busbw_kind printed;   /* the ratio nccl-tests prints between its busbw and algbw columns;
                             BUSBW_NONE for hypercube, whose algbw already counts (n-1)/n of
                             the size (src/hypercube.cu prints busbw = algbw) */
} busbw_coll;

/* The entry for a collective name: canonical names, nccl-tests binary names with or without
 * path and suffix ("./build/all_reduce_perf_mpi"), zerobench names ("allreduce") and squashed
 * or mixed-case spellings ("AllGather", "sendrecv", "alltoall"). NULL for anything else
 * (including NULL). Never fails. */
static inline const busbw_coll *busbw_lookup(const char *name)
{
    static const busbw_coll table[] = {
        {"all_reduce", "allreduce", BUSBW_ALL_REDUCE, BUSBW_ALL_REDUCE},
        {"all_gather", "allgather", BUSBW_SHARE, BUSBW_SHARE},
        {"reduce_scatter", "reducescatter", BUSBW_SHARE, BUSBW_SHARE},
        {"broadcast", "broadcast", BUSBW_ONE, BUSBW_ONE},
        {"reduce", "reduce", BUSBW_ONE, BUSBW_ONE},
        {"all_to_all", "alltoall", BUSBW_SHARE, BUSBW_SHARE},
        {"send_recv", "sendrecv", BUSBW_ONE, BUSBW_ONE},
        {"gather", "gather", BUSBW_SHARE, BUSBW_SHARE},
        {"scatter", "scatter", BUSBW_SHARE, BUSBW_SHARE},
        {"hypercube", "hypercube", BUSBW_SHARE, BUSBW_NONE},
    };
    if (!name) return NULL;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    char sq[64];
    size_t n = 0;
    for (const char *p = base; *p && *p != '.' && n + 1 < sizeof sq; p++) {
        if (*p == '_' || *p == '-' || *p == ' ') continue;
        sq[n++] = (char)tolower((unsigned char)*p);
    }
    sq[n] = '\0';
    char *perf = strstr(sq, "perf"); /* all_reduce_perf, all_reduce_perf_mpi */
    if (perf && perf != sq) *perf = '\0';
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(sq, table[i].squashed) == 0) return &table[i];
    return NULL;
}

/* The canonical name for `name` (see busbw_lookup), a static string, or NULL. Never fails. */
static inline const char *busbw_canonical(const char *name)
{
    const busbw_coll *c = busbw_lookup(name);
    return c ? c->name : NULL;
}

/* The factor of a kind on n ranks; 0 for BUSBW_NONE or n < 1 (and 0 for a rank-dependent
 * factor on one rank, which moves nothing). Never fails. */
static inline double busbw_kind_factor(busbw_kind k, int64_t n)
{
    if (n < 1) return 0;
    double d = (double)n;
    switch (k) {
    case BUSBW_ALL_REDUCE: return 2 * (d - 1) / d;
    case BUSBW_SHARE: return (d - 1) / d;
    case BUSBW_ONE: return 1;
    default: return 0;
    }
}

/* The bus-bandwidth factor busbw / (size / time) of a collective (any spelling busbw_lookup
 * accepts) on n ranks: the bytes each rank's bottleneck link carries per byte of size.
 * 0 for an unknown collective or n < 1. Never fails. */
static inline double busbw_factor(const char *collective, int64_t n)
{
    const busbw_coll *c = busbw_lookup(collective);
    return c ? busbw_kind_factor(c->kind, n) : 0;
}

/* The factors by kind, as plain functions of n for tables of function pointers (the
 * simulator's coll_ops). */
static inline double busbw_all_reduce(int64_t n)
{
    return busbw_kind_factor(BUSBW_ALL_REDUCE, n);
}
static inline double busbw_share(int64_t n)
{
    return busbw_kind_factor(BUSBW_SHARE, n);
}
static inline double busbw_one(int64_t n)
{
    return busbw_kind_factor(BUSBW_ONE, n);
}

#endif
