/* zb_report.h -- run metadata, "#" header lines and the JSON document every sub-benchmark writes. */
#ifndef ZB_REPORT_H
#define ZB_REPORT_H

#include "be.h"
#include "json.h"
#include "opts.h"

#define ZB_SCHEMA_VERSION 1

/* Facts about the run, gathered once after be_init (rank 0's view). */
struct run_meta {
    char host[256];        /* hostname of this process */
    char cpu_model[256];   /* "model name" from /proc/cpuinfo, or "unknown" */
    int cpus;              /* online logical CPUs of this node */
    char date[32];         /* start time, ISO 8601 UTC (YYYY-MM-DDTHH:MM:SSZ) */
    char mpi_version[256]; /* first line of MPI_Get_library_version */
    int omp_threads;       /* omp_get_max_threads() */
    double loadavg;        /* 1-minute load average at start (-1 if unknown): >> 0 means shared CPUs */
};

/* A sub-benchmark's output: printing happens on proc 0 only (is_root);
 * the JSON document is built everywhere but written by proc 0 when -J. */
struct report {
    struct json j;              /* document under construction */
    struct run_meta meta;       /* collected by report_begin */
    const struct bench_opts *o; /* options of this run */
    const struct be_info *bi;   /* geometry of this run */
    int is_root;                /* 1 on MPI rank 0 */
};

/* report_begin: collects metadata (MPI must be initialized), opens the
 * JSON root with schema_version, tool, backend, benchmark, date, command,
 * system, mpi, config, and opens the "rows" array. Never fails (JSON
 * errors surface in report_finish). */
void report_begin(struct report *r, const struct bench_opts *o, const struct be_info *bi);

/* report_rows_end: closes "rows"; the caller may then add summary keys. */
void report_rows_end(struct report *r);

/* report_finish: closes the root and, on proc 0 with -J, writes the file
 * atomically. Returns 0, or 1 after printing one line on stderr when the
 * file cannot be written. Frees the document. */
int report_finish(struct report *r);

/* report_close: how every non-collective benchmark ends: closes "rows", adds
 * the "summary" object {wrong_key: bad, "ok": bad == 0 && !failed}, prints
 * (proc 0) the "Out of bounds values" verdict and finishes as report_finish.
 * Returns 1 when bad or failed, else report_finish's status. */
int report_close(struct report *r, const char *wrong_key, long long bad, int failed);

/* report_wrong_cell: the "#wrong" column of a row (proc 0's job):
 * "%6lld", or "   N/A" when unchecked (wrong < 0). No newline. */
void report_wrong_cell(long long wrong);

/* report_wrong_json: the row's "wrong" key: the count, or null when unchecked. */
void report_wrong_json(struct json *j, long long wrong);

/* bench_usage: a usage error found after MPI_Init: proc 0 prints the
 * printf-style line fmt (newline added) on stderr; every process gets 2,
 * the exit status of a usage error. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int bench_usage(const struct be_info *bi, const char *fmt, ...);

/* bench_next_size: the sweep's next size (-f factor, else +step bytes); 0
 * once past max_bytes or on overflow. */
size_t bench_next_size(const struct bench_opts *o, size_t size, size_t factor);

/* Agreement over processes (each collective over MPI_COMM_WORLD, so every
 * process calls it at the same point):
 * bench_all_ok: 1 when ok holds on every process;
 * bench_max: x[i] = the largest x[i] over processes for i < n (a row's
 *   times are the slowest process's);
 * bench_wrong_total: wrong summed over processes when o->check, else wrong
 *   as it is (-1, unchecked; then nothing is communicated). */
int bench_all_ok(int ok);
void bench_max(double *x, int n);
long long bench_wrong_total(const struct bench_opts *o, long long wrong);

/* bench_row_total: a row's numbers over processes: *avg and *best the
 * slowest process's, *wrong summed as bench_wrong_total. Returns 1 when the
 * row is wrong somewhere (*wrong > 0), else 0. Collective. */
int bench_row_total(const struct bench_opts *o, double *avg, double *best, long long *wrong);

/* report_header: prints "# zerobench <bench> ..." identity lines (proc 0). */
void report_header(const struct report *r);

#endif
