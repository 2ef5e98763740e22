/* adam_cpu.c -- OpenMP/simd Adam step over a tensor list, and the CPU "adam" sub-benchmark. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "adam.h"
#include "bench.h"
#include "f16.h"
#include "report.h"
#include "stream.h"
#include "timer.h"

/* The kernels walk each tensor in blocks of ADAM_BLOCK elements: the
 * blocks are split over the threads ("omp for") and each full block is a
 * constant-trip simd loop, which the compiler unrolls into several
 * independent vector sqrt/div chains (a plain simd loop keeps one chain
 * in flight and is latency-bound on sqrt + div). */
#define ADAM_BLOCK 64

/* adam_elem_fp32: the update of element i (fp32 variant). */
#define ADAM_ELEM_FP32(i)                                                   \
    do {                                                                    \
        float gi = g[i];                                                    \
        float mi = b1 * m[i] + ob1 * gi;                                    \
        float vi = b2 * v[i] + ob2 * gi * gi;                               \
        p[i] = p[i] * decay - step * mi / (sqrtf(vi) * isb2 + eps);         \
        m[i] = mi;                                                          \
        v[i] = vi;                                                          \
    } while (0)

/* adam_elem_mixed: the update of element i (mixed variant). */
#define ADAM_ELEM_MIXED(i)                                                  \
    do {                                                                    \
        float gi = bf16_to_float(g16[i]);                                   \
        float mi = b1 * m[i] + ob1 * gi;                                    \
        float vi = b2 * v[i] + ob2 * gi * gi;                               \
        float wi = w[i] * decay - step * mi / (sqrtf(vi) * isb2 + eps);     \
        w[i] = wi;                                                          \
        m[i] = mi;                                                          \
        v[i] = vi;                                                          \
        p16[i] = bf16_from_float(wi);                                       \
    } while (0)

/* One tensor, fp32 variant: 4 streams in, 3 out. Called inside a parallel
 * region; the orphaned "omp for" splits the tensor's blocks over the threads. */
static void step_fp32(float *restrict p, float *restrict m, float *restrict v,
                      const float *restrict g, size_t n, const struct adam_coef *c)
{
    const float b1 = c->beta1, b2 = c->beta2, ob1 = c->one_m_beta1, ob2 = c->one_m_beta2;
    const float decay = c->decay, step = c->step_size, isb2 = c->inv_sqrt_bc2, eps = c->eps;
#pragma omp for schedule(static) nowait
    for (size_t b = 0; b < n; b += ADAM_BLOCK) {
        if (n - b >= ADAM_BLOCK) {
#pragma omp simd
            for (size_t i = b; i < b + ADAM_BLOCK; i++) ADAM_ELEM_FP32(i);
        } else {
#pragma omp simd
            for (size_t i = b; i < n; i++) ADAM_ELEM_FP32(i);
        }
    }
}

/* One tensor, mixed variant: bf16 grad in, fp32 master/m/v updated, bf16 param out. */
static void step_mixed(float *restrict w, float *restrict m, float *restrict v,
                       uint16_t *restrict p16, const uint16_t *restrict g16, size_t n,
                       const struct adam_coef *c)
{
    const float b1 = c->beta1, b2 = c->beta2, ob1 = c->one_m_beta1, ob2 = c->one_m_beta2;
    const float decay = c->decay, step = c->step_size, isb2 = c->inv_sqrt_bc2, eps = c->eps;
#pragma omp for schedule(static) nowait
    for (size_t b = 0; b < n; b += ADAM_BLOCK) {
        if (n - b >= ADAM_BLOCK) {
#pragma omp simd
            for (size_t i = b; i < b + ADAM_BLOCK; i++) ADAM_ELEM_MIXED(i);
        } else {
#pragma omp simd
            for (size_t i = b; i < n; i++) ADAM_ELEM_MIXED(i);
        }
    }
}

/* adam_step: one fused step over every tensor of the plan, one parallel region. */
static void adam_step(struct adam_state *s, int variant, const struct adam_plan *p,
                      const struct adam_coef *c)
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

/* all_ok: 1 when ok is true on every process (collective). */
static int all_ok(int ok)
{
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

static double max_over_procs(double x)
{
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return x;
}

/* triad_ref: best STREAM triad time on arrays with the footprint of the
 * Adam state (16 B/param for both variants), so both see the same caches. */
static int triad_ref(size_t params, const struct bench_opts *o, struct adam_result *r)
{
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
static int run_variant(const struct bench_opts *o, const struct adam_plan *p, struct adam_result *r)
{
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
    struct report rep;
    report_begin(&rep, o, bi);
    int vfirst = o->variant < 0 ? 0 : o->variant, vlast = o->variant < 0 ? 1 : o->variant;
    long long bad = 0;
    int failed = 0;
    char desc[256];
    snprintf(desc, sizeof desc, "STREAM triad (24 B/element counted), best of iters, on arrays as large "
             "as the Adam state (%d B/param), same run", ADAM_STATE_BYTES_PER_PARAM);
    adam_table_header(&rep, desc, "triad");
    for (size_t params = o->min_bytes; params && !failed;) {
        struct adam_plan plan;
        struct adam_result res = {0};
        int ok = adam_plan_make(&plan, params, o->tensors) == 0;
        ok = ok && triad_ref(params, o, &res) == 0;
        if (!all_ok(ok)) {
            adam_plan_free(&plan);
            failed = 1;
            break;
        }
        res.params = params;
        res.tensors = plan.ntensors;
        res.ref_best = max_over_procs(res.ref_best);
        for (int v = vfirst; v <= vlast && !failed; v++) {
            res.variant = v;
            if (!all_ok(run_variant(o, &plan, &res) == 0)) {
                failed = 1;
                break;
            }
            res.avg = max_over_procs(res.avg);
            res.best = max_over_procs(res.best);
            long long wrong = res.wrong;
            MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (res.wrong >= 0) res.wrong = wrong;
            if (res.wrong > 0) bad++;
            adam_table_row(&rep, &res, "stream_triad");
        }
        adam_plan_free(&plan);
        params = bench_next_size(o, params, o->step_factor);
    }
    report_rows_end(&rep);
    report_summary(&rep, "wrong_rows", bad, failed);
    if (failed && rep.is_root)
        fprintf(stderr, "zerobench: adam: cannot allocate the state on some rank (up to %zu parameters)\n",
                o->max_bytes);
    if (rep.is_root) {
        printf("# %-20s : %lld %s\n", "Out of bounds values", bad, bad ? "FAILED" : "OK");
        printf("#\n");
    }
    int rc = report_finish(&rep);
    return (bad || failed) ? 1 : rc;
}
