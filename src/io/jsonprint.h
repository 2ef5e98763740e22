/* jsonprint.h -- cJSON_Print's exact bytes, with numbers formatted without printf's slow path. */
#ifndef ZS_JSONPRINT_H
#define ZS_JSONPRINT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

/* The text cJSON_Print (formatted) or cJSON_PrintUnformatted gives for item, byte for byte
 * (cJSON 1.7's layout, escapes and numbers), in a malloc'd string to free(). NULL where cJSON
 * would give NULL (no item, a raw item without text, an invalid type) or out of memory. */
char *json_print(const cJSON *item, bool formatted);

/* cJSON 1.7.15's text of a number item of value d (it does not consult valueint): "null" for
 * NaN and infinities, else "%1.15g" when it reads back within DBL_EPSILON, else "%1.17g".
 * Returns the length. Never fails. */
int json_print_number(double d, char out[32]);

#endif
