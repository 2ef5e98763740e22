/* jsonutil.h -- reading files and typed JSON fields with errors that name the file and field. */
#ifndef ZS_JSONUTIL_H
#define ZS_JSONUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/error.h"

#define JSON_MAX_FILE (64.0 * 1024 * 1024) /* refuse larger inputs: no real config is near this */

/* Read a whole text file into a NUL-terminated heap buffer (*out, caller frees). Fails with
 * ZS_ERR_INPUT for a missing/unreadable file, an empty one, one over JSON_MAX_FILE, or one
 * holding NUL bytes (binary); the message names the path. */
int file_read_text(const char *path, char **out, size_t *len, zs_error *err);

/* Read and parse a JSON file whose top level must be an object. Fails with ZS_ERR_INPUT naming
 * the path and, for a syntax error, the line and column. Caller frees *root with cJSON_Delete. */
int json_load_object(const char *path, cJSON **root, zs_error *err);

/* Make the last of duplicate keys win in every object under node, as Python's json module
 * (and so DeepSpeed and HF) reads them: cJSON's lookups return the first, so the earlier
 * duplicates are deleted. json_load_object applies it; other parsers should too. Returns 0,
 * or -1 when out of memory (the tree is then partly deduplicated but valid). */
int json_last_key_wins(cJSON *node);

/* Look up `key` in obj; absent or JSON null gives *present = false and ZS_OK. Numbers may be
 * written as JSON numbers or as numeric strings ("5e8"); "auto" counts as absent. A value of
 * another type, a non-finite one, or one outside [min, max] fails with ZS_ERR_INPUT naming
 * the key. */
int json_get_number(
    const cJSON *obj, const char *key, double min, double max, double *out, bool *present, zs_error *err);

/* x as it would be written: a whole number in full (18446744073709551616), else the shortest
 * text that reads back as x; into buf (len bytes, 32 are enough), returned. Never fails. */
const char *json_number_text(double x, char *buf, size_t len);

/* Like json_get_number, but the value must be a whole number. */
int json_get_int(
    const cJSON *obj, const char *key, int64_t min, int64_t max, int64_t *out, bool *present, zs_error *err);

/* Booleans: true/false, "true"/"false" (any case), 1/0. Other values fail naming the key. */
int json_get_bool(const cJSON *obj, const char *key, bool *out, bool *present, zs_error *err);

/* Strings: copied into out (len bytes). A non-string value, or one that does not fit (a value
 * cut short would name something else), fails naming the key. */
int json_get_string(const cJSON *obj, const char *key, char *out, size_t len, bool *present, zs_error *err);

/* Prose (names, descriptions, sources): as json_get_string, but cut to fit. */
int json_get_text(const cJSON *obj, const char *key, char *out, size_t len, bool *present, zs_error *err);

/* The first key of `keys` (NULL-terminated) present in obj, or NULL. For HF's aliases. */
const char *json_first_key(const cJSON *obj, const char *const *keys);

#endif
