/* comm.h -- what each GPU sends per step: a plan of collectives, and its summary. */
#ifndef ZS_COMM_H
#define ZS_COMM_H

#include "core/collective.h"

struct sim_input;
struct strategy;

/* Rank groups a collective runs on. GROUP_SHARD is the data-parallel ranks that shard the
 * states (all of DP unless hybrid sharding), GROUP_REPLICA the shard groups' replicas across
 * it, GROUP_HPZ ZeRO++'s secondary parameter partition. GROUP_EDP is the expert-data-parallel
 * ranks that shard the experts' states (its shard part under hybrid sharding), GROUP_EDP_REPLICA
 * their replicas, GROUP_ETP the expert tensor-parallel ranks that split each expert (ETP
 * consecutive ranks, innermost in Megatron-Core's expert grid). */
typedef enum {
    GROUP_DP,
    GROUP_TP,
    GROUP_PP,
    GROUP_HOST,
    GROUP_SHARD,
    GROUP_REPLICA,
    GROUP_HPZ,
    GROUP_CP,
    GROUP_EP,
    GROUP_EDP,
    GROUP_EDP_REPLICA,
    GROUP_ETP,
    GROUP_COUNT
} group_kind;

/* Which compute a collective can hide under: none, a micro-batch's forward or backward,
 * only its attention (ring attention's K/V exchange), or the CPU optimizer step (a copy the
 * step itself issues as it goes). */
typedef enum {
    OVERLAP_NONE,
    OVERLAP_FORWARD,
    OVERLAP_BACKWARD,
    OVERLAP_ATTN_FWD,
    OVERLAP_ATTN_BWD,
    OVERLAP_OPTIMIZER, /* after the micro-batches' windows: steptime.c keeps it apart */
    OVERLAP_COUNT
} overlap_kind;

#define OVERLAP_WINDOWS OVERLAP_OPTIMIZER /* the kinds a micro-batch's compute offers */

typedef struct comm_op {
    coll_kind kind;
    group_kind group;
    double size;    /* bytes per call, as nccl-tests counts a collective's size */
    double calls;   /* per step */
    bool per_micro; /* calls spread evenly over micro-batches (else all in the last one) */
    overlap_kind overlap;
    double tail;         /* bytes of the last bucket, which waits for the last backward op */
    const char *what;    /* "gradient all-reduce" */
    double seconds;      /* per call, filled by comm_summarise */
    double tail_seconds; /* of the tail bucket, filled by comm_summarise */
    double overhead;     /* seconds of host work per call (framework bookkeeping) */
    double hidden;       /* fraction hidden under GEMMs regardless of `overlap` (TP overlap) */
} comm_op;

#define COMM_MAX_OPS 16

typedef struct comm_plan {
    comm_op op[COMM_MAX_OPS];
    int n;
    double compute_copies; /* seconds per step the framework's code copies on the compute
                              stream (FSDP2's all-gather copy-out), charged with compute */
} comm_plan;

/* Per GPU per step, what the plan sends and how long it takes on the wire. */
typedef struct comm_summary {
    double bytes_total;              /* bytes each GPU sends */
    double bytes_level[LEVEL_COUNT]; /* by link level: NVLink, network, PCIe */
    double bytes_kind[COLL_COUNT];   /* by collective */
    double bytes_group[GROUP_COUNT]; /* by rank group: GROUP_EP is the experts' all-to-all,
                                        GROUP_CP ring attention's K/V exchange */
    double ideal_bytes;              /* the ZeRO paper's volume (2P or 3P elements x (n-1)/n) */
    double plain_inter_bytes;        /* network bytes of the same strategy without hybrid
                                        sharding or ZeRO++ (0 when not computed) */
    double seconds_total;            /* if nothing overlapped */
} comm_summary;

/* Append an op; silently ignores ops beyond COMM_MAX_OPS (plans hold far fewer). */
void comm_add(comm_plan *p, comm_op op);

/* The ops every strategy shares: Megatron tensor-parallel collectives, pipeline sends, and
 * offload traffic over PCIe as strategy s shards and reduces. */
void comm_add_common(const struct sim_input *in, const struct strategy *s, comm_plan *p);

/* Sum a plan into bytes and wire seconds, and note each op's time per call in the plan. */
void comm_summarise(const struct sim_input *in, comm_plan *p, comm_summary *s);

#endif
