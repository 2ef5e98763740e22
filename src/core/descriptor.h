/* descriptor.h -- what the plug-in descriptor tables share (strategies, frameworks): their "a|b|c" names. */
#ifndef ZS_DESCRIPTOR_H
#define ZS_DESCRIPTOR_H

#include <stddef.h>

/* The name of entry i of a NULL-terminated descriptor table; NULL at its end. */
typedef const char *(*descriptor_name_fn)(int i);

/* "a|b|c": the names in table order, written to buf (len bytes, cut short when it is full).
 * Returns buf. Never fails. */
const char *descriptor_names(descriptor_name_fn name_of, char *buf, size_t len);

#endif
