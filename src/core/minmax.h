/* minmax.h -- fmin and fmax inline, as libm computes them (the evaluation path calls them often). */
#ifndef ZS_MINMAX_H
#define ZS_MINMAX_H

/* fmin(a, b): a NaN argument yields the other; otherwise the smaller, a when they compare equal
 * (as glibc's fmin does, so -0 and +0 come out as libm gives them). Pure. */
static inline double zs_fmin(double a, double b)
{
    if (a != a) return b;
    if (b != b) return a;
    return b < a ? b : a;
}

/* fmax(a, b): as zs_fmin, the larger. Pure. */
static inline double zs_fmax(double a, double b)
{
    if (a != a) return b;
    if (b != b) return a;
    return b > a ? b : a;
}

#endif
