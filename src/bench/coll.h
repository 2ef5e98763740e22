/* coll.h -- the table a collective plugs into the common harness (zb_harness.c). */
#ifndef ZB_COLL_H
#define ZB_COLL_H

#include <stddef.h>

#include "coll_data.h"

/* Element counts for one row of the sweep, following nccl-tests: the
 * requested size is count = bytes / typesize elements; for allgather,
 * reducescatter and alltoall the per-rank count is (count / nranks) rounded
 * down to a multiple of 16 bytes, and the printed size is the larger of the
 * send and receive buffers. */
struct coll_layout {
    size_t send_count;       /* elements in each rank's send buffer */
    size_t recv_count;       /* elements in each rank's receive buffer */
    size_t param_count;      /* count argument of the call; printed as "count" */
    size_t send_inplace_off; /* in-place: input starts at recvbuf + rank*send_inplace_off elements */
    size_t recv_inplace_off; /* in-place: result starts at recvbuf + rank*recv_inplace_off elements */
};

/* One invocation, built by the harness for one local rank. */
struct coll_call {
    const void *send; /* send buffer (== recv + offset when in place) */
    void *recv;       /* receive buffer */
    size_t count;     /* layout.param_count */
    size_t typesize;  /* bytes per element */
    int dtype;        /* enum zb_dtype */
    int op;           /* enum zb_op */
    int root;         /* root rank for rooted collectives */
    int rank;         /* global rank of this caller */
    int nranks;       /* ranks taking part */
    int in_place;     /* 1 when send aliases recv */
    void *comm;       /* backend handle: be_comm() */
};

struct coll_def {
    const char *name; /* sub-benchmark name, e.g. "allreduce" */
    int uses_op;      /* 0: redop column prints "none" */
    int uses_root;    /* 0: root column prints -1 */
    int in_place_na;  /* 1: this back end cannot run it in place (NCCL all-to-all:
                         send and receive blocks race); the pass prints N/A */
    /* busbw = algbw * busbw_factor(nranks) (nccl-tests doc/PERFORMANCE.md) */
    double (*busbw_factor)(int nranks);
    /* layout for a requested size in bytes; never fails (counts may be 0) */
    void (*layout)(size_t bytes, size_t typesize, int nranks, struct coll_layout *out);
    /* writes this rank's input (send_count elements) into in */
    void (*fill)(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in);
    /* counts wrong elements of this rank's result (recv_count elements at out) */
    size_t (*check)(
        const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out);
    /* runs the collective once; returns 0 or a nonzero library error code */
    int (*run)(const struct coll_call *c);
    /* optional: where this rank's result lives after run (download source
     * for check); NULL means c->recv */
    const void *(*result)(const struct coll_call *c);
};

extern const struct coll_def coll_allreduce, coll_allgather, coll_reducescatter, coll_broadcast,
    coll_alltoall, coll_reduce, coll_gather, coll_scatter, coll_sendrecv, coll_allgather_list;

/* coll_block_count: helper for the per-rank-block collectives: block
 * elements = (bytes/typesize/nranks) rounded down to 16 bytes. */
size_t coll_block_count(size_t bytes, size_t typesize, int nranks);

/* Shared table entries, for collectives whose buffers have the same shape:
 * coll_layout_whole: send = recv = count = bytes/typesize (all-reduce,
 *   reduce, broadcast, send/receive);
 * coll_layout_gathered: send = one block, recv = nranks blocks, rank r's
 *   block at r*block in place (all-gather, gather);
 * coll_fill_whole: the rank writes its whole send buffer from offset 0;
 * coll_fill_block: the rank writes elements [r*block, (r+1)*block) of the
 *   global vector. None fails. */
void coll_layout_whole(size_t bytes, size_t typesize, int nranks, struct coll_layout *l);
void coll_layout_gathered(size_t bytes, size_t typesize, int nranks, struct coll_layout *l);
void coll_fill_whole(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in);
void coll_fill_block(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in);
/* coll_check_gathered: wrong elements of a gathered buffer, whose block q must hold rank q's
 * input (all-gather on every rank, gather on the root). */
size_t coll_check_gathered(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out);

#endif
