/* dtype.c -- element type table, name parsing and generic element load/store. */
#include "dtype.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "f16.h"

static const struct dtype_info types[ZB_NTYPES] = {
    [ZB_INT8] = {"int8", 1, 127.0, 6, 0, 0},
    [ZB_UINT8] = {"uint8", 1, 255.0, 7, 0, 0},
    [ZB_INT32] = {"int32", 4, 2147483647.0, 30, 0, 0},
    [ZB_UINT32] = {"uint32", 4, 4294967295.0, 31, 0, 0},
    [ZB_INT64] = {"int64", 8, 9007199254740992.0, 52, 0, 0},
    [ZB_UINT64] = {"uint64", 8, 9007199254740992.0, 52, 0, 0},
    [ZB_HALF] = {"half", 2, 2048.0, 15, 1, 10},
    [ZB_FLOAT] = {"float", 4, 16777216.0, 127, 1, 23},
    [ZB_DOUBLE] = {"double", 8, 9007199254740992.0, 1023, 1, 52},
    [ZB_BF16] = {"bfloat16", 2, 256.0, 127, 1, 7},
    /* OCP 8-bit Floating Point Specification (OFP8) rev 1.0, table 1:
     * e4m3 max normal 448 = 1.75 x 2^8, e5m2 max normal 57344 = 1.75 x 2^15;
     * 3 (2) mantissa bits make every integer up to 16 (8) exact. */
    [ZB_F8E4M3] = {"f8e4m3", 1, 16.0, 8, 1, 3},
    [ZB_F8E5M2] = {"f8e5m2", 1, 8.0, 15, 1, 2},
};

static const struct {
    const char *alias;
    int type;
} aliases[] = {
    {"char", ZB_INT8},
    {"int", ZB_INT32},
    {"fp16", ZB_HALF},
    {"float16", ZB_HALF},
    {"fp32", ZB_FLOAT},
    {"float32", ZB_FLOAT},
    {"fp64", ZB_DOUBLE},
    {"float64", ZB_DOUBLE},
    {"bf16", ZB_BF16},
    {"fp8e4m3", ZB_F8E4M3},
    {"e4m3", ZB_F8E4M3},
    {"fp8e5m2", ZB_F8E5M2},
    {"e5m2", ZB_F8E5M2},
};

static const char *op_names[ZB_NOPS] = {"sum", "prod", "max", "min", "avg", "premulsum"};

const struct dtype_info *dtype_get(int t)
{
    return &types[t];
}

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
    if (strcasecmp(s, "mulsum") == 0) return ZB_PREMULSUM;
    return -1;
}

const char *op_name(int op)
{
    return (op >= 0 && op < ZB_NOPS) ? op_names[op] : "none";
}

const char *dtype_names(void)
{
    return "int8,uint8,int32,uint32,int64,uint64,half(fp16),float(fp32),double(fp64),bfloat16(bf16),"
           "f8e4m3,f8e5m2,all";
}

double dtype_load(int t, const void *buf, size_t i)
{
    switch (t) {
    case ZB_INT8: return ((const int8_t *)buf)[i];
    case ZB_UINT8: return ((const uint8_t *)buf)[i];
    case ZB_INT32: return ((const int32_t *)buf)[i];
    case ZB_UINT32: return ((const uint32_t *)buf)[i];
    case ZB_INT64: return (double)((const int64_t *)buf)[i];
    case ZB_UINT64: return (double)((const uint64_t *)buf)[i];
    case ZB_HALF: return half_to_float(((const uint16_t *)buf)[i]);
    case ZB_FLOAT: return ((const float *)buf)[i];
    case ZB_DOUBLE: return ((const double *)buf)[i];
    case ZB_BF16: return bf16_to_float(((const uint16_t *)buf)[i]);
    case ZB_F8E4M3: return fp8_to_float(((const unsigned char *)buf)[i], 4);
    case ZB_F8E5M2: return fp8_to_float(((const unsigned char *)buf)[i], 5);
    default: return 0.0;
    }
}

void dtype_store(int t, void *buf, size_t i, double v)
{
    switch (t) {
    case ZB_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case ZB_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case ZB_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case ZB_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case ZB_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case ZB_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case ZB_HALF: ((uint16_t *)buf)[i] = half_from_float((float)v); break;
    case ZB_FLOAT: ((float *)buf)[i] = (float)v; break;
    case ZB_DOUBLE: ((double *)buf)[i] = v; break;
    case ZB_BF16: ((uint16_t *)buf)[i] = bf16_from_float((float)v); break;
    case ZB_F8E4M3: ((unsigned char *)buf)[i] = fp8_from_float((float)v, 4); break;
    case ZB_F8E5M2: ((unsigned char *)buf)[i] = fp8_from_float((float)v, 5); break;
    default: break;
    }
}

/* Our own minifloat rounding: scale |f| to units of the format's smallest
 * subnormal step, round to nearest even there, then rebuild the bits.
 * Exact for every input because float has 24 significant bits and the
 * scaling is by powers of two. */
unsigned char fp8_from_float(float f, int ebits)
{
    int e4 = ebits == 4, bias = e4 ? 7 : 15, mbits = e4 ? 3 : 2;
    unsigned char sign = signbit(f) ? 0x80 : 0;
    if (isnan(f)) return (unsigned char)(sign | (e4 ? 0x7f : 0x7e));
    double a = fabs((double)f);
    double maxv = e4 ? 448.0 : 57344.0;
    int emin = 1 - bias; /* exponent of the smallest normal */
    /* the rounding step (ulp) at a's binade, never below the subnormal step */
    int ex = 0;
    if (a > 0) frexp(a, &ex); /* a in [2^(ex-1), 2^ex) */
    int e = ex - 1 < emin ? emin : ex - 1;
    double ulp = ldexp(1.0, e - mbits);
    double q = a / ulp, r = floor(q);
    double rem = q - r;
    if (rem > 0.5 || (rem == 0.5 && fmod(r, 2.0) != 0)) r += 1;
    double v = r * ulp;
    if (v > maxv || isinf(f)) {
        if (e4) return (unsigned char)(sign | 0x7f); /* no infinity: NaN (OFP8 saturating is optional) */
        return (unsigned char)(sign | 0x7c);         /* e5m2 infinity */
    }
    if (v == 0) return sign;
    int vex;
    double m = frexp(v, &vex); /* v = m 2^vex, m in [0.5, 1) */
    int be = vex - 1 + bias;   /* biased exponent */
    unsigned bits;
    if (be <= 0)
        bits = (unsigned)(v / ldexp(1.0, emin - mbits)); /* subnormal */
    else
        bits = ((unsigned)be << mbits) | ((unsigned)(m * ldexp(1.0, mbits + 1)) & ((1u << mbits) - 1));
    return (unsigned char)(sign | bits);
}

float fp8_to_float(unsigned char b, int ebits)
{
    int e4 = ebits == 4, bias = e4 ? 7 : 15, mbits = e4 ? 3 : 2;
    int sign = b & 0x80, be = (b & 0x7f) >> mbits, mant = b & ((1 << mbits) - 1);
    double v;
    if (e4 && (b & 0x7f) == 0x7f) return NAN;
    if (!e4 && be == 31)
        v = mant ? NAN : INFINITY;
    else if (be == 0)
        v = ldexp((double)mant, 1 - bias - mbits);
    else
        v = ldexp(1.0 + (double)mant / (1 << mbits), be - bias);
    return (float)(sign ? -v : v);
}
