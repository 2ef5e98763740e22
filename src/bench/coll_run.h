/* coll_run.h -- what a collective's file needs: its table (coll.h), busbw factors, and the
 * back end its run() calls (NCCL when built with ZB_NCCL, MPI otherwise). */
#ifndef ZB_COLL_RUN_H
#define ZB_COLL_RUN_H

#include "../busbw.h"
#include "coll.h"

#ifdef ZB_NCCL
#include "be_cuda.h"
#else
#include <limits.h>
#include <mpi.h>
#include "mpi_dtype.h"
#endif

#endif
