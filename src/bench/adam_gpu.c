/* adam_gpu.c -- the CUDA "adam" sub-benchmark: fused multi-tensor kernel vs device-to-device cudaMemcpy. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adam.h"
#include "be.h"
#include "be_cuda.h"
#include "bench.h"
#include "cuda_util.h"
#include "kernels.h"
#include "zb_report.h"

#define WHO "adam"

/* Device copy of one variant's state plus the tensor list and chunk table. */
struct dev_adam {
    float *w, *m, *v;                 /* pools, plan.pool elements */
    void *g;                          /* grads: float (fp32) or bf16 (mixed) */
    uint16_t *p16;                    /* bf16 params (mixed) */
    struct kern_adam_tensor *tensors; /* device tensor list */
    struct kern_adam_chunk *chunks;   /* device chunk table */
    int nchunks;                      /* entries in chunks */
};

static void dev_free(struct dev_adam *d)
{
    cudaFree(d->w);
    cudaFree(d->m);
    cudaFree(d->v);
    cudaFree(d->g);
    cudaFree(d->p16);
    cudaFree(d->tensors);
    cudaFree(d->chunks);
    memset(d, 0, sizeof *d);
}

/* dev_make: allocates and uploads state s and the tables on st (the stream
 * the kernels run on, so they see the uploaded data); 0 or -1 (printed). */
static int dev_make(
    struct dev_adam *d, const struct adam_state *s, int variant, const struct adam_plan *p, cudaStream_t st)
{
    size_t gsz = variant == ADAM_MIXED ? 2 : 4, pool = p->pool;
    memset(d, 0, sizeof *d);
    int ok = cuda_ok(cudaMalloc((void **)&d->w, pool * 4), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc((void **)&d->m, pool * 4), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc((void **)&d->v, pool * 4), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc(&d->g, pool * gsz), WHO, "cudaMalloc") &&
        (variant != ADAM_MIXED || cuda_ok(cudaMalloc((void **)&d->p16, pool * 2), WHO, "cudaMalloc"));
    ok = ok &&
        cuda_ok(cuda_copy_sync(d->w, s->master, pool * 4, cudaMemcpyHostToDevice, st), WHO, "upload") &&
        cuda_ok(cuda_copy_sync(d->m, s->m, pool * 4, cudaMemcpyHostToDevice, st), WHO, "upload") &&
        cuda_ok(cuda_copy_sync(d->v, s->v, pool * 4, cudaMemcpyHostToDevice, st), WHO, "upload") &&
        cuda_ok(cuda_copy_sync(d->g, variant == ADAM_MIXED ? (void *)s->grad16 : (void *)s->grad32,
                    pool * gsz, cudaMemcpyHostToDevice, st),
            WHO, "upload") &&
        (variant != ADAM_MIXED ||
            cuda_ok(cuda_copy_sync(d->p16, s->param16, pool * 2, cudaMemcpyHostToDevice, st), WHO, "upload"));
    if (!ok) return -1;

    struct kern_adam_tensor *ht = calloc((size_t)p->ntensors, sizeof *ht);
    size_t nch = 0;
    for (int t = 0; t < p->ntensors; t++) nch += (p->len[t] + KERN_ADAM_CHUNK - 1) / KERN_ADAM_CHUNK;
    struct kern_adam_chunk *hc = calloc(nch ? nch : 1, sizeof *hc);
    if (!ht || !hc || nch > (size_t)1 << 30) {
        fprintf(stderr, "zerobench-cuda: " WHO ": out of host memory for the tensor tables\n");
        free(ht);
        free(hc);
        return -1;
    }
    size_t c = 0;
    for (int t = 0; t < p->ntensors; t++) {
        size_t o = p->off[t];
        ht[t].w = d->w + o;
        ht[t].m = d->m + o;
        ht[t].v = d->v + o;
        ht[t].g = (const char *)d->g + o * gsz;
        ht[t].p16 = d->p16 ? d->p16 + o : NULL;
        ht[t].n = p->len[t];
        for (size_t st = 0; st < p->len[t]; st += KERN_ADAM_CHUNK) {
            hc[c].tensor = t;
            hc[c].start = st;
            c++;
        }
    }
    d->nchunks = (int)nch;
    ok = cuda_ok(cudaMalloc((void **)&d->tensors, (size_t)p->ntensors * sizeof *ht), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc((void **)&d->chunks, (nch ? nch : 1) * sizeof *hc), WHO, "cudaMalloc") &&
        cuda_ok(cuda_copy_sync(d->tensors, ht, (size_t)p->ntensors * sizeof *ht, cudaMemcpyHostToDevice, st),
            WHO, "upload") &&
        cuda_ok(cuda_copy_sync(d->chunks, hc, nch * sizeof *hc, cudaMemcpyHostToDevice, st), WHO, "upload");
    free(ht);
    free(hc);
    return ok ? 0 : -1;
}

/* run_variant: upload, check one step against the host reference, time iters steps. */
static int run_variant(
    const struct bench_opts *o, const struct adam_plan *p, struct adam_result *r, void *ctx)
{
    cudaStream_t st = ((const struct be_cuda_ctx *)ctx)->stream;
    struct adam_state hs, after;
    struct dev_adam d;
    struct adam_hparams hp;
    struct adam_coef c;
    cudaEvent_t *ev = calloc((size_t)o->iters + 1, sizeof *ev);
    double *sec = calloc((size_t)o->iters, sizeof *sec);
    int mixed = r->variant == ADAM_MIXED, ok = ev && sec;
    adam_hparams_default(&hp);
    adam_coef_make(&hp, &c);
    memset(&d, 0, sizeof d);
    memset(&after, 0, sizeof after);
    ok = ok && adam_state_alloc(&hs, r->variant, p->pool) == 0;
    if (ok) adam_state_fill(&hs, r->variant, p, 0x5eed + (uint64_t)r->variant);
    ok = ok && dev_make(&d, &hs, r->variant, p, st) == 0;
    r->wrong = -1;
    if (ok && o->check) {
        ok = cuda_ok(
                 (cudaError_t)kern_adam_step(mixed, d.tensors, d.chunks, d.nchunks, c, st), WHO, "launch") &&
            cuda_ok(cudaStreamSynchronize(st), WHO, "step") &&
            adam_state_alloc(&after, r->variant, p->pool) == 0 &&
            cuda_ok(cuda_copy_sync(after.master, d.w, p->pool * 4, cudaMemcpyDeviceToHost, st), WHO,
                "download") &&
            cuda_ok(cuda_copy_sync(after.m, d.m, p->pool * 4, cudaMemcpyDeviceToHost, st), WHO, "download") &&
            cuda_ok(cuda_copy_sync(after.v, d.v, p->pool * 4, cudaMemcpyDeviceToHost, st), WHO, "download") &&
            (!mixed ||
                cuda_ok(cuda_copy_sync(after.param16, d.p16, p->pool * 2, cudaMemcpyDeviceToHost, st), WHO,
                    "download"));
        if (ok) r->wrong = (long long)adam_check(&hp, r->variant, p, &hs, &after);
    }
    for (int i = 0; ok && i < o->warmup; i++)
        ok =
            cuda_ok((cudaError_t)kern_adam_step(mixed, d.tensors, d.chunks, d.nchunks, c, st), WHO, "launch");
    ok = ok && cuda_ok(cudaStreamSynchronize(st), WHO, "warm-up") && cuda_events(ev, o->iters + 1, 0) == 0;
    if (ok) MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; ok && i < o->iters; i++) {
        ok = cuda_ok(cudaEventRecord(ev[i], st), WHO, "event") &&
            cuda_ok((cudaError_t)kern_adam_step(mixed, d.tensors, d.chunks, d.nchunks, c, st), WHO, "launch");
    }
    ok = ok && cuda_ok(cudaEventRecord(ev[o->iters], st), WHO, "event") &&
        cuda_ok(cudaStreamSynchronize(st), WHO, "timed steps");
    double total = 0;
    if (ok && cuda_event_times(ev, o->iters, sec, &total) == 0) {
        r->avg = total / o->iters;
        r->best = sec[0];
        for (int i = 1; i < o->iters; i++) r->best = sec[i] < r->best ? sec[i] : r->best;
    } else {
        ok = 0;
    }
    if (ev) cuda_events(ev, o->iters + 1, 1);
    free(ev);
    free(sec);
    dev_free(&d);
    adam_state_free(&hs);
    adam_state_free(&after);
    return ok ? 0 : -1;
}

/* d2d_ref: best device-to-device cudaMemcpy of half the Adam step's bytes
 * (a copy reads and writes each byte: 2 x size moved). */
static int d2d_ref(size_t params, const struct bench_opts *o, struct adam_result *r, void *ctx)
{
    cudaStream_t st = ((const struct be_cuda_ctx *)ctx)->stream;
    size_t bytes = params * ADAM_BYTES_PER_PARAM / 2;
    void *src = NULL, *dst = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    int ok = cuda_ok(cudaMalloc(&src, bytes), WHO, "cudaMalloc") &&
        cuda_ok(cudaMalloc(&dst, bytes), WHO, "cudaMalloc") &&
        cuda_ok(cudaMemsetAsync(src, 1, bytes, st), WHO, "memset") && cuda_events(ev, 2, 0) == 0;
    double best = 1e30;
    for (int i = 0; ok && i < o->warmup + o->iters; i++) {
        float ms = 0;
        ok = cuda_ok(cudaEventRecord(ev[0], st), WHO, "event") &&
            cuda_ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st), WHO, "memcpy") &&
            cuda_ok(cudaEventRecord(ev[1], st), WHO, "event") &&
            cuda_ok(cudaEventSynchronize(ev[1]), WHO, "memcpy") &&
            cuda_ok(cudaEventElapsedTime(&ms, ev[0], ev[1]), WHO, "event time");
        if (ok && i >= o->warmup && ms * 1e-3 < best) best = ms * 1e-3;
    }
    cuda_events(ev, 2, 1);
    cudaFree(src);
    cudaFree(dst);
    r->ref_bytes = 2.0 * (double)bytes;
    r->ref_best = best;
    return ok ? 0 : -1;
}

int adam_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct be_cuda_ctx *x = be_comm(0);
    const struct adam_backend b = {
        .ref_desc = "device-to-device cudaMemcpy of half the step's bytes (read + write = 2 x size), "
                    "best of iters, same run; one launch per step (chunked tensor list in device memory), "
                    "CUDA events; first GPU of each process",
        .ref_col = "d2d",
        .ref_key = "d2d_memcpy",
        .setup_fail = NULL, /* cuda_ok has printed the failing call */
        .ref = d2d_ref,
        .run = run_variant,
        .ctx = x,
    };
    cudaSetDevice(x->device);
    return adam_sweep(o, bi, &b);
}
