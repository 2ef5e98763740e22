/* zb_harness.c -- collective sweep: layout, fill, check, time, print the table, JSON rows. */
#include "zb_harness.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "fault.h"
#include "fmt.h"
#include "zb_report.h"
#include "stats.h"
#include "timer.h"

#define POISON 0xa5 /* receive buffers are filled with this byte before a check */

/* Buffers of one local rank. */
struct lrank {
    void *send;  /* device send buffer, h->alloc bytes */
    void *recv;  /* device receive buffer, h->alloc bytes */
    void *hsend; /* host image of send */
    void *hrecv; /* host image of recv */
};

/* Outcome of one timed pass (out-of-place or in-place). */
struct pass {
    int na;           /* 1: the back end cannot run this pass (printed N/A, JSON null) */
    int untimed;      /* collective calls before the timed loop (check + sync call) */
    double time_us;   /* time per call, us: average (combined over ranks by -a), or the
                         median over iterations x ranks with --timing imb */
    struct stats imb; /* --timing imb: per-call times over iterations x ranks, seconds */
    double algbw;     /* size / time, GB/s (1e9 B/s) */
    double busbw;     /* algbw * busbw_factor(nranks), GB/s */
    long long wrong;  /* wrong elements summed over ranks, -1 when not checked */
    struct stats it;  /* per-iteration statistics, seconds (valid when -I 1) */
};

struct harness {
    const struct coll_def *c;   /* collective under test */
    const struct bench_opts *o; /* options */
    const struct be_info *bi;   /* geometry */
    struct report rep;          /* table/JSON output */
    int dtype;                  /* element type */
    int op;                     /* reduction op, or -1 when the collective has none */
    int root;                   /* root rank, or -1 when the collective has none */
    size_t ts;                  /* bytes per element */
    size_t alloc;               /* bytes of each buffer */
    struct lrank *lr;           /* nlocal entries */
    double *iter_sec;           /* per-iteration times of one pass, o->iters entries */
    double *all_sec;            /* --timing imb: iters x nprocs gathered on proc 0 */
    int cycle;                  /* current -N cycle, from 0 */
    uint32_t rep_seed;          /* changes the check data between passes */
    int bad_passes;             /* passes with wrong > 0 */
    double bw_sum;              /* sum of busbw over passes */
    int bw_count;               /* passes in bw_sum */
};

/* fatal: a library call failed mid-run; ranks may be inside a collective,
 * so abort the job rather than risk a hang. */
static void fatal(const struct harness *h, const char *what, int code)
{
    fprintf(stderr, "zerobench: %s: %s failed on rank %d: %s\n", h->c->name, what, h->bi->rank0,
        be_error_string(code));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static struct coll_call make_call(const struct harness *h, int l, const struct coll_layout *lay, int in_place)
{
    int rank = h->bi->rank0 + l;
    char *recv = h->lr[l].recv;
    struct coll_call call = {
        .send = in_place ? recv + (size_t)rank * lay->send_inplace_off * h->ts : h->lr[l].send,
        .recv = in_place ? recv + (size_t)rank * lay->recv_inplace_off * h->ts : recv,
        .count = lay->param_count,
        .typesize = h->ts,
        .dtype = h->dtype,
        .op = h->op < 0 ? 0 : h->op,
        .root = h->root < 0 ? 0 : h->root,
        .rank = rank,
        .nranks = h->bi->nranks,
        .in_place = in_place,
        .comm = be_comm(l),
    };
    return call;
}

/* launch: one collective over all local ranks; fatal on error. Grouped only
 * when this process drives several ranks (as nccl-tests: the group adds host
 * time to every small-message call). */
static void launch(const struct harness *h, const struct coll_layout *lay, int in_place)
{
    int rc, group = h->bi->nlocal > 1;
    if (group && (rc = be_group_begin()) != 0) fatal(h, "group begin", rc);
    for (int l = 0; l < h->bi->nlocal; l++) {
        struct coll_call call = make_call(h, l, lay, in_place);
        if ((rc = h->c->run(&call)) != 0) fatal(h, h->c->name, rc);
    }
    if (group && (rc = be_group_end()) != 0) fatal(h, "group end", rc);
}

/* launch_iter: one timed iteration: -m calls (grouped when more than one,
 * as nccl-tests' aggregated iterations), then with -z a wait. */
static void launch_iter(const struct harness *h, const struct coll_layout *lay, int in_place)
{
    int rc, agg = h->o->agg;
    if (agg > 1 && (rc = be_group_begin()) != 0) fatal(h, "group begin", rc);
    for (int a = 0; a < agg; a++) launch(h, lay, in_place);
    if (agg > 1 && (rc = be_group_end()) != 0) fatal(h, "group end", rc);
    if (h->o->blocking && be_sync()) fatal(h, "synchronize", -1);
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
        if (fault_injected() && call.rank == 0 && lay->recv_count > 0) /* test hook */
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

/* time_pass: first one untimed call and a barrier (nccl-tests does this
 * before every timed loop, with or without -c), then either
 *  - nccl timing: wall clock around iters back-to-back iterations and one
 *    sync (or around -G launches of the captured loop), divided by the calls;
 *    with -C the clock stops before the sync (host enqueue time); with -I
 *    also per-iteration marks whose max over processes gives min/max/p99/cv;
 *  - imb timing: barrier, one iteration, sync, per call; statistics over
 *    iterations x processes, time = median. */
static void time_pass(struct harness *h, const struct coll_layout *lay, int in_place, struct pass *p)
{
    const struct bench_opts *o = h->o;
    int iters = o->iters, per = o->per_iter, agg = o->agg;
    launch(h, lay, in_place);
    p->untimed++;
    if (be_sync()) fatal(h, "synchronize", -1);
    MPI_Barrier(MPI_COMM_WORLD);
    double sec;
    if (o->imb) {
        for (int i = 0; i < iters; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = timer_now();
            launch_iter(h, lay, in_place);
            if (be_sync()) fatal(h, "synchronize", -1);
            h->iter_sec[i] = (timer_now() - t0) / agg;
        }
        MPI_Gather(h->iter_sec, iters, MPI_DOUBLE, h->all_sec, iters, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (h->rep.is_root && stats_compute(h->all_sec, (size_t)iters * (size_t)h->bi->nprocs, &p->imb))
            fatal(h, "statistics", -1);
        MPI_Bcast(&p->imb, (int)sizeof p->imb, MPI_BYTE, 0, MPI_COMM_WORLD);
        sec = p->imb.p50;
    } else if (o->graph > 0) {
        if (be_graph_begin()) fatal(h, "CUDA graph capture", -1);
        for (int i = 0; i < iters; i++) launch_iter(h, lay, in_place);
        if (be_graph_end()) fatal(h, "CUDA graph instantiate", -1);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = timer_now();
        if (be_graph_launch(o->graph)) fatal(h, "CUDA graph launch", -1);
        double tq = timer_now();
        if (be_sync()) fatal(h, "synchronize", -1);
        sec = ((o->cputime ? tq : timer_now()) - t0) / ((double)iters * agg * o->graph);
        be_graph_free();
        sec = combine(h, sec);
    } else {
        if (per && be_marks_begin(iters + 1)) fatal(h, "per-iteration timer setup", -1);
        double t0 = timer_now();
        for (int i = 0; i < iters; i++) {
            if (per) be_mark(i);
            launch_iter(h, lay, in_place);
        }
        if (per) be_mark(iters);
        double tq = timer_now();
        if (be_sync()) fatal(h, "synchronize", -1);
        sec = ((o->cputime ? tq : timer_now()) - t0) / ((double)iters * agg);
        sec = combine(h, sec);
    }
    if (per && !o->imb) {
        if (be_marks_end(h->iter_sec)) fatal(h, "per-iteration timer read", -1);
        for (int i = 0; i < iters; i++) h->iter_sec[i] /= agg;
        MPI_Allreduce(MPI_IN_PLACE, h->iter_sec, iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (stats_compute(h->iter_sec, (size_t)iters, &p->it)) fatal(h, "statistics", -1);
    } else if (per) {
        p->it = p->imb;
    }
    size_t bytes = (lay->send_count > lay->recv_count ? lay->send_count : lay->recv_count) * h->ts;
    p->time_us = sec * 1e6;
    p->algbw = sec > 0 ? (double)bytes / 1e9 / sec : 0.0;
    p->busbw = p->algbw * h->c->busbw_factor(h->bi->nranks);
}

static void print_pass(const struct harness *h, const struct pass *p)
{
    char t[16], a[16], b[16];
    if (p->na) {
        printf("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
        if (h->o->per_iter) printf("  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
        return;
    }
    fmt_num(t, 7, p->time_us);
    fmt_num(a, 6, p->algbw);
    fmt_num(b, 6, p->busbw);
    printf("  %7s  %6s  %6s  ", t, a, b);
    report_wrong_cell(p->wrong);
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
    if (p->na) { /* zerosim's reader takes a null pass as "not measured" */
        json_null(j, key);
        return;
    }
    json_obj_begin(j, key);
    json_num(j, "time_us", p->time_us);
    json_num(j, "algbw_gbps", p->algbw);
    json_num(j, "busbw_gbps", p->busbw);
    report_wrong_json(j, p->wrong);
    if (h->o->per_iter) {
        json_num(j, "iter_min_us", p->it.min * 1e6);
        json_num(j, "iter_max_us", p->it.max * 1e6);
        json_num(j, "iter_avg_us", p->it.avg * 1e6);
        json_num(j, "iter_p50_us", p->it.p50 * 1e6);
        json_num(j, "iter_p99_us", p->it.p99 * 1e6);
        json_num(j, "iter_cv_pct", p->it.cv_pct);
    }
    if (h->o->imb) { /* per-call times over iterations x ranks */
        json_num(j, "time_min_us", p->imb.min * 1e6);
        json_num(j, "time_median_us", p->imb.p50 * 1e6);
        json_num(j, "time_max_us", p->imb.max * 1e6);
        json_num(j, "time_avg_us", p->imb.avg * 1e6);
        json_int(j, "time_samples", (long long)h->o->iters * h->bi->nprocs);
    }
    json_int(j, "untimed_calls", p->untimed);
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
               "iters: %d agg iters: %d validation: %d graph: %d\n",
            h->bi->nlocal, o->min_bytes, o->max_bytes, o->step_factor > 1 ? o->step_factor : o->step_bytes,
            o->step_factor > 1 ? "factor" : "bytes", o->warmup, o->iters, o->agg, o->check, o->graph);
        printf("# Timing: %s%s%s\n",
            o->imb ? "imb (barrier before every call; time = median per-call time over iterations x ranks)"
                   : "nccl (back-to-back calls; time = wall clock / calls)",
            o->cputime ? ", CPU time (enqueue only, -C 1)" : "", o->blocking ? ", blocking (-z 1)" : "");
        if (h->c->in_place_na || fault_no_in_place())
            printf("# In-place %s is not supported by this back end: its columns print N/A\n", h->c->name);
        if (o->per_iter)
            printf("# Per-Iteration Report: wall-clock or event marks; i_* uses max over processes\n");
        printf("#\n");
    }
    print_devices(h);
    if (!h->rep.is_root) return;
    printf("#\n");
    if (o->per_iter) {
        printf("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)"
               "                                in-place (+ per-iteration)\n",
            "", "", "", "", "");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s"
               "  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s\n",
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min", "i_max",
            "i_p99", "i_cv%", "time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s"
               "  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s\n",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)",
            "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)");
    } else {
        printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place\n", "", "",
            "", "", "");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count",
            "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)",
            "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
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
    memset(p, 0, sizeof p);
    for (int ip = 0; ip < 2; ip++) {
        if (ip == 1 && (h->c->in_place_na || fault_no_in_place())) {
            p[ip].na = 1;
        } else {
            p[ip].wrong = -1;
            if (h->o->check) {
                p[ip].wrong = check_pass(h, &lay, ip);
                p[ip].untimed++;
            }
            time_pass(h, &lay, ip, &p[ip]);
            if (p[ip].wrong > 0) h->bad_passes++;
            h->bw_sum += p[ip].busbw;
            h->bw_count++;
        }
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
    json_int(j, "cycle", h->cycle);
    if (p[1].na) json_bool(j, "in_place_supported", 0);
    json_pass(h, "out_of_place", &p[0]);
    json_pass(h, "in_place", &p[1]);
    json_obj_end(j);
}

/* setup: buffers sized for the largest row; 0, or -1 when any rank failed. */
static int setup(struct harness *h, const int *types, int ntypes)
{
    h->alloc = 64;
    for (int t = 0; t < ntypes; t++) {
        struct coll_layout lay;
        size_t ts = dtype_get(types[t])->size;
        h->c->layout(h->o->max_bytes, ts, h->bi->nranks, &lay);
        size_t n = lay.send_count > lay.recv_count ? lay.send_count : lay.recv_count;
        if (n * ts > h->alloc) h->alloc = n * ts;
    }
    int ok = (h->lr = calloc((size_t)h->bi->nlocal, sizeof *h->lr)) != NULL;
    ok = ok && (h->iter_sec = calloc((size_t)h->o->iters + 1, sizeof *h->iter_sec)) != NULL;
    if (h->o->imb && h->bi->proc == 0)
        ok = ok &&
            (h->all_sec = calloc((size_t)h->o->iters * (size_t)h->bi->nprocs, sizeof *h->all_sec)) != NULL;
    for (int l = 0; ok && l < h->bi->nlocal; l++) {
        struct lrank *b = &h->lr[l];
        b->send = be_alloc(l, h->alloc);
        b->recv = be_alloc(l, h->alloc);
        b->hsend = malloc(h->alloc);
        b->hrecv = malloc(h->alloc);
        ok = b->send && b->recv && b->hsend && b->hrecv;
        if (ok) { /* defined contents for the warm-up */
            memset(b->hsend, 0, h->alloc);
            ok = be_upload(l, b->send, b->hsend, h->alloc) == 0 &&
                be_upload(l, b->recv, b->hsend, h->alloc) == 0;
        }
    }
    int all_ok = ok;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        fprintf(stderr, "zerobench: %s: cannot allocate 2 x %zu bytes of buffers on rank %d\n", h->c->name,
            h->alloc, h->bi->rank0);
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
    free(h->all_sec);
}

/* select: the types (-d, -d all) and ops (-o, -o all) to run, skipping
 * with a note what the back end lacks under "all"; an explicit type or op
 * the back end lacks is a usage error (returns 2 after one line). */
static int select_runs(const struct harness *h, int *types, int *ntypes, int *ops, int *nops)
{
    const struct bench_opts *o = h->o;
    char why[160];
    *ntypes = *nops = 0;
    for (int t = 0; t < ZB_NTYPES; t++) {
        if (o->dtype == OPTS_ALL ? 0 : t != (o->dtype >= 0 ? o->dtype : ZB_FLOAT)) continue;
        if (be_dtype_ok(t, why, sizeof why))
            types[(*ntypes)++] = t;
        else if (o->dtype != OPTS_ALL)
            return bench_usage(h->bi, "zerobench: -d %s: %s", dtype_get(t)->name, why);
        else if (h->bi->proc == 0)
            printf("# -d all: skipping %s: %s\n", dtype_get(t)->name, why);
    }
    if (!h->c->uses_op) {
        ops[(*nops)++] = -1;
        return 0;
    }
    for (int op = 0; op < ZB_NOPS; op++) {
        if (o->op == OPTS_ALL ? 0 : op != (o->op >= 0 ? o->op : ZB_SUM)) continue;
        if (be_op_ok(op, why, sizeof why))
            ops[(*nops)++] = op;
        else if (o->op != OPTS_ALL)
            return bench_usage(h->bi, "zerobench: -o %s: %s", op_name(op), why);
        else if (h->bi->proc == 0)
            printf("# -o all: skipping %s: %s\n", op_name(op), why);
    }
    return 0;
}

int harness_main(const struct coll_def *c, const struct bench_opts *o, const struct be_info *bi)
{
    struct harness h;
    int types[ZB_NTYPES], ops[ZB_NOPS], ntypes, nops;
    memset(&h, 0, sizeof h);
    h.c = c;
    h.o = o;
    h.bi = bi;
    h.root = c->uses_root ? o->root : -1;
    h.rep_seed = 1;
    if (c->uses_root && o->root >= bi->nranks)
        return bench_usage(
            bi, "zerobench: root %d out of range (-r must be below %d ranks)", o->root, bi->nranks);
    if (o->graph > 0 && !be_has_graphs())
        return bench_usage(bi, "zerobench: -G %d needs the CUDA back end (zerobench-cuda)", o->graph);
    int rc = select_runs(&h, types, &ntypes, ops, &nops);
    if (rc) return rc;
    if (setup(&h, types, ntypes) != 0) {
        teardown(&h);
        return 1;
    }
    report_begin(&h.rep, o, bi);
    print_header(&h);
    for (int t = 0; t < ntypes; t++)
        for (int k = 0; k < nops; k++) {
            h.dtype = types[t];
            h.op = ops[k];
            h.ts = dtype_get(h.dtype)->size;
            warm_up(&h);
            for (h.cycle = 0; h.cycle < o->cycles; h.cycle++)
                for (size_t size = o->min_bytes; size; size = bench_next_size(o, size, o->step_factor))
                    run_row(&h, size);
        }
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
    rc = report_finish(&h.rep);
    teardown(&h);
    return h.bad_passes ? 1 : rc;
}
