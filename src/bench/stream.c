/* stream.c -- STREAM-style kernels with OpenMP threads and simd, and their validation. */
#include "stream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

const char *stream_name(int k)
{
    static const char *names[STREAM_NKERNELS] = {"copy", "scale", "add", "triad"};
    return (k >= 0 && k < STREAM_NKERNELS) ? names[k] : "?";
}

double stream_bytes(int k, size_t n)
{
    return (k == STREAM_ADD || k == STREAM_TRIAD ? 24.0 : 16.0) * (double)n;
}

static double *alloc_array(struct stream_arrays *s, int k, size_t n)
{
    size_t off = (size_t)k * 576;
    if (posix_memalign(&s->raw[k], 4096, (n ? n : 1) * sizeof(double) + off) != 0) {
        s->raw[k] = NULL;
        return NULL;
    }
    return (double *)((char *)s->raw[k] + off);
}

int stream_alloc(struct stream_arrays *s, size_t n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->a = alloc_array(s, 0, n);
    s->b = alloc_array(s, 1, n);
    s->c = alloc_array(s, 2, n);
    if (!s->a || !s->b || !s->c) {
        stream_free(s);
        return -1;
    }
    double *restrict a = s->a, *restrict b = s->b, *restrict c = s->c;
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }
    return 0;
}

void stream_free(struct stream_arrays *s)
{
    for (int k = 0; k < 3; k++) free(s->raw[k]);
    memset(s, 0, sizeof *s);
}

static void k_copy(double *restrict c, const double *restrict a, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) c[i] = a[i];
}

static void k_scale(double *restrict b, const double *restrict c, double q, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) b[i] = q * c[i];
}

static void k_add(double *restrict c, const double *restrict a, const double *restrict b, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}

static void k_triad(
    double *restrict a, const double *restrict b, const double *restrict c, double q, size_t n)
{
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) a[i] = b[i] + q * c[i];
}

void stream_run(struct stream_arrays *s, int k, double q)
{
    switch (k) {
    case STREAM_COPY: k_copy(s->c, s->a, s->n); break;
    case STREAM_SCALE: k_scale(s->b, s->c, q, s->n); break;
    case STREAM_ADD: k_add(s->c, s->a, s->b, s->n); break;
    case STREAM_TRIAD: k_triad(s->a, s->b, s->c, q, s->n); break;
    default: break;
    }
}

static size_t count_off(const double *x, size_t n, double want)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !(fabs(x[i] - want) <= 1e-13 * fabs(want));
    return bad;
}

size_t stream_check(const struct stream_arrays *s, int ncycles, double q)
{
    double a = 1.0, b = 2.0, c = 0.0;
    for (int i = 0; i < ncycles; i++) {
        c = a;
        b = q * c;
        c = a + b;
        a = b + q * c;
    }
    size_t bad = count_off(s->a, s->n, a) + count_off(s->b, s->n, b) + count_off(s->c, s->n, c);
    return bad + (fault_injected() && s->n > 0 ? 1 : 0); /* test hook */
}
