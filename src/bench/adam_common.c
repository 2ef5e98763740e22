/* adam_common.c -- Adam hyper-parameters, tensor plan, random state and double-precision reference. */
#include "adam.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "f16.h"
#include "fault.h"
#include "fmt.h"
#include "zb_report.h"

void adam_hparams_default(struct adam_hparams *h)
{
    h->lr = 1e-3;
    h->beta1 = 0.9;
    h->beta2 = 0.999;
    h->eps = 1e-8;
    h->weight_decay = 0.01;
    h->step = 10;
}

void adam_coef_make(const struct adam_hparams *h, struct adam_coef *c)
{
    double bc1 = 1.0 - pow(h->beta1, h->step), bc2 = 1.0 - pow(h->beta2, h->step);
    c->beta1 = (float)h->beta1;
    c->beta2 = (float)h->beta2;
    c->one_m_beta1 = (float)(1.0 - h->beta1);
    c->one_m_beta2 = (float)(1.0 - h->beta2);
    c->decay = (float)(1.0 - h->lr * h->weight_decay);
    c->step_size = (float)(h->lr / bc1);
    c->inv_sqrt_bc2 = (float)(1.0 / sqrt(bc2));
    c->eps = (float)h->eps;
}

const char *adam_variant_name(int variant)
{
    return variant == ADAM_MIXED ? "mixed" : "fp32";
}

int adam_plan_make(struct adam_plan *p, size_t total, int ntensors)
{
    static const double pattern[6] = {3.0, 1.0, 4.0, 4.0, 1.0 / 1024, 1.0 / 1024};
    memset(p, 0, sizeof *p);
    if (total == 0 || ntensors < 1) return -1;
    int t = (size_t)ntensors > total ? (int)total : ntensors;
    p->len = calloc((size_t)t, sizeof *p->len);
    p->off = calloc((size_t)t, sizeof *p->off);
    if (!p->len || !p->off) {
        adam_plan_free(p);
        return -1;
    }
    p->ntensors = t;
    p->total = total;
    double wsum = 0;
    for (int k = 0; k < t; k++) wsum += pattern[k % 6];
    size_t used = 0;
    for (int k = 0; k + 1 < t; k++) {
        size_t n = (size_t)((double)total * pattern[k % 6] / wsum);
        if (pattern[k % 6] < 1.0) n |= 1; /* odd: exercises vector tails */
        p->len[k] = n ? n : 1;
        used += p->len[k];
    }
    if (used >= total) { /* tiny totals: equal split */
        used = 0;
        for (int k = 0; k + 1 < t; k++) used += p->len[k] = total / (size_t)t;
    }
    p->len[t - 1] = total - used;
    size_t off = 0;
    for (int k = 0; k < t; k++) {
        p->off[k] = off;
        off = (off + p->len[k] + 63) & ~(size_t)63;
    }
    p->pool = off;
    return 0;
}

void adam_plan_free(struct adam_plan *p)
{
    free(p->len);
    free(p->off);
    memset(p, 0, sizeof *p);
}

/* alloc_staggered: bytes at a 4 KiB-aligned block + k*576 (64-aligned). */
static void *alloc_staggered(struct adam_state *s, int k, size_t bytes)
{
    void *q = NULL;
    size_t off = (size_t)k * 576;
    if (posix_memalign(&q, 4096, bytes + off + 64) != 0) return NULL;
    s->raw[k] = q;
    return (char *)q + off;
}

int adam_state_alloc(struct adam_state *s, int variant, size_t pool)
{
    memset(s, 0, sizeof *s);
    s->master = alloc_staggered(s, 0, pool * 4);
    s->m = alloc_staggered(s, 1, pool * 4);
    s->v = alloc_staggered(s, 2, pool * 4);
    int ok = s->master && s->m && s->v;
    if (variant == ADAM_FP32) {
        ok = ok && (s->grad32 = alloc_staggered(s, 3, pool * 4)) != NULL;
    } else {
        ok = ok && (s->param16 = alloc_staggered(s, 4, pool * 2)) != NULL;
        ok = ok && (s->grad16 = alloc_staggered(s, 5, pool * 2)) != NULL;
    }
    if (!ok) adam_state_free(s);
    return ok ? 0 : -1;
}

void adam_state_free(struct adam_state *s)
{
    for (int k = 0; k < 6; k++) free(s->raw[k]);
    memset(s, 0, sizeof *s);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

/* uniform in [lo, hi) with a random sign when sign is set; never zero for lo > 0 */
static float urand(uint64_t seed, size_t i, int stream, double lo, double hi, int sign)
{
    uint64_t h = mix64(seed ^ mix64((uint64_t)i * 4 + (uint64_t)stream));
    double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
    double x = lo + (hi - lo) * u;
    return (float)((sign && (h & 1)) ? -x : x);
}

void adam_state_fill(struct adam_state *s, int variant, const struct adam_plan *p, uint64_t seed)
{
    size_t n = p->pool;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        float w = urand(seed, i, 0, 0.1, 1.0, 1);
        float g = urand(seed, i, 1, 1e-3, 1.0, 1);
        s->master[i] = w;
        s->m[i] = urand(seed, i, 2, 1e-3, 1e-1, 1);
        s->v[i] = urand(seed, i, 3, 1e-6, 1e-2, 0);
        if (variant == ADAM_FP32) {
            s->grad32[i] = g;
        } else {
            s->param16[i] = bf16_from_float(w);
            s->grad16[i] = bf16_from_float(g);
        }
    }
}

void adam_state_copy(struct adam_state *dst, const struct adam_state *src, int variant, size_t pool)
{
    memcpy(dst->master, src->master, pool * 4);
    memcpy(dst->m, src->m, pool * 4);
    memcpy(dst->v, src->v, pool * 4);
    if (variant == ADAM_FP32) {
        memcpy(dst->grad32, src->grad32, pool * 4);
    } else {
        memcpy(dst->param16, src->param16, pool * 2);
        memcpy(dst->grad16, src->grad16, pool * 2);
    }
}

static int off_tol(double got, double ref, double tol)
{
    return !(fabs(got - ref) <= tol);
}

size_t adam_check(const struct adam_hparams *h, int variant, const struct adam_plan *p,
    const struct adam_state *before, struct adam_state *after)
{
    const double b1 = h->beta1, b2 = h->beta2;
    const double bc1 = 1.0 - pow(b1, h->step), bc2 = 1.0 - pow(b2, h->step);
    const double decay = 1.0 - h->lr * h->weight_decay, step = h->lr / bc1, sb2 = sqrt(bc2);
    size_t wrong = 0;
    if (fault_injected()) after->master[p->off[0]] += 1.0f; /* test hook */
    for (int t = 0; t < p->ntensors; t++) {
        size_t lo = p->off[t], hi = p->off[t] + p->len[t];
#pragma omp parallel for reduction(+ : wrong) schedule(static)
        for (size_t i = lo; i < hi; i++) {
            double g = variant == ADAM_FP32 ? before->grad32[i] : bf16_to_float(before->grad16[i]);
            double m = b1 * before->m[i] + (1.0 - b1) * g;
            double v = b2 * before->v[i] + (1.0 - b2) * g * g;
            double denom = sqrt(v) / sb2 + h->eps;
            double w = before->master[i] * decay - step * m / denom;
            double mag_m = fabs(b1 * before->m[i]) + fabs((1.0 - b1) * g);
            double mag_w = fabs(before->master[i] * decay) + step * mag_m / denom;
            int bad = off_tol(after->master[i], w, ADAM_RTOL * mag_w) |
                off_tol(after->m[i], m, ADAM_RTOL * mag_m) | off_tol(after->v[i], v, ADAM_RTOL * v);
            if (variant == ADAM_MIXED) bad |= off_tol(bf16_to_float(after->param16[i]), w, fabs(w) / 256);
            wrong += (size_t)bad;
        }
    }
    return wrong;
}

void adam_table_header(const struct report *r, const char *ref_desc, const char *ref_col)
{
    if (!r->is_root) return;
    const struct bench_opts *o = r->o;
    char c1[16], c2[16];
    report_header(r);
    printf("# adam: fused AdamW step over a list of tensors, warmup iters: %d iters: %d validation: %d\n",
        o->warmup, o->iters, o->check);
    printf("# bytes/param = %d: fp32 reads grad 4 + param 4 + m 4 + v 4, writes param 4 + m 4 + v 4;\n"
           "#   mixed reads grad(bf16) 2 + master 4 + m 4 + v 4, "
           "writes master 4 + m 4 + v 4 + param(bf16) 2\n",
        ADAM_BYTES_PER_PARAM);
    printf("# reference: %s\n", ref_desc);
    printf("# check: double-precision scalar reference; fp32 outputs within %g x (sum of |terms|), "
           "bf16 params within one bf16 ulp\n",
        ADAM_RTOL);
    printf("# times are per step, max over processes; GB/s = 1e9 B/s\n#\n");
    snprintf(c1, sizeof c1, "%sGB/s", ref_col);
    snprintf(c2, sizeof c2, "%%%s", ref_col);
    printf("# %12s  %7s  %7s  %12s  %9s  %9s  %8s  %8s  %9s  %7s  %6s\n", "params", "tensors", "variant",
        "bytes/step", "time", "best", "GB/s", "GB/s", c1, c2, "#wrong");
    printf("# %12s  %7s  %7s  %12s  %9s  %9s  %8s  %8s  %9s  %7s  %6s\n", "", "", "", "(B)", "(us)", "(us)",
        "(avg)", "(best)", "(best)", "(best)", "");
}

void adam_table_row(struct report *r, const struct adam_result *res, const char *ref_key)
{
    double bytes = (double)res->params * ADAM_BYTES_PER_PARAM;
    double gbps = bytes / res->avg / 1e9, gbps_best = bytes / res->best / 1e9;
    double ref_gbps = res->ref_bytes / res->ref_best / 1e9, frac = gbps_best / ref_gbps;
    if (r->is_root) {
        char t[16], tb[16], g1[16], g2[16], g3[16], fr[16];
        fmt_num(t, 9, res->avg * 1e6);
        fmt_num(tb, 9, res->best * 1e6);
        fmt_num(g1, 8, gbps);
        fmt_num(g2, 8, gbps_best);
        fmt_num(g3, 9, ref_gbps);
        fmt_num(fr, 7, 100.0 * frac);
        printf("  %12zu  %7d  %7s  %12.0f  %9s  %9s  %8s  %8s  %9s  %7s  ", res->params, res->tensors,
            adam_variant_name(res->variant), bytes, t, tb, g1, g2, g3, fr);
        report_wrong_cell(res->wrong);
        printf("\n");
        fflush(stdout);
    }
    struct json *j = &r->j;
    json_obj_begin(j, NULL);
    json_int(j, "params", (long long)res->params);
    json_int(j, "tensors", res->tensors);
    json_str(j, "variant", adam_variant_name(res->variant));
    json_int(j, "bytes_per_param", ADAM_BYTES_PER_PARAM);
    json_num(j, "bytes", bytes);
    json_num(j, "time_us", res->avg * 1e6);
    json_num(j, "time_min_us", res->best * 1e6);
    json_num(j, "gbps", gbps);
    json_num(j, "gbps_best", gbps_best);
    json_str(j, "ref", ref_key);
    json_num(j, "ref_bytes", res->ref_bytes);
    json_num(j, "ref_gbps", ref_gbps);
    json_num(j, "fraction_of_ref", frac);
    report_wrong_json(j, res->wrong);
    json_obj_end(j);
}

int adam_sweep(const struct bench_opts *o, const struct be_info *bi, const struct adam_backend *b)
{
    struct report rep;
    int vfirst = o->variant < 0 ? 0 : o->variant, vlast = o->variant < 0 ? 1 : o->variant;
    long long bad = 0;
    int failed = 0;
    report_begin(&rep, o, bi);
    adam_table_header(&rep, b->ref_desc, b->ref_col);
    for (size_t params = o->min_bytes; params && !failed;) {
        struct adam_plan plan;
        struct adam_result res = {0};
        int ok = adam_plan_make(&plan, params, o->tensors) == 0;
        ok = ok && b->ref(params, o, &res, b->ctx) == 0;
        if (!bench_all_ok(ok)) {
            adam_plan_free(&plan);
            failed = 1;
            break;
        }
        res.params = params;
        res.tensors = plan.ntensors;
        bench_max(&res.ref_best, 1);
        for (int v = vfirst; v <= vlast && !failed; v++) {
            res.variant = v;
            if (!bench_all_ok(b->run(o, &plan, &res, b->ctx) == 0)) {
                failed = 1;
                break;
            }
            bad += bench_row_total(o, &res.avg, &res.best, &res.wrong);
            adam_table_row(&rep, &res, b->ref_key);
        }
        adam_plan_free(&plan);
        params = bench_next_size(o, params, o->step_factor);
    }
    if (failed && b->setup_fail && rep.is_root)
        fprintf(stderr, "%s (up to %zu parameters)\n", b->setup_fail, o->max_bytes);
    return report_close(&rep, "wrong_rows", bad, failed);
}
