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

/* nccl_cost, keeping each call shape's size-independent work (its candidates, with their
 * latencies and bus bandwidths) for the next call of the same shape: NCCL computes its
 * tuning tables once per communicator (ncclTopoTuneModel at init) and only picks per call,
 * and a thread's evaluations see the same few groups on the same links. The answer is
 * nccl_cost's, bit for bit. Pure but for that per-thread store, which no answer depends on. */
nccl_choice nccl_cost_kept(nccl_fn fn, double size, int64_t n, int64_t n_local, const nccl_env *env);

/* "ring/LL128", ... for reports. Never fails. */
const char *nccl_algo_name(nccl_algo a);
const char *nccl_proto_name(nccl_proto p);

#endif
