/* json.c -- minimal JSON writer (escaping, comma placement) and atomic file output. */
#include "json.h"

#include "../io/atomicfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void json_init(struct json *j)
{
    memset(j, 0, sizeof *j);
}

void json_free(struct json *j)
{
    free(j->buf);
    json_init(j);
}

static void put(struct json *j, const char *s, size_t n)
{
    if (j->err) return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 4096;
        while (cap < j->len + n + 1) cap *= 2;
        char *b = realloc(j->buf, cap);
        if (!b) {
            j->err = 1;
            return;
        }
        j->buf = b;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(struct json *j, const char *s)
{
    put(j, s, strlen(s));
}

static void putf(struct json *j, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        j->err = 1;
        return;
    }
    put(j, tmp, (size_t)n);
}

static void quote(struct json *j, const char *s)
{
    put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': puts_(j, "\\\""); break;
        case '\\': puts_(j, "\\\\"); break;
        case '\n': puts_(j, "\\n"); break;
        case '\r': puts_(j, "\\r"); break;
        case '\t': puts_(j, "\\t"); break;
        default:
            if (*p < 0x20)
                putf(j, "\\u%04x", *p);
            else
                put(j, (const char *)p, 1);
        }
    }
    put(j, "\"", 1);
}

/* member prefix: comma, newline + indent, key */
static void member(struct json *j, const char *key)
{
    if (j->depth > 0 && j->count[j->depth - 1]++ > 0) put(j, ",", 1);
    if (j->depth > 0) {
        put(j, "\n", 1);
        for (int i = 0; i < j->depth; i++) put(j, "  ", 2);
    }
    if (key) {
        quote(j, key);
        put(j, ": ", 2);
    }
}

static void open_(struct json *j, const char *key, const char *br)
{
    member(j, key);
    if (j->depth >= JSON_MAX_DEPTH) {
        j->err = 1;
        return;
    }
    puts_(j, br);
    j->count[j->depth++] = 0;
}

static void close_(struct json *j, const char *br)
{
    if (j->depth <= 0) {
        j->err = 1;
        return;
    }
    int had = j->count[--j->depth] > 0;
    if (had) {
        put(j, "\n", 1);
        for (int i = 0; i < j->depth; i++) put(j, "  ", 2);
    }
    puts_(j, br);
}

void json_obj_begin(struct json *j, const char *key)
{
    open_(j, key, "{");
}
void json_obj_end(struct json *j)
{
    close_(j, "}");
}
void json_arr_begin(struct json *j, const char *key)
{
    open_(j, key, "[");
}
void json_arr_end(struct json *j)
{
    close_(j, "]");
}

void json_str(struct json *j, const char *key, const char *val)
{
    member(j, key);
    if (val)
        quote(j, val);
    else
        puts_(j, "null");
}

void json_num(struct json *j, const char *key, double val)
{
    member(j, key);
    if (isfinite(val))
        putf(j, "%.10g", val);
    else
        puts_(j, "null");
}

void json_int(struct json *j, const char *key, long long val)
{
    member(j, key);
    putf(j, "%lld", val);
}

void json_bool(struct json *j, const char *key, int val)
{
    member(j, key);
    puts_(j, val ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
    member(j, key);
    puts_(j, "null");
}

int json_write_atomic(const struct json *j, const char *path)
{
    if (j->err || j->depth != 0 || !j->buf) {
        errno = EINVAL;
        return -1;
    }
    atomicfile a; /* src/io/atomicfile.c: mkstemp beside path, devices and FIFOs written in place */
    if (atomicfile_open(&a, path) != 0) return -1;
    if (fwrite(j->buf, 1, j->len, a.f) != j->len || fputc('\n', a.f) == EOF) {
        int saved = errno;
        atomicfile_abort(&a);
        errno = saved;
        return -1;
    }
    return atomicfile_commit(&a);
}
