/* zb_harness.h -- the common collective sweep every coll_*.c table plugs into. */
#ifndef ZB_HARNESS_H
#define ZB_HARNESS_H

#include "be.h"
#include "coll.h"
#include "opts.h"

/* harness_main: runs the nccl-tests style sweep of collective c over
 * o->min_bytes..o->max_bytes on every rank: warm-up, then per size an
 * out-of-place and an in-place pass, each validated (when -c 1) and timed.
 * Prints the table on rank 0 and writes JSON when -J. Collective over
 * MPI_COMM_WORLD. Returns 0, 1 when any result was wrong or a run failed
 * (after printing the table or a one-line error), 2 for a bad root. */
int harness_main(const struct coll_def *c, const struct bench_opts *o, const struct be_info *bi);

#endif
