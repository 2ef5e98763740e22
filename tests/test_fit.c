/* test_fit.c -- nccl-tests/zerobench log parsing and the GSL alpha-beta, efficiency and scale fits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/busbw.h"
#include "analysis/fit.h"
#include "io/harness.h"
#include "io/nccltests.h"
#include "test.h"
#include "core/units.h"

#define NCCL_DIR "tests/data/nccl/"
#define HARN_DIR "tests/data/harness/"

/* ------------------------------------------------------------------ helpers */

/* Deterministic noise: a 32-bit LCG (Numerical Recipes constants) and Box-Muller. */
typedef struct lcg { unsigned long x; } lcg;

static double lcg_uniform(lcg *g) /* (0, 1) */
{
    g->x = (1664525UL * g->x + 1013904223UL) & 0xffffffffUL;
    return ((double)g->x + 0.5) / 4294967296.0;
}

static double lcg_normal(lcg *g)
{
    double u = lcg_uniform(g), v = lcg_uniform(g);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static int contains(const char *s, const char *sub) { return s && sub && strstr(s, sub) != NULL; }

/* Parse and expect failure whose message names `want`. */
static void expect_parse_error(const char *path, const char *hint, const char *want)
{
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse(path, hint, &s, &e);
    CHECK_EQ_INT(rc, ZS_ERR_INPUT);
    test_report(contains(e.msg, want), __FILE__, __LINE__, "%s: message \"%s\" lacks \"%s\"",
                path, e.msg, want);
    CHECK(s.v == NULL && s.n == 0);
}

/* Every row with >= 3 significant digits of algbw has busbw = algbw x factor (1%). */
static void check_busbw_factor(const coll_samples *s, double factor)
{
    int checked = 0, bad = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->v[i].algbw < 1e9) continue;
        checked++;
        if (fabs(s->v[i].busbw - s->v[i].algbw * factor) > 0.01 * s->v[i].busbw) bad++;
    }
    test_report(checked > 0 && bad == 0, __FILE__, __LINE__,
                "%s: busbw = algbw x %.4f fails on %d of %d rows", s->collective, factor, bad, checked);
}

static const coll_sample *row_of(const coll_samples *s, double bytes)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].bytes == bytes) return &s->v[i];
    return NULL;
}

/* Fit a parsed log and compare with the model it was generated from (README.md). */
static void check_log_fit(const coll_samples *s, double alpha, double busbw)
{
    double *b = malloc((size_t)s->n * sizeof *b), *t = malloc((size_t)s->n * sizeof *t);
    for (int i = 0; i < s->n; i++) {
        b[i] = s->v[i].bytes;
        t[i] = s->v[i].seconds;
    }
    ab_fit f;
    zs_error e = {0};
    int rc = fit_alpha_beta(b, t, s->n, busbw_factor(s->collective, s->ranks), 0, &f, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    test_report(fabs(f.latency - alpha) <= 3 * f.latency_stderr + 1e-9, __FILE__, __LINE__,
                "%s: latency %.4g us +- %.2g, model %.4g us", s->collective, f.latency * 1e6,
                f.latency_stderr * 1e6, alpha * 1e6);
    test_report(fabs(f.busbw - busbw) <= 3 * f.busbw_stderr, __FILE__, __LINE__,
                "%s: busbw %.5g GB/s +- %.2g, model %.5g GB/s", s->collective, f.busbw / 1e9,
                f.busbw_stderr / 1e9, busbw / 1e9);
    CHECK(f.r2 > 0.99);
    free(b);
    free(t);
}

/* ------------------------------------------------------------------ collective names */

static void test_collective_names(void)
{
    CHECK_STREQ(busbw_canonical("all_reduce"), "all_reduce");
    CHECK_STREQ(busbw_canonical("./build/all_reduce_perf_mpi"), "all_reduce");
    CHECK_STREQ(busbw_canonical("alltoall_perf"), "all_to_all");
    CHECK_STREQ(busbw_canonical("all_to_all"), "all_to_all");
    CHECK_STREQ(busbw_canonical("AllGather"), "all_gather");
    CHECK_STREQ(busbw_canonical("reducescatter"), "reduce_scatter");
    CHECK_STREQ(busbw_canonical("sendrecv"), "send_recv");
    CHECK_STREQ(busbw_canonical("reduce"), "reduce");
    CHECK_STREQ(busbw_canonical("hypercube_perf"), "hypercube");
    CHECK(busbw_canonical("alltoallv") == NULL);
    CHECK(busbw_canonical("frobnicate") == NULL);
    CHECK(busbw_canonical(NULL) == NULL);
}

/* ------------------------------------------------------------------ nccl-tests text logs */

/* Per-log checks beyond the table's columns (the parse succeeded). */
static void current_rows(const coll_samples *s)
{
    CHECK_EQ_INT(s->ranks_inferred, 0);
    CHECK_EQ_INT(s->hosts, 1); /* every "#  Rank" line says "on dgx-h100-01" */
    CHECK_EQ_INT(s->oob, 0);
    CHECK_NEAR(s->avg_busbw, 139.918e9, 1e-9);
    CHECK_EQ_INT(s->truncated_line, 0);
    CHECK_NEAR(s->v[0].bytes, 8, 0);
    CHECK_NEAR(s->v[0].seconds_ip, 13.91e-6, 1e-12);
    CHECK_EQ_INT(s->v[0].line, 18);
    CHECK_EQ_INT(s->v[0].wrong, 0);
    CHECK_EQ_INT(s->v[0].root, -1);
    CHECK_EQ_INT(s->v[0].ranks, 8);
    CHECK_STREQ(s->v[0].type, "float");
    CHECK_STREQ(s->v[0].redop, "sum");
    CHECK_STREQ(s->v[0].collective, "all_reduce");
    const coll_sample *last = &s->v[30];
    CHECK_NEAR(last->bytes, 8589934592.0, 0);
    CHECK_NEAR(last->seconds, 41494.5e-6, 1e-12);
    CHECK_NEAR(last->algbw, 207.01e9, 1e-12);
    CHECK_NEAR(last->busbw, 362.27e9, 1e-12);
    CHECK_NEAR(last->seconds_ip, 42390.7e-6, 1e-12);
}

static void col12_rows(const coll_samples *s)
{
    CHECK_EQ_INT(s->oob, 1);
    CHECK_STREQ(s->v[0].redop, "sum");
    CHECK_EQ_INT(s->v[0].root, -1);
    /* 5e-07 and 1e-06 are within float's 1e-5 x (16 - 1): fine; 2e-03 is not */
    const coll_sample *ok = row_of(s, 1 << 20), *bad = row_of(s, 4 << 20);
    CHECK(ok && bad);
    if (ok && bad) {
        CHECK_EQ_INT(ok->wrong, 0);
        CHECK_EQ_INT(bad->wrong, 1);
    }
    int wrong = 0;
    for (int i = 0; i < s->n; i++) wrong += s->v[i].wrong;
    CHECK_EQ_INT(wrong, 1);
}

static void ms2018_rows(const coll_samples *s)
{
    CHECK_EQ_INT(s->oob, 0);
    const coll_sample *big = row_of(s, 64 << 20);
    CHECK(big != NULL);
    if (big) {
        CHECK(big->seconds > 5e-3 && big->seconds < 8e-3); /* ~6.7 ms at 10 GB/s */
        CHECK_NEAR(big->algbw, 67108864.0 / big->seconds, 0.01);
    }
}

static void tagged_rows(const coll_samples *s)
{
    CHECK_EQ_INT(s->hosts, 2); /* ranks 0-7 "on node-a", 8-15 "on node-b" */
    CHECK(row_of(s, 99999) == NULL);
    CHECK_NEAR(s->v[0].bytes, 1024, 0);
    CHECK_STREQ(s->v[0].redop, "none");
    for (int i = 1; i < s->n; i++) CHECK(s->v[i].bytes == 4 * s->v[i - 1].bytes);
}

static void split_rows(const coll_samples *s)
{
    const coll_sample *r = row_of(s, 4096);
    CHECK(r != NULL);
    if (r) {
        CHECK_NEAR(r->seconds, 21.78e-6, 1e-12);
        CHECK_NEAR(r->seconds_ip, 22.25e-6, 1e-12);
        CHECK_NEAR(r->busbw, 0.35e9, 1e-12);
        CHECK_EQ_INT(r->line, 28);
    }
    CHECK(row_of(s, 16 << 20) != NULL);
}

static void timestamps_na_rows(const coll_samples *s)
{
    int na = 0;
    for (int i = 0; i < s->n; i++) na += s->v[i].wrong == -1;
    CHECK_EQ_INT(na, s->n);
}

static void per_iter_rows(const coll_samples *s)
{
    CHECK_NEAR(s->v[0].seconds_ip, 25.03e-6, 1e-12);
    CHECK_EQ_INT(s->v[0].wrong, 0);
}

static void crlf_rows(const coll_samples *s) { CHECK_NEAR(s->v[0].bytes, 1048576, 0); }

/* The nccl-tests logs of tests/data/nccl/ (README.md there says how each was made): what the
 * parse must find, and the alpha-beta model the times were generated from. */
static const struct log_case {
    const char *file;
    const char *collective; /* NULL: not checked */
    int n, ranks;
    int iters;              /* -1: not checked */
    double first_seconds;   /* seconds of the first row; 0: not checked */
    double busbw_factor;    /* busbw / algbw of every precise row */
    double alpha, busbw;    /* the model: seconds, bytes/s; busbw 0: no fit */
    void (*more)(const coll_samples *s);
} log_cases[] = {
    /* Current (2022+) 13-column table; model alpha 14 us, busbw 360 GB/s. */
    {"all_reduce_2.19_h100x8.log", "all_reduce", 31, 8, 20, 13.89e-6, 2.0 * 7 / 8, 14e-6, 360e9,
     current_rows},
    /* Pre-2022 12-column table ("error" = max deviation), old "#   Rank" lines, command echo;
     * the collective from "./build/all_reduce_perf". */
    {"all_reduce_2021_12col_v100x16.log", "all_reduce", 25, 16, 20, 29.77e-6, 2.0 * 15 / 16, 30e-6, 11.5e9,
     col12_rows},
    /* 2017-2019 table: "bytes N type op ... res", times in ms, header lines without '#'. */
    {"all_reduce_2018_ms_titanx2.log", "all_reduce", 24, 2, 20, 0.009e-3, 1.0, 0, 0, ms2018_rows},
    /* mpirun --tag-output, NCCL INFO/WARN interleaved, lines of rank 8 and 3 dropped. */
    {"all_gather_tagged_info_h100x16.log", "all_gather", 11, 16, 50, 39.70e-6, 15.0 / 16, 40e-6, 320e9,
     tagged_rows},
    /* Rows split by NCCL tuning lines, "[0] " prefixes glued mid-line. */
    {"all_reduce_split_rows_h100x16.log", NULL, 11, 16, -1, 0, 2.0 * 15 / 16, 22e-6, 90e9, split_rows},
    /* -S 1 timestamps, -c 0 (#wrong N/A), send/recv on two ranks. */
    {"send_recv_timestamps_nocheck_a100x2.log", "send_recv", 10, 2, 50, 7.94e-6, 1.0, 8e-6, 24e9,
     timestamps_na_rows},
    /* -I 1: per-iteration columns after each pass must not be mistaken for the next pass. */
    {"all_to_all_per_iter_h200x8.log", "all_to_all", 7, 8, 100, 24.83e-6, 7.0 / 8, 25e-6, 300e9,
     per_iter_rows},
    /* CRLF line endings; collective from a command echo. */
    {"reduce_scatter_crlf_a6000x4.log", "reduce_scatter", 11, 4, -1, 0, 3.0 / 4, 30e-6, 18e9, crlf_rows},
};

/* Every log of the table: parsed, checked column by column, fitted, freed. Failures name the
 * log (as the running test). */
static void test_parse_logs(void)
{
    char path[256];
    for (size_t k = 0; k < sizeof log_cases / sizeof log_cases[0]; k++) {
        const struct log_case *c = &log_cases[k];
        test_current = c->file;
        snprintf(path, sizeof path, NCCL_DIR "%s", c->file);
        coll_samples s;
        zs_error e = {0};
        int rc = nccltests_parse(path, NULL, &s, &e);
        CHECK_EQ_INT(rc, ZS_OK);
        if (rc) { fprintf(stderr, "  %s\n", e.msg); continue; }
        if (c->collective) CHECK_STREQ(s.collective, c->collective);
        CHECK_EQ_INT(s.n, c->n);
        CHECK_EQ_INT(s.ranks, c->ranks);
        if (c->iters >= 0) CHECK_EQ_INT(s.iters, c->iters);
        if (c->first_seconds > 0) CHECK_NEAR(s.v[0].seconds, c->first_seconds, 1e-12);
        c->more(&s);
        check_busbw_factor(&s, c->busbw_factor);
        if (c->busbw > 0) check_log_fit(&s, c->alpha, c->busbw);
        coll_samples_free(&s);
        CHECK(s.v == NULL && s.n == 0);
    }
}

/* No header at all: the layout is guessed and the collective must be given. */
static void test_parse_rows_only(void)
{
    expect_parse_error(NCCL_DIR "broadcast_rows_only.txt", NULL, "does not name its collective");
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse(NCCL_DIR "broadcast_rows_only.txt", "broadcast", &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (rc) { fprintf(stderr, "  %s\n", e.msg); return; }
    CHECK_STREQ(s.collective, "broadcast");
    CHECK_EQ_INT(s.n, 22);
    CHECK_EQ_INT(s.ranks, 0); /* busbw = algbw for broadcast: nothing to infer from */
    CHECK_EQ_INT(s.v[0].root, 0);
    CHECK_STREQ(s.v[0].redop, "");
    CHECK_EQ_INT(s.v[0].wrong, 0);
    CHECK_NEAR(s.v[0].seconds, 11.93e-6, 1e-12);
    check_busbw_factor(&s, 1.0);
    coll_samples_free(&s);
}

/* Killed mid-row: the incomplete last row is skipped and reported. */
static void test_parse_truncated_last(void)
{
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse(NCCL_DIR "all_reduce_truncated_a100x8.log", NULL, &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (rc) { fprintf(stderr, "  %s\n", e.msg); return; }
    CHECK_EQ_INT(s.n, 8);
    CHECK_EQ_INT(s.truncated_line, 26);
    CHECK_NEAR(s.v[7].bytes, 134217728, 0);
    CHECK(row_of(&s, 268435456) == NULL);
    coll_samples_free(&s);
}

/* nccl-tests -J JSON output. */
static void test_parse_nccltests_json(void)
{
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse(NCCL_DIR "all_reduce_nccltests_J.json", NULL, &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (rc) { fprintf(stderr, "  %s\n", e.msg); return; }
    CHECK_STREQ(s.collective, "all_reduce");
    CHECK_EQ_INT(s.n, 9);
    CHECK_EQ_INT(s.ranks, 8);
    CHECK_EQ_INT(s.iters, 20);
    CHECK_EQ_INT(s.oob, 0);
    CHECK_EQ_INT(s.v[0].root, -1);
    CHECK_EQ_INT(s.v[0].wrong, 0);
    CHECK(s.avg_busbw > 0);
    check_busbw_factor(&s, 2.0 * 7 / 8);
    check_log_fit(&s, 14e-6, 360e9);
    coll_samples_free(&s);
}

/* zerobench's own text output reads like an nccl-tests log. */
static void test_parse_zerobench_text(void)
{
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse(HARN_DIR "allgather_nocheck_cpu3.txt", NULL, &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_STREQ(s.collective, "all_gather");
        CHECK_EQ_INT(s.n, 3);
        CHECK_EQ_INT(s.ranks, 3);
        CHECK_EQ_INT(s.iters, 3);
        CHECK_EQ_INT(s.v[0].wrong, -1);
        CHECK_NEAR(s.v[2].bytes, 98304, 0);
        CHECK_NEAR(s.v[2].seconds, 112.05e-6, 1e-12);
        coll_samples_free(&s);
    }
    rc = nccltests_parse(HARN_DIR "broadcast_iter_cpu2.txt", "broadcast", &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_STREQ(s.collective, "broadcast");
        CHECK_EQ_INT(s.n, 3);
        CHECK_EQ_INT(s.v[1].root, 0);
        CHECK_NEAR(s.v[1].seconds, 6.70e-6, 1e-12);
        CHECK_NEAR(s.v[1].seconds_ip, 3.97e-6, 1e-12);
        coll_samples_free(&s);
    }
    rc = nccltests_parse(HARN_DIR "allreduce_cpu4.json", NULL, &s, &e); /* JSON via the log reader */
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_STREQ(s.collective, "all_reduce");
        CHECK_EQ_INT(s.n, 9);
        coll_samples_free(&s);
    }
}

/* In-memory text: CRLF and an explicit origin in messages. */
static void test_parse_text_api(void)
{
    const char *log =
        "# Collective test starting: broadcast_perf\r\n"
        "#  Rank  0 Group  0 Pid      1 on h device  0 [0x01] G\r\n"
        "#  Rank  1 Group  0 Pid      1 on h device  1 [0x02] G\r\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\r\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\r\n"
        "     1048576        262144     float    none       0    20.00   52.43   52.43      0    20.00   52.43   52.43      0\r\n"
        "     2097152        524288     float    none       0    30.00   69.91   69.91      0    31.00   67.65   67.65      0\r\n";
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse_text(log, "mem", NULL, &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(s.n, 2);
        CHECK_EQ_INT(s.ranks, 2);
        CHECK_STREQ(s.collective, "broadcast");
        CHECK_NEAR(s.v[1].seconds_ip, 31e-6, 1e-12);
        coll_samples_free(&s);
    }
    rc = nccltests_parse_text("\n\n  \n", "mem", "all_reduce", &s, &e);
    CHECK_EQ_INT(rc, ZS_ERR_INPUT);
    CHECK(contains(e.msg, "mem: ") && contains(e.msg, "empty"));
    rc = nccltests_parse_text(log, "mem", "frob", &s, &e);
    CHECK_EQ_INT(rc, ZS_ERR_INPUT);
    CHECK(contains(e.msg, "unknown collective"));
}

/* Hint handling: a hint fills a gap, and contradicting the log or busbw is refused. */
static void test_parse_hints(void)
{
    expect_parse_error(NCCL_DIR "all_reduce_2.19_h100x8.log", "all_gather", "all_reduce run");
    expect_parse_error(NCCL_DIR "no_collective_named.log", NULL, "does not name its collective");
    expect_parse_error(NCCL_DIR "no_collective_named.log", "all_gather", "busbw/algbw");
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse(NCCL_DIR "no_collective_named.log", "all_reduce_perf", &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(s.n, 31);
        CHECK_STREQ(s.collective, "all_reduce");
        coll_samples_free(&s);
    }
}

/* Ranks from busbw/algbw when no "#  Rank" lines survive. */
static void test_parse_ranks_inferred(void)
{
    const char *log =
        "     1048576         65536     float    none      -1    20.00   52.43   49.15      0    20.00   52.43   49.15      0\n"
        "     2097152        131072     float    none      -1    30.00   69.91   65.54      0    31.00   67.65   63.42      0\n";
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse_text(log, "mem", "all_gather", &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(s.ranks, 16);
        CHECK_EQ_INT(s.ranks_inferred, 1);
        coll_samples_free(&s);
    }
}

static void test_parse_errors(void)
{
    expect_parse_error(NCCL_DIR "bad_empty.log", NULL, "empty");
    expect_parse_error(NCCL_DIR "does_not_exist.log", NULL, "cannot open");
    expect_parse_error(NCCL_DIR "bad_header_only.log", NULL, "no data rows");
    expect_parse_error(NCCL_DIR "bad_truncated_only.log", NULL, "truncated");
    expect_parse_error(NCCL_DIR "bad_nonnumeric.log", NULL, ":20: out-of-place time \"14.O9\"");
    expect_parse_error(NCCL_DIR "bad_nonnumeric.log", NULL, "not a number");
    expect_parse_error(NCCL_DIR "bad_zero_time.log", NULL, "not positive");
    expect_parse_error(NCCL_DIR "bad_midtruncated.log", NULL, ":20: row is truncated");
    expect_parse_error(NCCL_DIR "bad_two_runs.log", NULL, "second nccl-tests run");
    expect_parse_error(NCCL_DIR "bad_no_mpi.log", NULL, "MPI=1");
    expect_parse_error(NCCL_DIR "bad_binary.bin", NULL, "text file");
    expect_parse_error(NCCL_DIR "bad_binary_nonul.bin", NULL, "not a text log");
    expect_parse_error(HARN_DIR "adam_cpu1.json", NULL, "holds zerobench adam results");
    expect_parse_error(HARN_DIR "adam_cpu1.txt", NULL, "zerobench adam output");
    expect_parse_error(NCCL_DIR "bad_utf16.log", NULL, "UTF-16");
    expect_parse_error(NCCL_DIR "bad_alltoallv.log", NULL, "alltoallv_perf is not a collective");
    expect_parse_error(NCCL_DIR "bad_alltoallv.log", "all_to_all", "alltoallv_perf");
}

/* Passes given as N/A, NCCL_TESTS_SPLIT groups, a UTF-8 byte-order mark. */
static void test_parse_odd_rows(void)
{
    const char *log =
        "\xef\xbb\xbf# Collective test starting: all_reduce_perf\n"
        "#  Rank  0 Group  0 Pid      1 on h device  0 [0x01] G\n"
        "#  Rank  1 Group  1 Pid      1 on h device  1 [0x02] G\n"
        "#  Rank  2 Group  0 Pid      1 on h device  2 [0x03] G\n"
        "#  Rank  3 Group  1 Pid      1 on h device  3 [0x04] G\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0      N/A     N/A     N/A    N/A\n"
        "     2097152        524288     float     sum      -1      N/A     N/A     N/A    N/A    31.00   67.65   67.65      2\n";
    coll_samples s;
    zs_error e = {0};
    int rc = nccltests_parse_text(log, "mem", NULL, &s, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (rc) { fprintf(stderr, "  %s\n", e.msg); return; }
    CHECK_STREQ(s.collective, "all_reduce");
    CHECK_EQ_INT(s.ranks, 2); /* two groups of two: busbw uses the group size */
    CHECK_NEAR(s.v[0].seconds, 20e-6, 1e-12);
    CHECK_NEAR(s.v[0].seconds_ip, 0, 0);
    CHECK_NEAR(s.v[1].seconds, 31e-6, 1e-12);
    CHECK_NEAR(s.v[1].seconds_ip, 31e-6, 1e-12);
    CHECK_EQ_INT(s.v[1].wrong, 2);
    coll_samples_free(&s);
}

/* ------------------------------------------------------------------ zerobench JSON */

static void test_harness_collectives(void)
{
    coll_samples *sets;
    int n;
    zs_error e = {0};
    int rc = harness_parse(HARN_DIR "allreduce_cpu4.json", &sets, &n, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (rc) { fprintf(stderr, "  %s\n", e.msg); return; }
    CHECK_EQ_INT(n, 1);
    CHECK_STREQ(sets[0].collective, "all_reduce");
    CHECK_EQ_INT(sets[0].ranks, 4);
    CHECK_EQ_INT(sets[0].hosts, 1); /* "mpi": {"nodes": 1} */
    CHECK_EQ_INT(sets[0].iters, 5);
    CHECK_EQ_INT(sets[0].n, 9);
    CHECK_EQ_INT(sets[0].oob, 0);
    CHECK_NEAR(sets[0].v[0].bytes, 8, 0);
    CHECK_NEAR(sets[0].v[0].seconds, 55.8491e-6, 1e-9);
    CHECK_NEAR(sets[0].v[0].seconds_ip, 46.88165001e-6, 1e-9);
    CHECK_EQ_INT(sets[0].v[0].wrong, 0);
    CHECK_STREQ(sets[0].v[0].type, "float");
    CHECK_STREQ(sets[0].v[0].redop, "sum");
    for (int i = 0; i < sets[0].n; i++)
        CHECK_NEAR(sets[0].v[i].busbw, sets[0].v[i].algbw * 1.5, 1e-6);
    for (int i = 0; i < n; i++) coll_samples_free(&sets[i]);
    free(sets);

    rc = harness_parse(HARN_DIR "allgather_nocheck_cpu3.json", &sets, &n, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_STREQ(sets[0].collective, "all_gather");
        CHECK_EQ_INT(sets[0].v[0].wrong, -1);
        coll_samples_free(&sets[0]);
        free(sets);
    }
}

static void test_harness_points(void)
{
    harness_file h;
    zs_error e = {0};
    int rc = harness_read(HARN_DIR "adam_cpu1.json", &h, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(h.n_sets, 0);
        CHECK_EQ_INT(h.n_points, 6);
        CHECK_STREQ(h.points[0].bench, "adam");
        CHECK_STREQ(h.points[0].label, "fp32");
        CHECK_STREQ(h.points[1].label, "mixed");
        CHECK_NEAR(h.points[0].x, 1048576, 0);
        CHECK_STREQ(h.points[0].x_unit, "params");
        CHECK_STREQ(h.points[0].unit, "bytes/s");
        CHECK_NEAR(h.points[0].value, 29360128 / h.points[0].seconds, 1e-12);
        CHECK_EQ_INT(h.points[0].wrong, 0);
        harness_file_free(&h);
    }
    rc = harness_read(HARN_DIR "membw_cpu1.json", &h, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(h.n_points, 8);
        CHECK_STREQ(h.points[3].label, "triad");
        CHECK_NEAR(h.points[3].x, 3145728, 0);
        harness_file_free(&h);
    }
    rc = harness_read(HARN_DIR "gemm_cpu1.json", &h, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(h.n_points, 2);
        CHECK_STREQ(h.points[0].label, "blocked float 64x64x64");
        CHECK_NEAR(h.points[0].x, 2.0 * 64 * 64 * 64, 0);
        CHECK_STREQ(h.points[0].unit, "flop/s");
        CHECK_NEAR(h.points[0].value, 524288 / 46.17400001e-6, 1e-9);
        harness_file_free(&h);
    }
    rc = harness_read(HARN_DIR "multi_docs.json", &h, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (!rc) {
        CHECK_EQ_INT(h.n_sets, 2);
        CHECK_EQ_INT(h.n_points, 8);
        CHECK_STREQ(h.sets[1].collective, "broadcast");
        CHECK_EQ_INT(h.sets[1].v[0].root, 0);
        harness_file_free(&h);
    }
}

static void test_harness_errors(void)
{
    struct { const char *file, *want; } cases[] = {
        {HARN_DIR "bad_schema.json", "schema_version 2"},
        {HARN_DIR "bad_time.json", "rows[2].out_of_place.time_us: 0 is not positive"},
        {HARN_DIR "bad_tool.json", "not a zerobench result"},
        {HARN_DIR "bad_truncated.json", "invalid JSON"},
        {HARN_DIR "adam_cpu1.json", "no collective"},
        {NCCL_DIR "bad_empty.log", "empty"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        static coll_samples dummy;
        coll_samples *sets = &dummy;
        int n = -1;
        zs_error e = {0};
        int rc = harness_parse(cases[i].file, &sets, &n, &e);
        CHECK_EQ_INT(rc, ZS_ERR_INPUT);
        test_report(contains(e.msg, cases[i].want), __FILE__, __LINE__,
                    "%s: message \"%s\" lacks \"%s\"", cases[i].file, e.msg, cases[i].want);
        CHECK(sets == NULL && n == 0);
    }
}

/* ------------------------------------------------------------------ alpha-beta fits */

static void test_busbw_factor(void)
{
    CHECK_NEAR(busbw_factor("all_reduce", 8), 1.75, 1e-15);
    CHECK_NEAR(busbw_factor("all_gather", 8), 0.875, 1e-15);
    CHECK_NEAR(busbw_factor("reduce_scatter", 4), 0.75, 1e-15);
    CHECK_NEAR(busbw_factor("alltoall", 16), 15.0 / 16, 1e-15);
    CHECK_NEAR(busbw_factor("broadcast", 64), 1, 0);
    CHECK_NEAR(busbw_factor("reduce", 64), 1, 0);
    CHECK_NEAR(busbw_factor("send_recv", 2), 1, 0);
    CHECK_NEAR(busbw_factor("all_reduce", 1), 0, 0);
    CHECK_NEAR(busbw_factor("nope", 8), 0, 0);
    CHECK_NEAR(busbw_factor("all_reduce", 0), 0, 0);
    /* gather, scatter: (n-1)/n (nccl-tests src/gather.cu, src/scatter.cu GetBw); hypercube's
     * algbw already counts (n-1)/n of the size, so nccl-tests prints busbw = algbw */
    CHECK_NEAR(busbw_factor("gather", 4), 0.75, 1e-15);
    CHECK_NEAR(busbw_factor("scatter_perf", 4), 0.75, 1e-15);
    CHECK_EQ_INT(busbw_lookup("hypercube")->printed, BUSBW_NONE);
    CHECK_STREQ(busbw_canonical("./build/sendrecv_perf_mpi"), "send_recv");
    /* the simulator's coll_ops take theirs from the same place */
    CHECK_NEAR(busbw_all_reduce(8), 1.75, 1e-15);
    CHECK_NEAR(busbw_share(8), 0.875, 1e-15);
    CHECK_NEAR(busbw_one(8), 1, 0);
}

/* zerobench says where it ran: back end and MPI layout, read once with the rows. */
static void test_harness_where(void)
{
    harness_file h;
    zs_error e = {0};
    int rc = harness_read(HARN_DIR "allreduce_cpu4.json", &h, &e);
    CHECK_EQ_INT(rc, ZS_OK);
    if (rc) return;
    CHECK_STREQ(h.backend, "cpu");
    CHECK_EQ_INT(h.ranks_per_node, 4);
    CHECK_EQ_INT(h.nodes, 1);
    harness_file_free(&h);
    const char *mixed = "[{\"tool\":\"zerobench\",\"schema_version\":1,\"backend\":\"cpu\",\"benchmark\":\"membw\","
                        "\"rows\":[{\"kernel\":\"triad\",\"bytes\":1e6,\"time_us\":100}]},"
                        "{\"tool\":\"zerobench\",\"schema_version\":1,\"backend\":\"cuda\",\"benchmark\":\"membw\","
                        "\"rows\":[{\"kernel\":\"triad\",\"bytes\":1e6,\"time_us\":100}]}]";
    CHECK_EQ_INT(harness_read_text(mixed, "mixed.json", &h, &e), ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "back end") != NULL);
}

/* 8 B .. 8 GiB by factors of 2: 31 sizes. */
static int sweep(double *bytes)
{
    int n = 0;
    for (double b = 8; b <= 8 * GiB; b *= 2) bytes[n++] = b;
    return n;
}

static void synth(lcg *g, const double *bytes, int n, double alpha, double bw, double factor,
                  double noise, double *t)
{
    for (int i = 0; i < n; i++)
        t[i] = (alpha + bytes[i] * factor / bw) * (1 + noise * lcg_normal(g));
}

static void test_fit_synthetic(void)
{
    static const struct { double alpha, bw, factor; } cases[] = {
        {5e-6, 25e9, 1.75}, {20e-6, 200e9, 1.875}, {50e-6, 12e9, 0.875}, {2e-6, 900e9, 1.0},
        {100e-6, 3e9, 0.5},
    };
    double bytes[64], t[64];
    int n = sweep(bytes);
    CHECK_EQ_INT(n, 31);
    lcg g = {12345};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        synth(&g, bytes, n, cases[c].alpha, cases[c].bw, cases[c].factor, 0.02, t);
        ab_fit f;
        zs_error e = {0};
        int rc = fit_alpha_beta(bytes, t, n, cases[c].factor, 0, &f, &e);
        CHECK_EQ_INT(rc, ZS_OK);
        test_report(fabs(f.latency - cases[c].alpha) <= 3 * f.latency_stderr, __FILE__, __LINE__,
                    "case %zu: latency %.5g +- %.2g, true %.5g", c, f.latency, f.latency_stderr,
                    cases[c].alpha);
        test_report(fabs(f.busbw - cases[c].bw) <= 3 * f.busbw_stderr, __FILE__, __LINE__,
                    "case %zu: busbw %.5g +- %.2g, true %.5g", c, f.busbw, f.busbw_stderr,
                    cases[c].bw);
        /* the stated errors are of the right size: 2% noise over 31 points */
        CHECK(f.latency_stderr > 0 && f.latency_stderr < 0.02 * cases[c].alpha);
        CHECK(f.busbw_stderr > 0 && f.busbw_stderr < 0.02 * cases[c].bw);
        CHECK_NEAR(f.busbw_stderr, sqrt(f.cov[1][1]) * f.busbw * f.busbw, 1e-9);
        CHECK_NEAR(f.cov[0][1], f.cov[1][0], 1e-12);
        CHECK(f.r2 > 0.99 && f.r2 <= 1);
        CHECK_EQ_INT(f.n, n);
        CHECK_EQ_INT(f.outliers, 0);
        /* the robust fit agrees on clean data */
        ab_fit fr;
        rc = fit_alpha_beta(bytes, t, n, cases[c].factor, 1, &fr, &e);
        CHECK_EQ_INT(rc, ZS_OK);
        CHECK(fr.outliers <= 1);
        CHECK(fabs(fr.busbw - cases[c].bw) <= 3 * fr.busbw_stderr);
    }
}

/* Noise-free data: exact recovery, zero spread. */
static void test_fit_exact(void)
{
    double bytes[64], t[64];
    int n = sweep(bytes);
    lcg g = {1};
    synth(&g, bytes, n, 7e-6, 48e9, 1.5, 0, t);
    ab_fit f;
    zs_error e = {0};
    CHECK_EQ_INT(fit_alpha_beta(bytes, t, n, 1.5, 0, &f, &e), ZS_OK);
    CHECK_NEAR(f.latency, 7e-6, 1e-9);
    CHECK_NEAR(f.busbw, 48e9, 1e-9);
    CHECK_NEAR(f.r2, 1, 1e-12);
}

static void test_fit_robust(void)
{
    double bytes[64], t[64];
    int n = sweep(bytes);
    lcg g = {777};
    const double alpha = 15e-6, bw = 150e9, fac = 1.75;
    synth(&g, bytes, n, alpha, bw, fac, 0.02, t);
    t[3] *= 6;   /* a latency spike at 64 B */
    t[12] *= 4;  /* 32 KiB */
    t[20] *= 0.2; /* 8 MiB: impossible, faster than the link */
    t[27] *= 3;  /* 1 GiB: congestion */
    ab_fit f, plain;
    zs_error e = {0};
    CHECK_EQ_INT(fit_alpha_beta(bytes, t, n, fac, 1, &f, &e), ZS_OK);
    CHECK(f.outliers >= 4);
    CHECK_EQ_INT(f.n, n - f.outliers);
    test_report(fabs(f.latency - alpha) <= 3 * f.latency_stderr, __FILE__, __LINE__,
                "robust latency %.5g +- %.2g, true %.5g", f.latency, f.latency_stderr, alpha);
    test_report(fabs(f.busbw - bw) <= 3 * f.busbw_stderr, __FILE__, __LINE__,
                "robust busbw %.5g +- %.2g, true %.5g", f.busbw, f.busbw_stderr, bw);
    /* the plain fit is dragged away: the robust pass is doing something */
    CHECK_EQ_INT(fit_alpha_beta(bytes, t, n, fac, 0, &plain, &e), ZS_OK);
    CHECK(fabs(plain.busbw - bw) > 3 * f.busbw_stderr || fabs(plain.latency - alpha) > 3 * f.latency_stderr);
}

static void expect_ab_error(const double *b, const double *t, int n, double fac, int robust,
                            const char *want)
{
    ab_fit f;
    zs_error e = {0};
    int rc = fit_alpha_beta(b, t, n, fac, robust, &f, &e);
    CHECK_EQ_INT(rc, ZS_ERR_INPUT);
    test_report(contains(e.msg, want), __FILE__, __LINE__, "message \"%s\" lacks \"%s\"", e.msg, want);
    CHECK(f.n == 0 && f.busbw == 0);
}

static void test_fit_degenerate(void)
{
    double b[8] = {8, 1024, 1048576, 1073741824}, t[8] = {10e-6, 11e-6, 30e-6, 20e-3};
    expect_ab_error(b, t, 1, 1, 0, "1 point; need at least 3");
    expect_ab_error(b, t, 2, 1, 0, "need at least 3");
    expect_ab_error(b, t, 4, 0, 0, "factor");
    expect_ab_error(b, t, 4, NAN, 0, "factor");
    double same[4] = {4096, 4096, 4096, 4096};
    expect_ab_error(same, t, 4, 1, 0, "same size");
    double tz[4] = {10e-6, 0, 30e-6, 20e-3};
    expect_ab_error(b, tz, 4, 1, 0, "point 2: time 0 s is not a positive");
    double tn[4] = {10e-6, 11e-6, -30e-6, 20e-3};
    expect_ab_error(b, tn, 4, 1, 0, "point 3");
    double tnan[4] = {10e-6, 11e-6, NAN, 20e-3};
    expect_ab_error(b, tnan, 4, 1, 0, "not a positive");
    double bneg[4] = {8, -1024, 1048576, 1073741824};
    expect_ab_error(bneg, t, 4, 1, 0, "size");
    /* time falls with size: no bandwidth to fit */
    double tdown[4] = {50e-6, 40e-6, 30e-6, 20e-6};
    expect_ab_error(b, tdown, 4, 1, 0, "bandwidth is not positive");
    expect_ab_error(b, tdown, 4, 1, 0, "larger sizes");
    /* only large sizes, with a pipeline start-up that beats the latency: alpha < 0 */
    double big[4] = {256.0 * (1 << 20), 512.0 * (1 << 20), 1024.0 * (1 << 20), 2048.0 * (1 << 20)};
    double tb[4];
    for (int i = 0; i < 4; i++) tb[i] = -200e-6 + big[i] / 100e9;
    expect_ab_error(big, tb, 4, 1, 0, "latency is negative");
    expect_ab_error(big, tb, 4, 1, 0, "-b 8");
}

/* ------------------------------------------------------------------ efficiency and scale */

static void test_fit_efficiency(void)
{
    static const struct { double emax, w_half; } cases[] = {{0.8, 2e10}, {0.65, 3e12}, {0.92, 5e8}};
    lcg g = {4242};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double w[40], y[40];
        int n = 0;
        for (double x = cases[c].w_half / 1000; x <= cases[c].w_half * 1000; x *= 1.5, n++) {
            w[n] = x;
            y[n] = cases[c].emax * x / (x + cases[c].w_half) * (1 + 0.01 * lcg_normal(&g));
        }
        eff_fit f;
        zs_error e = {0};
        int rc = fit_efficiency(w, y, n, &f, &e);
        CHECK_EQ_INT(rc, ZS_OK);
        if (rc) { fprintf(stderr, "  %s\n", e.msg); continue; }
        test_report(fabs(f.emax - cases[c].emax) <= 3 * f.emax_stderr, __FILE__, __LINE__,
                    "case %zu: emax %.5g +- %.2g, true %.5g", c, f.emax, f.emax_stderr, cases[c].emax);
        test_report(fabs(f.w_half - cases[c].w_half) <= 3 * f.w_half_stderr, __FILE__, __LINE__,
                    "case %zu: w_half %.5g +- %.2g, true %.5g", c, f.w_half, f.w_half_stderr,
                    cases[c].w_half);
        CHECK(f.emax_stderr > 0 && f.emax_stderr < 0.05 * cases[c].emax);
        CHECK(f.w_half_stderr > 0 && f.w_half_stderr < 0.2 * cases[c].w_half);
        CHECK(f.r2 > 0.99);
        CHECK_EQ_INT(f.n, n);
    }
    eff_fit f;
    zs_error e = {0};
    double w2[3] = {1e9, 1e10, 1e11}, y2[3] = {0.2, 0.5, 0.7};
    CHECK_EQ_INT(fit_efficiency(w2, y2, 2, &f, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "need at least 3"));
    double ws[3] = {1e9, 1e9, 1e9};
    CHECK_EQ_INT(fit_efficiency(ws, y2, 3, &f, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "same work"));
    double wl[8], yl[8]; /* a straight line: no knee, nothing to fit */
    for (int i = 0; i < 8; i++) {
        wl[i] = 1e9 * (1 << i);
        yl[i] = 1e-12 * wl[i] * (1 + 0.01 * ((i * 7) % 3 - 1));
    }
    CHECK_EQ_INT(fit_efficiency(wl, yl, 8, &f, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "do not level off"));
    double yneg[3] = {0.2, -0.5, 0.7};
    CHECK_EQ_INT(fit_efficiency(w2, yneg, 3, &f, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "point 2: fraction"));
    CHECK(f.n == 0 && f.emax == 0);
}

static void test_fit_scale(void)
{
    lcg g = {99};
    double p[30], m[30];
    for (int i = 0; i < 30; i++) {
        p[i] = 0.05 * pow(1.3, i);
        m[i] = 1.17 * p[i] * (1 + 0.02 * lcg_normal(&g));
    }
    double k, se;
    zs_error e = {0};
    CHECK_EQ_INT(fit_scale(p, m, 30, 0, &k, &se, &e), ZS_OK);
    test_report(fabs(k - 1.17) <= 3 * se, __FILE__, __LINE__, "k %.5g +- %.2g, true 1.17", k, se);
    CHECK(se > 0 && se < 0.01);
    m[4] *= 3; /* slow outliers (a straggler, a throttled run) bias the plain fit upwards */
    m[17] *= 2;
    m[25] *= 5;
    double kp, kr, ser;
    CHECK_EQ_INT(fit_scale(p, m, 30, 0, &kp, NULL, &e), ZS_OK);
    CHECK_EQ_INT(fit_scale(p, m, 30, 1, &kr, &ser, &e), ZS_OK);
    test_report(fabs(kr - 1.17) <= 3 * ser, __FILE__, __LINE__, "robust k %.5g +- %.2g", kr, ser);
    CHECK(fabs(kp - 1.17) > fabs(kr - 1.17));
    CHECK_EQ_INT(fit_scale(p, m, 1, 0, &k, &se, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "need at least 2"));
    CHECK_EQ_INT(fit_scale(p, m, 2, 1, &k, &se, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "need at least 3"));
    double z[3] = {1, 0, 2};
    CHECK_EQ_INT(fit_scale(p, z, 3, 0, &k, &se, &e), ZS_ERR_INPUT);
    CHECK(contains(e.msg, "point 2: measured"));
    CHECK(k == 0 && se == 0);
}

void suite_fit(void)
{
    RUN_TEST(test_collective_names);
    RUN_TEST(test_parse_logs);
    RUN_TEST(test_parse_rows_only);
    RUN_TEST(test_parse_truncated_last);
    RUN_TEST(test_parse_nccltests_json);
    RUN_TEST(test_parse_zerobench_text);
    RUN_TEST(test_parse_text_api);
    RUN_TEST(test_parse_hints);
    RUN_TEST(test_parse_ranks_inferred);
    RUN_TEST(test_parse_errors);
    RUN_TEST(test_parse_odd_rows);
    RUN_TEST(test_harness_collectives);
    RUN_TEST(test_harness_points);
    RUN_TEST(test_harness_errors);
    RUN_TEST(test_busbw_factor);
    RUN_TEST(test_harness_where);
    RUN_TEST(test_fit_synthetic);
    RUN_TEST(test_fit_exact);
    RUN_TEST(test_fit_robust);
    RUN_TEST(test_fit_degenerate);
    RUN_TEST(test_fit_efficiency);
    RUN_TEST(test_fit_scale);
}
