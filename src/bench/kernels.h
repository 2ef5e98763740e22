/* kernels.h -- C interface to zerobench's CUDA kernels (kernels.cu). */
#ifndef ZB_KERNELS_H
#define ZB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "adam.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One tensor of the fused Adam step; all pointers are device pointers,
 * 16-byte aligned (the pools place tensors on 64-element boundaries). */
struct kern_adam_tensor {
    float *w;      /* fp32 params (fp32) or master weights (mixed) */
    float *m;      /* first moment */
    float *v;      /* second moment */
    const void *g; /* grads: float (fp32) or bf16 bits (mixed) */
    uint16_t *p16; /* bf16 params written by the mixed variant, else NULL */
    size_t n;      /* elements */
};

/* One unit of work: elements [start, start + KERN_ADAM_CHUNK) of a tensor. */
struct kern_adam_chunk {
    int tensor;   /* index into the tensor list */
    size_t start; /* first element, a multiple of KERN_ADAM_CHUNK */
};

#define KERN_ADAM_CHUNK 16384 /* elements per chunk (one block pass) */

/* kern_adam_step: one launch over every chunk of every tensor (tensor list
 * and chunk table in device memory, coefficients by value). mixed selects
 * the bf16-param/grad variant. Returns the cudaError_t of the launch. */
int kern_adam_step(int mixed, const struct kern_adam_tensor *tensors, const struct kern_adam_chunk *chunks,
    int nchunks, struct adam_coef coef, cudaStream_t stream);

/* kern_stream: one STREAM kernel (enum stream_kernel) on device arrays of
 * n doubles with scalar q. Returns the cudaError_t of the launch. */
int kern_stream(int kernel, double *a, double *b, double *c, size_t n, double q, cudaStream_t stream);

/* kern_gemm_fill: x[i] = gemm_value(seed, i) for i < n, stored as dtype
 * (ZB_BF16, ZB_HALF or ZB_FLOAT). Returns the cudaError_t of the launch. */
int kern_gemm_fill(int dtype, void *x, uint32_t seed, size_t n, cudaStream_t stream);

/* kern_gemm_fill_fp8: a rows x cols row-major matrix of OCP e4m3 values
 * x[r*cols + c] = gemm_value(seed, i) rounded to nearest even, with i = r*cols + c,
 * or (transpose) i = c*rows + r: the transpose of a cols x rows matrix,
 * which cuBLASLt's fp8 "TN" layout needs. Returns the launch's cudaError_t. */
int kern_gemm_fill_fp8(void *x, uint32_t seed, size_t rows, size_t cols, int transpose, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
