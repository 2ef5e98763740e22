/* be_cuda.h -- CUDA/NCCL back-end handle and type mapping shared by the coll_*.c files. */
#ifndef ZB_BE_CUDA_H
#define ZB_BE_CUDA_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "dtype.h"

/* What be_comm(l) points to in the CUDA build. */
struct be_cuda_ctx {
    int device;           /* CUDA device ordinal */
    cudaStream_t stream;  /* stream every collective and kernel of this rank runs on */
    ncclComm_t comm;      /* NCCL communicator; NULL when no collective is run */
};

/* nccl_dtype: NCCL type for an enum zb_dtype (all ten map one to one). */
static inline ncclDataType_t nccl_dtype(int t)
{
    static const ncclDataType_t map[ZB_NTYPES] = {
        ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64, ncclUint64,
        ncclFloat16, ncclFloat32, ncclFloat64, ncclBfloat16,
    };
    return map[t];
}

/* nccl_op: NCCL op for an enum zb_op. */
static inline ncclRedOp_t nccl_op(int op)
{
    static const ncclRedOp_t map[ZB_NOPS] = {ncclSum, ncclProd, ncclMax, ncclMin};
    return map[op];
}

#endif
