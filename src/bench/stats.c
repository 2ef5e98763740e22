/* stats.c -- min/max/mean/percentiles of timing samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile: the ceil(p/100 * n)-th smallest */
static double rank_pct(const double *sorted, size_t n, int pct)
{
    size_t k = ((size_t)pct * n + 99) / 100;
    return sorted[k ? k - 1 : 0];
}

int stats_compute(const double *x, size_t n, struct stats *s)
{
    memset(s, 0, sizeof *s);
    if (n == 0) return 0;
    double *v = malloc(n * sizeof *v);
    if (!v) return -1;
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0, var = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    s->avg = sum / (double)n;
    for (size_t i = 0; i < n; i++) var += (v[i] - s->avg) * (v[i] - s->avg);
    s->min = v[0];
    s->max = v[n - 1];
    s->p50 = rank_pct(v, n, 50);
    s->p99 = rank_pct(v, n, 99);
    s->cv_pct = s->avg > 0 ? 100.0 * sqrt(var / (double)n) / s->avg : 0.0;
    free(v);
    return 0;
}
