/* harness.c -- collective sweep: layout, fill, check, time, print the table, JSON rows. */
#include "harness.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "fault.h"
#include "fmt.h"
#include "report.h"
#include "stats.h"
#include "timer.h"

#define POISON 0xa5   /* receive buffers are filled with this byte before a check */

/* Buffers of one local rank. */
struct lrank {
    void *send;    /* device send buffer, h->alloc bytes */
    void *recv;    /* device receive buffer, h->alloc bytes */
    void *hsend;   /* host image of send */
    void *hrecv;   /* host image of recv */
};

/* Outcome of one timed pass (out-of-place or in-place). */
struct pass {
    double time_us;     /* average time per call, us (combined over ranks by -a) */
    double algbw;       /* size / time, GB/s (1e9 B/s) */
    double busbw;       /* algbw * busbw_factor(nranks), GB/s */
    long long wrong;    /* wrong elements summed over ranks, -1 when not checked */
    struct stats it;    /* per-iteration statistics, seconds (valid when -I 1) */
};

struct harness {
    const struct coll_def *c;      /* collective under test */
    const struct bench_opts *o;    /* options */
    const struct be_info *bi;      /* geometry */
    struct report rep;             /* table/JSON output */
    int dtype;                     /* element type */
    int op;                        /* reduction op, or -1 when the collective has none */
    int root;                      /* root rank, or -1 when the collective has none */
    size_t ts;                     /* bytes per element */
    size_t alloc;                  /* bytes of each buffer */
    struct lrank *lr;              /* nlocal entries */
    double *iter_sec;              /* per-iteration times of one pass, o->iters entries */
    uint32_t rep_seed;             /* changes the check data between passes */
    int bad_passes;                /* passes with wrong > 0 */
    double bw_sum;                 /* sum of busbw over passes */
    int bw_count;                  /* passes in bw_sum */
};

/* fatal: a library call failed mid-run; ranks may be inside a collective,
 * so abort the job rather than risk a hang. */
static void fatal(const struct harness *h, const char *what, int code)
{
    fprintf(stderr, "zerobench: %s: %s failed on rank %d: %s\n", h->c->name, what, h->bi->rank0,
            be_error_string(code));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static struct coll_call make_call(const struct harness *h, int l, const struct coll_layout *lay,
                                  int in_place)
{
    int rank = h->bi->rank0 + l;
    char *recv = h->lr[l].recv;
    struct coll_call call = {
        .send = in_place ? recv + (size_t)rank * lay->send_inplace_off * h->ts : h->lr[l].send,
        .recv = in_place ? recv + (size_t)rank * lay->recv_inplace_off * h->ts : recv,
        .count = lay->param_count, .typesize = h->ts, .dtype = h->dtype,
        .op = h->op < 0 ? 0 : h->op, .root = h->root < 0 ? 0 : h->root,
        .rank = rank, .nranks = h->bi->nranks, .in_place = in_place, .comm = be_comm(l),
    };
    return call;
}

/* launch: one collective over all local ranks (grouped); fatal on error. */
static void launch(const struct harness *h, const struct coll_layout *lay, int in_place)
{
    int rc;
    if ((rc = be_group_begin()) != 0) fatal(h, "group begin", rc);
    for (int l = 0; l < h->bi->nlocal; l++) {
        struct coll_call call = make_call(h, l, lay, in_place);
        if ((rc = h->c->run(&call)) != 0) fatal(h, h->c->name, rc);
    }
    if ((rc = be_group_end()) != 0) fatal(h, "group end", rc);
}

/* check_pass: fresh exact data, one call, count wrong elements everywhere. */
static long long check_pass(struct harness *h, const struct coll_layout *lay, int in_place)
{
    struct coll_vals v;
    coll_vals_init(&v, h->dtype, h->op, h->bi->nranks, h->rep_seed++);
    size_t span = (lay->send_count > lay->recv_count ? lay->send_count : lay->recv_count) * h->ts;
    for (int l = 0; l < h->bi->nlocal; l++) {
        struct lrank *b = &h->lr[l];
        struct coll_call call = make_call(h, l, lay, in_place);
        memset(b->hrecv, POISON, span);
        if (in_place) {
            h->c->fill(&v, call.rank, lay, (char *)b->hrecv + ((const char *)call.send - (char *)b->recv));
        } else {
            h->c->fill(&v, call.rank, lay, b->hsend);
            if (be_upload(l, b->send, b->hsend, lay->send_count * h->ts)) fatal(h, "upload", -1);
        }
        if (be_upload(l, b->recv, b->hrecv, span)) fatal(h, "upload", -1);
    }
    launch(h, lay, in_place);
    if (be_sync()) fatal(h, "synchronize", -1);
    long long wrong = 0;
    for (int l = 0; l < h->bi->nlocal; l++) {
        struct lrank *b = &h->lr[l];
        struct coll_call call = make_call(h, l, lay, in_place);
        const void *res = h->c->result ? h->c->result(&call) : call.recv;
        if (be_download(l, b->hrecv, res, lay->recv_count * h->ts)) fatal(h, "download", -1);
        if (fault_injected() && call.rank == 0 && lay->recv_count > 0)   /* test hook */
            dtype_store(h->dtype, b->hrecv, 0, dtype_load(h->dtype, b->hrecv, 0) == 1.0 ? 2.0 : 1.0);
        wrong += (long long)h->c->check(&v, call.rank, lay, call.root, b->hrecv);
    }
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return wrong;
}

/* combine: one time for all processes, as nccl-tests -a does. */
static double combine(const struct harness *h, double sec)
{
    switch (h->o->average) {
    case 0: MPI_Bcast(&sec, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD); return sec;
    case 2: MPI_Allreduce(MPI_IN_PLACE, &sec, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD); return sec;
    case 3: MPI_Allreduce(MPI_IN_PLACE, &sec, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); return sec;
    default:
        MPI_Allreduce(MPI_IN_PLACE, &sec, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return sec / h->bi->nprocs;
    }
}

/* time_pass: barrier, wall clock around iters back-to-back calls and one
 * sync, divided by iters; with -I also per-iteration marks whose max over
 * processes gives min/max/p99/cv. */
static void time_pass(struct harness *h, const struct coll_layout *lay, int in_place, struct pass *p)
{
    int iters = h->o->iters, per = h->o->per_iter;
    if (per && be_marks_begin(iters + 1)) fatal(h, "per-iteration timer setup", -1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = timer_now();
    for (int i = 0; i < iters; i++) {
        if (per) be_mark(i);
        launch(h, lay, in_place);
    }
    if (per) be_mark(iters);
    if (be_sync()) fatal(h, "synchronize", -1);
    double sec = (timer_now() - t0) / iters;
    sec = combine(h, sec);
    if (per) {
        if (be_marks_end(h->iter_sec)) fatal(h, "per-iteration timer read", -1);
        MPI_Allreduce(MPI_IN_PLACE, h->iter_sec, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (stats_compute(h->iter_sec, (size_t)iters, &p->it)) fatal(h, "statistics", -1);
    }
    size_t bytes = (lay->send_count > lay->recv_count ? lay->send_count : lay->recv_count) * h->ts;
    p->time_us = sec * 1e6;
    p->algbw = sec > 0 ? (double)bytes / 1e9 / sec : 0.0;
    p->busbw = p->algbw * h->c->busbw_factor(h->bi->nranks);
}

static void print_pass(const struct harness *h, const struct pass *p)
{
    char t[16], a[16], b[16];
    fmt_num(t, 7, p->time_us);
    fmt_num(a, 6, p->algbw);
    fmt_num(b, 6, p->busbw);
    if (p->wrong >= 0) printf("  %7s  %6s  %6s  %6lld", t, a, b, p->wrong);
    else printf("  %7s  %6s  %6s     N/A", t, a, b);
    if (h->o->per_iter) {
        char mn[16], mx[16], p99[16], cv[16];
        fmt_num(mn, 7, p->it.min * 1e6);
        fmt_num(mx, 7, p->it.max * 1e6);
        fmt_num(p99, 7, p->it.p99 * 1e6);
        fmt_num(cv, 7, p->it.cv_pct);
        printf("  %7s  %7s  %7s  %7s", mn, mx, p99, cv);
    }
}

static void json_pass(struct harness *h, const char *key, const struct pass *p)
{
    struct json *j = &h->rep.j;
    json_obj_begin(j, key);
    json_num(j, "time_us", p->time_us);
    json_num(j, "algbw_gbps", p->algbw);
    json_num(j, "busbw_gbps", p->busbw);
    if (p->wrong >= 0) json_int(j, "wrong", p->wrong);
    else json_null(j, "wrong");
    if (h->o->per_iter) {
        json_num(j, "iter_min_us", p->it.min * 1e6);
        json_num(j, "iter_max_us", p->it.max * 1e6);
        json_num(j, "iter_avg_us", p->it.avg * 1e6);
        json_num(j, "iter_p50_us", p->it.p50 * 1e6);
        json_num(j, "iter_p99_us", p->it.p99 * 1e6);
        json_num(j, "iter_cv_pct", p->it.cv_pct);
    }
    json_obj_end(j);
}

/* print_devices: "#  Rank ..." lines of every rank, gathered to proc 0. */
#define LINE 256
static void print_devices(const struct harness *h)
{
    int nl = h->bi->nlocal, np = h->bi->nprocs;
    char host[64] = "unknown";
    gethostname(host, sizeof host - 1);
    char *mine = calloc((size_t)nl, LINE);
    char *all = h->rep.is_root ? calloc((size_t)nl * (size_t)np, LINE) : NULL;
    if (!mine || (h->rep.is_root && !all)) fatal(h, "allocation", -1);
    for (int l = 0; l < nl; l++) {
        char dev[160];
        be_describe(l, dev, sizeof dev);
        snprintf(mine + (size_t)l * LINE, LINE, "#  Rank %2d Group %2d Pid %6d on %10s device %s",
                 h->bi->rank0 + l, 0, (int)getpid(), host, dev);
    }
    MPI_Gather(mine, nl * LINE, MPI_CHAR, all, nl * LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (h->rep.is_root) {
        printf("# Using devices\n");
        for (int i = 0; i < nl * np; i++) printf("%s\n", all + (size_t)i * LINE);
    }
    free(mine);
    free(all);
}

static void print_header(const struct harness *h)
{
    const struct bench_opts *o = h->o;
    if (h->rep.is_root) {
        report_header(&h->rep);
        printf("# nThread 1 nGpus %d minBytes %zu maxBytes %zu step: %zu(%s) warmup iters: %d "
               "iters: %d agg iters: 1 validation: %d graph: 0\n",
               h->bi->nlocal, o->min_bytes, o->max_bytes,
               o->step_factor > 1 ? o->step_factor : o->step_bytes,
               o->step_factor > 1 ? "factor" : "bytes", o->warmup, o->iters, o->check);
        if (o->per_iter)
            printf("# Per-Iteration Report: wall-clock or event marks; i_* uses max over processes\n");
        printf("#\n");
    }
    print_devices(h);
    if (!h->rep.is_root) return;
    printf("#\n");
    if (o->per_iter) {
        printf("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)"
               "                                in-place (+ per-iteration)\n", "", "", "", "", "");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s"
               "  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s\n",
               "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
               "i_min", "i_max", "i_p99", "i_cv%", "time", "algbw", "busbw", "#wrong",
               "i_min", "i_max", "i_p99", "i_cv%");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s"
               "  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s\n",
               "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)",
               "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)");
    } else {
        printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n",
               "", "", "", "", "");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size",
               "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
               "algbw", "busbw", "#wrong");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)",
               "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
               "(GB/s)", "");
    }
}

static void warm_up(struct harness *h)
{
    for (size_t size = h->o->min_bytes; size; size = bench_next_size(h->o, size, 2)) {
        struct coll_layout lay;
        h->c->layout(size, h->ts, h->bi->nranks, &lay);
        for (int i = 0; i < h->o->warmup; i++) launch(h, &lay, 0);
        if (be_sync()) fatal(h, "synchronize", -1);
    }
}

static void run_row(struct harness *h, size_t size)
{
    struct coll_layout lay;
    struct pass p[2];
    h->c->layout(size, h->ts, h->bi->nranks, &lay);
    size_t bytes = (lay.send_count > lay.recv_count ? lay.send_count : lay.recv_count) * h->ts;
    if (h->rep.is_root) {
        printf("%12zu  %12zu  %8s  %6s  %6d", bytes, lay.param_count, dtype_get(h->dtype)->name,
               op_name(h->op), h->root);
        fflush(stdout);
    }
    for (int ip = 0; ip < 2; ip++) {
        p[ip].wrong = h->o->check ? check_pass(h, &lay, ip) : -1;
        time_pass(h, &lay, ip, &p[ip]);
        if (p[ip].wrong > 0) h->bad_passes++;
        h->bw_sum += p[ip].busbw;
        h->bw_count++;
        if (h->rep.is_root) {
            print_pass(h, &p[ip]);
            fflush(stdout);
        }
    }
    if (h->rep.is_root) printf("\n");
    struct json *j = &h->rep.j;
    json_obj_begin(j, NULL);
    json_int(j, "bytes", (long long)bytes);
    json_int(j, "count", (long long)lay.param_count);
    json_str(j, "type", dtype_get(h->dtype)->name);
    json_str(j, "op", op_name(h->op));
    json_int(j, "root", h->root);
    json_pass(h, "out_of_place", &p[0]);
    json_pass(h, "in_place", &p[1]);
    json_obj_end(j);
}

/* setup: buffers sized for the largest row; 0, or -1 when any rank failed. */
static int setup(struct harness *h)
{
    struct coll_layout lay;
    h->c->layout(h->o->max_bytes, h->ts, h->bi->nranks, &lay);
    size_t n = lay.send_count > lay.recv_count ? lay.send_count : lay.recv_count;
    h->alloc = n * h->ts > 64 ? n * h->ts : 64;
    int ok = (h->lr = calloc((size_t)h->bi->nlocal, sizeof *h->lr)) != NULL;
    ok = ok && (h->iter_sec = calloc((size_t)h->o->iters + 1, sizeof *h->iter_sec)) != NULL;
    for (int l = 0; ok && l < h->bi->nlocal; l++) {
        struct lrank *b = &h->lr[l];
        b->send = be_alloc(l, h->alloc);
        b->recv = be_alloc(l, h->alloc);
        b->hsend = malloc(h->alloc);
        b->hrecv = malloc(h->alloc);
        ok = b->send && b->recv && b->hsend && b->hrecv;
        if (ok) {   /* defined contents for the warm-up */
            memset(b->hsend, 0, h->alloc);
            ok = be_upload(l, b->send, b->hsend, h->alloc) == 0
                 && be_upload(l, b->recv, b->hsend, h->alloc) == 0;
        }
    }
    int all_ok = ok;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok) fprintf(stderr, "zerobench: %s: cannot allocate 2 x %zu bytes of buffers on rank %d\n",
                     h->c->name, h->alloc, h->bi->rank0);
    return all_ok ? 0 : -1;
}

static void teardown(struct harness *h)
{
    for (int l = 0; h->lr && l < h->bi->nlocal; l++) {
        be_free(l, h->lr[l].send);
        be_free(l, h->lr[l].recv);
        free(h->lr[l].hsend);
        free(h->lr[l].hrecv);
    }
    free(h->lr);
    free(h->iter_sec);
}

int harness_main(const struct coll_def *c, const struct bench_opts *o, const struct be_info *bi)
{
    struct harness h;
    memset(&h, 0, sizeof h);
    h.c = c;
    h.o = o;
    h.bi = bi;
    h.dtype = o->dtype >= 0 ? o->dtype : ZB_FLOAT;
    h.op = c->uses_op ? (o->op >= 0 ? o->op : ZB_SUM) : -1;
    h.root = c->uses_root ? o->root : -1;
    h.ts = dtype_get(h.dtype)->size;
    h.rep_seed = 1;
    if (c->uses_root && o->root >= bi->nranks) {
        if (bi->proc == 0)
            fprintf(stderr, "zerobench: root %d out of range (-r must be below %d ranks)\n", o->root,
                    bi->nranks);
        return 2;
    }
    if (setup(&h) != 0) {
        teardown(&h);
        return 1;
    }
    report_begin(&h.rep, o, bi);
    print_header(&h);
    warm_up(&h);
    for (size_t size = o->min_bytes; size; size = bench_next_size(o, size, o->step_factor)) run_row(&h, size);
    report_rows_end(&h.rep);
    double avg = h.bw_count ? h.bw_sum / h.bw_count : 0.0;
    struct json *j = &h.rep.j;
    json_obj_begin(j, "summary");
    json_int(j, "wrong_passes", h.bad_passes);
    json_bool(j, "ok", h.bad_passes == 0);
    json_num(j, "avg_busbw_gbps", avg);
    json_obj_end(j);
    if (h.rep.is_root) {
        printf("# %-20s : %d %s\n", "Out of bounds values", h.bad_passes, h.bad_passes ? "FAILED" : "OK");
        printf("# %-20s : %g\n", "Avg bus bandwidth", avg);
        printf("#\n");
        fflush(stdout);
    }
    int rc = report_finish(&h.rep);
    teardown(&h);
    return h.bad_passes ? 1 : rc;
}
