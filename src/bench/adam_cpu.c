/* adam_cpu.c -- OpenMP/simd Adam step over a tensor list, and the CPU "adam" sub-benchmark. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "adam.h"
#include "bench.h"
#include "f16.h"
#include "zb_report.h"
#include "stream.h"
#include "timer.h"

/* The kernels walk each tensor in blocks of ADAM_BLOCK elements: the
 * blocks are split over the threads ("omp for") and each full block is a
 * constant-trip simd loop, which the compiler unrolls into several
 * independent vector sqrt/div chains (a plain simd loop keeps one chain
 * in flight and is latency-bound on sqrt + div). */
#define ADAM_BLOCK 64

/* adam_elem_fp32: the update of element i (fp32 variant). */
#define ADAM_ELEM_FP32(i)                                           \
    do {                                                            \
        float gi = g[i];                                            \
        float mi = b1 * m[i] + ob1 * gi;                            \
        float vi = b2 * v[i] + ob2 * gi * gi;                       \
        p[i] = p[i] * decay - step * mi / (sqrtf(vi) * isb2 + eps); \
        m[i] = mi;                                                  \
        v[i] = vi;                                                  \
    } while (0)

/* adam_elem_mixed: the update of element i (mixed variant). */
#define ADAM_ELEM_MIXED(i)                                              \
    do {                                                                \
        float gi = bf16_to_float(g16[i]);                               \
        float mi = b1 * m[i] + ob1 * gi;                                \
        float vi = b2 * v[i] + ob2 * gi * gi;                           \
        float wi = w[i] * decay - step * mi / (sqrtf(vi) * isb2 + eps); \
        w[i] = wi;                                                      \
        m[i] = mi;                                                      \
        v[i] = vi;                                                      \
        p16[i] = bf16_from_float(wi);                                   \
    } while (0)

/* ADAM_WALK(ELEM): the walk both variants share: c's coefficients under the
 * names the ADAM_ELEM_* updates use, then the n elements in ADAM_BLOCK
 * blocks split over the threads, each block a simd loop of ELEM(i). */
#define ADAM_WALK(ELEM)                                                                          \
    do {                                                                                         \
        const float b1 = c->beta1, b2 = c->beta2, ob1 = c->one_m_beta1, ob2 = c->one_m_beta2;    \
        const float decay = c->decay, step = c->step_size, isb2 = c->inv_sqrt_bc2, eps = c->eps; \
        _Pragma("omp for schedule(static) nowait") for (size_t b = 0; b < n; b += ADAM_BLOCK)    \
        {                                                                                        \
            if (n - b >= ADAM_BLOCK) {                                                           \
                _Pragma("omp simd") for (size_t i = b; i < b + ADAM_BLOCK; i++) ELEM(i);         \
            } else {                                                                             \
                _Pragma("omp simd") for (size_t i = b; i < n; i++) ELEM(i);                      \
            }                                                                                    \
        }                                                                                        \
    } while (0)

/* One tensor, fp32 variant: 4 streams in, 3 out. Called inside a parallel
 * region; the orphaned "omp for" splits the tensor's blocks over the threads. */
static void step_fp32(float *restrict p, float *restrict m, float *restrict v, const float *restrict g,
    size_t n, const struct adam_coef *c)
{
    ADAM_WALK(ADAM_ELEM_FP32);
}

/* One tensor, mixed variant: bf16 grad in, fp32 master/m/v updated, bf16 param out. */
static void step_mixed(float *restrict w, float *restrict m, float *restrict v, uint16_t *restrict p16,
    const uint16_t *restrict g16, size_t n, const struct adam_coef *c)
{
    ADAM_WALK(ADAM_ELEM_MIXED);
}

/* adam_step: one fused step over every tensor of the plan, one parallel region. */
static void adam_step(struct adam_state *s, int variant, const struct adam_plan *p, const struct adam_coef *c)
{
#pragma omp parallel
    for (int t = 0; t < p->ntensors; t++) {
        size_t o = p->off[t];
        if (variant == ADAM_FP32)
            step_fp32(s->master + o, s->m + o, s->v + o, s->grad32 + o, p->len[t], c);
        else
            step_mixed(s->master + o, s->m + o, s->v + o, s->param16 + o, s->grad16 + o, p->len[t], c);
    }
}

/* triad_ref: best STREAM triad time on arrays with the footprint of the
 * Adam state (16 B/param for both variants), so both see the same caches. */
static int triad_ref(size_t params, const struct bench_opts *o, struct adam_result *r, void *ctx)
{
    (void)ctx;
    struct stream_arrays s;
    size_t n = (params * ADAM_STATE_BYTES_PER_PARAM + 23) / 24;
    if (stream_alloc(&s, n) != 0) return -1;
    double best = 1e30;
    for (int i = 0; i < o->warmup + o->iters; i++) {
        double t0 = timer_now();
        stream_run(&s, STREAM_TRIAD, 0.5);
        double dt = timer_now() - t0;
        if (i >= o->warmup && dt < best) best = dt;
    }
    r->ref_bytes = stream_bytes(STREAM_TRIAD, n);
    r->ref_best = best;
    stream_free(&s);
    return 0;
}

/* run_variant: check one step against the reference, then time iters steps. */
static int run_variant(
    const struct bench_opts *o, const struct adam_plan *p, struct adam_result *r, void *ctx)
{
    (void)ctx;
    struct adam_state s, before;
    struct adam_hparams hp;
    struct adam_coef c;
    adam_hparams_default(&hp);
    adam_coef_make(&hp, &c);
    if (adam_state_alloc(&s, r->variant, p->pool) != 0) return -1;
    adam_state_fill(&s, r->variant, p, 0x5eed + (uint64_t)r->variant);
    r->wrong = -1;
    if (o->check) {
        if (adam_state_alloc(&before, r->variant, p->pool) != 0) {
            adam_state_free(&s);
            return -1;
        }
        adam_state_copy(&before, &s, r->variant, p->pool);
        adam_step(&s, r->variant, p, &c);
        r->wrong = (long long)adam_check(&hp, r->variant, p, &before, &s);
        adam_state_free(&before);
    }
    for (int i = 0; i < o->warmup; i++) adam_step(&s, r->variant, p, &c);
    double sum = 0, best = 1e30;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < o->iters; i++) {
        double t0 = timer_now();
        adam_step(&s, r->variant, p, &c);
        double dt = timer_now() - t0;
        sum += dt;
        if (dt < best) best = dt;
    }
    r->avg = sum / o->iters;
    r->best = best;
    adam_state_free(&s);
    return 0;
}

int adam_main(const struct bench_opts *o, const struct be_info *bi)
{
    char desc[256];
    snprintf(desc, sizeof desc,
        "STREAM triad (24 B/element counted), best of iters, on arrays as large "
        "as the Adam state (%d B/param), same run",
        ADAM_STATE_BYTES_PER_PARAM);
    const struct adam_backend b = {
        .ref_desc = desc,
        .ref_col = "triad",
        .ref_key = "stream_triad",
        .setup_fail = "zerobench: adam: cannot allocate the state on some rank",
        .ref = triad_ref,
        .run = run_variant,
        .ctx = NULL,
    };
    return adam_sweep(o, bi, &b);
}
