/* units.c -- parsing and printing counts, byte sizes and durations. */
#include "core/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define UNITS_MAX 1e18 /* larger than any real count or size; keeps arithmetic finite */

/* Split "12.5GiB" into its number and suffix; fails when there is no number. */
static int split_number(const char *s, double *num, const char **suffix)
{
    if (!s) return -1;
    while (isspace((unsigned char)*s)) s++;
    if (*s == '\0') return -1;
    char *end;
    double v = strtod(s, &end);
    if (end == s) return -1;
    while (isspace((unsigned char)*end)) end++;
    *num = v;
    *suffix = end;
    return 0;
}

static int check_range(double v, const char *s, const char *what, zs_error *err)
{
    if (!isfinite(v) || v < 0)
        return zs_fail(err, ZS_ERR_USAGE, "%s: \"%s\" is not a non-negative finite number", what, s);
    if (v > UNITS_MAX) return zs_fail(err, ZS_ERR_USAGE, "%s: \"%s\" is too large (at most 1e18)", what, s);
    return ZS_OK;
}

/* The one rule for counts (tokens, parameters, GPUs, sequence lengths, elements): SI letters
 * are decimal, an 'i' makes them binary (IEC 80000-13): k 1e3, M 1e6, B/G 1e9, T 1e12;
 * Ki 2^10, Mi 2^20, Gi 2^30, Ti 2^40. Returns the multiplier, or 0 for an unknown suffix. */
static double count_suffix(const char *suf)
{
    static const struct {
        const char *suffix;
        double mult;
    } table[] = {
        {"", 1},
        {"k", 1e3},
        {"K", 1e3},
        {"M", 1e6},
        {"m", 1e6},
        {"B", 1e9},
        {"b", 1e9},
        {"G", 1e9},
        {"g", 1e9},
        {"T", 1e12},
        {"t", 1e12},
        {"Ki", KiB},
        {"Mi", MiB},
        {"Gi", GiB},
        {"Ti", TiB},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(suf, table[i].suffix) == 0) return table[i].mult;
    return 0;
}

int units_parse_count(const char *s, const char *what, double *out, zs_error *err)
{
    double v;
    const char *suf;
    if (split_number(s, &v, &suf) != 0)
        return zs_fail(
            err, ZS_ERR_USAGE, "%s: expected a number such as 7e9 or 7B, got \"%s\"", what, s ? s : "");
    double mult = count_suffix(suf);
    if (mult == 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "%s: unknown suffix \"%s\" in \"%s\" (use k, M, B, T or Ki, Mi, Gi, Ti)", what, suf, s);
    if (check_range(v * mult, s, what, err)) return err ? err->code : ZS_ERR_USAGE;
    *out = v * mult;
    return ZS_OK;
}

int units_parse_bytes(const char *s, const char *what, double *out, zs_error *err)
{
    /* One rule for every size: the unit is always written; B-suffixed SI units are decimal,
     * IEC units binary. A bare K/M/G/T would be read either way (nccl-tests and Slurm mean
     * 2^30 by G, disk vendors 10^9), so it is refused, like a bare number. */
    static const struct {
        const char *suffix;
        double mult;
    } table[] = {
        {"B", 1},
        {"KB", 1e3},
        {"MB", 1e6},
        {"GB", 1e9},
        {"TB", 1e12},
        {"KiB", KiB},
        {"MiB", MiB},
        {"GiB", GiB},
        {"TiB", TiB},
    };
    double v;
    const char *suf;
    if (split_number(s, &v, &suf) != 0)
        return zs_fail(
            err, ZS_ERR_USAGE, "%s: expected a size such as 80GiB or 80GB, got \"%s\"", what, s ? s : "");
    if (*suf == '\0')
        return zs_fail(err, ZS_ERR_USAGE,
            "%s: \"%s\" has no unit; did you mean %sGiB? (sizes take B, KB, MB, GB, TB = 10^3n or KiB, MiB, "
            "GiB, TiB = 2^10n)",
            what, s, s);
    if (strchr("KMGTkmgt", *suf) && suf[1] == '\0')
        return zs_fail(err, ZS_ERR_USAGE,
            "%s: \"%s\" is ambiguous; write %.*s%ciB (binary) or %.*s%cB (decimal)", what, s, (int)(suf - s),
            s, toupper((unsigned char)*suf), (int)(suf - s), s, toupper((unsigned char)*suf));
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcasecmp(suf, table[i].suffix) != 0) continue;
        /* Case matters between KB and KiB only through the 'i'; "kb" is accepted as KB. */
        double b = v * table[i].mult;
        if (check_range(b, s, what, err)) return err ? err->code : ZS_ERR_USAGE;
        *out = b;
        return ZS_OK;
    }
    return zs_fail(err, ZS_ERR_USAGE,
        "%s: unknown unit \"%s\" in \"%s\" (use B, KB, MB, GB, TB or KiB, MiB, GiB, TiB)", what, suf, s);
}

int units_parse_seq(const char *s, const char *what, int64_t min, int64_t max, int64_t *out, zs_error *err)
{
    double v;
    const char *suf;
    if (!s || split_number(s, &v, &suf) != 0 || !(strcmp(suf, "") == 0 || strcasecmp(suf, "k") == 0 ||
                                                   strcmp(suf, "M") == 0 || strcmp(suf, "Ki") == 0 ||
                                                   strcmp(suf, "Mi") == 0))
        return zs_fail(err, ZS_ERR_USAGE,
            "%s: expected a sequence length such as 4096, 4k (= 4096) or 1M (= 1,048,576), got \"%s\"", what,
            s ? s : "");
    char plain[64];
    double mult = *suf == '\0' ? 1 : (*suf == 'k' || *suf == 'K') ? KiB : *suf == 'M' ? MiB : 1;
    if (strcmp(suf, "Ki") == 0) mult = KiB;
    if (strcmp(suf, "Mi") == 0) mult = MiB;
    double x = v * mult;
    /* Whole and in range, with the value as the message shows it. */
    snprintf(plain, sizeof plain, "%.17g", x);
    if (!isfinite(x) || x != floor(x))
        return zs_fail(err, ZS_ERR_USAGE, "%s: %s is %s tokens, not a whole number", what, s, plain);
    return units_parse_int(plain, what, min, max, out, err);
}

int units_parse_int(const char *s, const char *what, int64_t min, int64_t max, int64_t *out, zs_error *err)
{
    double v;
    const char *suf;
    double mult = 0;
    if (split_number(s, &v, &suf) == 0) mult = count_suffix(suf);
    v *= mult;
    if (mult == 0 || !isfinite(v) || v != floor(v))
        return zs_fail(err, ZS_ERR_USAGE, "%s: expected a whole number such as 4096, 8k or 8Ki, got \"%s\"",
            what, s ? s : "");
    /* (double)INT64_MAX rounds up to 2^63, which no int64_t holds: refuse it before the cast */
    if (v < (double)min || v > (double)max || v >= 0x1p63)
        return zs_fail(err, ZS_ERR_USAGE, "%s: %s is out of range (%lld to %lld)", what, s, (long long)min,
            (long long)max);
    *out = (int64_t)v;
    return ZS_OK;
}

const char *units_fmt_bytes(double bytes, char *buf, size_t len)
{
    if (bytes < GiB && bytes > 0)
        snprintf(buf, len, "%.1f MiB", bytes / MiB);
    else
        snprintf(buf, len, "%.2f GiB", bytes / GiB);
    return buf;
}

const char *units_fmt_count(double n, char *buf, size_t len)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", n);
    size_t nd = strlen(digits), o = 0;
    for (size_t i = 0; i < nd && o + 2 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0 && digits[i - 1] != '-') buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *units_fmt_short(double n, char *buf, size_t len)
{
    static const struct {
        double div;
        const char *suffix;
    } t[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}};
    if (n >= 1e15) { /* past "999T": scientific, not "1e+04T" */
        snprintf(buf, len, "%.3g", n);
        return buf;
    }
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (n >= t[i].div) {
            snprintf(buf, len, "%.3g%s", n / t[i].div, t[i].suffix);
            return buf;
        }
    }
    snprintf(buf, len, "%.0f", n);
    return buf;
}

const char *units_fmt_seconds(double s, char *buf, size_t len)
{
    if (s < 1e-3)
        snprintf(buf, len, "%.1f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%.1f ms", s * 1e3);
    else if (s < 120)
        snprintf(buf, len, "%.2f s", s);
    else if (s < 7200)
        snprintf(buf, len, "%.1f min", s / 60);
    else if (s < 3 * 86400)
        snprintf(buf, len, "%.1f h", s / 3600);
    else
        snprintf(buf, len, "%.1f d", s / 86400);
    return buf;
}
