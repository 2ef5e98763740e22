/* membw_common.c -- the membw table shared by the CPU and CUDA back ends: times, columns, rows, JSON. */
#include "membw.h"

#include <stdio.h>

#include "fmt.h"
#include "zb_report.h"

void membw_times_init(struct membw_times *t)
{
    for (int k = 0; k < MEMBW_MAX_ROWS; k++) {
        t->best[k] = 1e30;
        t->sum[k] = t->worst[k] = 0;
    }
}

void membw_times_add(struct membw_times *t, int k, double sec)
{
    t->sum[k] += sec;
    if (sec < t->best[k]) t->best[k] = sec;
    if (sec > t->worst[k]) t->worst[k] = sec;
}

static const char *row_name(int k)
{
    return k < STREAM_NKERNELS ? stream_name(k) : "d2d_memcpy";
}

/* the kernel column fits "triad", or "d2d_memcpy" when that row is there */
static int name_width(int nrows)
{
    return nrows > MEMBW_D2D ? 10 : 8;
}

void membw_table_columns(const struct report *r, int nrows)
{
    if (!r->is_root) return;
    int w = name_width(nrows);
    printf("# %*s  %12s  %12s  %9s  %9s  %9s  %8s  %8s  %6s\n", w, "kernel", "array", "bytes", "best", "avg",
        "max", "GB/s", "GB/s", "#wrong");
    printf("# %*s  %12s  %12s  %9s  %9s  %9s  %8s  %8s  %6s\n", w, "", "(B)", "(per call)", "(us)", "(us)",
        "(us)", "(best)", "(avg)", "");
}

long long membw_table_rows(struct report *r, int nrows, size_t n, struct membw_times *t, long long wrong)
{
    const struct bench_opts *o = r->o;
    bench_max(t->best, nrows);
    bench_max(t->sum, nrows);
    bench_max(t->worst, nrows);
    wrong = bench_wrong_total(o, wrong);
    for (int k = 0; k < nrows; k++) {
        /* d2d_memcpy reads and writes each byte: 16 B/element */
        double moved = k < STREAM_NKERNELS ? stream_bytes(k, n) : 16.0 * (double)n;
        double avg = t->sum[k] / o->iters, gb_best = moved / t->best[k] / 1e9, gb_avg = moved / avg / 1e9;
        long long w = k < STREAM_NKERNELS ? wrong : -1;
        if (r->is_root) {
            char tb[16], ta[16], tw[16], g1[16], g2[16];
            fmt_num(tb, 9, t->best[k] * 1e6);
            fmt_num(ta, 9, avg * 1e6);
            fmt_num(tw, 9, t->worst[k] * 1e6);
            fmt_num(g1, 8, gb_best);
            fmt_num(g2, 8, gb_avg);
            printf("  %*s  %12zu  %12.0f  %9s  %9s  %9s  %8s  %8s  ", name_width(nrows), row_name(k),
                n * sizeof(double), moved, tb, ta, tw, g1, g2);
            report_wrong_cell(w);
            printf("\n");
        }
        struct json *j = &r->j;
        json_obj_begin(j, NULL);
        json_str(j, "kernel", row_name(k));
        json_int(j, "array_bytes", (long long)(n * sizeof(double)));
        json_num(j, "bytes", moved);
        json_num(j, "time_min_us", t->best[k] * 1e6);
        json_num(j, "time_us", avg * 1e6);
        json_num(j, "time_max_us", t->worst[k] * 1e6);
        json_num(j, "gbps", gb_best);
        json_num(j, "gbps_avg", gb_avg);
        report_wrong_json(j, w);
        json_obj_end(j);
    }
    if (r->is_root) fflush(stdout);
    return wrong;
}
