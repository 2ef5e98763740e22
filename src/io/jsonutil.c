/* jsonutil.c -- file reading and typed JSON field access. */
#include "io/jsonutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int file_read_text(const char *path, char **out, size_t *len, zs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= JSON_MAX_FILE) {
                free(buf);
                fclose(f);
                return zs_fail(err, ZS_ERR_INPUT, "%s: larger than %.0f MiB; not a config file", path,
                    JSON_MAX_FILE / (1024 * 1024));
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) break;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        return zs_fail(err, ZS_ERR_INPUT, "%s: read error", path);
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        free(buf);
        return zs_fail(err, ZS_ERR_INPUT, "%s: contains NUL bytes; expected a text file", path);
    }
    size_t k = 0;
    while (k < n && strchr(" \t\r\n", buf[k])) k++;
    if (k == n) {
        free(buf);
        return zs_fail(err, ZS_ERR_INPUT, "%s: file is empty", path);
    }
    *out = buf;
    if (len) *len = n;
    return ZS_OK;
}

/* Line and column of a byte offset, for syntax error messages. */
static void locate(const char *text, const char *at, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && *p; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else
            (*col)++;
    }
}

/* Order children by key, then by position, so duplicates sit together, the last one last. */
typedef struct {
    cJSON *item;
    size_t pos;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->item->string ? x->item->string : "", y->item->string ? y->item->string : "");
    if (c) return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int json_last_key_wins(cJSON *node)
{
    if (!node) return ZS_OK;
    /* Children first, then this object's own duplicates (each deleted whole). */
    for (cJSON *c = node->child; c; c = c->next)
        if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && json_last_key_wins(c)) return -1;
    if (!cJSON_IsObject(node)) return ZS_OK;
    size_t n = 0;
    for (cJSON *c = node->child; c; c = c->next) n++;
    if (n < 2) return ZS_OK;
    keyed *k = malloc(n * sizeof *k);
    if (!k) return -1;
    size_t i = 0;
    for (cJSON *c = node->child; c; c = c->next, i++) k[i] = (keyed){c, i};
    qsort(k, n, sizeof *k, keyed_cmp);
    for (i = 0; i + 1 < n; i++)
        if (strcmp(k[i].item->string ? k[i].item->string : "",
                k[i + 1].item->string ? k[i + 1].item->string : "") == 0)
            cJSON_Delete(cJSON_DetachItemViaPointer(node, k[i].item));
    free(k);
    return ZS_OK;
}

int json_load_object(const char *path, cJSON **root, zs_error *err)
{
    char *text;
    size_t len;
    if (file_read_text(path, &text, &len, err)) return err ? err->code : ZS_ERR_INPUT;
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1); /* + 1: the NUL it must end on */
    if (!j) {
        int line, col;
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at) at = text + len;
        locate(text, at, &line, &col);
        bool truncated = (size_t)(at - text) >= len;
        free(text);
        return zs_fail(err, ZS_ERR_INPUT, "%s:%d:%d: %s", path, line, col,
            truncated ? "JSON ends early (truncated file?)" : "invalid JSON");
    }
    free(text);
    if (json_last_key_wins(j)) {
        cJSON_Delete(j);
        return zs_fail(err, ZS_ERR_INPUT, "%s: out of memory", path);
    }
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return zs_fail(err, ZS_ERR_INPUT, "%s: expected a JSON object at the top level", path);
    }
    *root = j;
    return ZS_OK;
}

const char *json_number_text(double x, char *buf, size_t len)
{
    /* A whole number in full (18446744073709551616, not 1.84467e+19); else the shortest
     * form that reads back as x. */
    if (isfinite(x) && x == floor(x) && fabs(x) < 1e21) {
        snprintf(buf, len, "%.0f", x);
        return buf;
    }
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (!isfinite(x) || strtod(buf, NULL) == x) break;
    }
    return buf;
}

int json_get_number(
    const cJSON *obj, const char *key, double min, double max, double *out, bool *present, zs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present) *present = false;
    if (!v || cJSON_IsNull(v)) return ZS_OK;
    double x;
    if (cJSON_IsNumber(v)) {
        x = v->valuedouble;
    } else if (cJSON_IsString(v)) {
        if (strcasecmp(v->valuestring, "auto") == 0) return ZS_OK;
        char *end;
        x = strtod(v->valuestring, &end);
        if (end == v->valuestring || *end != '\0')
            return zs_fail(
                err, ZS_ERR_INPUT, "field \"%s\": expected a number, got \"%s\"", key, v->valuestring);
    } else {
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected a number", key);
    }
    if (!isfinite(x) || x < min || x > max) {
        char a[48], b[48], c[48];
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %s is out of range (expected %s to %s)", key,
            json_number_text(x, a, sizeof a), json_number_text(min, b, sizeof b),
            json_number_text(max, c, sizeof c));
    }
    *out = x;
    if (present) *present = true;
    return ZS_OK;
}

int json_get_int(
    const cJSON *obj, const char *key, int64_t min, int64_t max, int64_t *out, bool *present, zs_error *err)
{
    double x;
    bool have = false;
    if (json_get_number(obj, key, (double)min, (double)max, &x, &have, err))
        return err ? err->code : ZS_ERR_INPUT;
    if (present) *present = have;
    if (!have) return ZS_OK;
    if (x != floor(x))
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected a whole number, got %g", key, x);
    *out = (int64_t)x;
    return ZS_OK;
}

int json_get_bool(const cJSON *obj, const char *key, bool *out, bool *present, zs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present) *present = false;
    if (!v || cJSON_IsNull(v)) return ZS_OK;
    if (cJSON_IsBool(v))
        *out = cJSON_IsTrue(v);
    else if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1))
        *out = v->valuedouble == 1;
    else if (cJSON_IsString(v) && strcasecmp(v->valuestring, "true") == 0)
        *out = true;
    else if (cJSON_IsString(v) && strcasecmp(v->valuestring, "false") == 0)
        *out = false;
    else if (cJSON_IsString(v) && strcasecmp(v->valuestring, "auto") == 0)
        return ZS_OK;
    else
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected true or false", key);
    if (present) *present = true;
    return ZS_OK;
}

static int get_string(
    const cJSON *obj, const char *key, char *out, size_t len, bool clip, bool *present, zs_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present) *present = false;
    if (!v || cJSON_IsNull(v)) return ZS_OK;
    if (!cJSON_IsString(v)) return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": expected a string", key);
    if (!clip && len > 0 && strlen(v->valuestring) >= len)
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %zu characters, at most %zu", key,
            strlen(v->valuestring), len - 1);
    snprintf(out, len, "%s", v->valuestring);
    if (present) *present = true;
    return ZS_OK;
}

int json_get_string(const cJSON *obj, const char *key, char *out, size_t len, bool *present, zs_error *err)
{
    return get_string(obj, key, out, len, false, present, err);
}

int json_get_text(const cJSON *obj, const char *key, char *out, size_t len, bool *present, zs_error *err)
{
    return get_string(obj, key, out, len, true, present, err);
}

const char *json_first_key(const cJSON *obj, const char *const *keys)
{
    for (; *keys; keys++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, *keys);
        if (v && !cJSON_IsNull(v)) return *keys;
    }
    return NULL;
}
