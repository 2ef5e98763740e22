/* mpi_dtype.c -- MPI datatype/op mapping, with user-defined ops for half and bfloat16. */
#include "mpi_dtype.h"

#include <stdint.h>

#include "dtype.h"
#include "f16.h"

MPI_Datatype mpi_dtype(int dtype)
{
    switch (dtype) {
    case ZB_INT8:   return MPI_INT8_T;
    case ZB_UINT8:  return MPI_UINT8_T;
    case ZB_INT32:  return MPI_INT32_T;
    case ZB_UINT32: return MPI_UINT32_T;
    case ZB_INT64:  return MPI_INT64_T;
    case ZB_UINT64: return MPI_UINT64_T;
    case ZB_FLOAT:  return MPI_FLOAT;
    case ZB_DOUBLE: return MPI_DOUBLE;
    case ZB_HALF:
    case ZB_BF16:   return MPI_UINT16_T;
    default:        return MPI_DATATYPE_NULL;
    }
}

/* One user function per (16-bit format, op): inout[i] = in[i] op inout[i]. */
#define ZB_F16_OP(NAME, TO, FROM, EXPR)                                        \
    static void NAME(void *in, void *inout, int *len, MPI_Datatype *dt)        \
    {                                                                          \
        (void)dt;                                                              \
        const uint16_t *a = in;                                                \
        uint16_t *b = inout;                                                   \
        for (int i = 0; i < *len; i++) {                                       \
            float x = TO(a[i]), y = TO(b[i]);                                  \
            b[i] = FROM(EXPR);                                                 \
        }                                                                      \
    }
ZB_F16_OP(bf16_sum, bf16_to_float, bf16_from_float, x + y)
ZB_F16_OP(bf16_prod, bf16_to_float, bf16_from_float, x * y)
ZB_F16_OP(bf16_max, bf16_to_float, bf16_from_float, x > y ? x : y)
ZB_F16_OP(bf16_min, bf16_to_float, bf16_from_float, x < y ? x : y)
ZB_F16_OP(half_sum, half_to_float, half_from_float, x + y)
ZB_F16_OP(half_prod, half_to_float, half_from_float, x * y)
ZB_F16_OP(half_max, half_to_float, half_from_float, x > y ? x : y)
ZB_F16_OP(half_min, half_to_float, half_from_float, x < y ? x : y)

static MPI_User_function *const user_fns[2][ZB_NOPS] = {
    {half_sum, half_prod, half_max, half_min},
    {bf16_sum, bf16_prod, bf16_max, bf16_min},
};
static MPI_Op user_ops[2][ZB_NOPS];
static int user_ops_made[2][ZB_NOPS];

MPI_Op mpi_op(int dtype, int op)
{
    static const MPI_Op native[ZB_NOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    if (op < 0 || op >= ZB_NOPS) return MPI_OP_NULL;
    if (dtype != ZB_HALF && dtype != ZB_BF16) return native[op];
    int f = dtype == ZB_BF16;
    if (!user_ops_made[f][op]) {
        if (MPI_Op_create(user_fns[f][op], 1, &user_ops[f][op]) != MPI_SUCCESS) return MPI_OP_NULL;
        user_ops_made[f][op] = 1;
    }
    return user_ops[f][op];
}

void mpi_ops_free(void)
{
    for (int f = 0; f < 2; f++)
        for (int o = 0; o < ZB_NOPS; o++)
            if (user_ops_made[f][o]) {
                MPI_Op_free(&user_ops[f][o]);
                user_ops_made[f][o] = 0;
            }
}
