/* nccl.h -- NCCL's tuning model: algorithm, protocol and latency of a collective by NCCL version. */
#ifndef ZS_NCCL_H
#define ZS_NCCL_H

#include <stdbool.h>
#include <stdint.h>

/* NCCL's algorithms and protocols as its tuning model names them (src/include/devcomm.h). */
typedef enum { NCCL_ALGO_TREE, NCCL_ALGO_RING, NCCL_ALGO_PAT, NCCL_ALGO_NVLS, NCCL_ALGO_N } nccl_algo;
typedef enum { NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE, NCCL_PROTO_N } nccl_proto;
typedef enum { NCCL_FN_ALL_REDUCE, NCCL_FN_REDUCE_SCATTER, NCCL_FN_ALL_GATHER } nccl_fn;

/* What the model needs to know about the machine and the group. Bandwidths are the achieved
 * Simple-protocol bus bandwidths (bytes/s) of one rank on each level; latencies the profile's
 * per-step Simple ring latencies (seconds), which scale the table's other protocols. */
typedef struct nccl_env {
    int version;         /* NCCL_VERSION_CODE: 20804 = 2.8.4 */
    int channels;        /* channels (CTAs) one collective runs on; 0 = no per-channel caps */
    int arch;            /* 0 Volta, 1 Ampere, 2 Hopper or newer (tuning.cc's compCap index) */
    bool pcie;           /* GPUs of a node talk over PCIe, not NVLink */
    double intra_bw;     /* NVLink (or PCIe) bus bandwidth of one rank, bytes/s */
    double inter_bw;     /* one rank's share of its node's NICs, bytes/s */
    double intra_lat;    /* seconds per intra-node ring step, Simple */
    double inter_lat;    /* seconds per inter-node ring step, Simple */
    double nvls_bw;      /* NVLink SHARP all-reduce bus bandwidth, bytes/s; 0 = no NVLS */
} nccl_env;

/* The choice NCCL makes for one call and what it costs. */
typedef struct nccl_choice {
    nccl_algo algo;
    nccl_proto proto;
    double latency; /* seconds, the fixed part */
    double busbw;   /* bytes/s, bus bandwidth of the chosen algorithm and protocol */
    double seconds; /* latency + size x bus factor / busbw */
} nccl_choice;

/* The NCCL release whose constants a version uses: the newest tabled one not after it (2.8.4,
 * 2.12.12, 2.18.3, 2.23.4); versions before 2.8.4 use 2.8.4's. Never fails. */
int nccl_table_version(int version);

/* Cost of one call of fn on n ranks, n_local of them per node, of `size` bytes as nccl-tests
 * counts it: every algorithm and protocol the version runs for fn is costed as tuning.cc
 * does, and the fastest is returned (NCCL's selection = the minimum predicted time). Pure;
 * n <= 1 or size <= 0 costs nothing. */
nccl_choice nccl_cost(nccl_fn fn, double size, int64_t n, int64_t n_local, const nccl_env *env);

/* nccl_cost of count sizes of one call shape (an operation and its tail) into out, the
 * shape's work done once; each answer is nccl_cost's, bit for bit. Pure. */
void nccl_cost_sizes(nccl_fn fn, const double *size, int count, int64_t n, int64_t n_local, const nccl_env *e,
    nccl_choice *out);

/* One (algorithm, protocol) NCCL would run: its latency (us) and bus bandwidth (GB/s). */
typedef struct nccl_cand {
    nccl_algo algo;
    nccl_proto proto;
    double lat, busbw;
} nccl_cand;

/* What nccl_cost computes before it looks at the size: the candidates of one call shape. */
typedef struct nccl_prep {
    bool used; /* in a memo: the slot holds a shape */
    nccl_fn fn;
    int64_t n, n_local;
    nccl_env env;
    int nc;
    nccl_cand c[NCCL_ALGO_N * NCCL_PROTO_N];
} nccl_prep;

/* A search's memo of call shapes (owned by one thread; zero it to start): a plan evaluates
 * the same few groups on the same links many times. */
#define NCCL_MEMO_N 64
typedef struct nccl_memo {
    nccl_prep e[NCCL_MEMO_N];
} nccl_memo;

/* nccl_cost, keeping the size-independent part of each call shape in memo (NULL: none); the
 * answer is nccl_cost's, bit for bit. Pure but for memo, which one thread must own. */
nccl_choice nccl_cost_memo(nccl_fn fn, double size, int64_t n, int64_t n_local, const nccl_env *env,
    nccl_memo *memo);

/* "ring/LL128", ... for reports. Never fails. */
const char *nccl_algo_name(nccl_algo a);
const char *nccl_proto_name(nccl_proto p);

#endif
