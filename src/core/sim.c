/* sim.c -- the common harness: derive once, then let each strategy fill its parts. */
#include "core/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/finetune.h"
#include "core/framework.h"
#include "core/gemm.h"
#include "core/kernels.h"
#include "core/minmax.h"
#include "core/pipeline.h"
#include "core/steptime.h"
#include "core/strategy.h"

/* The run's checks against the hardware: a peak at its precision, flash attention under CP,
 * host bandwidth for an offloaded optimizer. Sets in->peak. */
static int sim_check_hardware(sim_input *in, const hardware *hw, const training *t, zs_error *err)
{
    in->peak = compute_peak(hw, t);
    if (in->peak <= 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--precision %s: %s has no %s peak in its profile (try --precision fp16)",
            precision_name(t->precision), hw->name, precision_name(t->precision));
    if (t->cp > 1 && !t->flash_attention)
        return zs_fail(err, ZS_ERR_USAGE,
            "--cp %lld needs flash attention (ring attention exchanges K/V blocks of a fused "
            "kernel; Megatron-Core and torchtitan run context parallelism only with it)",
            (long long)t->cp);
    if (t->offload_optimizer != OFFLOAD_NONE && hw->host_memory_bandwidth <= 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--offload-optimizer: %s gives no node.host_memory_bandwidth_bytes_per_second", hw->name);
    return ZS_OK;
}

/* A GEMM runs at most at the peak: the framework's factor (in->fw_eff: the flag's, the
 * profile's fit or the framework's own) times the profile's matmul_max_fraction, the best
 * GEMM rate sim_rates can give, must not pass 1, or every time would be faster than the GPU
 * can run (an MFU above 1). Fails naming where the factor came from: ZS_ERR_USAGE for the
 * flag, ZS_ERR_INPUT for the hardware profile. */
static int sim_check_efficiency(
    const sim_input *in, const hardware *hw, const training *t, const hw_framework_fit *fit, zs_error *err)
{
    double top = in->fw_eff * hw->matmul_max_fraction;
    if (top <= 1) return ZS_OK;
    if (t->gemm_efficiency > 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--gemm-efficiency %.4g x %s's efficiency.matmul_max_fraction %.4g = %.4g of the peak: no GEMM "
            "runs faster than the peak (expected at most %.4g on this hardware)",
            t->gemm_efficiency, hw->name, hw->matmul_max_fraction, top, 1 / hw->matmul_max_fraction);
    return zs_fail(err, ZS_ERR_INPUT,
        "%s: %s's gemm_efficiency %.4g%s x efficiency.matmul_max_fraction %.4g = %.4g of the peak: no GEMM "
        "runs faster than the peak (expected a matmul_max_fraction of at most %.4g: the profile's "
        "measured one)",
        hw->name, in->fw->name, in->fw_eff, fit ? " (the profile's fit)" : "", hw->matmul_max_fraction, top,
        1 / in->fw_eff);
}

/* The communication groups (size, ranks of it in one NVLink domain: a node unless the profile
 * gives a larger domain) in Megatron's rank order, and
 * in->shard_dp / in->edp. Fails when --shard-group or --zero-hpz does not divide DP x CP. */
static int sim_groups(sim_input *in, const training *t, zs_error *err)
{
    /* Megatron's rank order (tp innermost, then dp, then pp): a group's stride decides how
     * many of its ranks share a node. */
    int64_t gpn = in->domain_gpus, dp = in->dp; /* ranks that share the intra link */
    /* Context parallelism sits between TP and DP (Megatron-Core's tp-cp-dp-pp order); the
     * CP ranks hold the same weights, so gradients reduce (and ZeRO shards) over DP x CP. */
    in->groups[GROUP_TP] = (coll_group){t->tp, t->tp < gpn ? t->tp : gpn};
    int64_t per = gpn / t->tp > 1 ? gpn / t->tp : 1;
    in->groups[GROUP_CP] = (coll_group){t->cp, t->cp < per ? t->cp : per};
    int64_t dpc = dp * t->cp;
    in->groups[GROUP_DP] = (coll_group){dpc, dpc < per ? dpc : per};
    per = gpn / (t->tp * dpc) > 1 ? gpn / (t->tp * dpc) : 1;
    in->groups[GROUP_PP] = (coll_group){t->pp, t->pp < per ? t->pp : per};
    in->groups[GROUP_HOST] = (coll_group){1, 1};
    /* Hybrid sharding (HSDP, MiCS): consecutive DP ranks form a shard group; its replicas
     * are the same positions in the other groups. ZeRO++ hpZ keeps a secondary partition over
     * hpz_group consecutive ranks (a node in the paper). */
    int64_t dp_local = in->groups[GROUP_DP].n_local;
    /* Shard groups tile DP x CP: FSDP2's HSDP mesh is replicate x shard, DeepSpeed asserts the
     * data-parallel size divisible by mics_shard_size (microsoft/DeepSpeed@38327e07
     * deepspeed/runtime/zero/mics_utils.py, _generate_mics_config). A group larger than DP x CP
     * is refused too (it once ran as plain ZeRO-3). hpZ of 1 rank is off, as in DeepSpeed. */
    if (training_check_group(t->shard_group, dpc, "--shard-group", ZS_ERR_USAGE, err) ||
        (t->hpz_group > 1 && training_check_group(t->hpz_group, dpc, "--zero-hpz", ZS_ERR_USAGE, err)))
        return err->code;
    in->shard_dp = t->shard_group > 0 ? t->shard_group : dpc;
    int64_t replicas = dpc / in->shard_dp;
    in->groups[GROUP_SHARD] = (coll_group){in->shard_dp, in->shard_dp < dp_local ? in->shard_dp : dp_local};
    in->groups[GROUP_REPLICA] =
        (coll_group){replicas, dp_local / in->shard_dp > 1 ? dp_local / in->shard_dp : 1};
    int64_t hpz = t->hpz_group > 1 && t->hpz_group < dpc ? t->hpz_group : dpc;
    in->groups[GROUP_HPZ] = (coll_group){hpz, hpz < dp_local ? hpz : dp_local};
    /* Expert parallelism (Megatron-Core): the EP group is carved from TP x CP x DP ranks, so it
     * sits right after TP in the rank order; the expert-data-parallel group (EDP = TP x CP x DP
     * / EP) reduces the experts' gradients. */
    int64_t tcd = t->tp * dpc;
    /* Expert tensor parallelism: each expert's GEMMs split over ETP ranks of the TP group
     * (Megatron-Core: ETP x EP x EDP = TP x CP x DP), so a rank holds E / EP experts at 1 / ETP
     * of their width, and more EP never holds more expert weights. The framework's default:
     * ETP = TP, except DeepSpeed-MoE's whole experts (ETP 1). */
    in->etp = t->etp > 0 ? t->etp : in->fw->experts_skip_tp ? 1 : t->tp;
    /* Megatron-Core builds the expert grid apart from the dense one: ETP x EP x PP need only
     * divide the world ("world_size (..) is not divisible by expert_tensor_model_pipeline_parallel
     * size", NVIDIA/Megatron-LM@d98e8a64 megatron/core/parallel_state.py initialize_model_parallel;
     * arguments.py only defaults ETP to TP), so ETP may exceed TP. The others split experts
     * over the TP group itself. The experts' own TP collectives run on the ETP group (comm.c
     * comm_tp). */
    if (in->fw->expert_tp_free && tcd % (t->ep * in->etp) != 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--expert-tp %lld x --ep %lld x --pp %lld must divide the %lld GPUs (Megatron-Core: "
            "world_size is not divisible by expert_tensor_model_pipeline_parallel size)",
            (long long)in->etp, (long long)t->ep, (long long)t->pp, (long long)(tcd * t->pp));
    if (!in->fw->expert_tp_free && (in->etp > t->tp || t->tp % in->etp != 0))
        return zs_fail(err, ZS_ERR_USAGE,
            "--expert-tp %lld must divide --tp %lld (the experts split over TP ranks)", (long long)in->etp,
            (long long)t->tp);
    in->edp = t->ep > 1 || in->etp != t->tp ? tcd / (t->ep * in->etp) : dpc;
    in->groups[GROUP_ETP] = (coll_group){in->etp, in->etp < gpn ? in->etp : gpn};
    int64_t ep_local = t->ep < gpn ? t->ep : gpn;
    in->groups[GROUP_EP] = (coll_group){t->ep, ep_local};
    int64_t edp_per = gpn / t->ep > 1 ? gpn / t->ep : 1;
    int64_t edp_local = in->edp < edp_per ? in->edp : edp_per;
    /* Hybrid sharding: the experts shard over EDP / replicas ranks inside a shard group and
     * replicate across the shard groups (torchtitan's HSDP mesh for the experts), as the dense
     * states do over GROUP_SHARD and GROUP_REPLICA. */
    int64_t edp_shard = in->edp / replicas > 1 ? in->edp / replicas : 1;
    in->groups[GROUP_EDP] = (coll_group){edp_shard, edp_shard < edp_local ? edp_shard : edp_local};
    in->groups[GROUP_EDP_REPLICA] =
        (coll_group){in->edp / edp_shard, edp_local / edp_shard > 1 ? edp_local / edp_shard : 1};
    return ZS_OK;
}

/* The links of each level, and the HBM and host memory rates a rank gets. Fails when NVMe
 * offload is asked of hardware without NVMe bandwidth. */
static int sim_links(sim_input *in, const hardware *hw, const training *t, zs_error *err)
{
    int64_t gpn = in->gpus_per_node;
    coll_links(hw, gpn, in->links);
    /* Parameters offloaded to NVMe come up at the drives' share; the optimizer states' own
     * NVMe traffic is timed with the CPU step (steptime_nvme_step). */
    double nvme_share = hw->nvme_bandwidth / (double)gpn;
    if ((t->offload_optimizer == OFFLOAD_NVME || t->offload_params == OFFLOAD_NVME) && nvme_share <= 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--offload-optimizer/--offload-params nvme: %s gives no node.nvme_bandwidth_bytes_per_second",
            hw->name);
    if (t->offload_params == OFFLOAD_NVME)
        in->links[LEVEL_HOST].bandwidth = zs_fmin(in->links[LEVEL_HOST].bandwidth, nvme_share);
    in->hbm_rate = hw->hbm_bandwidth * hw->hbm_fraction;
    in->host_rate = hw->host_memory_bandwidth * hw->host_memory_fraction / (double)gpn;
    return ZS_OK;
}

/* The FLOPs of a step, the GEMM efficiency (each GEMM at its shape's measured rate where the
 * GPU has a table, gemm.c; else one GEMM of gemm_work FLOPs; times the framework's fw_eff) and
 * the micro-batch times. Returns the LM head's GEMM efficiency. */
static double sim_rates(sim_input *in, double gemm_work, double fw_eff)
{
    compute_flops_with(in->m, in->pc, in->t, &in->tok, &in->fl);
    gemm_rates g = gemm_step(in->m, in->pc, in->hw, in->t, in->etp);
    double top = in->hw->matmul_max_fraction * fw_eff;
    in->gemm_efficiency = g.measured ? top * g.fwd : compute_efficiency(in->hw, gemm_work) * fw_eff;
    in->fl.gemm_bwd = g.fwd / g.bwd;
    in->mb = compute_time(in->hw, in->t, &in->fl, in->peak, in->gemm_efficiency);
    return g.measured ? top * g.head : in->gemm_efficiency;
}

/* What depends on the micro-batch, the accumulation and the recomputation: the FLOPs, the
 * rates, the micro-batch times and the pipeline's pace (sim_prepare_batch redoes only this). */
static void sim_batch_rates(sim_input *in)
{
    const model *m = in->m;
    const hardware *hw = in->hw;
    const training *t = in->t;
    if (m->params_only) {
        sim_rates(in, compute_gemm_flops(m, t), in->fw_eff);
        return;
    }
    /* A GEMM's fixed cost (launch, prologue, tail wave) is time, so its half-efficiency size in
     * FLOPs grows with the peak: at the FP8 peak a GEMM of W FLOPs runs as one of
     * W x peak_bf16 / peak_fp8 does at bf16. */
    double w = compute_gemm_flops(m, t);
    if (t->precision == PREC_FP8 && hw->peak_bf16 > 0) w *= hw->peak_bf16 / in->peak;
    double head_eff = sim_rates(in, w, in->fw_eff);
    double mean = in->mb.fwd + in->mb.bwd;
    double head = compute_head_seconds(m, hw, t, in->peak, head_eff);
    in->pipe_pace =
        pipeline_pace(&in->pipe, m->num_layers, t->pp, mean > 0 ? head / ((double)t->pp * mean) : 0);
}

/* The checks a layered model's shapes put on the run: stages, heads, parameter offload. */
/* Linear-attention and SSM heads split over TP as attention heads do: Megatron-Core's
 * MambaMixer asserts that TP divides nheads and ngroups (NVIDIA/Megatron-LM
 * megatron/core/ssm/mamba_mixer.py), and a gated DeltaNet's key and value heads split alike. */
static int sim_check_mixers(const model *m, const training *t, zs_error *err)
{
    bool deltanet = false, mamba = false;
    for (int c = 0; c < m->nclass; c++) {
        const mixer_kind mk[2] = {m->classes[c].mixer, m->classes[c].mixer2};
        for (int k = 0; k < 2; k++) {
            deltanet |= mk[k] == MIX_DELTANET;
            mamba |= mk[k] == MIX_MAMBA2;
        }
    }
    if (deltanet && (m->lin_k_heads % t->tp != 0 || m->lin_v_heads % t->tp != 0))
        return zs_fail(err, ZS_ERR_USAGE,
            "--tp %lld does not divide the model's gated DeltaNet heads (%lld key, %lld value heads)",
            (long long)t->tp, (long long)m->lin_k_heads, (long long)m->lin_v_heads);
    if (mamba && (m->ssm_heads % t->tp != 0 || m->ssm_groups % t->tp != 0))
        return zs_fail(err, ZS_ERR_USAGE,
            "--tp %lld does not divide the model's Mamba-2 heads (%lld) and groups (%lld)", (long long)t->tp,
            (long long)m->ssm_heads, (long long)m->ssm_groups);
    return ZS_OK;
}

static int sim_check_shapes(const model *m, const training *t, zs_error *err)
{
    if (t->pp > m->num_layers)
        return zs_fail(err, ZS_ERR_USAGE, "--pp %lld: more pipeline stages than the model's %lld layers",
            (long long)t->pp, (long long)m->num_layers);
    if (m->num_heads % t->tp != 0 || (m->num_kv_heads % t->tp != 0 && t->tp % m->num_kv_heads != 0))
        return zs_fail(err, ZS_ERR_USAGE,
            "--tp %lld does not divide the model's %lld attention heads (%lld key/value heads)",
            (long long)t->tp, (long long)m->num_heads, (long long)m->num_kv_heads);
    /* Parameter offload alone is a run DeepSpeed makes: stage 3 reads offload_param and
     * offload_optimizer apart and keeps the fp32 states on the GPU without the latter
     * (microsoft/DeepSpeed@38327e07 deepspeed/runtime/zero/stage3.py _configure_offloading;
     * self.device is the accelerator "if not self.offload_optimizer"). */
    /* A learned position table has a row per position and none past it (GPT-2's n_positions). */
    if (m->pos == POS_LEARNED && m->max_positions > 0 && t->seq_len > m->max_positions)
        return zs_fail(err, ZS_ERR_USAGE,
            "--seq-len %lld is longer than %s's learned position table (n_positions / "
            "max_position_embeddings %lld): it has no embedding for later positions",
            (long long)t->seq_len, m->name, (long long)m->max_positions);
    return sim_check_mixers(m, t, err);
}

/* A rank's parameters: its pipeline stage's (in->stage) split by TP, and
 * the small tensors it keeps whole under a persistence threshold. */
static void sim_stage_params(
    sim_input *in, const model *m, const param_counts *pc, const training *t, double layers)
{
    if (t->pp == 1) {
        in->local_params = pc->total;
    } else {
        /* First stage: embedding + its blocks; last: blocks + final norm + head (a tied
         * head is a second copy of the embedding there, as Megatron keeps it); middle stages
         * their blocks. */
        double head = m->tied_embeddings ? pc->embedding : pc->lm_head;
        in->local_params = pc->per_layer * layers + (in->stage.embedding ? pc->embedding : 0) +
            (in->stage.head ? pc->final_norm + head : 0);
    }
    in->local_params /= (double)t->tp;
    in->local_largest = pc->largest_module / (double)t->tp;
    /* ZeRO-3's persistence threshold is DeepSpeed's: FSDP shards every parameter, norms
     * included, in its unit's flat parameter or per-parameter DTensor (flat_params). */
    if (in->fw->flat_params) return;
    if (t->persistence_threshold > 0 && pc->small_tensor_threshold == t->persistence_threshold) {
        in->local_small = pc->layer_small_params * layers + pc->global_small_params;
    } else if (t->persistence_threshold > 0) {
        /* Recount small tensors against the run's threshold. */
        param_counts small;
        zs_error ignore = {.quiet = true};
        if (model_count(m, t->persistence_threshold, &small, &ignore) == ZS_OK)
            in->local_small = small.layer_small_params * layers + small.global_small_params;
    }
}

/* Expert parallelism: the routed experts of this stage's MoE blocks leave TP's split for
 * EP's (each EP rank holds E / EP whole experts). Fails for an EP the model, the groups or
 * the other options do not allow. */
static int sim_experts(sim_input *in, const model *m, const training *t, double layers, zs_error *err)
{
    in->local_expert = 0;
    /* No EP and the experts split by TP as the dense weights are: nothing apart. */
    if (t->ep <= 1 && (in->etp == t->tp || m->params_only || m->num_experts <= 0)) return ZS_OK;
    if (m->num_experts <= 0)
        return zs_fail(err, ZS_ERR_USAGE, "--ep %lld: %s has no routed experts", (long long)t->ep, m->name);
    if (m->num_experts % t->ep != 0)
        return zs_fail(err, ZS_ERR_USAGE, "--ep %lld does not divide the model's %lld experts",
            (long long)t->ep, (long long)m->num_experts);
    if ((t->tp * in->dp * t->cp) % (t->ep * in->etp) != 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--ep %lld x expert TP %lld does not divide TP x CP x DP = %lld (Megatron-Core carves EP x ETP "
            "from them)",
            (long long)t->ep, (long long)in->etp, (long long)(t->tp * in->dp * t->cp));
    /* torchtitan carves EP from dp_shard x cp (x tp), never from the replicas
     * (pytorch/torchtitan@0119de15 torchtitan/distributed/parallel_dims.py). */
    if (in->shard_dp < in->dp * t->cp && (t->tp * in->shard_dp) % t->ep != 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "--ep %lld does not divide TP x --shard-group = %lld (hybrid sharding carves "
            "EP from a shard group, not across its replicas)",
            (long long)t->ep, (long long)(t->tp * in->shard_dp));
    if (t->finetune != FT_FULL || t->offload_optimizer != OFFLOAD_NONE || t->offload_params != OFFLOAD_NONE)
        return zs_fail(err, ZS_ERR_USAGE, "--ep%s with fine-tuning or offload is not modelled",
            t->ep <= 1 ? " (or experts whole on every TP rank, --expert-tp 1)" : "");
    if (t->hpz_group > 1) return zs_fail(err, ZS_ERR_USAGE, "--ep with ZeRO++ hpZ is not modelled");
    double moe_blocks = (double)model_blocks(m, BLOCK_MOE) * layers / (double)m->num_layers;
    double experts = (double)m->num_experts * (m->gated_mlp ? 3 : 2) * (double)m->hidden_size *
        (double)model_expert_width(m) * moe_blocks;
    in->local_expert = experts / ((double)t->ep * (double)in->etp);
    in->local_params += in->local_expert - experts / (double)t->tp;
    return ZS_OK;
}

/* Fine-tuning: the adapters are the rank's trainable parameters (split by TP like the
 * linears they adapt); QLoRA stores the frozen block linears in NF4, the rest (embedding,
 * norms, head) in 16 bits (transformers leaves lm_head unquantized; LitGPT does not). */
static void sim_trainable(
    sim_input *in, const model *m, const param_counts *pc, const training *t, double layers)
{
    double tp = (double)t->tp;
    in->trainable = in->local_params - in->local_expert;
    in->param_bytes = in->bt.param * in->local_params;
    if (t->finetune != FT_FULL) {
        double adapters = finetune_adapters_per_layer(m, pc, t->lora_rank, t->lora_targets) * layers / tp;
        /* The stage's blocks as local_params counts them, less their norms: the linears
         * bitsandbytes quantizes (not the largest block times every layer: a hybrid's total
         * is less). */
        double linear = t->finetune == FT_QLORA ? memory_block_params(in, layers) : 0;
        /* LitGPT's plugin quantizes the untied head too (finetune.h, QLORA_LITGPT). */
        if (finetune_quantized_head(t) && (t->pp == 1 || in->stage.head)) linear += pc->lm_head / tp;
        in->param_bytes = in->bt.param * (in->local_params - linear) + finetune_nf4_width(t) * linear +
            finetune_adapter_bytes(t, &in->bt).param * adapters;
        in->local_params += adapters;
        in->trainable = adapters;
    }
}

/* Make view k of the pipeline split the stage in force: its layers and parameters. Pure. */
static void sim_use_stage(sim_input *in, int k)
{
    const sim_stage *g = &in->stages[k];
    in->stage = g->stage;
    in->stage_layers = g->stage.layers;
    in->local_params = g->local_params;
    in->local_small = g->local_small;
    in->local_expert = g->local_expert;
    in->trainable = g->trainable;
    in->param_bytes = g->param_bytes;
}

/* The pipeline split and each of its stage views' parameters; the fields in force are the
 * view with the most parameters, the stage layers the most any stage holds (the time path's).
 * Fails for a split the framework or the flags do not allow (pipeline_split) or an EP the
 * model does not allow (sim_experts). */
static int sim_stages(sim_input *in, const model *m, const param_counts *pc, const training *t, zs_error *err)
{
    if (pipeline_split(m->num_layers, t, in->fw->exact_layer_split, &in->pipe, err)) return err->code;
    int best = 0;
    for (int k = 0; k < in->pipe.nviews; k++) {
        in->stage = in->pipe.views[k];
        double layers = (double)in->stage.layers;
        sim_stage_params(in, m, pc, t, layers);
        if (sim_experts(in, m, t, layers, err)) return err->code;
        /* The small tensors are counted on the whole model; the rank keeps whole at most its
         * own non-expert parameters (a threshold above the TP- or EP-split sizes made them
         * more: ZeRO-3 then held more than ZeRO-2, fuzz_flags). */
        in->local_small = zs_fmin(in->local_small, zs_fmax(0, in->local_params - in->local_expert));
        sim_trainable(in, m, pc, t, layers);
        in->stages[k] = (sim_stage){in->stage, in->local_params, in->local_small, in->local_expert,
            in->trainable, in->param_bytes};
        if (in->local_params > in->stages[best].local_params) best = k;
    }
    sim_use_stage(in, best);
    in->stage_layers = pipeline_max_layers(&in->pipe);
    return ZS_OK;
}

int sim_prepare(sim_input *in, const model *m, const param_counts *pc, const hardware *hw, const training *t,
    zs_error *err)
{
    if (sim_prepare_lazy(in, m, pc, hw, t, err)) return err->code;
    sim_prepare_activations(in);
    return ZS_OK;
}

void sim_prepare_activations(sim_input *in)
{
    if (in->m->params_only) return;
    /* A block's activations do not depend on the strategy or the stage: computed once. */
    in->layer_act[1] = memory_layer_activations(in, true);
    in->layer_act[0] = in->t->checkpointing == CKPT_SELECTIVE ? memory_layer_activations(in, false) : 0;
}

/* sim_prepare_lazy up to the batch part (the checks, groups, links, stages). */
static int sim_prepare_shape(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
    const training *t, zs_error *err)
{
    if (training_validate(t, err)) return err->code;
    memset(in, 0, sizeof *in);
    in->m = m;
    in->pc = pc;
    in->hw = hw;
    in->t = t;
    in->fw = framework_of(t);
    /* The framework's efficiency and per-step overhead: the flag's, else the values calibrated
     * on this hardware, else the framework's shipped ones. */
    const hw_framework_fit *fit = hardware_framework_fit(hw, in->fw->name);
    in->fw_eff = t->gemm_efficiency > 0 ? t->gemm_efficiency
        : fit                              ? fit->gemm_efficiency
                                           : in->fw->gemm_efficiency;
    in->step_overhead = t->step_overhead >= 0 ? t->step_overhead
        : fit                                 ? fit->step_overhead
                                              : in->fw->step_overhead;
    if (sim_check_efficiency(in, hw, t, fit, err) || framework_check(in->fw, m, t, err) ||
        kernel_check(hw, t, err))
        return err->code;
    in->bt = training_bytes(t);
    /* Frameworks that accumulate 16-bit training's gradients in fp32 (Megatron) keep and send
     * 4-byte gradients unless --grad-dtype says otherwise. */
    if (in->fw->fp32_grads && t->grad_bytes == 0 && in->bt.master > 0) in->bt.grad = 4;
    /* The wire dtype: --reduce-dtype, else the framework's (fp32 for fp32_grads and reduce_fp32,
     * and for bf16 under bf16_reduce_fp32). */
    bool mixed = in->bt.master > 0 || t->param_bytes == 4; /* 16-bit compute, fp32 master */
    bool fp32_wire = in->fw->fp32_grads || in->fw->reduce_fp32 ||
        (in->fw->bf16_reduce_fp32 && t->precision == PREC_BF16);
    if (t->reduce_bytes == 0 && t->grad_bytes == 0 && mixed && fp32_wire) in->bt.reduce = 4;
    /* BF16_Optimizer (fw_deepspeed.c) accumulates in an fp32 buffer and reduces in bf16, the
     * communication dtype, unless the flags say otherwise. */
    if (t->bf16_optimizer) {
        in->bt.grad = t->grad_bytes ? t->grad_bytes : 4;
        in->bt.reduce = t->reduce_bytes ? t->reduce_bytes : in->fw->bf16_reduce_fp32 ? 4 : 2;
    }
    /* FSDP keeps mixed precision's fp32 parameter as the stored shard, the master itself, and
     * its gradient shard in fp32 (framework.flat_params; fw_fsdp.c names the code); the 16-bit
     * copy exists only unsharded. CPUOffload keeps the same fp32 shards on the host: the
     * gradient goes down in fp32 after its cast, the shard comes up in fp32 for each unshard
     * and is cast on the GPU (pytorch/pytorch@fe03cf69 torch/distributed/fsdp/_flat_param.py
     * _use_low_precision_shard: _local_shard.to(device), then copy_ into the 16-bit _mp_shard).
     * Fine-tuning's frozen base keeps the byte table as it is. */
    in->flat_params = in->fw->flat_params && t->finetune == FT_FULL;
    if (in->flat_params && in->bt.master > 0) {
        in->bt.param = in->bt.master;
        in->bt.master = 0;
        if (t->grad_bytes == 0) in->bt.grad = in->bt.param;
        in->bt.what = "FSDP mixed precision: fp32 parameter and gradient shards (the master), "
                      "cast to 16 bits as they unshard";
    }
    in->dp = training_dp(t);
    in->gpus_per_node = scenario_gpus_per_node(hw, t);
    in->nodes = (t->gpus + in->gpus_per_node - 1) / in->gpus_per_node;
    in->domain_gpus = scenario_domain_gpus(hw, t);
    if (sim_check_hardware(in, hw, t, err) || sim_groups(in, t, err) || sim_links(in, hw, t, err))
        return err->code;
    double tp = (double)t->tp, pp = (double)t->pp;
    if (m->params_only) {
        if (t->pp_first_layers > 0 || t->pp_last_layers > 0)
            return zs_fail(
                err, ZS_ERR_USAGE, "--pp-first-layers / --pp-last-layers need --model (layers to place)");
        if (t->finetune != FT_FULL)
            return zs_fail(err, ZS_ERR_USAGE,
                "--finetune %s needs --model (adapters follow the layer shapes)",
                finetune_name((finetune_kind)t->finetune));
        in->stage_layers = 0;
        in->local_params = pc->total / (tp * pp);
        in->local_largest = pc->largest_module / tp;
        in->local_small = 0;
        in->trainable = in->local_params;
        in->param_bytes = in->bt.param * in->local_params;
        in->pipe_pace = 1; /* no layers to place: every stage the mean */
        return ZS_OK;
    }
    if (sim_check_shapes(m, t, err) || sim_stages(in, m, pc, t, err)) return err->code;
    return ZS_OK;
}

/* b's batch part into in (whose t is the training), the step FLOPs at its accumulation. */
static void sim_batch_use(sim_input *in, const sim_batch *b)
{
    in->tok = b->tok;
    in->fl = b->fl;
    compute_flops_accumulate(in->t, &in->fl);
    in->gemm_efficiency = b->gemm_efficiency;
    in->mb = b->mb;
    in->pipe_pace = b->pipe_pace;
    in->layer_act[0] = in->layer_act[1] = 0;
}

int sim_prepare_lazy(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
    const training *t, zs_error *err)
{
    if (sim_prepare_shape(in, m, pc, hw, t, err)) return err->code;
    in->tok = compute_flops_tokens(m, pc, t);
    sim_batch_rates(in);
    return ZS_OK;
}

int sim_prepare_lazy_from(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
    const training *t, const sim_batch *b, zs_error *err)
{
    if (sim_prepare_shape(in, m, pc, hw, t, err)) return err->code;
    sim_batch_use(in, b);
    return ZS_OK;
}

/* The checks that read the micro-batch, the accumulation or the recomputation (ranges, the
 * framework's micro-batch and recomputation rules, the kernel's); every later check of
 * sim_prepare_lazy reads none of them, so it passes as it did for in's training and the first
 * rule to refuse is the same. */
static int sim_batch_check(const sim_input *in, const training *t, zs_error *err)
{
    if (training_validate_batch(t, err) || framework_check_batch(in->fw, t, err) ||
        kernel_check(in->hw, t, err))
        return err->code;
    return ZS_OK;
}

int sim_prepare_batch(sim_input *in, const training *t, zs_error *err)
{
    if (sim_batch_check(in, t, err)) return err->code;
    in->t = t;
    /* What sim_prepare_lazy leaves zero before the rates write it. */
    memset(&in->fl, 0, sizeof in->fl);
    memset(&in->mb, 0, sizeof in->mb);
    in->gemm_efficiency = 0;
    in->layer_act[0] = in->layer_act[1] = 0;
    sim_batch_rates(in);
    return ZS_OK;
}

sim_batch sim_batch_of(const sim_input *in)
{
    return (sim_batch){in->tok, in->fl, in->gemm_efficiency, in->mb, in->pipe_pace};
}

int sim_prepare_batch_from(sim_input *in, const training *t, const sim_batch *b, zs_error *err)
{
    if (sim_batch_check(in, t, err)) return err->code;
    in->t = t;
    sim_batch_use(in, b);
    return ZS_OK;
}

int64_t scenario_node_size(const hardware *hw, const training *t)
{
    return t->gpus_per_node > 0 ? t->gpus_per_node : hw->gpus_per_node;
}

int64_t scenario_gpus_per_node(const hardware *hw, const training *t)
{
    int64_t n = scenario_node_size(hw, t);
    return n > t->gpus ? t->gpus : n;
}

int64_t scenario_domain_gpus(const hardware *hw, const training *t)
{
    int64_t n = scenario_node_size(hw, t);
    if (hw->domain_gpus > n) n = hw->domain_gpus;
    return n > t->gpus ? t->gpus : n;
}

/* A rank's memory on its stage's share of the model. */
static void sim_memory_of(const sim_input *in, const strategy *s, memory *mem)
{
    memory_states(in, s->shards, mem);
    memory_buffers(in, s, mem);
    memory_activations(in, mem);
    memory_autocast(in, s, mem);
    memory_finish(in, mem);
}

/* The peak over the pipeline's stages: each view (first, a middle one, last) with its own
 * layers, embedding or head and micro-batches in flight; the heaviest decides. */
static void sim_stage_memory(const sim_input *in, const strategy *s, memory *mem)
{
    if (in->pipe.nviews <= 1) {
        sim_memory_of(in, s, mem);
        return;
    }
    sim_input v = *in; /* one copy per evaluation; each view overwrites the stage's fields */
    for (int k = 0; k < in->pipe.nviews; k++) {
        /* A middle stage with no more layers than the first cannot outweigh it (fewer in flight,
         * no embedding): skip it (plan's hot path, every even split). */
        const pipe_stage *st = &in->pipe.views[k];
        if (!st->embedding && !st->head && in->pipe.mid <= in->pipe.first) continue;
        memory one = {0};
        sim_use_stage(&v, k);
        sim_memory_of(&v, s, &one);
        if (k == 0 || one.total > mem->total) *mem = one;
    }
}

/* ZeRO-3 keeps a tensor below the persistence threshold whole (DeepSpeed: ds_numel under
 * param_persistence_threshold). A routed expert's weight (h x i / ETP) under it would stay
 * whole beside expert parallelism, which the experts' sharding over EDP does not model: says
 * so in why (room for len) and returns false. */
static bool sim_experts_sharded(const sim_input *in, const strategy *s, char *why, size_t len)
{
    const training *t = in->t;
    if (in->local_expert <= 0 || !s->shards.parameters || in->flat_params || t->persistence_threshold <= 0)
        return true;
    double tensor = (double)in->m->hidden_size * (double)model_expert_width(in->m) / (double)in->etp;
    if (tensor >= t->persistence_threshold) return true;
    snprintf(why, len, "--persistence-threshold %.4g keeps each %.4g-element expert weight whole beside EP: "
                       "not modelled", t->persistence_threshold, tensor);
    return false;
}

bool sim_run_memory(const sim_input *in, const strategy *s, result *r)
{
    r->strategy = s;
    r->why[0] = '\0';
    memset(&r->mem, 0, sizeof r->mem);
    r->framework = in->fw;
    r->applicable = strategy_allows(s, in->t, r->why, sizeof r->why) &&
        framework_allows(in->fw, s, in->t, r->why, sizeof r->why) &&
        sim_experts_sharded(in, s, r->why, sizeof r->why);
    r->fits = false;
    if (!r->applicable) {
        r->plan.n = 0;
        memset(&r->comm, 0, sizeof r->comm);
        memset(&r->step, 0, sizeof r->step);
        memset(&r->cost, 0, sizeof r->cost);
        r->tokens_per_second = r->tflops_per_gpu = r->mfu = r->hfu = 0;
        r->mfu_published = r->hfu_published = 0;
        r->has_interval = false; /* the table reads it for every column (report.c row_shown) */
        r->step_lo = r->step_hi = 0;
        return false;
    }
    sim_stage_memory(in, s, &r->mem);
    r->fits = r->mem.fits_gpu && r->mem.fits_host;
    return r->fits;
}

void sim_run_time(const sim_input *in, const strategy *s, double tokens, result *r)
{
    const training *t = in->t;
    r->plan.n = 0;
    r->plan.compute_copies = 0;
    s->comm(s, in, &r->plan);
    comm_add_common(in, s, &r->plan);
    comm_summarise(in, &r->plan, &r->comm);
    r->comm.ideal_bytes = strategy_ideal_bytes(s, in);
    steptime_compute(in, &r->plan, s->shards.optimizer ? (double)in->shard_dp : 1,
        s->shards.optimizer ? memory_expert_shards(in) : 1, &r->step);

    double step = r->step.total, gpus = (double)t->gpus;
    /* In double: the int64 product of the largest accepted values overflows. */
    double tokens_step = (double)in->dp * (double)t->micro_batch * (double)t->seq_len * (double)t->grad_accum;
    r->tokens_per_second = tokens_step / step;
    r->tflops_per_gpu = in->fl.model_step_full / step / 1e12;
    r->mfu = in->fl.model_step / step / in->peak;
    r->hfu = in->fl.hw_step / step / in->peak;
    r->mfu_published = in->fl.model_step_full / step / in->peak;
    r->hfu_published = in->fl.hw_step_full / step / in->peak;
    memset(&r->cost, 0, sizeof r->cost);
    r->has_interval = false;
    r->step_lo = r->step_hi = step;
    if (tokens > 0) {
        train_cost *c = &r->cost;
        c->tokens = tokens;
        c->seconds = tokens / r->tokens_per_second;
        c->gpu_hours = c->seconds / 3600 * gpus;
        c->dollars = c->gpu_hours * in->hw->price_per_gpu_hour;
        c->kwh = c->gpu_hours * in->hw->tdp_watts / 1000;
    }
}

double sim_time_bound(const sim_input *in, const strategy *s)
{
    return steptime_bound(in, s->shards.optimizer ? (double)in->shard_dp : 1,
        s->shards.optimizer ? memory_expert_shards(in) : 1);
}

void sim_run(const sim_input *in, const strategy *s, double tokens, result *r)
{
    /* Every field is written by the two halves; no memset of the whole (1.5 kB) result. */
    sim_run_memory(in, s, r);
    if (r->applicable) sim_run_time(in, s, tokens, r);
}

int sim_run_scenario(const scenario *sc, result *r, int *n, zs_error *err)
{
    sim_input in;
    *n = 0;
    if (sim_prepare(&in, sc->m, sc->pc, sc->hw, sc->t, err)) return err->code;
    for (int k = 0; sc->chosen[k] && k < STRATEGY_MAX; k++)
        sim_run(&in, sc->chosen[k], sc->tokens, &r[(*n)++]);
    return ZS_OK;
}
