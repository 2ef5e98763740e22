/* grid.c -- expanding sweep lists and ranges. */
#include "cmd/grid.h"

#include <stdint.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/training.h"
#include "core/units.h"

/* A range's end: a plain number, or one with the flag's suffixes (a sequence length's 4k is
 * 4096, a count's 4k 4000). */
static int number(const char *flag, const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    if (end != s && *end == '\0' && isfinite(*v)) return 0;
    zs_error e = {.quiet = true};
    bool seq = false;
    for (int i = 0; i < TRAINING_FLAG_COUNT; i++)
        if (strcmp(training_flags[i].name, flag) == 0) seq = training_flags[i].tokens_binary;
    int64_t n;
    if (seq) {
        if (units_parse_seq(s, flag, 1, INT64_MAX / 2, &n, &e)) return -1;
        *v = (double)n;
        return 0;
    }
    return units_parse_count(s, flag, v, &e) ? -1 : 0;
}

/* "a:b[:step]" into values; returns count or -1. */
static int range(const char *flag, const char *item, char (*out)[32], int n, int max, zs_error *err)
{
    char buf[96];
    /* a truncated copy could lose the ':' the caller saw */
    if (strlen(item) >= sizeof buf)
        return zs_fail(err, ZS_ERR_USAGE, "--%s: item \"%s\" too long", flag, item), -1;
    memcpy(buf, item, strlen(item) + 1); /* fits: checked above */
    char *a = buf, *b = strchr(a, ':'), *st;
    *b++ = '\0';
    st = strchr(b, ':');
    if (st) *st++ = '\0';
    double lo, hi, step = 1;
    bool geometric = false;
    if (number(flag, a, &lo) || number(flag, b, &hi) || lo > hi) goto bad;
    if (st) {
        if (*st == 'x' || *st == '*')
            geometric = true;
        else if (*st != '+')
            goto bad;
        if (number(flag, st + 1, &step) || (geometric ? step <= 1 : step <= 0)) goto bad;
    }
    if (geometric && lo <= 0) goto bad;
    /* slack for rounding in the steps; relative to |hi|, as hi * (1 + 1e-12) falls below a
     * negative hi and made "-8:-8" expand to nothing */
    for (double v = lo; v <= hi + fabs(hi) * 1e-12; v = geometric ? v * step : v + step) {
        if (n >= max) return zs_fail(err, ZS_ERR_USAGE, "--%s: more than %d values", flag, max), -1;
        snprintf(out[n++], 32, "%.12g", v);
    }
    return n;
bad:
    zs_fail(err, ZS_ERR_USAGE,
        "--%s: \"%s\" is not a range a:b, a:b:xFACTOR (FACTOR > 1) or a:b:+STEP (a <= b)", flag, item);
    return -1;
}

int grid_expand(const char *flag, const char *value, char (*out)[32], int max, zs_error *err)
{
    char buf[1024];
    if (strlen(value) >= sizeof buf) return zs_fail(err, ZS_ERR_USAGE, "--%s: value too long", flag), -1;
    snprintf(buf, sizeof buf, "%s", value);
    int n = 0;
    char *p = buf;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (*p == '\0') return zs_fail(err, ZS_ERR_USAGE, "--%s: empty item in \"%s\"", flag, value), -1;
        if (strchr(p, ':')) {
            n = range(flag, p, out, n, max, err);
            if (n < 0) return -1;
        } else {
            if (n >= max) return zs_fail(err, ZS_ERR_USAGE, "--%s: more than %d values", flag, max), -1;
            if (strlen(p) >= 32) return zs_fail(err, ZS_ERR_USAGE, "--%s: item \"%s\" too long", flag, p), -1;
            memcpy(out[n++], p, strlen(p) + 1); /* fits: checked above */
        }
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}
