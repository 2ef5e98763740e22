/* plot_data.c -- what the charts are computed over: the request, its GPU list, the sweeps' GPU counts. */
#include "report/plot_chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"

void plot_request_init(plot_request *q)
{
    memset(q, 0, sizeof *q);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int plot_parse_gpus_list(const char *list, plot_request *q, zs_error *err)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        return zs_fail(err, ZS_ERR_USAGE, "--gpus-list: too long");
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= PLOT_MAX_GPU_COUNTS)
            return zs_fail(err, ZS_ERR_USAGE, "--gpus-list: at most %d counts", PLOT_MAX_GPU_COUNTS);
        if (units_parse_int(tok, "--gpus-list", 1, 10000000, &q->gpus[n], err)) return err->code;
        n++;
    }
    if (n == 0) return zs_fail(err, ZS_ERR_USAGE, "--gpus-list: expected GPU counts such as 8,16,64");
    qsort(q->gpus, (size_t)n, sizeof q->gpus[0], cmp_i64);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || q->gpus[i] != q->gpus[k - 1]) q->gpus[k++] = q->gpus[i];
    q->n_gpus = k;
    return ZS_OK;
}

int plot_gpu_counts(const scenario *s, const plot_request *q, int64_t *out, int max, int *n, zs_error *err)
{
    int64_t mp = s->t->tp * s->t->pp, cand[PLOT_MAX_GPU_COUNTS];
    int nc = 0;
    if (q->n_gpus > 0) {
        for (int i = 0; i < q->n_gpus && nc < PLOT_MAX_GPU_COUNTS; i++) cand[nc++] = q->gpus[i];
    } else {
        int64_t gpn = scenario_node_size(s->hw, s->t);
        int64_t top = s->t->gpus > 1024 ? s->t->gpus : 1024;
        if (gpn < 1) gpn = 1;
        for (int64_t g = 1; g < gpn && nc < PLOT_MAX_GPU_COUNTS; g *= 2) cand[nc++] = g;
        for (int64_t g = gpn; g <= top && nc < PLOT_MAX_GPU_COUNTS; g *= 2) cand[nc++] = g;
    }
    *n = 0;
    for (int i = 0; i < nc && *n < max; i++)
        if (cand[i] % mp == 0) out[(*n)++] = cand[i];
    if (*n == 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "no GPU count in the sweep is a multiple of --tp %lld x --pp %lld (see --gpus-list)",
            (long long)s->t->tp, (long long)s->t->pp);
    return ZS_OK;
}

int plot_n_chosen(const scenario *s)
{
    int n = 0;
    while (s->chosen[n]) n++;
    return n;
}
