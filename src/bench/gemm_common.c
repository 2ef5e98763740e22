/* gemm_common.c -- GEMM shape list, FLOP count and reference check. */
#include "gemm.h"

#include <math.h>
#include <stddef.h>

#include "dtype.h"
#include "fault.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

/* add3: forward, dgrad and wgrad of Y[T x n] = X[T x k] W[k x n]. */
static int add3(struct gemm_shape *out, char (*names)[GEMM_NAME_LEN], int at, int max, const char *name,
    size_t t, size_t n, size_t k)
{
    static const char *pass[3] = {"fwd", "dgrad", "wgrad"};
    const struct gemm_shape sh[3] = {{t, n, k}, {t, k, n}, {k, n, t}};
    for (int p = 0; p < 3 && at < max; p++, at++) {
        out[at] = sh[p];
        snprintf(names[at], GEMM_NAME_LEN, "%s.%s", name, pass[p]);
    }
    return at;
}

int gemm_model_shapes(const struct bench_opts *o, struct gemm_model_dims *d, struct gemm_shape *out,
    char (*names)[GEMM_NAME_LEN], int max, char *err, size_t len)
{
    memset(d, 0, sizeof *d);
    d->gated = -1;
    if (o->hidden <= 0 || o->ffn <= 0 || o->heads <= 0 || o->vocab <= 0) {
        char why[384];
        if (gemm_model_lookup(o->model, d, why, sizeof why) != 0) {
            snprintf(err, len, "gemm --model %s: %s", o->model, why);
            return -1;
        }
    }
    /* explicit flags win over the file */
    if (o->hidden > 0) d->hidden = o->hidden;
    if (o->ffn > 0) d->ffn = o->ffn;
    if (o->heads > 0) d->heads = o->heads;
    if (o->vocab > 0) d->vocab = o->vocab;
    if (o->kv_heads > 0) d->kv_heads = o->kv_heads;
    if (o->head_dim > 0) d->head_dim = o->head_dim;
    if (o->gated_set || d->gated < 0) d->gated = o->gated;
    long long h = d->hidden, a = d->heads, tp = o->tp;
    if (d->kv_heads <= 0) d->kv_heads = a;
    if (d->head_dim <= 0) d->head_dim = h % a == 0 ? h / a : 0;
    long long kv = d->kv_heads, hd = d->head_dim;
    if (hd == 0) {
        snprintf(err, len, "--heads %lld does not divide --hidden %lld: give --head-dim", a, h);
        return -1;
    }
    if (a % kv != 0) {
        snprintf(err, len, "--kv-heads %lld must divide --heads %lld", kv, a);
        return -1;
    }
    if (a % tp != 0 || d->ffn % tp != 0 || (kv % tp != 0 && tp % kv != 0)) {
        snprintf(err, len,
            "--tp %lld must divide --heads %lld and --ffn %lld (and --kv-heads %lld, or be a "
            "multiple of it)",
            tp, a, d->ffn, kv);
        return -1;
    }
    long long kvr = kv >= tp ? kv / tp : 1; /* kv heads per rank: replicated when kv < tp (Megatron) */
    long long t = o->micro_batch * o->seq_len, vr = (d->vocab + tp - 1) / tp;
    long long dims[] = {h, t, (a / tp + 2 * kvr) * hd, a / tp * hd, d->ffn / tp, vr};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i] <= 0 || dims[i] > 2147483647LL || o->micro_batch > 2147483647LL / o->seq_len) {
            snprintf(
                err, len, "gemm --model: a GEMM dimension exceeds 2^31-1 (tokens %lld, hidden %lld)", t, h);
            return -1;
        }
    int n = 0;
    n = add3(out, names, n, max, "qkv", (size_t)t, (size_t)dims[2], (size_t)h);
    n = add3(out, names, n, max, "attn_out", (size_t)t, (size_t)h, (size_t)dims[3]);
    n = add3(out, names, n, max, "mlp_up", (size_t)t, (size_t)dims[4], (size_t)h);
    if (d->gated) n = add3(out, names, n, max, "mlp_gate", (size_t)t, (size_t)dims[4], (size_t)h);
    n = add3(out, names, n, max, "mlp_down", (size_t)t, (size_t)h, (size_t)dims[4]);
    n = add3(out, names, n, max, "logits", (size_t)t, (size_t)vr, (size_t)h);
    return n;
}

int gemm_shapes(const struct bench_opts *o, const struct gemm_shape *defs, int ndefs, struct gemm_list *l,
    char *err, size_t len)
{
    const int max = OPTS_MAX_SHAPES;
    int n = 0;
    if (o->model) {
        n = gemm_model_shapes(o, &l->dims, l->s, l->names, max, err, len);
    } else if (o->nshapes > 0) {
        for (int i = 0; i < o->nshapes && n < max; i++, n++) {
            l->s[n].m = o->shapes[i][0];
            l->s[n].n = o->shapes[i][1];
            l->s[n].k = o->shapes[i][2];
        }
    } else {
        for (int i = 0; i < ndefs && n < max; i++, n++) l->s[n] = defs[i];
    }
    l->n = n;
    return n;
}

double gemm_flops(const struct gemm_shape *s)
{
    return 2.0 * (double)s->m * (double)s->n * (double)s->k;
}

/* in_value: the input as stored: exact in bf16/half/float/double, rounded for e4m3 */
static double in_value(int fp8, uint32_t seed, uint64_t idx)
{
    float v = gemm_value(seed, idx);
    return fp8 ? fp8_to_float(fp8_from_float(v, 4), 4) : v;
}

static int check_one(
    const struct gemm_shape *s, double gamma, double u_out, double got, size_t i, size_t j, int fp8)
{
    double ref = 0, mag = 0;
    for (size_t k = 0; k < s->k; k++) {
        double p = in_value(fp8, GEMM_SEED_A, (uint64_t)i * s->k + k) *
            in_value(fp8, GEMM_SEED_B, (uint64_t)k * s->n + j);
        ref += p;
        mag += fabs(p);
    }
    return !(fabs(got - ref) <= gamma * mag + u_out * fabs(ref));
}

/* corner (0, 0) is in every sample and checks against got+1 under ZEROBENCH_FAULT */
static double fault_shift(size_t i, size_t j)
{
    return (i == 0 && j == 0 && fault_injected()) ? 1.0 : 0.0;
}

static size_t check_any(const struct gemm_shape *s, double gamma, double u_out, gemm_get_fn get, void *ctx,
    const char **mode, int fp8)
{
    size_t wrong = 0;
    if ((double)s->m * (double)s->n * (double)s->k <= 67108864.0) {
        *mode = "full";
        for (size_t i = 0; i < s->m; i++)
            for (size_t j = 0; j < s->n; j++)
                wrong += (size_t)check_one(s, gamma, u_out, get(ctx, i, j) + fault_shift(i, j), i, j, fp8);
        return wrong;
    }
    *mode = "sampled";
    uint64_t x = 0x853c49e6748fea9bull;
    for (int t = 0; t < 256; t++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t i = (size_t)((x >> 33) % s->m);
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t j = (size_t)((x >> 33) % s->n);
        if (t < 4) {
            i = t & 1 ? s->m - 1 : 0;
            j = t & 2 ? s->n - 1 : 0;
        } /* corners */
        wrong += (size_t)check_one(s, gamma, u_out, get(ctx, i, j) + fault_shift(i, j), i, j, fp8);
    }
    return wrong;
}

size_t gemm_check(
    const struct gemm_shape *s, double u_acc, double u_out, gemm_get_fn get, void *ctx, const char **mode)
{
    double ku = (double)s->k * u_acc;
    return check_any(s, ku < 1 ? ku / (1 - ku) : INFINITY, u_out, get, ctx, mode, 0);
}

size_t gemm_check_fp8(
    const struct gemm_shape *s, double u_acc, double u_out, gemm_get_fn get, void *ctx, const char **mode)
{
    /* Hopper's fp8 tensor cores keep about 14 bits between promotions to
     * fp32, which happen every 128 products of K (DeepSeek-V3 technical
     * report, arXiv 2412.19437, section 3.3.2): 128 u_acc within a chunk,
     * then fp32 across chunks. A K u_acc bound would grow past 1/sqrt(K), the
     * size of a wrong-layout result, and could no longer fail. */
    double kc = s->k < 128 ? (double)s->k : 128.0, kf = (double)s->k * 0x1p-24;
    return check_any(s, kc * u_acc + kf / (1 - kf), u_out, get, ctx, mode, 1);
}

void gemm_model_banner(const struct bench_opts *o, const struct gemm_model_dims *d)
{
    if (!o->model) return;
    printf("# model %s: hidden %lld ffn %lld heads %lld kv_heads %lld head_dim %lld vocab %lld gated %d; "
           "tp %d micro-batch %lld seq-len %lld (tokens %lld)\n",
        o->model, d->hidden, d->ffn, d->heads, d->kv_heads, d->head_dim, d->vocab, d->gated, o->tp,
        o->micro_batch, o->seq_len, o->micro_batch * o->seq_len);
    printf(
        "# GEMMs of one block under tensor parallelism, each as fwd (X W), dgrad (dY W^T), wgrad (X^T dY)\n");
}

void gemm_model_json(struct json *j, const struct bench_opts *o, const char *name)
{
    json_str(j, "name", name);
    json_str(j, "model", o->model);
    json_int(j, "tp", o->tp);
    json_int(j, "tokens", o->micro_batch * o->seq_len);
}
