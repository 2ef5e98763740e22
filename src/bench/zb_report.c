/* zb_report.c -- metadata collection, common "#" header and JSON document frame. */
#include "zb_report.h"

#include <errno.h>
#include <mpi.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dtype.h"

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
}

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *c = strchr(line, ':');
        if (!c) continue;
        c++;
        while (*c == ' ' || *c == '\t') c++;
        snprintf(buf, len, "%s", c);
        trim(buf);
        break;
    }
    fclose(f);
}

static void meta_collect(struct run_meta *m)
{
    memset(m, 0, sizeof *m);
    if (gethostname(m->host, sizeof m->host - 1) != 0) snprintf(m->host, sizeof m->host, "unknown");
    cpu_model(m->cpu_model, sizeof m->cpu_model);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 ? (int)n : 0;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int vl = 0;
    if (MPI_Get_library_version(v, &vl) == MPI_SUCCESS) {
        v[vl < (int)sizeof v ? vl : (int)sizeof v - 1] = '\0';
        char *nl = strchr(v, '\n');
        if (nl) *nl = '\0';
        snprintf(m->mpi_version, sizeof m->mpi_version, "%s", v);
        trim(m->mpi_version);
    }
    m->omp_threads = omp_get_max_threads();
    m->loadavg = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &m->loadavg) != 1) m->loadavg = -1;
        fclose(f);
    }
}

/* report_command: argv joined by spaces with argv[0] reduced to its
 * basename, in buf (truncated to len). */
static void report_command(const struct bench_opts *o, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->argc && used + 1 < len; i++) {
        const char *a = o->argv[i];
        if (i == 0) {
            const char *s = strrchr(a, '/');
            if (s) a = s + 1;
        }
        int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", a);
        if (n < 0) break;
        used += (size_t)n;
    }
}

void report_begin(struct report *r, const struct bench_opts *o, const struct be_info *bi)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    r->o = o;
    r->bi = bi;
    r->is_root = rank == 0;
    meta_collect(&r->meta);
    json_init(&r->j);
    struct json *j = &r->j;
    char cmd[4096];
    report_command(o, cmd, sizeof cmd);

    json_obj_begin(j, NULL);
    json_int(j, "schema_version", ZB_SCHEMA_VERSION);
    json_str(j, "tool", "zerobench");
    json_str(j, "backend", be_name());
    json_str(j, "benchmark", o->bench);
    json_str(j, "date", r->meta.date);
    json_str(j, "command", cmd);
    json_arr_begin(j, "argv");
    for (int i = 0; i < o->argc; i++) {
        const char *a = o->argv[i], *s = i == 0 ? strrchr(a, '/') : NULL;
        json_str(j, NULL, s ? s + 1 : a);
    }
    json_arr_end(j);
    json_obj_begin(j, "system");
    json_str(j, "host", r->meta.host);
    json_str(j, "cpu_model", r->meta.cpu_model);
    json_int(j, "cpus", r->meta.cpus);
    json_int(j, "omp_threads", r->meta.omp_threads);
    if (r->meta.loadavg >= 0)
        json_num(j, "load_average_1m", r->meta.loadavg);
    else
        json_null(j, "load_average_1m");
    be_meta_json(j);
    json_obj_end(j);
    json_obj_begin(j, "mpi");
    json_str(j, "library_version", r->meta.mpi_version);
    json_int(j, "processes", bi->nprocs);
    json_int(j, "ranks", bi->nranks);
    json_int(j, "ranks_per_node", bi->procs_per_node * bi->nlocal);
    json_int(j, "processes_per_node", bi->procs_per_node);
    json_int(j, "nodes", bi->nnodes);
    json_obj_end(j);
    json_obj_begin(j, "config");
    json_int(j, "min_bytes", (long long)o->min_bytes);
    json_int(j, "max_bytes", (long long)o->max_bytes);
    if (o->step_factor > 1)
        json_int(j, "step_factor", (long long)o->step_factor);
    else
        json_int(j, "step_bytes", (long long)o->step_bytes);
    json_int(j, "iters", o->iters);
    json_int(j, "warmup_iters", o->warmup);
    json_int(j, "check", o->check);
    json_int(j, "per_iter_timing", o->per_iter);
    json_int(j, "average", o->average);
    json_int(j, "gpus_per_process", o->gpus);
    if (o->dtype >= 0)
        json_str(j, "datatype", dtype_get(o->dtype)->name);
    else if (o->dtype == OPTS_ALL)
        json_str(j, "datatype", "all");
    else
        json_null(j, "datatype");
    if (o->op >= 0)
        json_str(j, "op", op_name(o->op));
    else if (o->op == OPTS_ALL)
        json_str(j, "op", "all");
    else
        json_null(j, "op");
    json_int(j, "root", o->root);
    json_str(j, "timing", o->imb ? "imb" : "nccl");
    json_int(j, "blocking", o->blocking);
    json_int(j, "cudagraph", o->graph);
    json_int(j, "agg_iters", o->agg);
    json_int(j, "run_cycles", o->cycles);
    json_int(j, "report_cputime", o->cputime);
    json_obj_end(j);
    json_arr_begin(j, "rows");
}

void report_rows_end(struct report *r)
{
    json_arr_end(&r->j);
}

int report_finish(struct report *r)
{
    json_obj_end(&r->j);
    int rc = 0;
    if (r->is_root && r->o->json_path) {
        if (json_write_atomic(&r->j, r->o->json_path) != 0) {
            fprintf(stderr, "zerobench: cannot write JSON to %s: %s\n", r->o->json_path, strerror(errno));
            rc = 1;
        } else {
            printf("# JSON written to %s\n", r->o->json_path);
        }
    }
    json_free(&r->j);
    return rc;
}

void report_header(const struct report *r)
{
    if (!r->is_root) return;
    printf("# zerobench %s, %s back end, %d rank%s (%d process%s on %d node%s), %d OpenMP thread%s\n",
        r->o->bench, be_name(), r->bi->nranks, r->bi->nranks == 1 ? "" : "s", r->bi->nprocs,
        r->bi->nprocs == 1 ? "" : "es", r->bi->nnodes, r->bi->nnodes == 1 ? "" : "s", r->meta.omp_threads,
        r->meta.omp_threads == 1 ? "" : "s");
    printf("# host %s, cpu %s, %d cpus, load average %.2f, %s\n", r->meta.host, r->meta.cpu_model,
        r->meta.cpus, r->meta.loadavg, r->meta.date);
    printf("# MPI: %s\n", r->meta.mpi_version);
    char dev[160];
    be_describe(0, dev, sizeof dev);
    printf("# device (rank 0): %s\n", dev);
}

int report_close(struct report *r, const char *wrong_key, long long bad, int failed)
{
    report_rows_end(r);
    json_obj_begin(&r->j, "summary");
    json_int(&r->j, wrong_key, bad);
    json_bool(&r->j, "ok", bad == 0 && !failed);
    json_obj_end(&r->j);
    if (r->is_root) {
        printf("# %-20s : %lld %s\n", "Out of bounds values", bad, bad ? "FAILED" : "OK");
        printf("#\n");
    }
    int rc = report_finish(r);
    return (bad || failed) ? 1 : rc;
}

void report_wrong_cell(long long wrong)
{
    if (wrong >= 0)
        printf("%6lld", wrong);
    else
        printf("   N/A");
}

void report_wrong_json(struct json *j, long long wrong)
{
    if (wrong >= 0)
        json_int(j, "wrong", wrong);
    else
        json_null(j, "wrong");
}

size_t bench_next_size(const struct bench_opts *o, size_t size, size_t factor)
{
    size_t next = factor > 1 ? size * factor : size + o->step_bytes;
    if (next <= size || (factor > 1 && next / factor != size) || next > o->max_bytes) return 0;
    return next;
}

int bench_all_ok(int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

void bench_max(double *x, int n)
{
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

long long bench_wrong_total(const struct bench_opts *o, long long wrong)
{
    if (o->check) MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return wrong;
}

int bench_row_total(const struct bench_opts *o, double *avg, double *best, long long *wrong)
{
    bench_max(avg, 1);
    bench_max(best, 1);
    *wrong = bench_wrong_total(o, *wrong);
    return *wrong > 0;
}

int bench_usage(const struct be_info *bi, const char *fmt, ...)
{
    if (bi->proc != 0) return 2;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}
