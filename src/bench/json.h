/* json.h -- minimal streaming JSON writer into memory, with an atomic file write. */
#ifndef ZB_JSON_H
#define ZB_JSON_H

#include <stddef.h>

#define JSON_MAX_DEPTH 32

/* The writer tracks nesting to place commas; keys are given for members of
 * objects and NULL for array elements. Errors (allocation, nesting) are
 * sticky in err and make json_write_atomic fail. */
struct json {
    char *buf;                 /* document text (NUL-terminated) */
    size_t len;                /* bytes used, excluding the NUL */
    size_t cap;                /* bytes allocated */
    int depth;                 /* open containers */
    int count[JSON_MAX_DEPTH]; /* members written at each depth */
    int err;                   /* nonzero after any failure */
};

/* json_init: empty writer. Never fails (allocation happens on first write). */
void json_init(struct json *j);
/* json_free: releases the buffer. */
void json_free(struct json *j);

/* Containers: key is the member name inside an object, NULL inside an array
 * or at top level. */
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);

/* Scalars; json_str(NULL) and non-finite numbers are written as null. */
void json_str(struct json *j, const char *key, const char *val);
void json_num(struct json *j, const char *key, double val);
void json_int(struct json *j, const char *key, long long val);
void json_bool(struct json *j, const char *key, int val);
void json_null(struct json *j, const char *key);

/* json_write_atomic: writes the document plus a newline through src/io/atomicfile.c
 * (a mkstemp file beside path, fsynced and renamed over it; a device or FIFO is
 * written directly). Returns 0, or -1 (errno set; the
 * temporary file is removed) when the writer had an error, the document is
 * not closed, or any I/O step fails. */
int json_write_atomic(const struct json *j, const char *path);

#endif
