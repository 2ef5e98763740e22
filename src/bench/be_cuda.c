/* be_cuda.c -- CUDA back end: GPUs per process, one stream each, NCCL communicators, event marks. */
#include "be.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be_cuda.h"
#include "devsel.h"
#include "json.h"
#include "opts.h"

static struct be_cuda_ctx *ctx; /* one per local rank (GPU) */
static int nlocal;              /* entries in ctx */
static cudaEvent_t *marks;      /* nmarks x nlocal events */
static int nmarks;              /* marks per GPU */

const char *be_name(void)
{
    return "cuda";
}

/* agree: 0 when every process passed ok == 1, else 1 (collective). */
static int agree(int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok ? 0 : 1;
}

int be_init(const struct bench_opts *o, int need_comm, struct be_info *info)
{
    if (be_geometry(info, o->gpus) != 0) {
        fprintf(stderr, "zerobench-cuda: MPI_Comm_split_type failed\n");
        return 1;
    }
    int ndev = 0, ok = 1, first = -1;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        fprintf(stderr, "zerobench-cuda: no CUDA device found (cudaGetDeviceCount: %s)\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        ok = 0;
    } else {
        /* the launcher's local rank (so srun/mpirun placement and per-task
         * visibility both work), or ZEROBENCH_DEVICE when given */
        char why[256];
        int lr = devsel_local_rank(info->local_proc);
        first = devsel_first(lr, o->gpus, ndev, getenv("ZEROBENCH_DEVICE"), why, sizeof why);
        if (first < 0) {
            fprintf(stderr, "zerobench-cuda: process %d: %s\n", info->proc, why);
            ok = 0;
        }
    }
    if (agree(ok)) return 1;

    nlocal = o->gpus;
    ctx = calloc((size_t)nlocal, sizeof *ctx);
    ok = ctx != NULL;
    for (int l = 0; ok && l < nlocal; l++) {
        ctx[l].device = first + l;
        e = cudaSetDevice(ctx[l].device);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&ctx[l].cc_major, cudaDevAttrComputeCapabilityMajor, ctx[l].device);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx[l].stream, cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            fprintf(stderr, "zerobench-cuda: device %d: %s\n", ctx[l].device, cudaGetErrorString(e));
            ok = 0;
        }
    }
    if (agree(ok)) return 1;
    if (!need_comm) return 0;

    ncclUniqueId id;
    ncclResult_t r = ncclSuccess;
    if (info->proc == 0) r = ncclGetUniqueId(&id);
    MPI_Bcast(&r, (int)sizeof r, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (r != ncclSuccess) {
        if (info->proc == 0) fprintf(stderr, "zerobench-cuda: ncclGetUniqueId: %s\n", ncclGetErrorString(r));
        return 1;
    }
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    r = ncclGroupStart();
    for (int l = 0; r == ncclSuccess && l < nlocal; l++) {
        cudaSetDevice(ctx[l].device);
        r = ncclCommInitRank(&ctx[l].comm, info->nranks, id, info->rank0 + l);
    }
    ncclResult_t r2 = ncclGroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess) {
        fprintf(stderr, "zerobench-cuda: ncclCommInitRank: %s\n", ncclGetErrorString(r));
        ok = 0;
    }
    return agree(ok);
}

static void marks_free(void)
{
    for (int i = 0; marks && i < nmarks * nlocal; i++)
        if (marks[i]) cudaEventDestroy(marks[i]);
    free(marks);
    marks = NULL;
    nmarks = 0;
}

void be_fini(void)
{
    marks_free();
    be_graph_free();
    for (int l = 0; ctx && l < nlocal; l++) {
        cudaSetDevice(ctx[l].device);
#if NCCL_VERSION_CODE >= 21100
        for (int t = 0; t < ZB_NTYPES; t++)
            if (ctx[l].premul_made[t]) ncclRedOpDestroy(ctx[l].premul[t], ctx[l].comm);
#endif
        if (ctx[l].comm) ncclCommDestroy(ctx[l].comm);
        if (ctx[l].stream) cudaStreamDestroy(ctx[l].stream);
    }
    free(ctx);
    ctx = NULL;
    nlocal = 0;
}

void *be_alloc(int l, size_t bytes)
{
    void *p = NULL;
    if (cudaSetDevice(ctx[l].device) != cudaSuccess) return NULL;
    return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : NULL;
}

void be_free(int l, void *p)
{
    if (!p) return;
    cudaSetDevice(ctx[l].device);
    cudaFree(p);
}

/* copies go through the rank's own stream so they order with its kernels */
static int copy(int l, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    if (cudaSetDevice(ctx[l].device) != cudaSuccess) return -1;
    if (bytes && cudaMemcpyAsync(dst, src, bytes, kind, ctx[l].stream) != cudaSuccess) return -1;
    return cudaStreamSynchronize(ctx[l].stream) == cudaSuccess ? 0 : -1;
}

int be_upload(int l, void *dst, const void *src, size_t bytes)
{
    return copy(l, dst, src, bytes, cudaMemcpyHostToDevice);
}

int be_download(int l, void *dst, const void *src, size_t bytes)
{
    return copy(l, dst, src, bytes, cudaMemcpyDeviceToHost);
}

void *be_comm(int l)
{
    return &ctx[l];
}

const char *be_error_string(int code)
{
    return code < 0 ? "internal error" : ncclGetErrorString((ncclResult_t)code);
}
ncclResult_t nccl_op(struct be_cuda_ctx *x, int dtype, int op, ncclRedOp_t *out)
{
    static const ncclRedOp_t basic[4] = {ncclSum, ncclProd, ncclMax, ncclMin};
    if (op < 4) {
        *out = basic[op];
        return ncclSuccess;
    }
#if NCCL_VERSION_CODE >= 21000
    if (op == ZB_AVG) {
        *out = ncclAvg;
        return ncclSuccess;
    }
#endif
#if NCCL_VERSION_CODE >= 21100
    if (op == ZB_PREMULSUM) {
        if (!x->premul_made[dtype]) {
            unsigned char scalar[8] = {0};
            dtype_store(dtype, scalar, 0, ZB_PREMUL_SCALAR);
            ncclResult_t r = ncclRedOpCreatePreMulSum(
                &x->premul[dtype], scalar, nccl_dtype(dtype), ncclScalarHostImmediate, x->comm);
            if (r != ncclSuccess) return r;
            x->premul_made[dtype] = 1;
        }
        *out = x->premul[dtype];
        return ncclSuccess;
    }
#endif
    (void)x;
    (void)dtype;
    return ncclInvalidArgument;
}

int be_dtype_ok(int dtype, char *why, size_t len)
{
    if (dtype != ZB_F8E4M3 && dtype != ZB_F8E5M2) return 1;
#ifdef ZB_NCCL_FP8
    for (int l = 0; l < nlocal; l++)
        if (ctx[l].cc_major < 9) {
            snprintf(why, len,
                "NCCL reduces fp8 only on compute capability 9.0 and newer (device %d is %d.x)",
                ctx[l].device, ctx[l].cc_major);
            return 0;
        }
    return 1;
#else
    snprintf(why, len, "this NCCL (nccl.h) has no fp8 types (NCCL >= 2.24 has them)");
    return 0;
#endif
}

int be_op_ok(int op, char *why, size_t len)
{
    int need = op == ZB_AVG ? 21000 : op == ZB_PREMULSUM ? 21100 : 0;
    if (NCCL_VERSION_CODE >= need) return 1;
    snprintf(why, len, "%s needs NCCL >= %d.%d (built against %d.%d)", op_name(op), need / 10000,
        (need / 100) % 100, NCCL_MAJOR, NCCL_MINOR);
    return 0;
}

int be_has_graphs(void)
{
    return 1;
}

/* Capture mode global, as nccl-tests: any unsafe call elsewhere in the
 * process during capture is an error rather than a silent race. */
int be_graph_begin(void)
{
    for (int l = 0; l < nlocal; l++) {
        if (cudaSetDevice(ctx[l].device) != cudaSuccess) return -1;
        if (cudaStreamBeginCapture(ctx[l].stream, cudaStreamCaptureModeGlobal) != cudaSuccess) return -1;
    }
    return 0;
}

int be_graph_end(void)
{
    int ok = 1;
    for (int l = 0; l < nlocal; l++) {
        cudaGraph_t g = NULL;
        cudaSetDevice(ctx[l].device);
        if (cudaStreamEndCapture(ctx[l].stream, &g) != cudaSuccess || !g) {
            ok = 0;
            continue;
        }
        if (cudaGraphInstantiate(&ctx[l].graph, g, 0) != cudaSuccess) ok = 0;
        cudaGraphDestroy(g);
    }
    return ok ? 0 : -1;
}

int be_graph_launch(int n)
{
    for (int i = 0; i < n; i++)
        for (int l = 0; l < nlocal; l++) {
            if (!ctx[l].graph) return -1;
            if (cudaSetDevice(ctx[l].device) != cudaSuccess) return -1;
            if (cudaGraphLaunch(ctx[l].graph, ctx[l].stream) != cudaSuccess) return -1;
        }
    return 0;
}

void be_graph_free(void)
{
    for (int l = 0; ctx && l < nlocal; l++)
        if (ctx[l].graph) {
            cudaSetDevice(ctx[l].device);
            cudaGraphExecDestroy(ctx[l].graph);
            ctx[l].graph = NULL;
        }
}

int be_group_begin(void)
{
    return ncclGroupStart() == ncclSuccess ? 0 : -1;
}
int be_group_end(void)
{
    return ncclGroupEnd() == ncclSuccess ? 0 : -1;
}

int be_sync(void)
{
    for (int l = 0; l < nlocal; l++) {
        if (cudaSetDevice(ctx[l].device) != cudaSuccess) return -1;
        if (cudaStreamSynchronize(ctx[l].stream) != cudaSuccess) return -1;
    }
    return 0;
}

int be_marks_begin(int n)
{
    marks_free();
    marks = calloc((size_t)n * (size_t)nlocal, sizeof *marks);
    if (!marks) return -1;
    nmarks = n;
    for (int l = 0; l < nlocal; l++) {
        cudaSetDevice(ctx[l].device);
        for (int i = 0; i < n; i++)
            if (cudaEventCreate(&marks[i * nlocal + l]) != cudaSuccess) return -1;
    }
    return 0;
}

int be_mark(int i)
{
    if (i < 0 || i >= nmarks) return -1;
    for (int l = 0; l < nlocal; l++)
        if (cudaEventRecord(marks[i * nlocal + l], ctx[l].stream) != cudaSuccess) return -1;
    return 0;
}

int be_marks_end(double *sec)
{
    for (int i = 0; i + 1 < nmarks; i++) {
        double worst = 0;
        for (int l = 0; l < nlocal; l++) {
            float ms = 0;
            if (cudaEventElapsedTime(&ms, marks[i * nlocal + l], marks[(i + 1) * nlocal + l]) != cudaSuccess)
                return -1;
            if (ms * 1e-3 > worst) worst = ms * 1e-3;
        }
        sec[i] = worst;
    }
    return 0;
}

void be_describe(int l, char *buf, size_t len)
{
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, ctx[l].device) != cudaSuccess) {
        snprintf(buf, len, "cuda %d [unknown]", ctx[l].device);
        return;
    }
    snprintf(buf, len, "cuda %2d [%04x:%02x:%02x] %s", ctx[l].device, p.pciDomainID, p.pciBusID,
        p.pciDeviceID, p.name);
}

static void version_str(char *buf, size_t len, int v, int nccl)
{
    if (nccl)
        snprintf(buf, len, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
    else
        snprintf(buf, len, "%d.%d", v / 1000, (v / 10) % 100);
}

void be_meta_json(struct json *j)
{
    int v = 0;
    char s[32];
    struct cudaDeviceProp p;
    if (nlocal > 0 && cudaGetDeviceProperties(&p, ctx[0].device) == cudaSuccess) {
        json_str(j, "gpu_model", p.name);
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", p.major, p.minor);
        json_str(j, "gpu_compute_capability", cc);
        json_int(j, "gpu_memory_bytes", (long long)p.totalGlobalMem);
        json_int(j, "gpu_sms", p.multiProcessorCount);
    }
    json_int(j, "gpus_per_process", nlocal);
    if (cudaDriverGetVersion(&v) == cudaSuccess) {
        version_str(s, sizeof s, v, 0);
        json_str(j, "cuda_driver_version", s);
    }
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) {
        version_str(s, sizeof s, v, 0);
        json_str(j, "cuda_runtime_version", s);
    }
    if (ncclGetVersion(&v) == ncclSuccess) {
        version_str(s, sizeof s, v, 1);
        json_str(j, "nccl_version", s);
    }
}
