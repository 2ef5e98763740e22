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

/* catalog_resolve, and more forgiving of names: a directory is read as a Hugging Face
 * checkpoint folder (its config.json; fails naming the folder when it has none); a name that
 * is no file and no entry is compared with the entries case-insensitively, without separators
 * (- _ . space) and without an "org/" prefix, and for models also with the repository each
 * entry's "source" or "_name_or_path" names (meta-llama/Meta-Llama-3-8B: llama-3-8b). When
 * exactly one entry matches, its path is written to out and its name to used (ulen bytes;
 * used may be NULL); used is "" when the name was found as given. Otherwise fails with
 * ZS_ERR_INPUT, suggesting up to 3 entries: those the name begins (h100: h100-80gb,
 * h100-nvl-94gb, h100-pcie-80gb), else the nearest by edit distance. */
int catalog_resolve_named(
    const char *kind, const char *name, char *out, size_t len, char *used, size_t ulen, zs_error *err);

/* The catalog directory for `kind` (first that exists) into out; fails with ZS_ERR_INPUT. */
int catalog_dir(const char *kind, char *out, size_t len, zs_error *err);

/* Names (file names without ".json") in the catalog, sorted, into a NULL-terminated heap
 * array the caller frees with catalog_free. Fails with ZS_ERR_INPUT. */
int catalog_list(const char *kind, char ***names, zs_error *err);
void catalog_free(char **names);

#endif
