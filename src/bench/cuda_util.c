/* cuda_util.c -- event timing helpers for the CUDA sub-benchmarks. */
#include "cuda_util.h"

int cuda_event_times(cudaEvent_t *ev, int n, double *sec, double *total)
{
    float ms = 0;
    for (int i = 0; i < n; i++) {
        if (cudaEventElapsedTime(&ms, ev[i], ev[i + 1]) != cudaSuccess) return -1;
        sec[i] = ms * 1e-3;
    }
    if (cudaEventElapsedTime(&ms, ev[0], ev[n]) != cudaSuccess) return -1;
    *total = ms * 1e-3;
    return 0;
}

int cuda_events(cudaEvent_t *ev, int n, int destroy)
{
    for (int i = 0; i < n; i++) {
        if (destroy) {
            if (ev[i]) cudaEventDestroy(ev[i]);
            ev[i] = NULL;
        } else if (cudaEventCreate(&ev[i]) != cudaSuccess) {
            return -1;
        }
    }
    return 0;
}
