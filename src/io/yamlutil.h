/* yamlutil.h -- a YAML file read with libyaml into a cJSON tree, so the readers share jsonutil. */
#ifndef ZS_YAMLUTIL_H
#define ZS_YAMLUTIL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "core/error.h"

/* Read the first document of the YAML file at path into *root (the caller frees it with
 * cJSON_Delete): a mapping becomes an object (a repeated key: the last wins, as PyYAML's
 * safe_load), a sequence an array; a quoted scalar a string; a plain scalar true/false
 * (any case), null (null, ~, empty), a number when it reads whole as one, else a string, as
 * YAML 1.2's core schema. Fails with ZS_ERR_INPUT naming the path, line and column (a syntax
 * error, an alias, a document that is not a mapping) or ZS_ERR_IO when it cannot be opened. */
int yaml_load_object(const char *path, cJSON **root, zs_error *err);

/* The same from len bytes of text in memory; origin names it in messages. */
int yaml_parse_object(const char *text, size_t len, const char *origin, cJSON **root, zs_error *err);

#endif
