// kernels.cu -- zerobench CUDA kernels: fused multi-tensor Adam, STREAM kernels, GEMM input fill.
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "dtype.h"
#include <cuda_fp8.h>

#include "gemm.h"
#include "stream.h"

namespace {

constexpr int kThreads = 256;   // threads per block
constexpr int kVec = 4;         // elements per thread per pass (float4 / 4 x bf16)

__device__ __forceinline__ float bf16_bits_to_float(uint32_t h) { return __uint_as_float(h << 16); }

// Round to nearest even, NaN kept quiet: the same rule as f16.h on the host.
__device__ __forceinline__ uint32_t float_to_bf16_bits(float f)
{
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// The AdamW update of one element (same formula as adam.h / the CPU kernels).
__device__ __forceinline__ void adam_elem(float &w, float &m, float &v, float g, const adam_coef &c)
{
    m = c.beta1 * m + c.one_m_beta1 * g;
    v = c.beta2 * v + c.one_m_beta2 * g * g;
    w = w * c.decay - c.step_size * m / (sqrtf(v) * c.inv_sqrt_bc2 + c.eps);
}

// One block per chunk (grid-stride over chunks). Within a chunk each thread
// handles kVec consecutive elements per pass with 16-byte fp32 loads/stores
// and 8-byte bf16 loads/stores; a tensor's last partial group of kVec
// elements goes through the scalar tail.
template <bool kMixed>
__global__ void __launch_bounds__(kThreads)
adam_kernel(const kern_adam_tensor *__restrict__ tensors, const kern_adam_chunk *__restrict__ chunks,
            int nchunks, adam_coef c)
{
    for (int ci = blockIdx.x; ci < nchunks; ci += gridDim.x) {
        const kern_adam_chunk ch = chunks[ci];
        const kern_adam_tensor t = tensors[ch.tensor];
        const size_t start = ch.start;
        const size_t end = start + KERN_ADAM_CHUNK < t.n ? start + KERN_ADAM_CHUNK : t.n;
        const size_t vend = start + ((end - start) & ~(size_t)(kVec - 1));
        for (size_t i = start + (size_t)threadIdx.x * kVec; i < vend; i += (size_t)kThreads * kVec) {
            float4 w4 = *reinterpret_cast<const float4 *>(t.w + i);
            float4 m4 = *reinterpret_cast<const float4 *>(t.m + i);
            float4 v4 = *reinterpret_cast<const float4 *>(t.v + i);
            float g[kVec];
            if (kMixed) {
                uint2 raw = *reinterpret_cast<const uint2 *>(static_cast<const uint16_t *>(t.g) + i);
                g[0] = bf16_bits_to_float(raw.x & 0xffffu);
                g[1] = bf16_bits_to_float(raw.x >> 16);
                g[2] = bf16_bits_to_float(raw.y & 0xffffu);
                g[3] = bf16_bits_to_float(raw.y >> 16);
            } else {
                float4 g4 = *reinterpret_cast<const float4 *>(static_cast<const float *>(t.g) + i);
                g[0] = g4.x; g[1] = g4.y; g[2] = g4.z; g[3] = g4.w;
            }
            adam_elem(w4.x, m4.x, v4.x, g[0], c);
            adam_elem(w4.y, m4.y, v4.y, g[1], c);
            adam_elem(w4.z, m4.z, v4.z, g[2], c);
            adam_elem(w4.w, m4.w, v4.w, g[3], c);
            *reinterpret_cast<float4 *>(t.w + i) = w4;
            *reinterpret_cast<float4 *>(t.m + i) = m4;
            *reinterpret_cast<float4 *>(t.v + i) = v4;
            if (kMixed) {
                uint2 out;
                out.x = float_to_bf16_bits(w4.x) | (float_to_bf16_bits(w4.y) << 16);
                out.y = float_to_bf16_bits(w4.z) | (float_to_bf16_bits(w4.w) << 16);
                *reinterpret_cast<uint2 *>(t.p16 + i) = out;
            }
        }
        for (size_t i = vend + threadIdx.x; i < end; i += kThreads) {
            float w = t.w[i], m = t.m[i], v = t.v[i];
            float g = kMixed ? bf16_bits_to_float(static_cast<const uint16_t *>(t.g)[i])
                             : static_cast<const float *>(t.g)[i];
            adam_elem(w, m, v, g, c);
            t.w[i] = w;
            t.m[i] = m;
            t.v[i] = v;
            if (kMixed) t.p16[i] = static_cast<uint16_t>(float_to_bf16_bits(w));
        }
    }
}

__global__ void stream_k(int k, double *__restrict__ a, double *__restrict__ b,
                              double *__restrict__ c, size_t n, double q)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        switch (k) {
        case STREAM_COPY:  c[i] = a[i]; break;
        case STREAM_SCALE: b[i] = q * c[i]; break;
        case STREAM_ADD:   c[i] = a[i] + b[i]; break;
        default:           a[i] = b[i] + q * c[i]; break;
        }
    }
}

template <typename T>
__global__ void fill_kernel(T *x, uint32_t seed, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = static_cast<T>(gemm_value(seed, i));
}

// fp8 (e4m3) fill, optionally of the transpose: x[r*cols + c] = value(seed, c*rows + r)
__global__ void fill_fp8_kernel(__nv_fp8_e4m3 *x, uint32_t seed, size_t rows, size_t cols, int transpose)
{
    size_t n = rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / cols, c = i % cols;
        x[i] = __nv_fp8_e4m3(gemm_value(seed, transpose ? c * rows + r : i));
    }
}

// grid_for: enough blocks to cover n elements, capped for grid-stride loops.
unsigned grid_for(size_t n, int threads)
{
    size_t b = (n + threads - 1) / threads;
    if (b < 1) b = 1;
    return b > 65535u * 8u ? 65535u * 8u : static_cast<unsigned>(b);
}

}  // namespace

extern "C" int kern_adam_step(int mixed, const struct kern_adam_tensor *tensors,
                              const struct kern_adam_chunk *chunks, int nchunks, struct adam_coef coef,
                              cudaStream_t stream)
{
    if (nchunks <= 0) return static_cast<int>(cudaSuccess);
    unsigned grid = nchunks > (1 << 20) ? (1u << 20) : static_cast<unsigned>(nchunks);
    if (mixed) adam_kernel<true><<<grid, kThreads, 0, stream>>>(tensors, chunks, nchunks, coef);
    else adam_kernel<false><<<grid, kThreads, 0, stream>>>(tensors, chunks, nchunks, coef);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int kern_stream(int kernel, double *a, double *b, double *c, size_t n, double q, cudaStream_t stream)
{
    stream_k<<<grid_for(n, 256), 256, 0, stream>>>(kernel, a, b, c, n, q);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int kern_gemm_fill_fp8(void *x, uint32_t seed, size_t rows, size_t cols, int transpose,
                                  cudaStream_t stream)
{
    fill_fp8_kernel<<<grid_for(rows * cols, 256), 256, 0, stream>>>(static_cast<__nv_fp8_e4m3 *>(x), seed,
                                                                   rows, cols, transpose);
    return static_cast<int>(cudaGetLastError());
}

extern "C" int kern_gemm_fill(int dtype, void *x, uint32_t seed, size_t n, cudaStream_t stream)
{
    unsigned grid = grid_for(n, 256);
    switch (dtype) {
    case ZB_BF16:
        fill_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>(static_cast<__nv_bfloat16 *>(x), seed, n);
        break;
    case ZB_HALF:
        fill_kernel<__half><<<grid, 256, 0, stream>>>(static_cast<__half *>(x), seed, n);
        break;
    case ZB_FLOAT:
        fill_kernel<float><<<grid, 256, 0, stream>>>(static_cast<float *>(x), seed, n);
        break;
    default: return static_cast<int>(cudaErrorInvalidValue);
    }
    return static_cast<int>(cudaGetLastError());
}
