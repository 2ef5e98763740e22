/* catalog.h -- finding models/ and hardware/ files by name, and listing them. */
#ifndef ZS_CATALOG_H
#define ZS_CATALOG_H

#include <stddef.h>

#include "core/error.h"

/* Resolve `name` in catalog `kind` ("models" or "hardware") to a readable path in out.
 * A name containing '/' or ending in ".json" is taken as a path. Otherwise the catalog
 * directory is $ZEROSIM_DATA/<kind>, then <directory of the zerosim binary>/<kind>, then
 * ./<kind>. Fails with ZS_ERR_INPUT naming the name and the catalog searched. */
int catalog_resolve(const char *kind, const char *name, char *out, size_t len, zs_error *err);

/* The catalog directory for `kind` (first that exists) into out; fails with ZS_ERR_INPUT. */
int catalog_dir(const char *kind, char *out, size_t len, zs_error *err);

/* Names (file names without ".json") in the catalog, sorted, into a NULL-terminated heap
 * array the caller frees with catalog_free. Fails with ZS_ERR_INPUT. */
int catalog_list(const char *kind, char ***names, zs_error *err);
void catalog_free(char **names);

#endif
