/* nccltests.h -- reading collective timings from nccl-tests logs (text or -J JSON) into samples;
 * zerobench's own JSON files are read by harness.h. */
#ifndef ZS_NCCLTESTS_H
#define ZS_NCCLTESTS_H

#include "core/error.h"

/* Collective names are canonicalised by busbw_canonical (busbw.h). */

/* One size of one collective, as one table row reports it. */
typedef struct coll_sample {
    char collective[24];  /* canonical name: "all_reduce", "all_gather", "reduce_scatter",
                             "broadcast", "reduce", "all_to_all", "send_recv", "gather",
                             "scatter", "hypercube" */
    char type[12];        /* data type column ("float", "bfloat16"); "" when absent */
    char redop[8];        /* reduction column ("sum", "none"); "" when the log has none */
    int root;             /* root column; -1 when absent or not rooted */
    int ranks;            /* ranks in the collective; 0 when unknown */
    double bytes;         /* the size column, bytes */
    double seconds;       /* out-of-place time, s; the in-place time when out-of-place is absent */
    double seconds_ip;    /* in-place time, s; 0 when absent */
    double algbw;         /* bytes/s (GB/s column x 1e9), of the pass `seconds` came from */
    double busbw;         /* bytes/s, same pass */
    int wrong;            /* wrong elements of that pass (old logs: 1 when the max error is
                             beyond nccl-tests' own tolerance, else 0); -1 when not reported */
    int line;             /* line in the file (JSON: row index, from 1) */
} coll_sample;

/* All rows of one run of one collective. */
typedef struct coll_samples {
    coll_sample *v;       /* rows in file order (heap; coll_samples_free) */
    int n;                /* rows */
    int iters;            /* timed iterations per size (-n); 0 when not reported */
    char collective[24];  /* canonical name, as in coll_sample */
    int ranks;            /* ranks in the collective (one NCCL_TESTS_SPLIT group); 0 unknown */
    int ranks_inferred;   /* 1 when ranks is not from "#  Rank" lines / device lists but from
                             busbw/algbw or nThread x nGpus */
    int hosts;            /* hosts named by the "#  Rank ... on HOST" lines of those ranks: 0
                             unknown, 1 one host, 2 more than one (zerobench: from mpi.nodes) */
    double avg_busbw;     /* bytes/s from "# Avg bus bandwidth"; -1 when absent */
    int oob;              /* "# Out of bounds values" count; -1 when absent */
    int truncated_line;   /* line of an incomplete final row that was skipped; 0 when none */
} coll_samples;

/* Parse one nccl-tests log: text output of any nccl-tests version (2017 "bytes N type op"
 * tables in ms, the 12-column "error" tables, the current 13-column "#wrong" tables, -I
 * per-iteration and -S timestamp columns, -C cputime, -c 0 "N/A"), zerobench's text output,
 * or an nccl-tests -J JSON file. Tolerates mpirun/srun/SkyPilot line prefixes, CRLF, and
 * NCCL INFO/WARN lines interleaved with (even splitting) rows. A zerobench document holding
 * one collective is read too (harness.h reads whole zerobench files). collective_hint (may be NULL)
 * names the collective when the log does not say it. Fails with ZS_ERR_INPUT naming the path
 * and line for: an unreadable, empty or binary file; no complete data rows; a truncated row
 * that is not the last one; a non-numeric field; a zero, negative or non-finite time; a log
 * holding more than one run; a collective neither in the log nor hinted, or one that
 * contradicts the hint; busbw/algbw inconsistent with the collective and rank count; with
 * ZS_ERR_NOMEM when out of memory. On failure *out is left empty (nothing to free). */
int nccltests_parse(const char *path, const char *collective_hint, coll_samples *out,
                    zs_error *err);

/* Like nccltests_parse on text already in memory; origin names it in messages. */
int nccltests_parse_text(const char *text, const char *origin, const char *collective_hint,
                         coll_samples *out, zs_error *err);

/* Release the rows; leaves *s empty. NULL is fine. Never fails. */
void coll_samples_free(coll_samples *s);

#endif
