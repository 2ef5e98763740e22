/* plot_data.c -- evaluating what the charts of `zerosim plot` draw: the only plot code that calls sim, plan and validate. */
#include "report/plot_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/plan.h"
#include "core/sim.h"
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
        return zs_fail(err, ZS_ERR_USAGE, "no GPU count in the sweep is a multiple of --tp %lld x --pp %lld (see --gpus-list)",
                       (long long)s->t->tp, (long long)s->t->pp);
    return ZS_OK;
}

static int n_chosen(const scenario *s)
{
    int n = 0;
    while (s->chosen[n]) n++;
    return n;
}

/* Memory per GPU of each chosen strategy at each GPU count, and the part sharding never
 * removes (activations, logits, buffers, gathered parameters, CUDA context). */
static int memory_sweep(const scenario *s, const plot_request *q, plot_data *d, zs_error *err)
{
    if (plot_gpu_counts(s, q, d->gpus, PLOT_MAX_GPU_COUNTS, &d->n_gpus, err)) return err->code;
    int ns = n_chosen(s), good = 0;
    zs_error first = {0};
    for (int i = 0; i < d->n_gpus; i++) {
        training t = *s->t;
        t.gpus = d->gpus[i];
        sim_input in;
        zs_error e = {0};
        d->mem_floor[i] = NAN;
        for (int k = 0; k < ns; k++) d->mem_total[i][k] = NAN;
        if (sim_prepare(&in, s->m, s->pc, s->hw, &t, &e)) {
            if (!first.code) first = e;
            continue;
        }
        for (int k = 0; k < ns; k++) {
            result r;
            sim_run(&in, s->chosen[k], 0, &r);
            if (!r.applicable) continue;
            const memory *m = &r.mem;
            double fl = m->activations + m->logits + m->comm_buffers + m->gathered_params + m->cuda_context;
            d->mem_total[i][k] = m->total;
            d->mem_floor[i] = isnan(d->mem_floor[i]) ? fl : fmin(d->mem_floor[i], fl);
            good++;
        }
    }
    if (good) return ZS_OK;
    if (first.code) {
        *err = first;
        return err->code;
    }
    return zs_fail(err, ZS_ERR_USAGE, "memory-vs-gpus: no strategy applies at any GPU count");
}

/* plan_max_model for each chosen strategy at each GPU count. */
static int max_model(const scenario *s, const plot_request *q, plot_data *d, zs_error *err)
{
    if (plot_gpu_counts(s, q, d->gpus, PLOT_MAX_GPU_COUNTS, &d->n_gpus, err)) return err->code;
    int ns = n_chosen(s), done = 0;
    d->searched_offload = !q->no_offload;
    d->searched_tp = !q->no_tp;
    d->searched_pp = !q->no_pp;
    for (int i = 0; i < d->n_gpus; i++) {
        plan_space sp;
        plan_space_init(&sp);
        sp.max_gpus = d->gpus[i];
        sp.allow_offload = d->searched_offload;
        sp.allow_tp = d->searched_tp;
        sp.allow_pp = d->searched_pp;
        for (int k = 0; k < ns; k++) {
            if (plan_max_model(s, &sp, s->chosen[k], d->gpus[i], &d->max_params[i][k], &d->max_layers[i][k], err)) {
                zs_error_prefix(err, "max-model");
                return err->code;
            }
            if (q->progress) q->progress(PLOT_MAX_MODEL, ++done, d->n_gpus * ns, q->progress_ctx);
        }
    }
    return ZS_OK;
}

/* Progress of validate_file passed on as the validate chart's. */
typedef struct val_progress {
    const plot_request *q;
} val_progress;

static void on_run(int done, int total, void *ctx)
{
    const plot_request *q = ((const val_progress *)ctx)->q;
    q->progress(PLOT_VALIDATE, done, total, q->progress_ctx);
}

int plot_data_compute(plot_chart c, const scenario *s, const plot_request *q, plot_data *d, validate_report *val,
                      zs_error *err)
{
    memset(d, 0, sizeof *d);
    d->s = c == PLOT_VALIDATE ? NULL : s;
    if (c == PLOT_CALIBRATION)
        return zs_fail(err, ZS_ERR_USAGE, "calibration: this chart comes from 'zerosim calibrate --plot DIR'");
    if (c == PLOT_VALIDATE) {
        if (!q->runs_path) return zs_fail(err, ZS_ERR_USAGE, "validate: needs --runs FILE");
        val_progress vp = {q};
        if (validate_file(q->runs_path, NULL, NULL, q->progress ? on_run : NULL, &vp, val, err)) return err->code;
        d->runs_path = q->runs_path;
        d->val = val;
        return ZS_OK;
    }
    if (!s) return zs_fail(err, ZS_ERR_USAGE, "%s: needs a model (--model or --params)", plot_chart_name(c));
    switch (c) {
    case PLOT_COMPARE: {
        /* As `zerosim compare` with its defaults: searches up to max(64, GPUs) with the batch
         * the given settings train. */
        static compare_row rows[COMPARE_MAX_ROWS];
        plan_space sp;
        plan_space_init(&sp);
        sp.max_gpus = s->t->gpus > 64 ? s->t->gpus : 64;
        sp.global_batch = s->t->micro_batch * s->t->grad_accum * training_dp(s->t);
        sp.tokens = s->tokens;
        if (compare_run(s, &sp, NULL, rows, COMPARE_MAX_ROWS, &d->n_cmp, err)) return err->code;
        d->cmp = rows;
        return ZS_OK;
    }
    case PLOT_MEMORY_VS_GPUS: return memory_sweep(s, q, d, err);
    case PLOT_MAX_MODEL: return max_model(s, q, d, err);
    default: return sim_run_scenario(s, d->r, &d->n, err);
    }
}
