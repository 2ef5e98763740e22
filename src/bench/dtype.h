/* dtype.h -- element types and reduction ops zerobench speaks (nccl-tests names). */
#ifndef ZB_DTYPE_H
#define ZB_DTYPE_H

#include <stddef.h>

enum zb_dtype {
    ZB_INT8,
    ZB_UINT8,
    ZB_INT32,
    ZB_UINT32,
    ZB_INT64,
    ZB_UINT64,
    ZB_HALF,
    ZB_FLOAT,
    ZB_DOUBLE,
    ZB_BF16,
    ZB_F8E4M3,
    ZB_F8E5M2, /* OCP FP8 (NCCL >= 2.24: ncclFloat8e4m3/e5m2) */
    ZB_NTYPES
};

/* avg: sum / nranks (integer types: truncated, as NCCL's SumPostDiv);
 * premulsum: sum of ZB_PREMUL_SCALAR x input (NCCL ncclRedOpCreatePreMulSum). */
enum zb_op { ZB_SUM, ZB_PROD, ZB_MAX, ZB_MIN, ZB_AVG, ZB_PREMULSUM, ZB_NOPS };

/* The premulsum scalar: 2 is exact in every type, so the result stays exact
 * (our choice; nccl-tests picks its own scalar). */
#define ZB_PREMUL_SCALAR 2.0

struct dtype_info {
    const char *name;   /* canonical nccl-tests name, printed in the "type" column */
    size_t size;        /* bytes per element */
    double exact_limit; /* every integer in [0, exact_limit] is exactly representable */
    int pow2_bits;      /* largest k such that 2^k is exact and in range */
    int is_float;       /* 1 for floating-point types */
    int mant_bits;      /* stored mantissa bits (floats; 0 for integers) */
};

/* dtype_get: table entry for type t; t must be in [0, ZB_NTYPES). */
const struct dtype_info *dtype_get(int t);

/* dtype_parse: type index for a name or alias ("float", "fp32", "bf16", ...);
 * returns -1 for an unknown name. */
int dtype_parse(const char *s);

/* op_parse: op index for "sum", "prod", "max", "min", "avg", "premulsum"
 * (alias "mulsum"); -1 when unknown. */
int op_parse(const char *s);

/* op_name: printable op name; "none" for op < 0 or out of range. */
const char *op_name(int op);

/* dtype_load: element i of buf, widened to double (exact for every type
 * except 64-bit integers beyond 2^53). Never fails. */
double dtype_load(int t, const void *buf, size_t i);

/* dtype_store: writes v (rounded to nearest even for float types, truncated
 * toward zero for integer types) as element i of buf. Never fails. */
void dtype_store(int t, void *buf, size_t i, double v);

/* dtype_names: comma-separated list of accepted type names, for usage text. */
const char *dtype_names(void);

/* fp8_from_float / fp8_to_float: OCP 8-bit floats, round to nearest even.
 * e4m3 (ebits 4): bias 7, no infinity, max 448, overflow and NaN -> 0x7f;
 * e5m2 (ebits 5): bias 15, IEEE-like, overflow -> infinity. Total. */
unsigned char fp8_from_float(float f, int ebits);
float fp8_to_float(unsigned char b, int ebits);

#endif
