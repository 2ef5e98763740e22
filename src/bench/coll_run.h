/* coll_run.h -- what a collective's file needs: its table (coll.h), busbw factors, and the
 * back end its run() calls (NCCL when built with ZB_NCCL, MPI otherwise). */
#ifndef ZB_COLL_RUN_H
#define ZB_COLL_RUN_H

#include "../core/busbw.h"
#include "coll.h"

#ifdef ZB_NCCL
#include "be_cuda.h"
#else
#include <limits.h>
#include <mpi.h>
#include "mpi_dtype.h"
#endif

/* The library calls of most collectives share a signature with another's,
 * so run() names its two calls and a helper of coll_run.c makes the call
 * (count limit, buffers, in place, premulsum and avg) the same way for all.
 * COLL_CALL(nccl_fn, mpi_fn) is the function of this build's back end; the
 * other name is dropped unread. Since NCCL 2.28 ncclAlltoAll, ncclGather
 * and ncclScatter exist; with an older nccl.h COLL_SINCE_NCCL_2_28(fn) is
 * NULL and the helpers emulate them with grouped point-to-point calls. */
#ifdef ZB_NCCL
#define COLL_CALL(nccl_fn, mpi_fn) nccl_fn
#if NCCL_VERSION_CODE >= 22800
#define COLL_SINCE_NCCL_2_28(fn) fn
#else
#define COLL_SINCE_NCCL_2_28(fn) NULL
#endif
/* all-reduce, reduce-scatter */
typedef ncclResult_t (*coll_reduce_fn)(const void *send, void *recv, size_t count, ncclDataType_t t,
    ncclRedOp_t op, ncclComm_t comm, cudaStream_t st);
/* all-gather, all-to-all */
typedef ncclResult_t (*coll_move_fn)(
    const void *send, void *recv, size_t count, ncclDataType_t t, ncclComm_t comm, cudaStream_t st);
/* gather, scatter */
typedef ncclResult_t (*coll_rooted_fn)(
    const void *send, void *recv, size_t count, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st);
#else
#define COLL_CALL(nccl_fn, mpi_fn) mpi_fn
#define COLL_SINCE_NCCL_2_28(fn) fn
typedef int (*coll_reduce_fn)(
    const void *send, void *recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm);
typedef int (*coll_move_fn)(
    const void *send, int scount, MPI_Datatype st, void *recv, int rcount, MPI_Datatype rt, MPI_Comm comm);
typedef int (*coll_rooted_fn)(const void *send, int scount, MPI_Datatype st, void *recv, int rcount,
    MPI_Datatype rt, int root, MPI_Comm comm);
#endif

/* COLL_ON_NCCL: 1 in the NCCL build (a table's in_place_na where only
 * NCCL lacks a safe in-place form), else 0. */
#ifdef ZB_NCCL
#define COLL_ON_NCCL 1
#else
#define COLL_ON_NCCL 0
#endif

/* Each helper returns 0 or the library's nonzero error code (as a coll_def's run). */

/* coll_run_reduce: a reduction without a root (fn: all-reduce or
 * reduce-scatter) over send_elems input elements per rank. MPI has no avg
 * or premulsum: the input is pre-scaled and the result divided around the
 * call (mpi_reduce_pre/post), timed with it as NCCL fuses both. */
int coll_run_reduce(const struct coll_call *c, size_t send_elems, coll_reduce_fn fn);

/* coll_run_move: data movement between all ranks, count elements per rank
 * pair (fn: all-gather or all-to-all; NULL: all-to-all by point-to-point). */
int coll_run_move(const struct coll_call *c, coll_move_fn fn);

/* coll_run_rooted: gather (to_root 1) or scatter (to_root 0) of count
 * elements per rank; fn NULL: by point-to-point. In place, MPI_IN_PLACE
 * stands for the root's own block: its send buffer in a gather, its
 * receive buffer in a scatter. */
int coll_run_rooted(const struct coll_call *c, coll_rooted_fn fn, int to_root);

#ifdef ZB_NCCL
/* Peers of coll_nccl_p2p: every rank, block r of the buffer for rank r; or none. */
#define COLL_P2P_ALL (-1)
#define COLL_P2P_NONE (-2)

/* coll_nccl_p2p: one NCCL group of point-to-point calls: count elements
 * sent to rank `to` and received from rank `from` (buffer start), or to
 * and from every rank (COLL_P2P_ALL: block r for rank r), or not at all
 * (COLL_P2P_NONE). ncclSuccess or the first error. */
ncclResult_t coll_nccl_p2p(const struct coll_call *c, int to, int from);
#endif

#endif
