/* mpi_dtype.c -- MPI datatype/op mapping, with user-defined ops for half and bfloat16. */
#include "mpi_dtype.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "dtype.h"
#include "f16.h"

MPI_Datatype mpi_dtype(int dtype)
{
    switch (dtype) {
    case ZB_INT8: return MPI_INT8_T;
    case ZB_UINT8: return MPI_UINT8_T;
    case ZB_INT32: return MPI_INT32_T;
    case ZB_UINT32: return MPI_UINT32_T;
    case ZB_INT64: return MPI_INT64_T;
    case ZB_UINT64: return MPI_UINT64_T;
    case ZB_FLOAT: return MPI_FLOAT;
    case ZB_DOUBLE: return MPI_DOUBLE;
    case ZB_HALF:
    case ZB_BF16: return MPI_UINT16_T;
    case ZB_F8E4M3:
    case ZB_F8E5M2: return MPI_UINT8_T;
    default: return MPI_DATATYPE_NULL;
    }
}

static float e4m3_to(uint8_t b)
{
    return fp8_to_float(b, 4);
}
static uint8_t e4m3_from(float f)
{
    return fp8_from_float(f, 4);
}
static float e5m2_to(uint8_t b)
{
    return fp8_to_float(b, 5);
}
static uint8_t e5m2_from(float f)
{
    return fp8_from_float(f, 5);
}

/* One user function per (16- or 8-bit float format, op): inout[i] = in[i] op inout[i]. */
#define ZB_SMALL_OP(NAME, T, TO, FROM, EXPR)                            \
    static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt) \
    {                                                                   \
        (void)dt;                                                       \
        const T *a = in;                                                \
        T *b = inout;                                                   \
        for (int i = 0; i < *len; i++) {                                \
            float x = TO(a[i]), y = TO(b[i]);                           \
            b[i] = FROM(EXPR);                                          \
        }                                                               \
    }
/* The four of format F (elements T, converted by TO and FROM): F_sum, F_prod, F_max, F_min. */
#define ZB_SMALL_OPS(F, T, TO, FROM)                 \
    ZB_SMALL_OP(F##_sum, T, TO, FROM, x + y)         \
    ZB_SMALL_OP(F##_prod, T, TO, FROM, x *y)         \
    ZB_SMALL_OP(F##_max, T, TO, FROM, x > y ? x : y) \
    ZB_SMALL_OP(F##_min, T, TO, FROM, x < y ? x : y)
ZB_SMALL_OPS(half, uint16_t, half_to_float, half_from_float)
ZB_SMALL_OPS(bf16, uint16_t, bf16_to_float, bf16_from_float)
ZB_SMALL_OPS(e4m3, uint8_t, e4m3_to, e4m3_from)
ZB_SMALL_OPS(e5m2, uint8_t, e5m2_to, e5m2_from)

#define NBASIC 4 /* sum, prod, max, min: avg and premulsum reduce with sum */
#define NSMALL 4 /* half, bf16, e4m3, e5m2 */
static MPI_User_function *const user_fns[NSMALL][NBASIC] = {
    {half_sum, half_prod, half_max, half_min},
    {bf16_sum, bf16_prod, bf16_max, bf16_min},
    {e4m3_sum, e4m3_prod, e4m3_max, e4m3_min},
    {e5m2_sum, e5m2_prod, e5m2_max, e5m2_min},
};
static MPI_Op user_ops[NSMALL][NBASIC];
static int user_ops_made[NSMALL][NBASIC];

MPI_Op mpi_op(int dtype, int op)
{
    static const MPI_Op native[NBASIC] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    if (op < 0 || op >= ZB_NOPS) return MPI_OP_NULL;
    if (op == ZB_AVG || op == ZB_PREMULSUM) op = ZB_SUM;
    int f = dtype == ZB_HALF ? 0
        : dtype == ZB_BF16   ? 1
        : dtype == ZB_F8E4M3 ? 2
        : dtype == ZB_F8E5M2 ? 3
                             : -1;
    if (f < 0) return native[op];
    if (!user_ops_made[f][op]) {
        if (MPI_Op_create(user_fns[f][op], 1, &user_ops[f][op]) != MPI_SUCCESS) return MPI_OP_NULL;
        user_ops_made[f][op] = 1;
    }
    return user_ops[f][op];
}

void mpi_ops_free(void)
{
    for (int f = 0; f < NSMALL; f++)
        for (int o = 0; o < NBASIC; o++)
            if (user_ops_made[f][o]) {
                MPI_Op_free(&user_ops[f][o]);
                user_ops_made[f][o] = 0;
            }
}

/* scratch for premulsum's scaled copy of an out-of-place input */
static void *scratch;
static size_t scratch_bytes;

const void *mpi_reduce_pre(int dtype, int op, const void *in, size_t n, int in_place)
{
    if (op != ZB_PREMULSUM) return in;
    size_t ts = dtype_get(dtype)->size;
    void *dst = (void *)in; /* in place, in is the caller's receive buffer */
    if (!in_place) {
        if (scratch_bytes < n * ts) {
            void *p = realloc(scratch, n * ts);
            if (!p) return NULL;
            scratch = p;
            scratch_bytes = n * ts;
        }
        dst = scratch;
    }
    for (size_t i = 0; i < n; i++) dtype_store(dtype, dst, i, ZB_PREMUL_SCALAR * dtype_load(dtype, in, i));
    return dst;
}

void mpi_reduce_post(int dtype, int op, int nranks, void *recv, size_t count)
{
    if (op != ZB_AVG || !recv) return;
    int is_float = dtype_get(dtype)->is_float;
    for (size_t i = 0; i < count; i++) {
        double x = dtype_load(dtype, recv, i) / nranks;
        dtype_store(dtype, recv, i, is_float ? x : floor(x));
    }
}

void mpi_scratch_free(void)
{
    free(scratch);
    scratch = NULL;
    scratch_bytes = 0;
}
