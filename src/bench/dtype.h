/* dtype.h -- element types and reduction ops zerobench speaks (nccl-tests names). */
#ifndef ZB_DTYPE_H
#define ZB_DTYPE_H

#include <stddef.h>

enum zb_dtype {
    ZB_INT8, ZB_UINT8, ZB_INT32, ZB_UINT32, ZB_INT64, ZB_UINT64,
    ZB_HALF, ZB_FLOAT, ZB_DOUBLE, ZB_BF16, ZB_NTYPES
};

enum zb_op { ZB_SUM, ZB_PROD, ZB_MAX, ZB_MIN, ZB_NOPS };

struct dtype_info {
    const char *name;     /* canonical nccl-tests name, printed in the "type" column */
    size_t size;          /* bytes per element */
    double exact_limit;   /* every integer in [0, exact_limit] is exactly representable */
    int pow2_bits;        /* largest k such that 2^k is exact and in range */
    int is_float;         /* 1 for floating-point types */
};

/* dtype_get: table entry for type t; t must be in [0, ZB_NTYPES). */
const struct dtype_info *dtype_get(int t);

/* dtype_parse: type index for a name or alias ("float", "fp32", "bf16", ...);
 * returns -1 for an unknown name. */
int dtype_parse(const char *s);

/* op_parse: op index for "sum", "prod", "max", "min"; -1 when unknown. */
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

#endif
