/* yamlutil.c -- libyaml's event stream built into a cJSON tree (mappings, sequences, scalars). */
#include "io/yamlutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "io/jsonutil.h"

/* Containers nest at most this deep: a launch config is a few levels. */
#define YAML_MAX_DEPTH 64

/* Anchors (&name) a file may define, and the nodes aliases (*name) may copy in all: enough for
 * Megatron's functional-test configs (one &BASE_MODEL_ARGS merged into each case), and a bound
 * on "billion laughs" files whose aliases nest. */
#define YAML_MAX_ANCHORS 64
#define YAML_MAX_COPIED 200000

typedef struct yreader {
    yaml_parser_t parser;
    const char *path;
    zs_error *err;
    char *anchor[YAML_MAX_ANCHORS]; /* names, and a copy of each anchored node (owned) */
    cJSON *anchored[YAML_MAX_ANCHORS];
    int nanchors;
    long copied; /* nodes copied by aliases so far */
} yreader;

static int yfail(yreader *r, const yaml_mark_t *m, const char *what)
{
    return zs_fail(r->err, ZS_ERR_INPUT, "%s:%lu:%lu: %s", r->path, (unsigned long)m->line + 1,
        (unsigned long)m->column + 1, what);
}

/* The nodes of the tree at n. */
static long yaml_count(const cJSON *n)
{
    long k = 1;
    for (const cJSON *c = n ? n->child : NULL; c; c = c->next) k += yaml_count(c);
    return k;
}

/* Remember node n under anchor name (NULL: none); the latest of a repeated name wins. */
static int remember(yreader *r, const yaml_char_t *name, const cJSON *n)
{
    if (!name) return ZS_OK;
    if (r->nanchors == YAML_MAX_ANCHORS)
        return zs_fail(r->err, ZS_ERR_INPUT, "%s: more than %d YAML anchors", r->path, YAML_MAX_ANCHORS);
    r->anchor[r->nanchors] = strdup((const char *)name);
    r->anchored[r->nanchors] = cJSON_Duplicate(n, true);
    if (!r->anchor[r->nanchors] || !r->anchored[r->nanchors]) {
        free(r->anchor[r->nanchors]);
        cJSON_Delete(r->anchored[r->nanchors]);
        return zs_fail(r->err, ZS_ERR_IO, "out of memory");
    }
    r->nanchors++;
    return ZS_OK;
}

/* A copy of the node anchored as the alias event names. */
static int alias(yreader *r, const yaml_event_t *ev, cJSON **out)
{
    const char *name = (const char *)ev->data.alias.anchor;
    for (int i = r->nanchors - 1; i >= 0; i--) {
        if (strcmp(r->anchor[i], name)) continue;
        r->copied += yaml_count(r->anchored[i]);
        if (r->copied > YAML_MAX_COPIED) return yfail(r, &ev->start_mark, "aliases expand too far");
        *out = cJSON_Duplicate(r->anchored[i], true);
        return *out ? ZS_OK : zs_fail(r->err, ZS_ERR_IO, "out of memory");
    }
    char what[320];
    snprintf(what, sizeof what, "alias *%.200s names no anchor defined before it", name);
    return yfail(r, &ev->start_mark, what);
}

/* YAML's merge key (<<: *base, or a list of them): the merged mapping's keys the mapping does
 * not set itself, the first merged mapping winning among them. Takes v. */
static int merge(yreader *r, cJSON *c, cJSON *v, const yaml_mark_t *m)
{
    int rc = ZS_OK;
    cJSON *one = cJSON_IsObject(v) ? v : NULL;
    for (cJSON *src = one ? one : (cJSON_IsArray(v) ? v->child : NULL); src && !rc;
         src = one ? NULL : src->next) {
        if (!cJSON_IsObject(src)) {
            rc = yfail(r, m, "a merge key (<<) takes a mapping or a list of mappings");
            break;
        }
        for (const cJSON *k = src->child; k; k = k->next)
            if (!cJSON_GetObjectItemCaseSensitive(c, k->string))
                cJSON_AddItemToObject(c, k->string, cJSON_Duplicate(k, true));
    }
    cJSON_Delete(v);
    return rc;
}


/* The next event into *ev; a parse error names the place libyaml reports. */
static int next_event(yreader *r, yaml_event_t *ev)
{
    if (yaml_parser_parse(&r->parser, ev)) return ZS_OK;
    char what[256];
    snprintf(what, sizeof what, "YAML: %s", r->parser.problem ? r->parser.problem : "syntax error");
    return yfail(r, &r->parser.problem_mark, what);
}

/* v without the digit-group underscores YAML 1.1 allows in numbers (500_000, as PyYAML reads it,
 * the loader Axolotl and LLaMA-Factory use) into buf; v itself when it is no such number. */
static const char *ungrouped(const char *v, char *buf, size_t len)
{
    size_t n = strlen(v), k = 0;
    if (!strchr(v, '_') || n >= len || strspn(v, "+-0123456789._eE") != n) return v;
    for (size_t i = 0; i < n; i++) {
        bool between = i > 0 && isdigit((unsigned char)v[i - 1]) && isdigit((unsigned char)v[i + 1]);
        if (v[i] == '_' && !between) return v;
        if (v[i] != '_') buf[k++] = v[i];
    }
    buf[k] = '\0';
    return buf;
}

/* A scalar as the core schema types it: quoted ones stay strings. */
static cJSON *scalar(const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    char digits[64];
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return cJSON_CreateString(v);
    if (strcasecmp(v, "true") == 0) return cJSON_CreateTrue();
    if (strcasecmp(v, "false") == 0) return cJSON_CreateFalse();
    if (v[0] == '\0' || strcmp(v, "~") == 0 || strcasecmp(v, "null") == 0) return cJSON_CreateNull();
    char *end = NULL;
    errno = 0;
    if (ev->data.scalar.length < sizeof digits) v = ungrouped(v, digits, sizeof digits);
    double x = strtod(v, &end);
    bool number = end != v && *end == '\0' && errno == 0 && strspn(v, "+-0123456789.eE") == strlen(v);
    return number ? cJSON_CreateNumber(x) : cJSON_CreateString(v);
}

static int node(yreader *r, yaml_event_t *ev, int depth, cJSON **out);

/* The items of a sequence or the pairs of a mapping up to its end event, into c. */
static int children(yreader *r, cJSON *c, bool mapping, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (next_event(r, &ev)) return r->err->code;
        yaml_event_type_t end = mapping ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return ZS_OK;
        }
        char key[256] = "";
        if (mapping) {
            if (ev.type != YAML_SCALAR_EVENT) {
                int rc = yfail(r, &ev.start_mark, "a mapping key that is not a plain scalar");
                yaml_event_delete(&ev);
                return rc;
            }
            snprintf(key, sizeof key, "%s", (const char *)ev.data.scalar.value);
            yaml_event_delete(&ev);
            if (next_event(r, &ev)) return r->err->code;
        }
        cJSON *v = NULL;
        int rc = node(r, &ev, depth + 1, &v);
        yaml_event_delete(&ev);
        if (rc) return rc;
        if (!mapping) {
            cJSON_AddItemToArray(c, v);
            continue;
        }
        if (strcmp(key, "<<") == 0) {
            if (merge(r, c, v, &r->parser.mark)) return r->err->code;
            continue;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(c, key); /* the last of a repeated key wins */
        cJSON_AddItemToObject(c, key, v);
    }
}

/* The node that starts with ev into *out. */
static int node(yreader *r, yaml_event_t *ev, int depth, cJSON **out)
{
    if (depth > YAML_MAX_DEPTH) return yfail(r, &ev->start_mark, "nested too deep");
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        *out = scalar(ev);
        if (!*out) return zs_fail(r->err, ZS_ERR_IO, "out of memory");
        break;
    case YAML_ALIAS_EVENT: return alias(r, ev, out);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool mapping = ev->type == YAML_MAPPING_START_EVENT;
        cJSON *c = mapping ? cJSON_CreateObject() : cJSON_CreateArray();
        if (!c) return zs_fail(r->err, ZS_ERR_IO, "out of memory");
        if (children(r, c, mapping, depth)) {
            cJSON_Delete(c);
            return r->err->code;
        }
        *out = c;
        break;
    }
    default: return yfail(r, &ev->start_mark, "unexpected YAML event");
    }
    const yaml_char_t *name = ev->type == YAML_SCALAR_EVENT ? ev->data.scalar.anchor
        : ev->type == YAML_MAPPING_START_EVENT           ? ev->data.mapping_start.anchor
                                                         : ev->data.sequence_start.anchor;
    if (remember(r, name, *out)) {
        cJSON_Delete(*out);
        *out = NULL;
        return r->err->code;
    }
    return ZS_OK;
}

/* Skip the stream and document starts, then read the root node. */
static int read_root(yreader *r, cJSON **root)
{
    yaml_event_t ev;
    for (;;) {
        if (next_event(r, &ev)) return r->err->code;
        if (ev.type != YAML_STREAM_START_EVENT && ev.type != YAML_DOCUMENT_START_EVENT) break;
        yaml_event_delete(&ev);
    }
    if (ev.type != YAML_MAPPING_START_EVENT) {
        int rc = yfail(r, &ev.start_mark, "expected a mapping of keys at the top");
        yaml_event_delete(&ev);
        return rc;
    }
    int rc = node(r, &ev, 0, root);
    yaml_event_delete(&ev);
    return rc;
}

int yaml_parse_object(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err)
{
    *root = NULL;
    yreader r = {.path = origin, .err = err};
    if (!yaml_parser_initialize(&r.parser))
        return zs_fail(err, ZS_ERR_IO, "%s: libyaml could not start", origin);
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
    int rc = read_root(&r, root);
    yaml_parser_delete(&r.parser);
    for (int i = 0; i < r.nanchors; i++) {
        free(r.anchor[i]);
        cJSON_Delete(r.anchored[i]);
    }
    if (rc) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return rc;
}

int yaml_load_object(const char *path, cJSON **root, zs_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *root = NULL;
    if (file_read_text(path, &text, &len, err)) return err->code;
    int rc = yaml_parse_object(text, len, path, root, err);
    free(text);
    return rc;
}
