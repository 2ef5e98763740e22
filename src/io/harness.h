/* harness.h -- reading zerobench -J JSON files: collective sets, adam/membw/gemm points, and
 * where the benchmark ran. */
#ifndef ZS_HARNESS_H
#define ZS_HARNESS_H

#include <cjson/cJSON.h>

#include "core/error.h"
#include "io/ncclrows.h"

/* One row of a zerobench non-collective benchmark (adam, membw, gemm). */
typedef struct bench_point {
    char bench[16]; /* "adam", "membw", "gemm" */
    char label[48]; /* adam: variant ("fp32", "mixed"); membw: kernel ("triad");
                       gemm: "impl type MxNxK" ("blocked float 64x64x64") */
    double x;       /* work per call: adam parameters, membw bytes moved, gemm flop */
    char x_unit[8]; /* "params", "bytes", "flop" */
    double seconds; /* average time per call, s */
    double value;   /* achieved rate from the average time: adam and membw bytes/s
                       (adam counts its bytes moved per step), gemm flop/s */
    char unit[12];  /* "bytes/s" or "flop/s" */
    int wrong;      /* wrong elements; -1 when not checked */
} bench_point;

/* Everything in one zerobench JSON file (one document, or a JSON array of documents). */
typedef struct harness_file {
    coll_samples *sets; /* one per collective document (heap); hosts from mpi.nodes */
    int n_sets;
    bench_point *points; /* rows of adam/membw/gemm documents (heap) */
    int n_points;
    char backend[16];   /* "cpu" (MPI + OpenMP) or "cuda" (NCCL); "" when absent */
    int ranks_per_node; /* mpi.ranks_per_node; 0 when absent */
    int nodes;          /* mpi.nodes; 0 when absent */
    char cpu_model[96]; /* system.cpu_model ("" when absent) */
    int cpus;           /* system.cpus; 0 when absent */
} harness_file;

/* Read a zerobench JSON file (schema_version 1, "tool": "zerobench"). Fails with
 * ZS_ERR_INPUT naming the path and the offending document/row/key for: unreadable or
 * invalid JSON, another tool or schema version, an unknown benchmark, a missing or
 * non-numeric field, a zero/negative time, a document without rows, documents naming
 * different back ends; with ZS_ERR_NOMEM when out of memory. On failure *out is left empty. */
int harness_read(const char *path, harness_file *out, zs_error *err);

/* The same on text in memory; origin names it in messages (NULL: "(json)"). */
int harness_read_text(const char *text, const char *origin, harness_file *out, zs_error *err);

/* The same on parsed JSON; *out must start zeroed. */
int harness_from_cjson(const cJSON *root, const char *origin, harness_file *out, zs_error *err);

/* Release everything; leaves *h empty. NULL is fine. Never fails. */
void harness_file_free(harness_file *h);

/* The collective sets of a zerobench JSON file (*out: heap array of *n_sets, free each with
 * coll_samples_free and then the array with free()). Fails like harness_read, and when the
 * file holds no collective (say an adam-only file: use harness_read). */
int harness_parse(const char *path, coll_samples **out, int *n_sets, zs_error *err);

#endif
