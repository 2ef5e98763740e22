/* bench.h -- entry points of the non-collective sub-benchmarks (one per back end). */
#ifndef ZB_BENCH_H
#define ZB_BENCH_H

#include "be.h"
#include "opts.h"

/* Each returns the process exit status: 0 ok, 1 wrong results or a
 * run-time failure (after printing its table or a one-line error).
 * Collective over MPI_COMM_WORLD. */
int adam_main(const struct bench_opts *o, const struct be_info *bi);
int membw_main(const struct bench_opts *o, const struct be_info *bi);
int gemm_main(const struct bench_opts *o, const struct be_info *bi);

#endif
