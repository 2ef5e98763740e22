/* be_mpi.c -- CPU back end: host buffers, MPI_COMM_WORLD, wall-clock marks. */
#include "be.h"

#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "mpi_dtype.h"
#include "opts.h"
#include "timer.h"

static MPI_Comm world;     /* duplicate of MPI_COMM_WORLD used by every collective */
static int have_world;     /* 1 once world is valid */
static double *marks;      /* be_mark wall-clock times, seconds */
static int nmarks;         /* entries in marks */
static char cpu_desc[256]; /* cached "model name" */

const char *be_name(void)
{
    return "cpu";
}

static void read_cpu_model(void)
{
    snprintf(cpu_desc, sizeof cpu_desc, "cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !c) continue;
        for (c++; *c == ' '; c++) {}
        c[strcspn(c, "\n")] = '\0';
        snprintf(cpu_desc, sizeof cpu_desc, "%s", c);
        break;
    }
    fclose(f);
}

int be_init(const struct bench_opts *o, int need_comm, struct be_info *info)
{
    (void)need_comm;
    if (o->gpus != 1) {
        fprintf(stderr,
            "zerobench: -g %d needs the CUDA back end (zerobench-cuda); "
            "the CPU back end drives one rank per process\n",
            o->gpus);
        return 2;
    }
    if (be_geometry(info, 1) != 0) {
        fprintf(stderr, "zerobench: MPI_Comm_split_type failed\n");
        return 1;
    }
    if (MPI_Comm_dup(MPI_COMM_WORLD, &world) != MPI_SUCCESS) {
        fprintf(stderr, "zerobench: MPI_Comm_dup failed\n");
        return 1;
    }
    have_world = 1;
    /* errors come back to the harness, which names the call and aborts */
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    read_cpu_model();
    return 0;
}

void be_fini(void)
{
    free(marks);
    marks = NULL;
    nmarks = 0;
    mpi_scratch_free();
    if (have_world) MPI_Comm_free(&world);
    have_world = 0;
}

void *be_alloc(int l, size_t bytes)
{
    (void)l;
    void *p = NULL;
    size_t n = (bytes + 63) & ~(size_t)63;
    if (posix_memalign(&p, 64, n ? n : 64) != 0) return NULL;
    return p;
}

void be_free(int l, void *p)
{
    (void)l;
    free(p);
}

int be_upload(int l, void *dst, const void *src, size_t bytes)
{
    (void)l;
    memcpy(dst, src, bytes);
    return 0;
}

int be_download(int l, void *dst, const void *src, size_t bytes)
{
    (void)l;
    memcpy(dst, src, bytes);
    return 0;
}

void *be_comm(int l)
{
    (void)l;
    return &world;
}

const char *be_error_string(int code)
{
    static char buf[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (code < 0 || MPI_Error_string(code, buf, &len) != MPI_SUCCESS) return "internal error";
    return buf;
}
int be_has_graphs(void)
{
    return 0;
}
int be_graph_begin(void)
{
    return -1;
}
int be_graph_end(void)
{
    return -1;
}
int be_graph_launch(int n)
{
    (void)n;
    return -1;
}
void be_graph_free(void) {}
int be_dtype_ok(int dtype, char *why, size_t len)
{
    (void)dtype;
    (void)why;
    (void)len;
    return 1;
}
int be_op_ok(int op, char *why, size_t len)
{
    (void)op;
    (void)why;
    (void)len;
    return 1;
}
int be_group_begin(void)
{
    return 0;
}
int be_group_end(void)
{
    return 0;
}
int be_sync(void)
{
    return 0;
}

int be_marks_begin(int n)
{
    free(marks);
    marks = calloc((size_t)n, sizeof *marks);
    nmarks = marks ? n : 0;
    return marks ? 0 : -1;
}

int be_mark(int i)
{
    if (i < 0 || i >= nmarks) return -1;
    marks[i] = timer_now();
    return 0;
}

int be_marks_end(double *sec)
{
    for (int i = 0; i + 1 < nmarks; i++) sec[i] = marks[i + 1] - marks[i];
    return 0;
}

void be_describe(int l, char *buf, size_t len)
{
    (void)l;
    snprintf(buf, len, "cpu [omp %d] %s", omp_get_max_threads(), cpu_desc);
}

void be_meta_json(struct json *j)
{
    (void)j;
}
