/* stream.h -- STREAM-style host memory bandwidth kernels (copy, scale, add, triad). */
#ifndef ZB_STREAM_H
#define ZB_STREAM_H

#include <stddef.h>

enum stream_kernel { STREAM_COPY, STREAM_SCALE, STREAM_ADD, STREAM_TRIAD, STREAM_NKERNELS };

/* Three arrays of n doubles, first touched by the OpenMP threads that later
 * stream them, starting at offsets 0, 576 and 1152 bytes from 4 KiB
 * boundaries so same-index accesses do not alias modulo 4 KiB. */
struct stream_arrays {
    double *a, *b, *c; /* the STREAM arrays */
    size_t n;          /* elements per array */
    void *raw[3];      /* allocations behind a, b, c */
};

/* stream_name: "copy", "scale", "add", "triad". */
const char *stream_name(int k);

/* stream_bytes: bytes one kernel call moves, counted STREAM's way (each
 * array read or written once; no write-allocate traffic): copy and scale
 * 16 n, add and triad 24 n. */
double stream_bytes(int k, size_t n);

/* stream_alloc: allocates and initialises a=1, b=2, c=0 in parallel.
 * Returns 0, or -1 (nothing allocated) when memory is short. */
int stream_alloc(struct stream_arrays *s, size_t n);

/* stream_free: releases the arrays; safe on a zeroed struct. */
void stream_free(struct stream_arrays *s);

/* stream_run: one call of kernel k (OpenMP parallel, simd) with scalar q:
 * copy c=a, scale b=q*c, add c=a+b, triad a=b+q*c. Never fails. */
void stream_run(struct stream_arrays *s, int k, double q);

/* stream_check: replays the scalar recurrence for ncycles full
 * copy/scale/add/triad cycles from (1, 2, 0) and counts elements of
 * a, b, c whose relative error exceeds 1e-13 (STREAM's double epsilon);
 * ZEROBENCH_FAULT adds one (test hook). */
size_t stream_check(const struct stream_arrays *s, int ncycles, double q);

#endif
