/* fw_generic.c -- no particular framework: the abstract ZeRO stages, everything composable. */
#include "core/framework.h"

/* zerosim's behaviour before frameworks, kept for comparison: DeepSpeed's buffer and overlap
 * defaults, Korthikanti's selective recomputation, the hardware profile's GEMM efficiency. */
const framework fw_generic = {
    .name = "generic",
    .label = "generic",
    .prefix = "",
    .runs =
        {[STRAT_DDP] = "DDP", [STRAT_ZERO1] = "ZeRO-1", [STRAT_ZERO2] = "ZeRO-2", [STRAT_ZERO3] = "ZeRO-3"},
    .tensor_parallel = true,
    .pipeline_parallel = true,
    .pipeline_sharded_grads = true,
    .interleaving = true,
    .context_parallel = true,
    .expert_sharded_params = true,
    .offload = FW_OFFLOAD_ANY,
    .hybrid_shard = true,
    .zeropp = true,
    .selective = SELECTIVE_ATTENTION,
    .buffers = BUFFERS_STRATEGY,
    .overlap_comm = -1,
    .gemm_efficiency = 1.0,
    /* No loss named (LOSS_DEFAULT): one fp32 copy of the logits, as before the loss was a setting. */
};
