/* zb_coll_allgather_list.c -- all-gather as torch.distributed.all_gather's list form runs it. */
#include <stdlib.h>
#include <string.h>

#include "coll_run.h"

/* PyTorch's ProcessGroupNCCL::allgather with a list of output tensors (pytorch/pytorch v1.8.0
 * torch/lib/c10d/ProcessGroupNCCL.cpp) gathers into one flat staging buffer and then copies
 * each rank's block into that rank's output tensor: one copy per rank after the collective.
 * DeepSpeed v0.3's ZeRO-3 fetched every parameter that way (fw_deepspeed.c). This mode times
 * the same: the all-gather into a staging buffer plus nranks block copies into the result, so
 * that the per-rank part of its cost can be read off a sweep over ranks. Same bytes and
 * busbw factor as allgather. */
static double factor(int n)
{
    return busbw_factor("all_gather", n);
}

static void *stage;      /* the flat staging buffer, grown on demand, kept for the run */
static size_t stage_len; /* its bytes */

#ifdef ZB_NCCL
static int stage_fit(size_t bytes)
{
    if (bytes <= stage_len) return 0;
    if (stage) cudaFree(stage);
    stage = NULL;
    stage_len = 0;
    if (cudaMalloc(&stage, bytes) != cudaSuccess) return (int)ncclSystemError;
    stage_len = bytes;
    return 0;
}

static int run(const struct coll_call *c)
{
    const struct be_cuda_ctx *x = c->comm;
    size_t blk = c->count * c->typesize;
    int rc = stage_fit(blk * (size_t)c->nranks);
    if (rc) return rc;
    rc = (int)ncclAllGather(c->send, stage, c->count, nccl_dtype(c->dtype), x->comm, x->stream);
    for (int r = 0; r < c->nranks && rc == 0; r++)
        if (cudaMemcpyAsync((char *)c->recv + (size_t)r * blk, (char *)stage + (size_t)r * blk, blk,
                cudaMemcpyDeviceToDevice, x->stream) != cudaSuccess)
            rc = (int)ncclUnhandledCudaError;
    return rc;
}
#else
static int stage_fit(size_t bytes)
{
    if (bytes <= stage_len) return 0;
    void *p = realloc(stage, bytes);
    if (!p) return MPI_ERR_NO_MEM;
    stage = p;
    stage_len = bytes;
    return 0;
}

static int run(const struct coll_call *c)
{
    if (c->count > INT_MAX) return MPI_ERR_COUNT;
    size_t blk = c->count * c->typesize;
    int rc = stage_fit(blk * (size_t)c->nranks);
    if (rc) return rc;
    MPI_Datatype t = mpi_dtype(c->dtype);
    /* In place the input is the rank's block of the result: still a separate send buffer for
     * the staging gather, as torch's list form passes its input tensor. */
    rc = MPI_Allgather(c->send, (int)c->count, t, stage, (int)c->count, t, *(MPI_Comm *)c->comm);
    /* Nothing to copy for an empty block (and no staging buffer yet: memcpy's NULL is UB). */
    for (int r = 0; r < c->nranks && rc == MPI_SUCCESS && blk > 0; r++)
        memcpy((char *)c->recv + (size_t)r * blk, (char *)stage + (size_t)r * blk, blk);
    return rc;
}
#endif

const struct coll_def coll_allgather_list = {
    .name = "allgather-list",
    .uses_op = 0,
    .uses_root = 0,
    .busbw_factor = factor,
    .layout = coll_layout_gathered,
    .fill = coll_fill_block,
    .check = coll_check_gathered,
    .run = run,
};
