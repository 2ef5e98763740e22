/* safetensors.c -- safetensors headers of one file, a folder or a sharded index, counted. */
#include "io/safetensors.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "io/jsonutil.h"

#define EXACT_MAX 9007199254740992.0 /* 2^53: doubles count exactly below it */

/* The tensors read so far, and the strings they point at (names, file paths), owned. */
typedef struct tlist {
    wt_tensor *t;
    size_t n, cap;
    char **own;
    size_t nown, capown;
} tlist;

static void tlist_free(tlist *l)
{
    for (size_t i = 0; i < l->nown; i++) free(l->own[i]);
    free(l->own);
    free(l->t);
    *l = (tlist){0};
}

/* A copy of s kept in l (freed with it), or NULL when out of memory. */
static const char *keep(tlist *l, const char *s)
{
    if (l->nown == l->capown) {
        size_t cap = l->capown ? 2 * l->capown : 64;
        char **p = realloc(l->own, cap * sizeof *p);
        if (!p) return NULL;
        l->own = p;
        l->capown = cap;
    }
    char *c = strdup(s);
    if (c) l->own[l->nown++] = c;
    return c;
}

static int push(tlist *l, wt_tensor x, zs_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        wt_tensor *p = realloc(l->t, cap * sizeof *p);
        if (!p) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", x.file);
        l->t = p;
        l->cap = cap;
    }
    x.name = keep(l, x.name);
    if (!x.name) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", x.file);
    l->t[l->n++] = x;
    return ZS_OK;
}

/* A whole number in [0, 2^53) from a JSON number, or -1 (negative), -2 (not whole or not a
 * number), -3 (too large). */
static double whole(const cJSON *v)
{
    if (!cJSON_IsNumber(v)) return -2;
    double x = v->valuedouble;
    if (x < 0) return -1;
    if (!(x < EXACT_MAX)) return -3; /* before any conversion: 1e400 parses as inf */
    return x == floor(x) ? x : -2;
}

/* The elements of a tensor's "shape" into *elements and its rank into *ndim. Fails with
 * ZS_ERR_INPUT naming file, tensor and entry. */
static int read_shape(
    const char *file, const char *name, const cJSON *shape, double *elements, int *ndim, zs_error *err)
{
    if (!cJSON_IsArray(shape))
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: tensor \"%.200s\": \"shape\": expected an array of sizes", file, name);
    double n = 1;
    int d = 0;
    for (const cJSON *e = shape->child; e; e = e->next, d++) {
        double x = whole(e);
        if (x == -1)
            return zs_fail(err, ZS_ERR_INPUT, "%s: tensor \"%.200s\": shape entry %g is negative", file, name,
                e->valuedouble);
        if (x == -2)
            return zs_fail(
                err, ZS_ERR_INPUT, "%s: tensor \"%.200s\": shape: expected whole numbers", file, name);
        if (x == -3 || (x > 0 && n > EXACT_MAX / x))
            return zs_fail(err, ZS_ERR_INPUT,
                "%s: tensor \"%.200s\": shape overflows (2^53 elements or more)", file, name);
        n *= x;
    }
    *elements = n;
    *ndim = d;
    return ZS_OK;
}

/* One tensor's entry: dtype, shape, data_offsets checked against data_size bytes of data. */
static int read_tensor(const char *file, const cJSON *e, uint64_t data_size, tlist *l, zs_error *err)
{
    const char *name = e->string;
    if (!cJSON_IsObject(e))
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: tensor \"%.200s\": expected an object with dtype, shape and data_offsets", file, name);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    if (!cJSON_IsString(dt))
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: tensor \"%.200s\": \"dtype\": expected a string such as "
            "\"BF16\"",
            file, name);
    int d = weights_dtype_find(dt->valuestring);
    if (d < 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: tensor \"%.200s\": dtype \"%.32s\" is not one this reader knows (BF16, F16, F32, F64, "
            "F8_E4M3, F8_E5M2, F8_E8M0, F6_E2M3, F6_E3M2, F4, U8, I8, I16, U16, I32, U32, I64, U64, BOOL, "
            "C64)",
            file, name, dt->valuestring);
    wt_tensor x = {name, file, d, 0, 0, 0};
    if (read_shape(file, name, cJSON_GetObjectItemCaseSensitive(e, "shape"), &x.elements, &x.ndim, err))
        return err ? err->code : ZS_ERR_INPUT;
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    double a = cJSON_GetArraySize(off) == 2 ? whole(cJSON_GetArrayItem(off, 0)) : -2;
    double b = cJSON_GetArraySize(off) == 2 ? whole(cJSON_GetArrayItem(off, 1)) : -2;
    if (!cJSON_IsArray(off) || a < 0 || b < a)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: tensor \"%.200s\": \"data_offsets\": expected [begin, end], whole numbers, begin <= end",
            file, name);
    if (b > (double)data_size)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: tensor \"%.200s\": data_offsets end %.0f is past the %llu bytes of data the file holds "
            "(truncated file?)",
            file, name, b, (unsigned long long)data_size);
    int bits = weights_dtype_bits(d);
    x.bytes = b - a;
    /* Sub-byte dtypes pack along the last dimension; their stored size is taken as given. */
    if (bits >= 8 && x.elements > EXACT_MAX / (bits / 8))
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: tensor \"%.200s\": size overflows (2^53 bytes or more)", file, name);
    if (bits >= 8 && x.bytes != x.elements * (bits / 8))
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: tensor \"%.200s\": data_offsets [%.0f, %.0f] hold %.0f bytes; %s x %.0f elements needs %.0f",
            file, name, a, b, x.bytes, dt->valuestring, x.elements, x.elements * (bits / 8));
    return push(l, x, err);
}

/* Every tensor of one header (len bytes of JSON, data_size bytes of data after it) into l. */
static int parse_into(
    const char *file, const char *json, size_t len, uint64_t data_size, tlist *l, zs_error *err)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!j)
        return zs_fail(err, ZS_ERR_INPUT, "%s: header is not valid JSON (at byte %zu of its %zu)", file,
            (size_t)((end                          ? end
                             : cJSON_GetErrorPtr() ? cJSON_GetErrorPtr()
                                                   : json) -
                json),
            len);
    /* The format pads the header with spaces to an alignment. */
    for (const char *p = end; p && p < json + len; p++)
        if (!strchr(" \t\r\n", *p) || !*p) {
            cJSON_Delete(j);
            return zs_fail(err, ZS_ERR_INPUT, "%s: header: bytes after the JSON object (at byte %zu)", file,
                (size_t)(p - json));
        }
    int rc = ZS_OK;
    if (!cJSON_IsObject(j))
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: header: expected a JSON object of tensors", file);
    for (const cJSON *e = cJSON_IsObject(j) ? j->child : NULL; e && rc == ZS_OK; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0) {
            if (!cJSON_IsObject(e))
                rc = zs_fail(err, ZS_ERR_INPUT, "%s: header: \"__metadata__\": expected an object", file);
            continue;
        }
        rc = read_tensor(file, e, data_size, l, err);
    }
    cJSON_Delete(j);
    return rc;
}

/* The header of the safetensors file at path into l. */
static int read_file(const char *path, tlist *l, zs_error *err)
{
    const char *file = keep(l, path);
    if (!file) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
    struct stat st;
    if (stat(file, &st) != 0) return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open: %s", file, strerror(errno));
    if (!S_ISREG(st.st_mode)) return zs_fail(err, ZS_ERR_INPUT, "%s: not a regular file", file);
    uint64_t size = (uint64_t)st.st_size;
    if (size < 8)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: truncated: %llu bytes, expected at least the 8-byte header length of a safetensors file",
            file, (unsigned long long)size);
    FILE *f = fopen(file, "rb");
    if (!f) return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open: %s", file, strerror(errno));
    unsigned char b[8];
    uint64_t n = 0;
    bool got = fread(b, 1, 8, f) == 8;
    for (int i = 7; i >= 0; i--) n = n << 8 | b[i];
    int rc = ZS_OK;
    if (!got)
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: read error", file);
    else if (n < 2 || (double)n > SAFETENSORS_HEADER_MAX)
        rc = zs_fail(err, ZS_ERR_INPUT,
            "%s: header length %llu: expected a JSON header of 2 bytes to %.0f MiB (not a safetensors file?)",
            file, (unsigned long long)n, SAFETENSORS_HEADER_MAX / (1024 * 1024));
    else if (n > size - 8)
        rc = zs_fail(err, ZS_ERR_INPUT,
            "%s: truncated: the header length says %llu bytes of JSON, the file holds %llu after it", file,
            (unsigned long long)n, (unsigned long long)(size - 8));
    char *buf = rc ? NULL : malloc(n + 1);
    if (!rc && !buf) rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", file);
    if (!rc && fread(buf, 1, n, f) != n)
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: read error in the header", file);
    fclose(f);
    if (!rc) {
        buf[n] = '\0';
        rc = parse_into(file, buf, (size_t)n, size - 8 - n, l, err);
    }
    free(buf);
    return rc;
}

/* dir/name into out (len bytes). Fails with ZS_ERR_INPUT when the path is too long. */
static int join(const char *dir, const char *name, char *out, size_t len, zs_error *err)
{
    int k = snprintf(out, len, "%s/%s", dir, name);
    if (k < 0 || (size_t)k >= len) return zs_fail(err, ZS_ERR_INPUT, "%s/%.200s: path too long", dir, name);
    return ZS_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Every *.safetensors in folder dir, in name order, into l; *files counts them. */
static int read_folder(const char *dir, tlist *l, int *files, zs_error *err)
{
    DIR *d = opendir(dir);
    if (!d) return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open folder: %s", dir, strerror(errno));
    size_t n = 0, cap = 0;
    char **v = NULL;
    int rc = ZS_OK;
    for (struct dirent *e; rc == ZS_OK && (e = readdir(d));) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".safetensors")) continue;
        if (n == cap) {
            char **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!nv) rc = zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", dir);
            v = nv ? nv : v;
        }
        if (rc == ZS_OK && !(v[n++] = strdup(e->d_name))) rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    closedir(d);
    if (rc == ZS_OK && n == 0)
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: no *.safetensors files in the folder", dir);
    if (rc == ZS_OK && n > 1) qsort(v, n, sizeof *v, cmp_str);
    char path[4096];
    for (size_t i = 0; i < n && rc == ZS_OK; i++) {
        rc = join(dir, v[i], path, sizeof path, err);
        if (rc == ZS_OK) rc = read_file(path, l, err);
    }
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    *files = (int)n;
    return rc;
}

/* The index's weight_map values (shard names), checked, sorted and without repeats, into
 * *shards (*n of them; pointers into root). */
static int index_shards(const char *path, const cJSON *map, const char ***shards, size_t *n, zs_error *err)
{
    if (!cJSON_IsObject(map) || !map->child)
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: \"weight_map\": expected an object of tensor -> shard file", path);
    size_t k = 0, count = (size_t)cJSON_GetArraySize(map);
    const char **v = malloc(count * sizeof *v);
    if (!v) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", path);
    for (const cJSON *e = map->child; e; e = e->next) {
        if (!cJSON_IsString(e) || !e->valuestring[0] || strchr(e->valuestring, '/')) {
            free(v);
            return zs_fail(err, ZS_ERR_INPUT,
                "%s: \"weight_map\": \"%.200s\": expected the name of a shard file beside the index", path,
                e->string);
        }
        v[k++] = e->valuestring;
    }
    qsort(v, k, sizeof *v, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || strcmp(v[u - 1], v[i]) != 0) v[u++] = v[i];
    *shards = v;
    *n = u;
    return ZS_OK;
}

/* The tensor named name in l (sorted by name), or NULL. */
static const wt_tensor *find(const tlist *l, const char *name)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->t[mid].name, name);
        if (c == 0) return &l->t[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Each tensor the weight_map names is in the shard it names (l sorted by name). */
static int check_map(const char *path, const char *dir, const cJSON *map, const tlist *l, zs_error *err)
{
    char want[4096];
    for (const cJSON *e = map->child; e; e = e->next) {
        const wt_tensor *x = find(l, e->string);
        if (join(dir, e->valuestring, want, sizeof want, err)) return ZS_ERR_INPUT;
        if (!x || strcmp(x->file, want) != 0)
            return zs_fail(err, ZS_ERR_INPUT,
                "%s: \"weight_map\" puts \"%.200s\" in %s, which does not hold it", path, e->string,
                e->valuestring);
    }
    return ZS_OK;
}

/* A model.safetensors.index.json: its shards into l, its total_size into *total_size. */
static int read_index(const char *path, tlist *l, int *files, double *total_size, zs_error *err)
{
    cJSON *root = NULL;
    if (json_load_object(path, &root, err)) return err ? err->code : ZS_ERR_INPUT;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    bool have = false;
    int rc = ZS_OK;
    if (cJSON_IsObject(meta) && json_get_number(meta, "total_size", 0, 1e18, total_size, &have, err)) {
        zs_error_prefix(err, path);
        rc = err ? err->code : ZS_ERR_INPUT;
    }
    if (!have) *total_size = -1;
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    const char **shards = NULL;
    size_t n = 0;
    if (rc == ZS_OK) rc = index_shards(path, map, &shards, &n, err);
    char p[4096];
    for (size_t i = 0; i < n && rc == ZS_OK; i++) {
        rc = join(dir, shards[i], p, sizeof p, err);
        if (rc == ZS_OK) rc = read_file(p, l, err);
    }
    *files = (int)n;
    free(shards);
    /* Sorted by name here as weights_count will sort them, to look the map's names up. */
    if (rc == ZS_OK) {
        wt_summary tmp;
        rc = weights_count(l->t, l->n, 0, &tmp, err);
    }
    if (rc == ZS_OK) rc = check_map(path, dir, map, l, err);
    cJSON_Delete(root);
    return rc;
}

int safetensors_load(const char *path, int64_t num_layers, wt_summary *out, zs_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return zs_fail(err, ZS_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
    tlist l = {0};
    int files = 1, rc;
    double total_size = -1;
    if (S_ISDIR(st.st_mode))
        rc = read_folder(path, &l, &files, err);
    else if (ends_with(path, ".json"))
        rc = read_index(path, &l, &files, &total_size, err);
    else
        rc = read_file(path, &l, err);
    if (rc == ZS_OK) rc = weights_count(l.t, l.n, num_layers, out, err);
    if (rc == ZS_OK) {
        out->files = files;
        out->index_total_size = total_size;
    }
    tlist_free(&l);
    return rc;
}

int safetensors_parse(
    const char *file, const char *json, size_t len, uint64_t data_size, wt_summary *out, zs_error *err)
{
    tlist l = {0};
    int rc = parse_into(file, json, len, data_size, &l, err);
    if (rc == ZS_OK) rc = weights_count(l.t, l.n, 0, out, err);
    if (rc == ZS_OK) out->files = 1;
    tlist_free(&l);
    return rc;
}
