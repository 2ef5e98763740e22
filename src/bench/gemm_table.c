/* gemm_table.c -- the gemm table shared by the CPU and CUDA back ends: header, rows, JSON. */
#include "gemm.h"

#include <stdio.h>

#include "fmt.h"
#include "json.h"
#include "zb_report.h"

void gemm_table_header(const struct report *r, const struct gemm_list *gl, const char *what,
    const char *u_name, const char *timing)
{
    if (!r->is_root) return;
    const struct bench_opts *o = r->o;
    report_header(r);
    printf("# gemm: row-major C = A B, %s\n", what);
    printf("# check: double dot products, every element when MNK <= 2^26 else 256 samples; "
           "bound gamma_K sum|a||b| + %s|ref|\n",
        u_name);
    printf("# TFLOP/s = 2MNK / time / 1e12%s; times are max over processes\n", timing);
    gemm_model_banner(o, &gl->dims);
    printf("#\n# %8s  %8s  %6s  %6s  %6s  %10s  %10s  %9s  %8s  %6s%s\n", "impl", "type", "M", "N", "K",
        "time", "best", "TFLOP/s", "check", "#wrong", o->model ? "  gemm" : "");
    printf("# %8s  %8s  %6s  %6s  %6s  %10s  %10s  %9s  %8s  %6s\n", "", "", "", "", "", "(us)", "(us)",
        "(avg)", "", "");
}

void gemm_table_row(struct json *j, int is_root, const struct gemm_row *row, int tflops_digits)
{
    const struct gemm_shape *s = row->s;
    double tflops = gemm_flops(s) / row->avg / 1e12;
    if (is_root) {
        char t[16], tb[16], tf[16];
        fmt_num(t, 10, row->avg * 1e6);
        fmt_num(tb, 10, row->best * 1e6);
        snprintf(tf, sizeof tf, "%9.*f", tflops_digits, tflops);
        printf("  %8s  %8s  %6zu  %6zu  %6zu  %10s  %10s  %9s  %8s  ", row->impl, row->type, s->m, s->n, s->k,
            t, tb, tf, row->mode);
        report_wrong_cell(row->wrong);
        printf("%s%s\n", row->name ? "  " : "", row->name ? row->name : "");
        fflush(stdout);
    }
    json_obj_begin(j, NULL);
    json_str(j, "impl", row->impl);
    json_str(j, "type", row->type);
    if (row->precision) json_str(j, "precision", row->precision);
    json_int(j, "m", (long long)s->m);
    json_int(j, "n", (long long)s->n);
    json_int(j, "k", (long long)s->k);
    json_num(j, "flops", gemm_flops(s));
    json_num(j, "time_us", row->avg * 1e6);
    json_num(j, "time_min_us", row->best * 1e6);
    json_num(j, "tflops", tflops);
    json_num(j, "tflops_best", gemm_flops(s) / row->best / 1e12);
    json_str(j, "check", row->mode);
    report_wrong_json(j, row->wrong);
}
