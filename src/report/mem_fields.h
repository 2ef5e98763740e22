/* mem_fields.h -- the memory components every report shows, in output order. */
#ifndef ZS_MEM_FIELDS_H
#define ZS_MEM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/result.h"

/* The memory components in output order: JSON/CSV key, table label, offset into memory. */
typedef struct mem_field {
    const char *key;
    const char *label;
    size_t offset;
    bool optional; /* tables and charts show it only where some strategy has it */
} mem_field;

extern const mem_field mem_fields[]; /* terminated by a NULL key */

/* The value of memory component f in m, in bytes. Never fails. */
double mem_field_value(const memory *m, const mem_field *f);

/* Whether a table or chart shows memory row f for these n results: always, unless it is
 * optional and every applicable result has 0 there. Never fails. */
bool mem_field_shown(const mem_field *f, const result *r, int n);

#endif
