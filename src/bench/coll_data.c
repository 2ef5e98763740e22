/* coll_data.c -- exact test-value generator and checkers for collectives. */
#include "coll_data.h"

#include <math.h>

#include "dtype.h"

/* 64-bit finaliser (xorshift-multiply); any good mixer works here. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

void coll_vals_init(struct coll_vals *v, int dtype, int op, int nranks, uint32_t rep)
{
    const struct dtype_info *ti = dtype_get(dtype);
    double lim = ti->exact_limit;
    v->dtype = dtype;
    v->op = op;
    v->nranks = nranks < 1 ? 1 : nranks;
    v->rep = rep;
    v->period = 2;
    if (op == ZB_SUM || op == ZB_AVG || op == ZB_PREMULSUM) {
        /* sum of nranks values (x the premul scalar) <= lim */
        double m = lim / v->nranks / (op == ZB_PREMULSUM ? ZB_PREMUL_SCALAR : 1.0);
        v->modulus = m >= 64.0 ? 64u : (m >= 1.0 ? (uint32_t)m : 1u);
    } else if (op < 0) {
        v->modulus = lim >= 1048576.0 ? 1048576u : (uint32_t)lim; /* spread to catch misplacement */
    } else {
        v->modulus = lim >= 64.0 ? 64u : (uint32_t)lim;
    }
    if (op == ZB_PROD) {
        /* at most ceil(nranks/period) factors of 2 meet at one index */
        int bits = ti->pow2_bits;
        uint32_t p = (uint32_t)((v->nranks + bits - 1) / bits);
        v->period = p < 2 ? 2 : p;
    }
}

size_t coll_vals_typesize(const struct coll_vals *v)
{
    return dtype_get(v->dtype)->size;
}

/* coll_vals_input: the value rank contributes at global element idx. */
static double coll_vals_input(const struct coll_vals *v, int rank, size_t idx)
{
    if (v->op == ZB_PROD) return ((idx + (size_t)rank + v->rep) % v->period == 0) ? 2.0 : 1.0;
    uint64_t h = mix64(
        (uint64_t)idx * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(rank + 1) << 40) ^ ((uint64_t)v->rep << 20));
    return (double)(1u + (uint32_t)(h % v->modulus));
}

/* coll_vals_reduced: op applied over ranks 0..nranks-1 of input(r, idx). */
static double coll_vals_reduced(const struct coll_vals *v, size_t idx)
{
    double acc = coll_vals_input(v, 0, idx);
    for (int r = 1; r < v->nranks; r++) {
        double x = coll_vals_input(v, r, idx);
        switch (v->op) {
        case ZB_SUM:
        case ZB_AVG:
        case ZB_PREMULSUM: acc += x; break;
        case ZB_PROD: acc *= x; break;
        case ZB_MAX: acc = x > acc ? x : acc; break;
        case ZB_MIN: acc = x < acc ? x : acc; break;
        default: break;
        }
    }
    if (v->op == ZB_PREMULSUM) acc *= ZB_PREMUL_SCALAR;
    if (v->op == ZB_AVG) {
        acc /= v->nranks;
        if (!dtype_get(v->dtype)->is_float) acc = floor(acc); /* NCCL SumPostDiv truncates */
    }
    return acc;
}

/* coll_vals_fill: buf[j] = input(rank, idx0 + j) for j < n, stored as dtype. */
static void coll_vals_fill(const struct coll_vals *v, int rank, void *buf, size_t idx0, size_t n)
{
    for (size_t j = 0; j < n; j++) dtype_store(v->dtype, buf, j, coll_vals_input(v, rank, idx0 + j));
}

size_t coll_vals_check_input(const struct coll_vals *v, int rank, const void *buf, size_t idx0, size_t n)
{
    size_t wrong = 0;
    for (size_t j = 0; j < n; j++)
        wrong += dtype_load(v->dtype, buf, j) != coll_vals_input(v, rank, idx0 + j);
    return wrong;
}

/* Floating-point avg is the only inexact result: NCCL pre-multiplies each
 * input by 1/nranks and sums (nranks roundings), MPI here sums exactly and
 * divides once; both are within nranks units in the last place of the
 * exact mean. With a power-of-two nranks every step is exact. */
static double tolerance(const struct coll_vals *v, double want)
{
    const struct dtype_info *ti = dtype_get(v->dtype);
    if (v->op != ZB_AVG || !ti->is_float || (v->nranks & (v->nranks - 1)) == 0) return 0.0;
    return fabs(want) * v->nranks * ldexp(1.0, -ti->mant_bits);
}

size_t coll_vals_check_reduced(const struct coll_vals *v, const void *buf, size_t idx0, size_t n)
{
    size_t wrong = 0;
    for (size_t j = 0; j < n; j++) {
        double want = coll_vals_reduced(v, idx0 + j), got = dtype_load(v->dtype, buf, j);
        wrong += !(fabs(got - want) <= tolerance(v, want));
    }
    return wrong;
}

#include "coll.h"

size_t coll_block_count(size_t bytes, size_t typesize, int nranks)
{
    size_t per_rank = bytes / typesize / (size_t)(nranks < 1 ? 1 : nranks);
    size_t align = typesize < 16 ? 16 / typesize : 1; /* elements per 16 bytes */
    return per_rank & ~(align - 1);
}

void coll_layout_whole(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    (void)nranks;
    l->send_count = l->recv_count = l->param_count = bytes / typesize;
    l->send_inplace_off = l->recv_inplace_off = 0;
}

void coll_layout_gathered(size_t bytes, size_t typesize, int nranks, struct coll_layout *l)
{
    size_t block = coll_block_count(bytes, typesize, nranks);
    l->send_count = l->param_count = block;
    l->recv_count = block * (size_t)nranks;
    l->send_inplace_off = block;
    l->recv_inplace_off = 0;
}

void coll_fill_whole(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in)
{
    coll_vals_fill(v, rank, in, 0, l->send_count);
}

void coll_fill_block(const struct coll_vals *v, int rank, const struct coll_layout *l, void *in)
{
    coll_vals_fill(v, rank, in, (size_t)rank * l->send_count, l->send_count);
}

size_t coll_check_gathered(
    const struct coll_vals *v, int rank, const struct coll_layout *l, int root, const void *out)
{
    (void)rank;
    (void)root;
    size_t wrong = 0, block = l->send_count;
    for (int q = 0; q < v->nranks; q++) {
        const char *p = (const char *)out + (size_t)q * block * coll_vals_typesize(v);
        wrong += coll_vals_check_input(v, q, p, (size_t)q * block, block);
    }
    return wrong;
}
