/* ncclrows.h -- collective samples, and what the nccl-tests text and JSON readers and the
 * zerobench reader share: the checks once a run's rows are in, pass and row helpers, JSON
 * parsing. */
#ifndef ZS_NCCLROWS_H
#define ZS_NCCLROWS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct cJSON;

/* Collective names are canonicalised by busbw_canonical (busbw.h). */

/* One size of one collective, as one table row reports it. */
typedef struct coll_sample {
    char collective[24]; /* canonical name: "all_reduce", "all_gather", "reduce_scatter",
                            "broadcast", "reduce", "all_to_all", "send_recv", "gather",
                            "scatter", "hypercube" */
    char type[12];       /* data type column ("float", "bfloat16"); "" when absent */
    char redop[8];       /* reduction column ("sum", "none"); "" when the log has none */
    int root;            /* root column; -1 when absent or not rooted */
    int ranks;           /* ranks in the collective; 0 when unknown */
    double bytes;        /* the size column, bytes */
    double seconds;      /* out-of-place time, s; the in-place time when out-of-place is absent */
    double seconds_ip;   /* in-place time, s; 0 when absent */
    double algbw;        /* bytes/s (GB/s column x 1e9), of the pass `seconds` came from */
    double busbw;        /* bytes/s, same pass */
    int wrong;           /* wrong elements of that pass (old logs: 1 when the max error is
                            beyond nccl-tests' own tolerance, else 0); -1 when not reported */
    int line;            /* line in the file (JSON: row index, from 1) */
} coll_sample;

/* All rows of one run of one collective. */
typedef struct coll_samples {
    coll_sample *v;      /* rows in file order (heap; coll_samples_free) */
    int n;               /* rows */
    int iters;           /* timed iterations per size (-n); 0 when not reported */
    char collective[24]; /* canonical name, as in coll_sample */
    int ranks;           /* ranks in the collective (one NCCL_TESTS_SPLIT group); 0 unknown */
    int ranks_inferred;  /* 1 when ranks is not from "#  Rank" lines / device lists but from
                            busbw/algbw or nThread x nGpus */
    int hosts;           /* hosts named by the "#  Rank ... on HOST" lines of those ranks: 0
                            unknown, 1 one host, 2 more than one (zerobench: from mpi.nodes) */
    double avg_busbw;    /* bytes/s from "# Avg bus bandwidth"; -1 when absent */
    int oob;             /* "# Out of bounds values" count; -1 when absent */
    int truncated_line;  /* line of an incomplete final row that was skipped; 0 when none */
} coll_samples;

/* Release the rows; leaves *s empty. NULL is fine. Never fails. */
void coll_samples_free(coll_samples *s);

/* ------------------------------------------------------------------ shared by the readers */

/* One pass of a row (out-of-place or in-place): present = 0 for an absent or all-N/A pass. */
typedef struct pass_vals {
    int present;
    double time, algbw, busbw; /* s, bytes/s, bytes/s */
    int wrong;                 /* wrong elements; -1 when not reported */
} pass_vals;

/* What a reader learned about the run around its rows, for nccl_finish. */
typedef struct run_meta {
    const char *origin; /* path for messages */
    zs_error *err;
    char coll[24];        /* collective named by the log */
    int coll_line;        /* where */
    int coll_strong;      /* 1: from "Collective test starting"/zerobench/-J args; 0: a command echo */
    char unsupported[32]; /* an nccl-tests binary this reader has no collective for */
    int unsupported_line; /* where */
    int nthread, ngpus;   /* from the nThread line / -J config; 0 when absent */
    int group_ranks;      /* ranks listed in the first group ("#  Rank" lines, -J devices) */
    int hosts;            /* hosts of those ranks: 0 unknown, 1 one, 2 more than one */
    char host0[64];       /* the first rank's host */
} run_meta;

/* Record the collective the log names (canon from busbw_canonical; NULL ignored): the first
 * strong name wins over weak ones. Never fails. */
void nccl_set_coll(run_meta *m, const char *canon, int line, int strong);

/* The collective an nccl-tests binary name stands for ("./build/all_reduce_perf_mpi", len
 * characters), or NULL when it is not such a name. Never fails. */
const char *nccl_binary_collective(const char *name, size_t len);

/* Bad input at a line of the log (0: the log as a whole): fails with ZS_ERR_INPUT, the message
 * naming m->origin and the line; returns that code. */
int nccl_vfail(run_meta *m, int line, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* Note the host of one listed rank (hosts becomes 2 once two differ). Never fails. */
void nccl_note_host(run_meta *m, const char *host, size_t len);

/* Shared checks once all rows are in: names the collective (from the log or the hint), sets
 * out->ranks (listed, else inferred from busbw/algbw or nThread x nGpus) and out->hosts,
 * and checks busbw/algbw against the collective's factor. Fails with ZS_ERR_INPUT naming
 * m->origin (and the line): unknown hint, unsupported binary, a log contradicting the hint,
 * no collective, inconsistent busbw/algbw. */
int nccl_finish(run_meta *m, const char *hint, coll_samples *out);

/* A finite number given as a JSON number or a numeric string ("nan" and friends are refused):
 * true and *v set, or false (absent, another type, not finite). Never fails. */
bool nccl_jnum(const struct cJSON *o, const char *key, double *v);

/* A string member, or NULL (absent or another type). Never fails. */
const char *nccl_jstr(const struct cJSON *o, const char *key);

/* A present pass from a JSON pass object o's time (microseconds) and bandwidths (GB/s), its
 * wrong-element count from o's wrong_key when there. Never fails. */
void nccl_json_pass(const struct cJSON *o, double time_us, double algbw_gbps, double busbw_gbps,
    const char *wrong_key, pass_vals *pv);

/* A JSON row's "type", reduction (under redop_key) and "root" into s, where present. Never
 * fails. */
void nccl_json_row_labels(const struct cJSON *row, const char *redop_key, coll_sample *s);

/* s's time, bandwidths and wrong count from the out-of-place pass, else the in-place one (at
 * least one present), and seconds_ip from the in-place pass (0 when absent). Never fails. */
void nccl_sample_passes(coll_sample *s, const pass_vals *oop, const pass_vals *ip);

/* Parse JSON text; on a syntax error fails (NULL, ZS_ERR_INPUT) naming origin and the line. */
struct cJSON *nccl_json_parse(const char *text, const char *origin, zs_error *err);

#endif
