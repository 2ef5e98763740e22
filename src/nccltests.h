/* nccltests.h -- reading collective timings from nccl-tests logs and zerobench JSON into samples. */
#ifndef ZS_NCCLTESTS_H
#define ZS_NCCLTESTS_H

#include "error.h"

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
    double avg_busbw;     /* bytes/s from "# Avg bus bandwidth"; -1 when absent */
    int oob;              /* "# Out of bounds values" count; -1 when absent */
    int truncated_line;   /* line of an incomplete final row that was skipped; 0 when none */
} coll_samples;

/* The canonical collective name for `name`: accepts the canonical names, nccl-tests binary
 * names with or without path and suffix ("./build/all_reduce_perf_mpi"), zerobench names
 * ("allreduce") and squashed or mixed-case spellings ("AllGather", "sendrecv", "alltoall").
 * Returns a static string, or NULL for anything else (including NULL). Never fails. */
const char *nccltests_collective(const char *name);

/* Parse one nccl-tests log: text output of any nccl-tests version (2017 "bytes N type op"
 * tables in ms, the 12-column "error" tables, the current 13-column "#wrong" tables, -I
 * per-iteration and -S timestamp columns, -C cputime, -c 0 "N/A"), zerobench's text output,
 * or an nccl-tests -J JSON file. Tolerates mpirun/srun/SkyPilot line prefixes, CRLF, and
 * NCCL INFO/WARN lines interleaved with (even splitting) rows. collective_hint (may be NULL)
 * names the collective when the log does not say it. Fails with ZS_ERR_INPUT naming the path
 * and line for: an unreadable, empty or binary file; no complete data rows; a truncated row
 * that is not the last one; a non-numeric field; a zero, negative or non-finite time; a log
 * holding more than one run; a collective neither in the log nor hinted, or one that
 * contradicts the hint; busbw/algbw inconsistent with the collective and rank count. On
 * failure *out is left empty (nothing to free). */
int nccltests_parse(const char *path, const char *collective_hint, coll_samples *out,
                    zs_error *err);

/* Like nccltests_parse on text already in memory; origin names it in messages. */
int nccltests_parse_text(const char *text, const char *origin, const char *collective_hint,
                         coll_samples *out, zs_error *err);

/* Release the rows; leaves *s empty. NULL is fine. Never fails. */
void coll_samples_free(coll_samples *s);

/* One row of a zerobench non-collective benchmark (adam, membw, gemm). */
typedef struct bench_point {
    char bench[16];       /* "adam", "membw", "gemm" */
    char label[48];       /* adam: variant ("fp32", "mixed"); membw: kernel ("triad");
                             gemm: "impl type MxNxK" ("blocked float 64x64x64") */
    double x;             /* work per call: adam parameters, membw bytes moved, gemm flop */
    char x_unit[8];       /* "params", "bytes", "flop" */
    double seconds;       /* average time per call, s */
    double value;         /* achieved rate from the average time: adam and membw bytes/s
                             (adam counts its bytes moved per step), gemm flop/s */
    char unit[12];        /* "bytes/s" or "flop/s" */
    int wrong;            /* wrong elements; -1 when not checked */
} bench_point;

/* Everything in one zerobench JSON file (one document, or a JSON array of documents). */
typedef struct harness_file {
    coll_samples *sets;   /* one per collective document (heap) */
    int n_sets;
    bench_point *points;  /* rows of adam/membw/gemm documents (heap) */
    int n_points;
} harness_file;

/* Read a zerobench JSON file (schema_version 1, "tool": "zerobench"). Fails with
 * ZS_ERR_INPUT naming the path and the offending document/row/key for: unreadable or
 * invalid JSON, another tool or schema version, an unknown benchmark, a missing or
 * non-numeric field, a zero/negative time, a document without rows. On failure *out is
 * left empty. */
int harness_read(const char *path, harness_file *out, zs_error *err);
int harness_read_text(const char *text, const char *origin, harness_file *out, zs_error *err);
void harness_file_free(harness_file *h);

/* The collective sets of a zerobench JSON file (*out: heap array of *n_sets, free each with
 * coll_samples_free and then the array with free()). Fails like harness_read, and when the
 * file holds no collective (say an adam-only file: use harness_read). */
int harness_parse(const char *path, coll_samples **out, int *n_sets, zs_error *err);

#endif
