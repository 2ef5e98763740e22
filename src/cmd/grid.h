/* grid.h -- the sweep grid syntax: lists "1,2,4" and ranges "8:4096:x2", "1:8", "0:1:+0.25". */
#ifndef ZS_GRID_H
#define ZS_GRID_H

#include "core/error.h"

#define GRID_MAX_VALUES 4096

/* Expand one flag value into its list of values, each written into out[i] (buffers of
 * width `width`). A range a:b[:xF|:+S] needs numbers with a <= b, F > 1 or S > 0; a list may
 * mix plain values. Returns the count, or -1 with ZS_ERR_USAGE naming `flag` for a malformed
 * range, an empty item, or more than `max` values. */
int grid_expand(const char *flag, const char *value, char (*out)[32], int max, zs_error *err);

#endif
