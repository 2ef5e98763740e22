/* descriptor.c -- what the plug-in descriptor tables share: their names for usage messages. */
#include "core/descriptor.h"

#include <stdio.h>

const char *descriptor_names(descriptor_name_fn name_of, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; name_of(i) && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", name_of(i));
    return buf;
}
