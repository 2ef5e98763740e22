/* fw_deepspeed.c -- DeepSpeed: ZeRO stages 0-3, offload, pipeline engine, ZeRO++ and MiCS. */
#include "core/framework.h"
#include "core/kernels.h"

/* Sources (DeepSpeed at v0.16, github.com/microsoft/DeepSpeed; re-read at v0.19.5,
 * deepspeedai/DeepSpeed@cf443004, the default version: zero/config.py's defaults for these
 * fields unchanged (git diff v0.16.0 v0.19.5 adds fields only), the pipeline and MoE
 * assertions and cpu_checkpointing's copies as below, all_gather_into_tensor fetches):
 * - ZeRO stages, buckets, overlap_comm defaults: deepspeed/runtime/zero/config.py and the
 *   configuration docs (zero_optimization); the harness's strategy files carry the numbers.
 * - Pipeline engine: deepspeed/runtime/pipe/engine.py asserts the ZeRO stage is below 2
 *   ("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"); its schedule is plain
 *   1F1B (deepspeed/runtime/pipe/schedule.py TrainSchedule), no interleaving; PipelineModule
 *   partitions layers by parameters, so uneven splits run.
 * - Tensor parallelism comes from Megatron-DeepSpeed (the BLOOM and MT-NLG runs).
 * - Offload: ZeRO-Offload (optimizer, CPU) and ZeRO-Infinity (parameters, CPU/NVMe; stage 3).
 * - MiCS (mics_shard_size) shards within a group and replicates across (Zhang et al., VLDB
 *   2022); ZeRO++ hpZ/qwZ/qgZ (Wang et al. 2023, arXiv 2306.10209).
 * - MoE layers refuse stage 3: "MoE not supported with Stage 3" (microsoft/DeepSpeed@38327e07
 *   deepspeed/runtime/engine.py, _configure_zero_optimizer), so EP runs with stages 0-2.
 * - Selective recomputation: Megatron-DeepSpeed carries Megatron's attention-core policy.
 * - The loss: the runs it carries are Megatron-DeepSpeed's (BLOOM, MT-NLG), with Megatron's
 *   in-place vocab-parallel cross entropy, LOSS_FUSED; DeepSpeed under HF Trainer runs HF's
 *   model code, --loss eager.
 * - gemm_efficiency and step_overhead are fitted (below); gather_overhead is 0 until runs
 *   that isolate ZeRO-3's per-fetch cost are in the validation set. */
/* What every DeepSpeed version shares (fields of the descriptor below). */
#define DEEPSPEED_COMMON \
    .name = "deepspeed", \
    .label = "DeepSpeed", \
    .prefix = "DeepSpeed", \
    .runs = {[STRAT_DDP] = "stage 0", \
        [STRAT_ZERO1] = "ZeRO-1", \
        [STRAT_ZERO2] = "ZeRO-2", \
        [STRAT_ZERO3] = "ZeRO-3"}, \
    .tensor_parallel = true, \
    /* Megatron-DeepSpeed's --enable-expert-tensor-parallelism defaults to False \
     * (microsoft/Megatron-DeepSpeed megatron/arguments.py, _add_distributed_args): the experts \
     * stay whole on every TP rank unless --expert-tp says otherwise. */ \
    .experts_skip_tp = true, \
    .pipeline_parallel = true, \
    .pipeline_sharded_grads = false, \
    .interleaving = false, \
    .offload = FW_OFFLOAD_ANY, \
    .hybrid_shard = true, \
    .zeropp = true, \
    .selective = SELECTIVE_ATTENTION, \
    .buffers = BUFFERS_STRATEGY, \
    .overlap_comm = -1, \
    /* Activation offload is deepspeed.checkpointing's cpu_checkpointing: partition_activations \
     * copies each checkpoint with .cpu() or copy_() into a pageable CPU buffer and \
     * gather_partitioned_activations copies it back the same way, on the compute stream \
     * (microsoft/DeepSpeed@01cc99c0 deepspeed/runtime/activation_checkpointing/ \
     * checkpointing.py): the copies do not overlap. */ \
    .act_offload_sync = true, \
    /* ZeRO-3 fetches in _pre_forward_module_hook, a forward pre-hook on every submodule \
     * (deepspeedai/DeepSpeed@cf443004 v0.19.5 deepspeed/runtime/zero/parameter_offload.py, \
     * _register_hooks_recursively): a recomputed forward fetches again. */ \
    .fetch_by_module_hooks = true, \
    /* Under bf16/fp16 the engine casts the module's parameters to that dtype \
     * (deepspeedai/DeepSpeed@cf443004 deepspeed/runtime/engine.py, \
     * _configure_distributed_model; module.half() / bfloat16() in the older releases). */ \
    .own_16bit_params = true, \
    /* ZeRO-Offload's gradients go to the host in fp32: async_inplace_copy_grad_to_fp32_buffer_ \
     * from_gpu copies grad.float() into the CPU fp32 partition's .grad (stage2.py / stage3.py \
     * at v0.3.13 = 12a53b43; stage_1_and_2.py at v0.16.0 = e5570b10, and stage3.py's \
     * partition_grads through a pinned fp32 buffer). */ \
    .offload_grads_fp32 = true, \
    .loss = LOSS_FUSED, \
    /* Megatron-DeepSpeed's --use-flash-attn-v2 (the flash-attn package) or HF model code's \
     * flash_attention_2: FlashAttention-2; DeepSpeed brings no attention kernel of its own. */ \
    .attention_kernel = KERNEL_FA2, \
    /* end */

/* FITTED by `zerosim validate tests/validation/published_runs.csv
 * tests/validation/framework_runs.csv --fit` on the train half of this framework's runs (1st,
 * 3rd, .. in file order: BLOOM-176B, the DeepSpeed Azure blog, the autotuning tutorial; the
 * ZeRO-Offload tutorial's run is deepspeed@0.3's, which no fit takes): efficiency 0.954 +/-
 * 0.040 of the profile, 0.314 +/- 0.035 s per step, refitted once BLOOM's row ran BF16_Optimizer
 * (0.932 and 0.311 before; held-out 7.4% against 7.7%), and before that after NCCL's tuning
 * model, the SM contention of overlapped collectives, the LM head on the last stage, steptime.c,
 * cpu_checkpointing's blocking copies, each version's parameter copy after the CPU step, the
 * coalesced fetch's per-rank host work and copy, and ZeRO-3's host gradient buffer). Held-out
 * half: see the README's validation table (7.6%, worst +17.1% before the per-rank host work;
 * 10.1% and 27.2% before the parameter copies). Every version carries the fit: the runs do not
 * tell versions' kernels apart. */
#define DEEPSPEED_FIT \
    .gemm_efficiency = 0.954, \
    .step_overhead = 0.314, \
    /* end */

/* DeepSpeed's bf16 mode (the config's "bf16" section, runtime/config.py get_bfloat16_enabled)
 * first appears in v0.5.5 (engine.py bfloat16_enabled; absent from v0.5.4 and every earlier
 * tag): before it DeepSpeed trains in fp32 or fp16 only. */
#define DEEPSPEED_NO_BF16 \
    .no_bf16 = true, \
    /* end */

/* What v0.3.13 to v0.5.10 share (each version's comment below reads its code): CPU Adam's
 * fused copy after the ZeRO-1/2 step and ZeRO-3's pageable one, a synchronous fetch of each
 * parameter alone (a Linear's weight and its bias: 2 calls a module), and one list-form
 * reduce-scatter per parameter at 2 ops + 2 ops a rank (v0.3.13's costs below). */
#define DEEPSPEED_PER_PARAMETER \
    .offload_copy = {OFFLOAD_COPY_FUSED, OFFLOAD_COPY_PAGEABLE}, \
    .sync_fetch = true, \
    .gathers_per_module = 2, \
    .reduces_per_module = 2, \
    .reduce_overhead = 2 * 3.4e-6, \
    .reduce_per_rank = 2 * 3.4e-6, \
    /* end */

/* DeepSpeed v0.3.13 (microsoft/DeepSpeed@12a53b43833b7bea279a205e313f2bd3f0cdfd99, March 2021:
 * the ZeRO-3 of Narayanan et al. 2021's Table 2), read from deepspeed/runtime/zero:
 * - stage3.py fetch_sub_module: gathers the module's parameters (async) and then waits for
 *   them (_synchronize_communication) before the module runs: the fetch is synchronous.
 * - partition_parameters.py _all_gather loops over the parameters, one _allgather_param call
 *   each (a Linear's weight and its bias: 2 calls per module); _allgather_param allocates
 *   the flat tensor, calls torch.cuda.synchronize() (the host waits for all queued GPU work,
 *   so nothing queued behind the fetch overlaps it), builds world_size narrow() views in a
 *   Python loop and calls the list form torch.distributed.all_gather(partitions, ...), which
 *   in PyTorch's ProcessGroupNCCL::allgather (pytorch/pytorch v1.8.0
 *   torch/lib/c10d/ProcessGroupNCCL.cpp) gathers into one flat buffer and then copy_()s
 *   each rank's block into its output: one copy per rank.
 * - stage3.py average_tensor hands the bucket's parameters to reduce_gradients_at_owner, whose
 *   _reduce_scatter_gradients loops over them: one reduce-scatter per parameter (2 a module),
 *   on the reduction stream (overlapped with backward). _reduce_scatter_gradient builds
 *   world_size narrow() views of the gradient and calls the list form
 *   torch.distributed.reduce_scatter, whose flatten_for_scatter_gather copies each input into a
 *   flat buffer: one copy per rank, per parameter.
 * Host cost per eager PyTorch op: 3.4 us, the CUDA `split` (a view op like narrow) forward
 * time in PyTorch's operator micro-benchmark (pytorch/pytorch#32194, master timings, M8 N8
 * and M512 N512 on cuda: 3.333-3.416 us); a copy_ launch is taken at the same cost. ESTIMATE
 * of the constant, not fitted: the per-rank shape (linear in ranks, one view + one copy a
 * rank) is what zerobench's list all-gather measures (src/bench/zb_coll_allgather_list.c).
 * - gather: fixed 4 ops (zeros, synchronize, all_gather, the final narrow().view()) =
 *   13.6 us, per rank 2 ops (narrow + copy_) = 6.8 us; reduce-scatter: fixed 2 ops
 *   (reduce_scatter, the copy back into the partition) = 6.8 us, per rank 2 ops = 6.8 us.
 * gemm_efficiency and step_overhead are the current version's (no run of this version is
 * in a fit: the Table 2 rows are excluded). */
static const framework fw_deepspeed_v03 = {
    DEEPSPEED_COMMON
    .version = "0.3.13",
    .first = "0.3.0",
    .last = "0.3.14", /* v0.3.15 (2c2a7f31) adds the norm of each fetched parameter */
    /* After the CPU step (same commit): ZeRO-1/2's step() passes the fp16 partitions to
     * DeepSpeedCPUAdam.step(fp16_param_groups=...), whose adam_update_copy writes each tile's
     * fp16 values into one of two pinned buffers and launches its copy to the GPU while it
     * steps the next tile (stage2.py step; csrc/adam/cpu_adam.cpp Step, launch_param_update);
     * ZeRO-3's _optimizer_step copy_()s the CPU fp32 partition into the fp16 one (stage3.py),
     * the pageable path (comm.c). */
    DEEPSPEED_PER_PARAMETER
    .gather_overhead = 4 * 3.4e-6,
    .gather_per_rank = 2 * 3.4e-6,
    .fetch_hbm_passes = 2, /* the list form's copy_ of each rank's block: read + write */
    DEEPSPEED_NO_BF16
    DEEPSPEED_FIT
};

/* DeepSpeed v0.4.0 (microsoft/DeepSpeed@2d302d6abb2cfa181f63320da3ed1be45e34ded3), for v0.3.15
 * to v0.5.4 (the functions below are the same at v0.5.4 = bc7778ea): v0.3.13's fetch and
 * reduce-scatter, plus what ZeRO-Infinity's commit 0d4a54a0 (first in v0.3.15) added to
 * stage3.py fetch_sub_module: after each fetch, for every parameter of the module,
 * print_rank_0(f"... norm {param.norm()}", force=False). The f-string is evaluated whether or
 * not it prints: a norm kernel over the gathered parameter, and formatting the 0-dim result
 * calls .item() (PyTorch's Tensor.__format__), which waits for the GPU. Per gather call that is
 * 2 ops more (norm, item: 6 in all, 20.4 us) and one more HBM read of the parameter (3 passes
 * with the list form's copies), all on the synchronous fetch's path. After the CPU step as
 * v0.3.13 (stage2.py step: optimizer.step(fp16_param_groups=...), gated only on CPU Adam and
 * fp16; stage3.py _reassign_or_swap_out_partitioned_parameters copy_()s the unpinned fp32
 * partition). gemm_efficiency and step_overhead are the current version's. */
static const framework fw_deepspeed_v04 = {
    DEEPSPEED_COMMON
    .version = "0.4.0",
    .first = "0.3.15",
    .last = "0.5.4",
    DEEPSPEED_PER_PARAMETER
    .gather_overhead = 6 * 3.4e-6,
    .gather_per_rank = 2 * 3.4e-6,
    .fetch_hbm_passes = 3,
    DEEPSPEED_NO_BF16
    DEEPSPEED_FIT
};

/* DeepSpeed v0.5.10 (microsoft/DeepSpeed@3293cf72a0abd5cf77a831996bd054bc908476a6), for v0.5.5
 * to v0.5.10: commit c0eeb69d ("ZeRO3, improved parameter all-gather operation", #1188, first
 * in v0.5.5) makes fetch_sub_module gather with async_op=False through
 * partition_parameters.py _allgather_params_coalesced, which despite its name launches one
 * torch.distributed._all_gather_base per parameter into a flat buffer (no per-rank views; the
 * default wherever torch has _all_gather_base, the list form only as a fallback), waits for
 * the last and calls torch.cuda.synchronize(); _synchronize_communication then synchronizes
 * again. Per call (a parameter): its buffer, the ds_tensor.cuda(), the _all_gather_base, the
 * norm and its .item() (still printed as above) and one of the fetch's two synchronizes: 6
 * ops; one HBM read (the norm). Gradients: v0.3.13's per-parameter list-form reduce_scatter
 * (_reduce_scatter_gradients unchanged from v0.4.0). After the CPU step as v0.3.13. */
static const framework fw_deepspeed_v05 = {
    DEEPSPEED_COMMON
    .version = "0.5.10",
    .first = "0.5.5",
    .last = "0.5.10",
    DEEPSPEED_PER_PARAMETER
    .gather_overhead = 6 * 3.4e-6,
    .fetch_hbm_passes = 1,
    .bf16_stage0 = BF16_STAGE0_PURE,
    DEEPSPEED_FIT
};

/* What the coalesced fetch and reduce-scatter still do per rank, in Python, from v0.6.0 to the
 * current version (partition_parameters.py and runtime/comm/coalesced_collectives.py at
 * v0.8.3 = f1e4fb0b, v0.9.0 and v0.19.5 = cf443004): all_gather_coalesced builds world_size
 * narrow() views of its flat buffer (1 op a rank a call); AllGatherCoalescedHandle.wait splits
 * it back, for each parameter for each rank a narrow() and a record_stream() (2 ops a rank a
 * parameter); reduce_scatter_coalesced slices each gradient world_size ways (1 op a rank a
 * gradient) and interleaves the slices in plain Python. At the 3.4 us of an eager op (above).
 * The wait's torch.cat of each parameter's partitions copies the gathered bytes once more
 * (read and write: 2 HBM passes); fetch_sub_module calls wait() inside
 * `with stream(self.__allgather_stream)` and only then makes the compute stream wait on that
 * stream (partitioned_param_coordinator.py at v0.8.3 and v0.19.5), so the copy is part of the
 * fetch and hides with it. */
#define DEEPSPEED_COALESCED_HOST \
    .gather_per_rank = 3.4e-6, \
    .gather_per_rank_param = 2 * 3.4e-6, \
    .fetch_hbm_passes = 2, \
    .reduce_per_rank_param = 3.4e-6, \
    /* end */

/* BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py, first in v0.6.2; BLOOM's "BF16_Optimizer
 * implements its own ZeRO Stage 1"): bf16 parameters and their .grad, an fp32 gradient buffer for
 * the whole model (fp32_groups_gradients_flat, zeros_like the bf16 flat groups) that
 * update_hp_grads adds each micro-batch's bf16 gradients into (hp_grad.add_(lp.grad.to(fp32)):
 * 18 bytes a parameter; the bf16 grads stay allocated, clear_lp_grads=False, until the next
 * backward), the fp32 master and moments partitioned over DP; at the boundary the fp32 buffer is
 * all-reduced
 * in the communication dtype (get_grads_for_reduction into buffered_allreduce_fallback, 500M
 * elements a bucket), each rank steps its partition and all_gather_dp_groups gathers the bf16
 * parameters (v0.7.0 pipe/engine.py _exec_reduce_grads, _bf16_reduce_grads). Chosen for bf16
 * at ZeRO stage 1 with grad_accum_dtype fp32 and no offload (from v0.8.3; deepspeedai/DeepSpeed@
 * cf443004 v0.19.5 engine.py _do_optimizer_sanity_check), and for bf16 without ZeRO, stage 0
 * (DeepSpeed's DDP), from v0.6.2 to v0.17.5: v0.6.2-0.7.5 _configure_optimizer takes it for
 * bfloat16_enabled() outside ZeRO (BLOOM's path, v0.7.0), v0.7.6-0.17.5 get_data_types makes
 * the accumulation dtype fp32 for bf16 without ZeRO, which _do_optimizer_sanity_check maps to
 * BFLOAT16 (v0.8.3, v0.14.0, v0.17.5 = 047a7599). v0.17.6's #7515 (889f0ead, "Remove hardwired
 * path to b16_optimizer") accumulates in the model's dtype: DDP_BFLOAT16, FP16_Optimizer over
 * bf16 with its fp32 master, i.e. DDP; the pipeline engine still takes BF16_Optimizer, in bf16
 * (v0.19.5 _do_optimizer_sanity_check, "BF16 gradient accumulation is not safe numerically").
 * From v0.5.5 to v0.6.1 bf16 without ZeRO is module.bfloat16() and the client optimizer over
 * it (v0.5.10 engine.py _configure_distributed_model, _configure_optimizer's last else): no fp32
 * master, bf16-pure. */
#define DEEPSPEED_BF16_OPTIMIZER(stage0) \
    .bf16_optimizer = true, \
    .bf16_stage0 = (stage0), \
    /* end */

/* ZeRO-3's gradients under optimizer offload, from v0.6.0 (#1453's __partition_grads, later
 * partition_grads, stage3.py at v0.8.3, v0.14.0, v0.16.0 and v0.19.5): the accumulation buffer
 * (grad_partitions_flat_buffer) sits on the offload device in the gradient accumulation dtype
 * (the model's unless data_types.grad_accum_dtype says otherwise: engine.py get_data_types);
 * at micro-step 0 grad_buffer.copy_(grad_partition, non_blocking=True) sends the partition
 * down and grad_buffer.to(grad_partition.device) brings it straight back ("to speed up the
 * next few operations"); later micro-steps bring it up, add and send it down; at the
 * accumulation boundary the fp32 partition's .grad is filled from it: fp32_grad_tensor.copy_(
 * grad_buffer) until v0.14.0 (blocking, converted on the CPU: 16-bit on the wire),
 * pinned_grad_buffer.copy_(grad_buffer.to(float32)) then get_accelerator().synchronize() per
 * parameter at v0.14.1-0.16, copy_(grad_buffer.to(float32), non_blocking=True) into the
 * unpinned fp32 partition from v0.17 (a device-to-pageable copy returns only once done: CUDA
 * Runtime API, "API synchronization behavior"): the host waits each time. Up to v0.5.10 the
 * partition went down once per micro-batch in fp32 (.float() on the GPU, then copy_). */
#define DEEPSPEED_Z3_HOST_ACCUM \
    .z3_grads_host_accum = true, \
    /* end */

/* DeepSpeed v0.8.3 (microsoft/DeepSpeed@f1e4fb0b878e48d6fe33dbb2e0969d791d698e86), for v0.6.2
 * to 0.8.x (0.6.0-0.6.1 below: the same ZeRO, no BF16_Optimizer yet): commit 4912e0ad
 * ("Various ZeRO Stage3 Optimizations", #1453, first in v0.6.0) prefetches by the module trace
 * and overlaps: fetch_sub_module (partitioned_param_coordinator.py from v0.6.6) waits on the
 * all-gather stream and makes the compute stream wait on it (wait_stream), the host blocking
 * only when more than 2 fetches are queued; one coalesced _all_gather_base per module
 * (all_gather_coalesced; all_gather_into_tensor comes in v0.9.0); gradients reduce-scattered in
 * flat buckets (reduce_scatter_coalesced, one _reduce_scatter_base) on their own stream; the
 * per-parameter norm is gone. The per-rank host work above. After the CPU step: ZeRO-1/2 still
 * pass the 16-bit partitions to CPU Adam (_optimizer_step: optimizer.step(fp16_param_groups=
 * [...]); v0.9.0's #3097 turned it off), ZeRO-3 copy_()s the unpinned fp32 partition. */
static const framework fw_deepspeed_v08 = {
    DEEPSPEED_COMMON
    .version = "0.8.3",
    .first = "0.6.2",
    .last = "0.8",
    .offload_copy = {OFFLOAD_COPY_FUSED, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_OPTIMIZER)
    DEEPSPEED_Z3_HOST_ACCUM
    DEEPSPEED_FIT
};

/* DeepSpeed v0.6.1 (microsoft/DeepSpeed@ebbcfd52), for v0.6.0 and v0.6.1: ZeRO as v0.8.3 above
 * (#1453 came in v0.6.0), but no BF16_Optimizer yet (bf16_optimizer.py is new in v0.6.2 =
 * 32d97976): bf16 without ZeRO is the module cast to bf16 and the client's optimizer
 * (engine.py _configure_optimizer: neither ZeRO, amp nor fp16 leaves basic_optimizer). */
static const framework fw_deepspeed_v061 = {
    DEEPSPEED_COMMON
    .version = "0.6.1",
    .first = "0.6.0",
    .last = "0.6.1",
    .offload_copy = {OFFLOAD_COPY_FUSED, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    .bf16_stage0 = BF16_STAGE0_PURE,
    DEEPSPEED_Z3_HOST_ACCUM
    DEEPSPEED_FIT
};

/* DeepSpeed v0.9.1 (microsoft/DeepSpeed@793c23e5), for v0.9.0 and v0.9.1: v0.14.0's code below,
 * but #2970 (261d6370, "Make fp32 default communication data type", first in v0.9.0) made
 * engine.py communication_data_type fp16 under fp16 and fp32 otherwise, bf16 included, until
 * #3370 (d56268f3, v0.9.2) returned bf16's: every gradient collective (allreduce_bucket in
 * engine.py and stage_1_and_2.py, stage3.py's reduce-scatter: tensor.to(
 * communication_data_type)) moves 4 bytes a gradient under bf16. */
static const framework fw_deepspeed_v091 = {
    DEEPSPEED_COMMON
    .version = "0.9.1",
    .first = "0.9.0",
    .last = "0.9.1",
    .offload_copy = {OFFLOAD_COPY_PAGEABLE, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_OPTIMIZER)
    .bf16_reduce_fp32 = true,
    DEEPSPEED_Z3_HOST_ACCUM
    DEEPSPEED_FIT
};

/* DeepSpeed v0.14.0 (deepspeedai/DeepSpeed@ce78a632), for v0.9.2 to v0.14.0: the fetches and
 * reduce-scatters of the current version (all_gather_into_tensor since v0.9.0); after the CPU
 * step ZeRO-1/2 copy_() the unpinned CPU fp32 partition into the 16-bit one
 * (stage_1_and_2.py step: bit16_partitions[partition_id].data.copy_(fp32_partition.data)),
 * the pageable path: v0.9.0's PR #3097 (@4b6d7c15, "Disable Stage 1&2 CPUAdam pathways")
 * turned off CPU Adam's fused copy, and PR #5301 replaced the pageable one in v0.14.1; ZeRO-3
 * as in every version. */
static const framework fw_deepspeed_v014 = {
    DEEPSPEED_COMMON
    .version = "0.14.0",
    .first = "0.9.2",
    .last = "0.14.0",
    .offload_copy = {OFFLOAD_COPY_PAGEABLE, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_OPTIMIZER)
    DEEPSPEED_Z3_HOST_ACCUM
    DEEPSPEED_FIT
};

/* DeepSpeed v0.15.3 (deepspeedai/DeepSpeed@a24cdd6b), for v0.14.1 to v0.15.3: ZeRO-1/2 pin the
 * fp32 partition and copy it whole to the GPU, converting there (stage_1_and_2.py step:
 * copy_(fp32_partition.to(device)), from PR #5301 in v0.14.1); ZeRO-3's boundary gradient copy
 * still the blocking copy_ of the 16-bit buffer (DEEPSPEED_Z3_HOST_ACCUM). */
static const framework fw_deepspeed_v015 = {
    DEEPSPEED_COMMON
    .version = "0.15.3",
    .first = "0.14.1",
    .last = "0.15.3",
    .offload_copy = {OFFLOAD_COPY_PINNED32, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_OPTIMIZER)
    DEEPSPEED_Z3_HOST_ACCUM
    DEEPSPEED_FIT
};

/* DeepSpeed v0.16.0 (deepspeedai/DeepSpeed@e5570b10), for v0.15.4 to 0.16.x: ZeRO-1/2 as
 * v0.15.3 (v0.17.0's PR #7309 converts into a pinned 16-bit buffer first); ZeRO-3's boundary
 * gradient goes down in fp32: #6670 (v0.15.4) through a pinned buffer with a synchronize()
 * per parameter, #6962 (v0.16.3) as copy_(grad_buffer.float()) (v0.16.9 = bdba8231), the host
 * waiting either way. */
static const framework fw_deepspeed_v016 = {
    DEEPSPEED_COMMON
    .version = "0.16.0",
    .first = "0.15.4",
    .last = "0.16",
    .offload_copy = {OFFLOAD_COPY_PINNED32, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_OPTIMIZER)
    DEEPSPEED_Z3_HOST_ACCUM
    .z3_boundary_fp32 = true,
    DEEPSPEED_FIT
};

/* DeepSpeed v0.17.5 (deepspeedai/DeepSpeed@047a7599), for v0.17.0 to v0.17.5: the current
 * version's code below but for bf16 without ZeRO, still BF16_Optimizer (get_data_types' fp32
 * accumulation; #7515 changed it in v0.17.6). */
static const framework fw_deepspeed_v0175 = {
    DEEPSPEED_COMMON
    .version = "0.17.5",
    .first = "0.17.0",
    .last = "0.17.5",
    .offload_copy = {OFFLOAD_COPY_PINNED16, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_OPTIMIZER)
    DEEPSPEED_Z3_HOST_ACCUM
    .z3_boundary_fp32 = true,
    DEEPSPEED_FIT
};

static const framework *const deepspeed_versions[] = {&fw_deepspeed_v03, &fw_deepspeed_v04, &fw_deepspeed_v05,
    &fw_deepspeed_v061, &fw_deepspeed_v08, &fw_deepspeed_v091, &fw_deepspeed_v014, &fw_deepspeed_v015,
    &fw_deepspeed_v016, &fw_deepspeed_v0175, NULL};

/* The current version, v0.19.5 (deepspeedai/DeepSpeed@cf443004, the newest release), for
 * v0.17.6 to 0.19.x: bf16 without ZeRO is DDP but under the pipeline engine (BF16_STAGE0_PIPE_OPT,
 * DEEPSPEED_BF16_OPTIMIZER's comment); coalesced all_gather_into_tensor fetches (partition_parameters.py),
 * prefetched and overlapped (stage3 prefetch bucket), reduce-scatter of flat buckets, with the
 * coalesced path's per-rank host work (DEEPSPEED_COALESCED_HOST). After the CPU step ZeRO-1/2
 * convert the fp32 partition on the CPU into a 16-bit buffer, pinned
 * (offload_optimizer.pin_memory, default true: runtime/zero/offload_config.py), and copy it
 * non-blocking (stage_1_and_2.py step, param_buffer_of_bit16_for_cpu_offload_groups; PR #7309
 * in v0.17.0); ZeRO-3's _reassign_or_swap_out_partitioned_parameters copy_()s the CPU fp32
 * partition into the 16-bit one (stage3.py, the same in v0.3.13): the pageable path (comm.c). */
const framework fw_deepspeed = {
    DEEPSPEED_COMMON
    .version = "0.19.5",
    .first = "0.17.6",
    .last = "0.19", /* the newest series read: later ones are refused until read */
    .versions = deepspeed_versions,
    .offload_copy = {OFFLOAD_COPY_PINNED16, OFFLOAD_COPY_PAGEABLE},
    DEEPSPEED_COALESCED_HOST
    DEEPSPEED_BF16_OPTIMIZER(BF16_STAGE0_PIPE_OPT)
    DEEPSPEED_Z3_HOST_ACCUM
    .z3_boundary_fp32 = true,
    DEEPSPEED_FIT
};
