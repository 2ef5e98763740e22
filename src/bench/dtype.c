/* dtype.c -- element type table, name parsing and generic element load/store. */
#include "dtype.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "f16.h"

static const struct dtype_info types[ZB_NTYPES] = {
    [ZB_INT8]   = {"int8",     1, 127.0,                6,   0},
    [ZB_UINT8]  = {"uint8",    1, 255.0,                7,   0},
    [ZB_INT32]  = {"int32",    4, 2147483647.0,         30,  0},
    [ZB_UINT32] = {"uint32",   4, 4294967295.0,         31,  0},
    [ZB_INT64]  = {"int64",    8, 9007199254740992.0,   52,  0},
    [ZB_UINT64] = {"uint64",   8, 9007199254740992.0,   52,  0},
    [ZB_HALF]   = {"half",     2, 2048.0,               15,  1},
    [ZB_FLOAT]  = {"float",    4, 16777216.0,           127, 1},
    [ZB_DOUBLE] = {"double",   8, 9007199254740992.0,   1023, 1},
    [ZB_BF16]   = {"bfloat16", 2, 256.0,                127, 1},
};

static const struct { const char *alias; int type; } aliases[] = {
    {"char", ZB_INT8}, {"int", ZB_INT32}, {"fp16", ZB_HALF}, {"float16", ZB_HALF},
    {"fp32", ZB_FLOAT}, {"float32", ZB_FLOAT}, {"fp64", ZB_DOUBLE}, {"float64", ZB_DOUBLE},
    {"bf16", ZB_BF16},
};

static const char *op_names[ZB_NOPS] = {"sum", "prod", "max", "min"};

const struct dtype_info *dtype_get(int t) { return &types[t]; }

int dtype_parse(const char *s)
{
    for (int t = 0; t < ZB_NTYPES; t++)
        if (strcasecmp(s, types[t].name) == 0) return t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].alias) == 0) return aliases[i].type;
    return -1;
}

int op_parse(const char *s)
{
    for (int o = 0; o < ZB_NOPS; o++)
        if (strcasecmp(s, op_names[o]) == 0) return o;
    return -1;
}

const char *op_name(int op) { return (op >= 0 && op < ZB_NOPS) ? op_names[op] : "none"; }

const char *dtype_names(void)
{
    return "int8,uint8,int32,uint32,int64,uint64,half(fp16),float(fp32),double(fp64),bfloat16(bf16)";
}

double dtype_load(int t, const void *buf, size_t i)
{
    switch (t) {
    case ZB_INT8:   return ((const int8_t *)buf)[i];
    case ZB_UINT8:  return ((const uint8_t *)buf)[i];
    case ZB_INT32:  return ((const int32_t *)buf)[i];
    case ZB_UINT32: return ((const uint32_t *)buf)[i];
    case ZB_INT64:  return (double)((const int64_t *)buf)[i];
    case ZB_UINT64: return (double)((const uint64_t *)buf)[i];
    case ZB_HALF:   return half_to_float(((const uint16_t *)buf)[i]);
    case ZB_FLOAT:  return ((const float *)buf)[i];
    case ZB_DOUBLE: return ((const double *)buf)[i];
    case ZB_BF16:   return bf16_to_float(((const uint16_t *)buf)[i]);
    default:        return 0.0;
    }
}

void dtype_store(int t, void *buf, size_t i, double v)
{
    switch (t) {
    case ZB_INT8:   ((int8_t *)buf)[i] = (int8_t)v; break;
    case ZB_UINT8:  ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case ZB_INT32:  ((int32_t *)buf)[i] = (int32_t)v; break;
    case ZB_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case ZB_INT64:  ((int64_t *)buf)[i] = (int64_t)v; break;
    case ZB_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case ZB_HALF:   ((uint16_t *)buf)[i] = half_from_float((float)v); break;
    case ZB_FLOAT:  ((float *)buf)[i] = (float)v; break;
    case ZB_DOUBLE: ((double *)buf)[i] = v; break;
    case ZB_BF16:   ((uint16_t *)buf)[i] = bf16_from_float((float)v); break;
    default:        break;
    }
}
