/* fw_generic.c -- no particular framework: the abstract ZeRO stages, everything composable. */
#include "core/framework.h"

/* zerosim's behaviour before frameworks, kept for comparison: DeepSpeed's buffer and overlap
 * defaults, Korthikanti's selective recomputation, the hardware profile's GEMM efficiency. */
const framework fw_generic = {
    .name = "generic", .label = "generic", .prefix = "",
    .runs = {"DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3"},
    .tensor_parallel = true, .pipeline_parallel = true, .pipeline_sharded_grads = true,
    .interleaving = true, .context_parallel = true, .expert_sharded_params = true, .offload = FW_OFFLOAD_ANY, .hybrid_shard = true, .zeropp = true,
    .selective = SELECTIVE_ATTENTION, .buffers = BUFFERS_STRATEGY,
    .overlap_comm = -1,
    .gemm_efficiency = 1.0,
};
