/* yamlutil.c -- libyaml's event stream built into a cJSON tree (mappings, sequences, scalars). */
#include "io/yamlutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "io/jsonutil.h"

/* Containers nest at most this deep: a launch config is a few levels. */
#define YAML_MAX_DEPTH 64

typedef struct yreader {
    yaml_parser_t parser;
    const char *path;
    zs_error *err;
} yreader;

static int yfail(yreader *r, const yaml_mark_t *m, const char *what)
{
    return zs_fail(r->err, ZS_ERR_INPUT, "%s:%lu:%lu: %s", r->path, (unsigned long)m->line + 1,
        (unsigned long)m->column + 1, what);
}

/* The next event into *ev; a parse error names the place libyaml reports. */
static int next_event(yreader *r, yaml_event_t *ev)
{
    if (yaml_parser_parse(&r->parser, ev)) return ZS_OK;
    char what[256];
    snprintf(what, sizeof what, "YAML: %s", r->parser.problem ? r->parser.problem : "syntax error");
    return yfail(r, &r->parser.problem_mark, what);
}

/* A scalar as the core schema types it: quoted ones stay strings. */
static cJSON *scalar(const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return cJSON_CreateString(v);
    if (strcasecmp(v, "true") == 0) return cJSON_CreateTrue();
    if (strcasecmp(v, "false") == 0) return cJSON_CreateFalse();
    if (v[0] == '\0' || strcmp(v, "~") == 0 || strcasecmp(v, "null") == 0) return cJSON_CreateNull();
    char *end = NULL;
    errno = 0;
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
        return *out ? ZS_OK : zs_fail(r->err, ZS_ERR_IO, "out of memory");
    case YAML_ALIAS_EVENT: return yfail(r, &ev->start_mark, "aliases (*name) are not read");
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
        return ZS_OK;
    }
    default: return yfail(r, &ev->start_mark, "unexpected YAML event");
    }
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
