/* nccltests_int.h -- the one entry the nccl-tests text reader takes into the JSON reader (not a
 * public interface; what the readers share is in ncclrows.h). */
#ifndef ZS_NCCLTESTS_INT_H
#define ZS_NCCLTESTS_INT_H

#include "core/error.h"
#include "io/nccltests.h"

/* An nccl-tests -J file, or a zerobench collective document, given to the log reader. Fails
 * like nccltests_parse_text; *out is left empty on failure. */
int nccl_parse_json_doc(
    const char *text, const char *origin, const char *hint, coll_samples *out, zs_error *err);

#endif
