/* cuda_util.h -- small helpers for the CUDA sub-benchmarks (C, runtime API). */
#ifndef ZB_CUDA_UTIL_H
#define ZB_CUDA_UTIL_H

#include <stdio.h>

#include <cuda_runtime_api.h>

/* cuda_ok: 1 on success; otherwise prints "zerobench-cuda: <who>: <what>:
 * <error>" on stderr and returns 0. */
static inline int cuda_ok(cudaError_t e, const char *who, const char *what)
{
    if (e == cudaSuccess) return 1;
    fprintf(stderr, "zerobench-cuda: %s: %s: %s\n", who, what, cudaGetErrorString(e));
    return 0;
}

/* cuda_copy_sync: cudaMemcpyAsync on st, then cudaStreamSynchronize(st):
 * the copy is ordered with st's kernels (a plain cudaMemcpy runs on the
 * legacy default stream, which a non-blocking st does not wait for), and
 * a pageable host buffer is safe to reuse on return. cudaSuccess or the
 * first error. */
static inline cudaError_t cuda_copy_sync(
    void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t st)
{
    cudaError_t e = bytes ? cudaMemcpyAsync(dst, src, bytes, kind, st) : cudaSuccess;
    return e != cudaSuccess ? e : cudaStreamSynchronize(st);
}

/* cuda_event_times: sec[i] = time between events ev[i] and ev[i+1] for
 * i < n; *total = ev[0]..ev[n]. Events must be complete. 0 or -1. */
int cuda_event_times(cudaEvent_t *ev, int n, double *sec, double *total);

/* cuda_events: creates n events into ev (0), or destroys them (when
 * destroy is set); returns 0 or -1. */
int cuda_events(cudaEvent_t *ev, int n, int destroy);

#endif
