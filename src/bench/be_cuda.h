/* be_cuda.h -- CUDA/NCCL back-end handle and type mapping shared by the coll_*.c files. */
#ifndef ZB_BE_CUDA_H
#define ZB_BE_CUDA_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "dtype.h"

/* What be_comm(l) points to in the CUDA build. */
struct be_cuda_ctx {
    int device;                           /* CUDA device ordinal */
    int cc_major;                         /* compute capability major (9 = Hopper) */
    cudaStream_t stream;                  /* stream every collective and kernel of this rank runs on */
    ncclComm_t comm;                      /* NCCL communicator; NULL when no collective is run */
    ncclRedOp_t premul[ZB_NTYPES];        /* premulsum op per type, made on first use */
    unsigned char premul_made[ZB_NTYPES]; /* 1 once premul[t] exists */
    cudaGraphExec_t graph;                /* -G: instantiated capture, NULL when none */
};

/* nccl_dtype: NCCL type for an enum zb_dtype. The fp8 types exist in
 * nccl.h from NCCL 2.24 (bench.mk defines ZB_NCCL_FP8 when this nccl.h
 * declares ncclFloat8e4m3); without them fp8 maps to an invalid type, and
 * be_dtype_ok refuses it first. */
static inline ncclDataType_t nccl_dtype(int t)
{
    static const ncclDataType_t map[ZB_NTYPES] = {
        ncclInt8,
        ncclUint8,
        ncclInt32,
        ncclUint32,
        ncclInt64,
        ncclUint64,
        ncclFloat16,
        ncclFloat32,
        ncclFloat64,
        ncclBfloat16,
#ifdef ZB_NCCL_FP8
        ncclFloat8e4m3,
        ncclFloat8e5m2,
#else
        ncclNumTypes,
        ncclNumTypes,
#endif
    };
    return map[t];
}

/* nccl_op: NCCL op for (type, op) on x's communicator into *out: avg is
 * ncclAvg (NCCL >= 2.10), premulsum an op made once per type with
 * ncclRedOpCreatePreMulSum (scalar ZB_PREMUL_SCALAR, host immediate).
 * Returns ncclSuccess or the creation's error. */
ncclResult_t nccl_op(struct be_cuda_ctx *x, int dtype, int op, ncclRedOp_t *out);

#endif
