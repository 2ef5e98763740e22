/* fw_fsdp2.c -- PyTorch FSDP2 (fully_shard, per-parameter DTensor sharding) as torchtitan runs it. */
#include "core/framework.h"
#include "core/kernels.h"

/* Sources (PyTorch 2.6 torch.distributed.fsdp.fully_shard docs; torchtitan, Liang et al.
 * 2024, arXiv 2410.06511):
 * - fully_shard shards parameters, gradients and optimizer states per parameter (ZeRO-3);
 *   reshard_after_forward=False keeps parameters unsharded through backward (ZeRO-2);
 *   replicate() is DDP; a 2-D device mesh gives HSDP (--shard-group).
 * - torchtitan composes FSDP2 with tensor, pipeline (1F1B, interleaved) and context
 *   parallelism; one unit per transformer block, prefetching one unit ahead.
 * - Selective activation checkpointing in torchtitan is op-level: matmul and attention
 *   outputs are saved, the rest is recomputed (torchtitan/models/llama/parallelize_llama.py,
 *   _save_list), so Korthikanti's selective figures do not apply.
 * - Context parallelism: torchtitan's ring attention over the CP mesh dimension
 *   (torch.distributed.tensor.experimental.context_parallel), with load-balanced sharding.
 * - Expert parallelism: torchtitan fully_shards the experts over their own mesh dimension,
 *   dp_shard x cp x tp / ep ranks with etp 1 (pytorch/torchtitan@0119de15
 *   torchtitan/distributed/parallel_dims.py, dp_shard_in_ep; fsdp_gradient_divide_factor
 *   "for FSDP-sharded experts"): zerosim's expert-data-parallel group.
 * - The loss: torchtitan's cross_entropy_loss is F.cross_entropy(pred.flatten(0, 1).float(),
 *   labels) (pytorch/torchtitan torchtitan/components/loss.py) and the trainer deletes the
 *   bf16 logits before backward ("need to free to before bwd to avoid peaking memory",
 *   torchtitan/train.py). Backward starts with every activation saved and runs log_softmax's
 *   backward with its saved fp32 output, the incoming fp32 gradient and the fp32 gradient it
 *   writes alive at once: 12 bytes per logit, LOSS_EAGER (torch.compile may fuse it away).
 * - CPUOffloadPolicy offloads parameters, gradients and the optimizer step to the host.
 * - After each unshard, FSDPParamGroup.wait_for_unshard runs foreach_all_gather_copy_out on
 *   the current stream: it makes that stream wait on the all-gather's event and
 *   split_with_sizes_copy()s the flat all-gather output into each parameter's unsharded
 *   storage (pytorch/pytorch@002a76fb torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py,
 *   _fsdp_collectives.py; its docstring: the copy-out overlaps the next all-gather or the
 *   previous reduce-scatter, not compute). A read and a write of every gathered byte on the
 *   compute stream, forward and backward.
 * - torchtitan applies activation checkpointing before FSDP ("turn on per-TransformerBlock
 *   compile after AC wrapping and before FSDP": apply_ac, then apply_fsdp's fully_shard of each
 *   checkpoint-wrapped block; pytorch/torchtitan@81c12433
 *   torchtitan/models/llama3/infra/parallelize.py): the recompute runs inside the unit, whose
 *   pre-backward unshard serves it, so a full recompute gathers nothing more (the experts'
 *   own fully_shard, inside the checkpoint, still gathers again).
 * - Gradients reduce in fp32: torchtitan passes MixedPrecisionPolicy(param_dtype=
 *   mixed_precision_param, reduce_dtype=mixed_precision_reduce) to fully_shard, and
 *   training.mixed_precision_reduce defaults to "float32" (pytorch/torchtitan@81c12433
 *   torchtitan/models/llama3/infra/parallelize.py apply_fsdp; its job config): each
 *   reduce-scatter moves 4 bytes a gradient (--reduce-dtype 16-bit for a bfloat16 reduce).
 * - Each parameter's DTensor shard keeps the model's dtype (fp32 under mixed precision: the
 *   master), cast to param_dtype as it is gathered; foreach_reduce casts the reduced gradient
 *   to that dtype before it views the sharded gradients (pytorch/pytorch@010ae4a8
 *   torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py, _to_dtype_if_needed(reduce_output,
 *   orig_dtype)): fp32 shards of parameters and gradients (flat_params). DDP is replicate(),
 *   PyTorch DDP over the fp32 parameters, torchtitan's mixed precision for it being autocast
 *   (torchtitan/distributed/utils.py maybe_enable_amp): no FSDP unit copies, a cast per use
 *   (ddp_autocast). It takes no other parallelism ("DDP has not supported > 1D parallelism",
 *   pytorch/torchtitan@73a0e697 torchtitan/models/llama3/infra/parallelize.py), and TP or PP
 *   without data parallelism run outside FSDP with mixed precision disabled (ddp_alone).
 * - gemm_efficiency is fitted on the declared training half of the published runs. */
const framework fw_fsdp2 = {
    .name = "fsdp2",
    .label = "FSDP2",
    .prefix = "FSDP2",
    .runs = {[STRAT_DDP] = "replicate",
        [STRAT_ZERO2] = "reshard_after_forward=False",
        [STRAT_ZERO3] = "fully_shard"},
    .tensor_parallel = true,
    .pipeline_parallel = true,
    .pipeline_sharded_grads = true,
    .interleaving = true,
    .context_parallel = true,
    .expert_sharded_params = true,
    .offload = FW_OFFLOAD_TOGETHER,
    .hybrid_shard = true,
    .zeropp = false,
    .selective = SELECTIVE_OPS,
    .buffers = BUFFERS_UNITS,
    .units_in_flight = 2,
    .overlap_comm = 1,
    .unshard_copy_passes = 2,
    .recompute_in_unit = true,
    .reduce_fp32 = true,
    .flat_params = true,
    .ddp_alone = true,
    .ddp_autocast = true,
    /* torchtitan's attention is F.scaled_dot_product_attention, whose CUDA backend order puts
     * FlashAttention-2 first (pytorch/pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
     * priority_order; "a fixed priority that puts FlashAttention first", huggingface/transformers#48163):
     * FA2 for bf16 on H100 as on A100. */
    .attention_kernel = KERNEL_FA2,
    .loss = LOSS_EAGER,
    /* No FSDP2 run is in the validation sources yet: FSDP's fitted values (the same PyTorch
     * kernels and NCCL collectives), until `validate --fit` has fsdp2 runs to fit. */
    .gemm_efficiency = 1.068,
    .step_overhead = 0.144,
};
