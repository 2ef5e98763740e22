/* f16.h -- bit-exact bfloat16 / IEEE half <-> float conversions (round to nearest even). */
#ifndef ZB_F16_H
#define ZB_F16_H

#include <stdint.h>
#include <string.h>

/* Header-only so that OpenMP simd loops can inline them; every function is
 * total (no failure mode): NaN stays NaN, overflow rounds to infinity. */

static inline uint32_t f16_float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float f16_bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* bf16_from_float: round-to-nearest-even to bfloat16; NaN maps to a quiet NaN. */
static inline uint16_t bf16_from_float(float f)
{
    uint32_t u = f16_float_bits(f);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;
    return (uint16_t)(((u & 0x7fffffffu) > 0x7f800000u) ? nan : rounded);
}

/* bf16_to_float: exact widening. */
static inline float bf16_to_float(uint16_t h)
{
    return f16_bits_float((uint32_t)h << 16);
}

/* half_from_float: round-to-nearest-even to IEEE binary16, including subnormals. */
static inline uint16_t half_from_float(float f)
{
    uint32_t u = f16_float_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t ax = u & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);  /* NaN */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: inf */
    if (ax < 0x38800000u) {                                   /* below 2^-14: subnormal */
        if (ax <= 0x33000000u) return (uint16_t)sign;         /* <= 2^-25 ties to 0 */
        uint32_t e = ax >> 23;
        uint32_t m = (ax & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* carry may reach inf */
    return (uint16_t)(sign | h);
}

/* half_to_float: exact widening, including subnormals, inf and NaN. */
static inline float half_to_float(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t e = ((uint32_t)h >> 10) & 0x1fu, m = (uint32_t)h & 0x3ffu;
    if (e == 0) {
        float v = (float)m * (1.0f / 16777216.0f); /* m * 2^-24, exact */
        return sign ? -v : v;
    }
    if (e == 31) return f16_bits_float(sign | 0x7f800000u | (m << 13));
    return f16_bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

#endif
