/* gemm_common.c -- GEMM shape list, FLOP count and reference check. */
#include "gemm.h"

#include <math.h>

#include "fault.h"

int gemm_shapes(const struct bench_opts *o, const struct gemm_shape *defs, int ndefs,
                struct gemm_shape *out, int max)
{
    int n = 0;
    if (o->nshapes > 0) {
        for (int i = 0; i < o->nshapes && n < max; i++, n++) {
            out[n].m = o->shapes[i][0];
            out[n].n = o->shapes[i][1];
            out[n].k = o->shapes[i][2];
        }
    } else {
        for (int i = 0; i < ndefs && n < max; i++, n++) out[n] = defs[i];
    }
    return n;
}

double gemm_flops(const struct gemm_shape *s) { return 2.0 * (double)s->m * (double)s->n * (double)s->k; }

static int check_one(const struct gemm_shape *s, double gamma, double u_out, double got,
                     size_t i, size_t j)
{
    double ref = 0, mag = 0;
    for (size_t k = 0; k < s->k; k++) {
        double p = (double)gemm_value(GEMM_SEED_A, (uint64_t)i * s->k + k)
                   * (double)gemm_value(GEMM_SEED_B, (uint64_t)k * s->n + j);
        ref += p;
        mag += fabs(p);
    }
    return !(fabs(got - ref) <= gamma * mag + u_out * fabs(ref));
}

/* corner (0, 0) is in every sample and checks against got+1 under ZEROBENCH_FAULT */
static double fault_shift(size_t i, size_t j) { return (i == 0 && j == 0 && fault_injected()) ? 1.0 : 0.0; }

size_t gemm_check(const struct gemm_shape *s, double u_acc, double u_out, gemm_get_fn get,
                  void *ctx, const char **mode)
{
    double ku = (double)s->k * u_acc;
    double gamma = ku < 1 ? ku / (1 - ku) : INFINITY;
    size_t wrong = 0;
    if ((double)s->m * (double)s->n * (double)s->k <= 67108864.0) {
        *mode = "full";
        for (size_t i = 0; i < s->m; i++)
            for (size_t j = 0; j < s->n; j++)
                wrong += (size_t)check_one(s, gamma, u_out, get(ctx, i, j) + fault_shift(i, j), i, j);
        return wrong;
    }
    *mode = "sampled";
    uint64_t x = 0x853c49e6748fea9bull;
    for (int t = 0; t < 256; t++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t i = (size_t)((x >> 33) % s->m);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)((x >> 33) % s->n);
        if (t < 4) { i = t & 1 ? s->m - 1 : 0; j = t & 2 ? s->n - 1 : 0; }  /* corners */
        wrong += (size_t)check_one(s, gamma, u_out, get(ctx, i, j) + fault_shift(i, j), i, j);
    }
    return wrong;
}
