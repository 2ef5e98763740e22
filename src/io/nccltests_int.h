/* nccltests_int.h -- internals shared by the nccl-tests text and JSON readers and the zerobench
 * harness reader (not a public interface). */
#ifndef ZS_NCCLTESTS_INT_H
#define ZS_NCCLTESTS_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "io/nccltests.h"

/* One pass of a row (out-of-place or in-place): present = 0 for an absent or all-N/A pass. */
typedef struct pass_vals {
    int present;
    double time, algbw, busbw; /* s, bytes/s, bytes/s */
    int wrong;                 /* wrong elements; -1 when not reported */
} pass_vals;

/* What a reader learned about the run around its rows, for nccl_finish. */
typedef struct run_meta {
    const char *origin;   /* path for messages */
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
const char *nccl_binary_collective(const char *tok, size_t len);

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
bool nccl_jnum(const cJSON *o, const char *key, double *v);

/* A string member, or NULL (absent or another type). Never fails. */
const char *nccl_jstr(const cJSON *o, const char *key);

/* A present pass from a JSON pass object o's time (microseconds) and bandwidths (GB/s), its
 * wrong-element count from o's wrong_key when there. Never fails. */
void nccl_json_pass(const cJSON *o, double time_us, double algbw_gbps, double busbw_gbps, const char *wrong_key,
                    pass_vals *pv);

/* A JSON row's "type", reduction (under redop_key) and "root" into s, where present. Never
 * fails. */
void nccl_json_row_labels(const cJSON *row, const char *redop_key, coll_sample *s);

/* s's time, bandwidths and wrong count from the out-of-place pass, else the in-place one (at
 * least one present), and seconds_ip from the in-place pass (0 when absent). Never fails. */
void nccl_sample_passes(coll_sample *s, const pass_vals *oop, const pass_vals *ip);

/* Parse JSON text; on a syntax error fails (NULL, ZS_ERR_INPUT) naming origin and the line. */
cJSON *nccl_json_parse(const char *text, const char *origin, zs_error *err);

/* An nccl-tests -J file, or a zerobench collective document, given to the log reader. Fails
 * like nccltests_parse_text; *out is left empty on failure. */
int nccl_parse_json_doc(const char *text, const char *origin, const char *hint, coll_samples *out,
                        zs_error *err);

#endif
