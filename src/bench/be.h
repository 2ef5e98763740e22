/* be.h -- back-end interface: buffers, streams, communicators and timers per local rank. */
#ifndef ZB_BE_H
#define ZB_BE_H

#include <stddef.h>

struct bench_opts;
struct json;

/* Process/rank geometry, filled by be_init. A process drives nlocal ranks
 * (1 for the CPU back end, -g GPUs for CUDA); global rank of local rank l
 * is rank0 + l. */
struct be_info {
    int nranks;         /* total ranks (processes x nlocal) */
    int nlocal;         /* ranks driven by this process */
    int rank0;          /* global rank of local rank 0 */
    int nprocs;         /* MPI processes */
    int proc;           /* MPI rank of this process */
    int local_proc;     /* index of this process on its node */
    int procs_per_node; /* MPI processes sharing this node */
    int nnodes;         /* distinct nodes */
};

/* be_geometry: fills bi for nlocal ranks per process from MPI_COMM_WORLD
 * (processes per node via MPI_COMM_TYPE_SHARED). Collective; 0 or -1. */
int be_geometry(struct be_info *bi, int nlocal);

/* be_name: "cpu" or "cuda". */
const char *be_name(void);

/* be_init: after MPI_Init. Sets up devices (and communicators when
 * need_comm). On failure prints one line on stderr and returns the exit
 * status to use (1); returns 0 on success. */
int be_init(const struct bench_opts *o, int need_comm, struct be_info *info);

/* be_fini: releases everything be_init made. Never fails. */
void be_fini(void);

/* be_alloc: device (or host) buffer of bytes for local rank l; NULL on failure. */
void *be_alloc(int l, size_t bytes);
/* be_free: frees a be_alloc buffer; NULL is ignored. */
void be_free(int l, void *p);
/* be_upload / be_download: synchronous copies host<->buffer; 0 or -1. */
int be_upload(int l, void *dst, const void *src, size_t bytes);
int be_download(int l, void *dst, const void *src, size_t bytes);

/* be_comm: handle passed as coll_call.comm for local rank l. */
void *be_comm(int l);

/* be_error_string: text for a nonzero code returned by a collective's run
 * (MPI error code on CPU, ncclResult_t on CUDA); static storage. */
const char *be_error_string(int code);

/* be_group_begin / be_group_end: bracket the calls of all local ranks for
 * one collective (ncclGroupStart/End; no-ops on CPU). 0 or -1. */
int be_group_begin(void);
int be_group_end(void);

/* be_sync: waits until all work queued by this process is done; 0 or -1. */
int be_sync(void);

/* Per-iteration timing: be_marks_begin(n) prepares n marks, be_mark(i)
 * records mark i on every local rank (after queueing iteration i-1),
 * be_marks_end(sec) after be_sync() writes sec[i] = mark[i+1]-mark[i]
 * (max over local ranks) for i < n-1. Return 0 or -1. */
int be_marks_begin(int n);
int be_mark(int i);
int be_marks_end(double *sec);

/* CUDA graphs (-G): be_graph_begin starts capturing every local stream,
 * be_graph_end stops and instantiates, be_graph_launch(n) queues the graph
 * n times, be_graph_free releases it. 0 or -1; the CPU back end has no
 * graphs (be_has_graphs() == 0) and returns -1. */
int be_has_graphs(void);
int be_graph_begin(void);
int be_graph_end(void);
int be_graph_launch(int n);
void be_graph_free(void);

/* be_dtype_ok: 1 when collectives of type dtype run on this back end and
 * device (CUDA: fp8 needs an NCCL with fp8 types and compute capability
 * >= 9.0), else 0 with the reason in why. */
int be_dtype_ok(int dtype, char *why, size_t len);

/* be_op_ok: 1 when reduction op runs on this back end (CUDA: avg needs NCCL
 * >= 2.10, premulsum >= 2.11), else 0 with the reason in why. */
int be_op_ok(int op, char *why, size_t len);

/* be_describe: one-line description of local rank l's device, e.g.
 * "cuda 0 [0000:1b:00] NVIDIA H200" or "cpu [omp 2] AMD EPYC". */
void be_describe(int l, char *buf, size_t len);

/* be_meta_json: back-end keys of the JSON "system" object (GPU model,
 * driver/CUDA/NCCL versions); nothing for CPU. */
void be_meta_json(struct json *j);

#endif
