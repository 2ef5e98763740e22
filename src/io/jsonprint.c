/* jsonprint.c -- cJSON_Print's exact bytes, with numbers formatted without printf's slow path. */
#include "io/jsonprint.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing output buffer; len excludes the terminating NUL. */
typedef struct jbuf {
    char *p;
    size_t len, cap;
    bool oom;
} jbuf;

static char *room(jbuf *b, size_t n)
{
    if (b->oom) return NULL;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return NULL;
        }
        b->p = q;
        b->cap = cap;
    }
    return b->p + b->len;
}

static void put(jbuf *b, const char *s, size_t n)
{
    char *w = room(b, n);
    if (!w) return;
    memcpy(w, s, n);
    b->len += n;
}

static void put_tabs(jbuf *b, int n)
{
    char *w = room(b, (size_t)n);
    if (!w) return;
    memset(w, '\t', (size_t)n);
    b->len += (size_t)n;
}

/* Powers of ten, exact in a 64-bit significand up to 10^27 (5^27 < 2^64). */
static const long double pow10_exact[28] = {1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L,
    1e25L, 1e26L, 1e27L};

/* printf's "%1.15g" of a finite nonzero d, or -1 where this cannot be sure of printf's
 * rounding (then the caller asks printf). a x 10^k is one correctly rounded long double
 * product or quotient (relative error 2^-64, under 6e-5 on a 15-digit integer part), so the
 * rounding to 15 digits is certain unless the fraction lies within 1e-3 of one half. */
static int fast_g15(double d, char *out)
{
    enum { P = 15 };
#if LDBL_MANT_DIG < 64
    return -1; /* no extended precision: the error bound above does not hold */
#endif
    double a = fabs(d);
    if (!(a >= 1e-300) || a > 1e300) return -1;
    int e10 = (int)floor(log10(a));
    long double y = 0;
    for (int tries = 0; tries < 3; tries++) {
        int k = P - 1 - e10;
        if (k > 27 || k < -27) return -1;
        y = k >= 0 ? (long double)a * pow10_exact[k] : (long double)a / pow10_exact[-k];
        if (y < 1e14L)
            e10--;
        else if (y >= 1e15L)
            e10++;
        else
            break;
        if (tries == 2) return -1;
    }
    long double whole = floorl(y), frac = y - whole;
    if (fabsl(frac - 0.5L) < 1e-3L) return -1;
    unsigned long long n = (unsigned long long)whole + (frac > 0.5L);
    if (n >= 1000000000000000ull) {
        n /= 10; /* 10^15 exactly: one digit more */
        e10++;
    }
    char dig[P + 1];
    for (int i = P - 1; i >= 0; i--, n /= 10) dig[i] = (char)('0' + n % 10);
    int nd = P;
    while (nd > 1 && dig[nd - 1] == '0') nd--; /* %g drops trailing zeros */
    char *w = out;
    if (d < 0) *w++ = '-';
    if (e10 < -4 || e10 >= P) {
        *w++ = dig[0];
        if (nd > 1) {
            *w++ = '.';
            memcpy(w, dig + 1, (size_t)(nd - 1));
            w += nd - 1;
        }
        int x = e10 < 0 ? -e10 : e10;
        *w++ = 'e';
        *w++ = e10 < 0 ? '-' : '+';
        if (x >= 100) *w++ = (char)('0' + x / 100);
        *w++ = (char)('0' + x / 10 % 10);
        *w++ = (char)('0' + x % 10);
    } else if (e10 >= 0) {
        int ip = e10 + 1; /* integer digits */
        memcpy(w, dig, (size_t)ip);
        w += ip;
        if (nd > ip) {
            *w++ = '.';
            memcpy(w, dig + ip, (size_t)(nd - ip));
            w += nd - ip;
        }
    } else {
        *w++ = '0';
        *w++ = '.';
        for (int i = 0; i < -e10 - 1; i++) *w++ = '0';
        memcpy(w, dig, (size_t)nd);
        w += nd;
    }
    *w = '\0';
    return (int)(w - out);
}

/* cJSON's compare_double: equal within the larger magnitude's DBL_EPSILON. */
static bool near_equal(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= m * DBL_EPSILON;
}

int json_print_number(double d, char out[32])
{
    /* cJSON 1.7.15's print_number (Debian's): null for NaN and infinities, else 15 significant
     * digits when they read back within DBL_EPSILON, else 17; valueint is not consulted (-0.0
     * prints "-0"). A whole number under 10^15 is its digits under "%1.15g". */
    if (isnan(d) || isinf(d)) return snprintf(out, 32, "null");
    if (d == floor(d) && fabs(d) < 1e15) {
        char tmp[24], *w = tmp + sizeof tmp;
        unsigned long long u = (unsigned long long)fabs(d);
        do *--w = (char)('0' + u % 10);
        while (u /= 10);
        if (signbit(d)) *--w = '-';
        int n = (int)(tmp + sizeof tmp - w);
        memcpy(out, w, (size_t)n);
        out[n] = '\0';
        return n;
    }
    int n = fast_g15(d, out);
    if (n < 0) n = snprintf(out, 32, "%1.15g", d);
    if (!near_equal(strtod(out, NULL), d)) n = snprintf(out, 32, "%1.17g", d);
    return n;
}

static void print_string(jbuf *b, const char *s)
{
    if (!s) s = "";
    put(b, "\"", 1);
    for (const char *r = s; *r;) {
        const char *run = r;
        while (*r && (unsigned char)*r >= 32 && *r != '"' && *r != '\\') r++;
        put(b, run, (size_t)(r - run));
        if (!*r) break;
        unsigned char c = (unsigned char)*r++;
        char esc[8];
        switch (c) {
        case '"': put(b, "\\\"", 2); break;
        case '\\': put(b, "\\\\", 2); break;
        case '\b': put(b, "\\b", 2); break;
        case '\f': put(b, "\\f", 2); break;
        case '\n': put(b, "\\n", 2); break;
        case '\r': put(b, "\\r", 2); break;
        case '\t': put(b, "\\t", 2); break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(b, esc, 6);
            break;
        }
    }
    put(b, "\"", 1);
}

static bool print_value(jbuf *b, const cJSON *item, int depth, bool fmt);

static bool print_array(jbuf *b, const cJSON *item, int depth, bool fmt)
{
    put(b, "[", 1);
    for (const cJSON *e = item->child; e; e = e->next) {
        if (!print_value(b, e, depth + 1, fmt)) return false;
        if (e->next) put(b, fmt ? ", " : ",", fmt ? 2 : 1);
    }
    put(b, "]", 1);
    return true;
}

static bool print_object(jbuf *b, const cJSON *item, int depth, bool fmt)
{
    put(b, fmt ? "{\n" : "{", fmt ? 2 : 1);
    for (const cJSON *e = item->child; e; e = e->next) {
        if (fmt) put_tabs(b, depth + 1);
        print_string(b, e->string);
        put(b, fmt ? ":\t" : ":", fmt ? 2 : 1);
        if (!print_value(b, e, depth + 1, fmt)) return false;
        if (e->next) put(b, ",", 1);
        if (fmt) put(b, "\n", 1);
    }
    if (fmt) put_tabs(b, depth);
    put(b, "}", 1);
    return true;
}

static bool print_value(jbuf *b, const cJSON *item, int depth, bool fmt)
{
    char num[32];
    switch (item->type & 0xFF) {
    case cJSON_NULL: put(b, "null", 4); return true;
    case cJSON_False: put(b, "false", 5); return true;
    case cJSON_True: put(b, "true", 4); return true;
    case cJSON_Number: {
        int n = json_print_number(item->valuedouble, num);
        put(b, num, (size_t)n);
        return true;
    }
    case cJSON_Raw:
        if (!item->valuestring) return false;
        put(b, item->valuestring, strlen(item->valuestring));
        return true;
    case cJSON_String: print_string(b, item->valuestring); return true;
    case cJSON_Array: return print_array(b, item, depth, fmt);
    case cJSON_Object: return print_object(b, item, depth, fmt);
    default: return false;
    }
}

char *json_print(const cJSON *item, bool formatted)
{
    if (!item) return NULL;
    jbuf b = {0};
    bool ok = print_value(&b, item, 0, formatted) && room(&b, 0);
    if (!ok || b.oom) {
        free(b.p);
        return NULL;
    }
    b.p[b.len] = '\0';
    return b.p;
}
