/* comm.c -- the communication every strategy shares (TP, PP, offload) and plan summaries. */
#include "core/comm.h"

#include <math.h>
#include <string.h>

#include "core/framework.h"
#include "core/scenario.h"
#include "core/strategy.h"
#include "core/tpoverlap.h"

void comm_add(comm_plan *p, comm_op op)
{
    if (p->n < COMM_MAX_OPS && op.calls > 0 && op.size > 0) p->op[p->n++] = op;
}

/* The routed experts of a stage's MoE blocks under sequence parallelism, Megatron-Core's
 * all-to-all dispatcher: after the EP all-to-all the routed tokens are all-gathered over the
 * expert-TP group, and reduce-scattered back after the experts (NVIDIA/Megatron-LM@d98e8a64
 * megatron/core/transformer/moe/token_dispatcher.py MoEAlltoAllTokenDispatcher:
 * gather_from_sequence_parallel_region(global_input_tokens, group=self.tp_group), the expert TP
 * group; reduce_scatter_to_sequence_parallel_region in combine). That replaces the block's
 * dense MLP pair on TP (shared experts keep one: SharedExpertMLP is a TP-split MLP). Size: ETP x
 * the rank's routed tokens, as comm_ep's buffer. At TP 1 the experts may still split (ETP > TP,
 * Megatron-Core's expert grid). Returns the dense pairs the blocks drop. */
static double comm_tp_experts(const sim_input *in, comm_plan *p, double mb, bool recompute)
{
    const model *m = in->m;
    const training *t = in->t;
    if (m->params_only || m->num_experts <= 0 || (!t->sequence_parallel && t->tp > 1)) return 0;
    double moe = (double)model_blocks(m, BLOCK_MOE) * (double)in->stage_layers / (double)m->num_layers;
    if (moe <= 0) return 0;
    double pairs = moe * mb * (2 + (recompute ? 1 : 0));
    if (in->etp > 1) {
        double k = (double)m->experts_per_token * (m->capacity_factor > 0 ? m->capacity_factor : 1);
        double routed = (double)t->seq_len / (double)t->cp * (double)t->micro_batch / (double)t->tp * k *
            (double)m->hidden_size * in->bt.act * t->moe_imbalance;
        double size = routed * (double)in->etp;
        comm_add(p,
            (comm_op){COLL_ALL_GATHER, GROUP_ETP, size, pairs, true, OVERLAP_NONE, 0,
                "expert TP all-gather (routed tokens, ETP)", 0, 0, 0, 0});
        comm_add(p,
            (comm_op){COLL_REDUCE_SCATTER, GROUP_ETP, size, pairs, true, OVERLAP_NONE, 0,
                "expert TP reduce-scatter (routed tokens, ETP)", 0, 0, 0, 0});
    }
    return m->shared_intermediate_size > 0 ? 0 : pairs;
}

/* Megatron-LM (Shoeybi et al. 2019, section 3): two all-reduces of the s b h activations per
 * block in forward and two in backward; a full recompute repeats the forward pair. Sequence
 * parallelism turns each into a reduce-scatter plus an all-gather of the same volume
 * (Korthikanti et al. 2022, section 4.2.2). */
static void comm_tp(const sim_input *in, comm_plan *p)
{
    const training *t = in->t;
    const model *m = in->m;
    double mb = (double)t->grad_accum, layers = (double)in->stage_layers;
    double act = in->bt.act * (double)(t->seq_len / t->cp * t->micro_batch * m->hidden_size);
    /* Per block: 2 forward + 2 backward normally; a parallel block (Falcon, Phi,
     * Cohere) 1 + 1; cross-attention one more each way (model_tp_allreduces). */
    double ar = model_tp_allreduces(m);
    bool full = t->checkpointing == CKPT_FULL;
    double calls = layers * mb * (2 * ar + (full ? ar : 0));
    if (t->sequence_parallel) {
        calls -= comm_tp_experts(in, p, mb, full);
        /* TP communication overlap (Megatron/NeMo --tp-comm-overlap, TE userbuffers) hides
         * what the chunked GEMMs cover (tpoverlap.c). */
        coll_cost ag, rs;
        coll_cost_of(COLL_ALL_GATHER, act, in->groups[GROUP_TP], in->links, &ag);
        coll_cost_of(COLL_REDUCE_SCATTER, act, in->groups[GROUP_TP], in->links, &rs);
        tp_hidden hid = tpoverlap_hidden(in, ag.seconds, rs.seconds);
        comm_add(p,
            (comm_op){COLL_REDUCE_SCATTER, GROUP_TP, act, calls, true, OVERLAP_NONE, 0,
                "TP reduce-scatter (activations)", 0, 0, 0, hid.rs});
        comm_add(p,
            (comm_op){COLL_ALL_GATHER, GROUP_TP, act, calls, true, OVERLAP_NONE, 0,
                "TP all-gather (activations)", 0, 0, 0, hid.ag});
    } else {
        comm_add(p,
            (comm_op){COLL_ALL_REDUCE, GROUP_TP, act, calls, true, OVERLAP_NONE, 0,
                "TP all-reduce (activations)", 0, 0, 0, 0});
    }
}

/* Ring attention (Liu et al. 2023; Megatron-Core and torchtitan context parallelism): each
 * layer passes its K and V chunk (s/cp tokens, kv width, split by TP) to the next CP rank
 * cp - 1 times in forward, overlapped with the attention of the chunk in hand; backward
 * passes K and V again and returns their gradients: twice the bytes. A full recompute
 * repeats the forward ring. */
static void comm_cp(const sim_input *in, comm_plan *p)
{
    const training *t = in->t;
    const model *m = in->m;
    double mb = (double)t->grad_accum, layers = (double)in->stage_layers;
    double cp = (double)t->cp, kvd = (double)(m->num_kv_heads * m->head_dim);
    double chunk = 2 * in->bt.act * (double)t->seq_len / cp * (double)t->micro_batch * kvd / (double)t->tp;
    double fwd = layers * (cp - 1) * mb * (t->checkpointing == CKPT_FULL ? 2 : 1);
    comm_add(p,
        (comm_op){COLL_P2P, GROUP_CP, chunk, fwd, true, OVERLAP_ATTN_FWD, 0, "CP ring K/V exchange (forward)",
            0, 0, 0, 0});
    comm_add(p,
        (comm_op){COLL_P2P, GROUP_CP, 2 * chunk, layers * (cp - 1) * mb, true, OVERLAP_ATTN_BWD, 0,
            "CP ring K/V and gradients (backward)", 0, 0, 0, 0});
}

/* The experts' gradients reduce over the expert-data-parallel group, as the strategy
 * reduces the dense ones over DP: reduce-scatter + gather of the updated experts when
 * it shards the optimizer, all-reduce otherwise. */
static void comm_expert_grads(const sim_input *in, const strategy *s, comm_plan *p)
{
    double mb = (double)in->t->grad_accum;
    bool every = s->grad_reduce == REDUCE_PER_MICRO_BATCH;
    double g = in->bt.reduce * in->local_expert;
    overlap_kind ov = strategy_overlap(in, s) ? OVERLAP_BACKWARD : OVERLAP_NONE;
    int64_t shard = in->groups[GROUP_EDP].n, replicas = in->groups[GROUP_EDP_REPLICA].n;
    if (shard <= 1 && replicas <= 1) {
        /* one expert-data-parallel rank: nothing to reduce */
    } else if (s->shards.optimizer && replicas > 1) {
        /* Hybrid sharding: reduce-scatter inside the shard group, the shard all-reduced
         * across the replicas (as the dense gradients, below). */
        if (shard > 1)
            comm_add(p,
                (comm_op){COLL_REDUCE_SCATTER, GROUP_EDP, g, every ? mb : 1, every, ov, 0,
                    "expert gradient reduce-scatter (EDP)", 0, 0, 0, 0});
        comm_add(p,
            (comm_op){COLL_ALL_REDUCE, GROUP_EDP_REPLICA, g / (double)shard, every ? mb : 1, every, ov, 0,
                "expert gradient all-reduce across replicas (EDP)", 0, 0, 0, 0});
        if (!s->shards.parameters && shard > 1)
            comm_add(p,
                (comm_op){COLL_ALL_GATHER, GROUP_EDP, in->bt.gather * in->local_expert, 1, false,
                    OVERLAP_NONE, 0, "expert parameter all-gather (EDP)", 0, 0, 0, 0});
    } else if (s->shards.optimizer) {
        comm_add(p,
            (comm_op){COLL_REDUCE_SCATTER, GROUP_EDP, g, every ? mb : 1, every, ov, 0,
                "expert gradient reduce-scatter (EDP)", 0, 0, 0, 0});
        if (!s->shards.parameters) /* sharded parameters gather on use (the strategy's) */
            comm_add(p,
                (comm_op){COLL_ALL_GATHER, GROUP_EDP, in->bt.gather * in->local_expert, 1, false,
                    OVERLAP_NONE, 0, "expert parameter all-gather (EDP)", 0, 0, 0, 0});
    } else {
        comm_add(p,
            (comm_op){COLL_ALL_REDUCE, GROUP_EDP, g, 1, false, ov, 0, "expert gradient all-reduce (EDP)", 0,
                0, 0, 0});
    }
}

/* Expert parallelism (Megatron-Core's all-to-all token dispatcher; Lepikhin et al. 2020): per
 * MoE block, each rank sends its tokens' hidden states to the k experts' ranks (dispatch) and
 * receives the results (combine), forward and again backward, a full recompute repeating the
 * forward pair. Buffer per rank: tokens x k' x h x e, k' = k (dropless) or capacity_factor x
 * k, times the load imbalance (the busiest rank sets the pace). Tokens are the rank's s/cp of
 * the micro-batch, / TP with sequence parallelism. */
static void comm_ep(const sim_input *in, const strategy *s, comm_plan *p)
{
    const training *t = in->t;
    const model *m = in->m;
    double mb = (double)t->grad_accum, layers = (double)in->stage_layers;
    double moe_blocks = (double)model_blocks(m, BLOCK_MOE) * layers / (double)m->num_layers;
    double k = (double)m->experts_per_token * (m->capacity_factor > 0 ? m->capacity_factor : 1);
    double tokens = (double)t->seq_len / (double)t->cp * (double)t->micro_batch /
        (t->sequence_parallel ? (double)t->tp : 1);
    double buf = tokens * k * (double)m->hidden_size * in->bt.act * t->moe_imbalance;
    double calls = moe_blocks * mb * (4 + (t->checkpointing == CKPT_FULL ? 2 : 0));
    comm_add(p,
        (comm_op){COLL_ALL_TO_ALL, GROUP_EP, buf, calls, true, OVERLAP_NONE, 0,
            "EP all-to-all (dispatch + combine)", 0, 0, 0, 0});
    comm_expert_grads(in, s, p);
}

/* The updated parameters' way back to the GPU after the CPU optimizer step, as the
 * framework's step code copies them (framework.h offload_copy; fw_deepspeed.c reads each
 * version's code): `part` parameters a rank. */
static comm_op comm_offload_params_back(const sim_input *in, const strategy *s, double part)
{
    offload_copy_kind how = in->fw->offload_copy[s->shards.parameters ? 1 : 0];
    double w16 = in->bt.param, w32 = in->bt.master > 0 ? in->bt.master : in->bt.param;
    comm_op op = {COLL_P2P, GROUP_HOST, w16 * part, 1, false, OVERLAP_NONE, 0,
        "offload: parameters from host", 0, 0, 0, 0};
    if (how == OFFLOAD_COPY_PINNED32) op.size = w32 * part; /* fp32 on the wire */
    /* A blocking copy_ from a CPU fp32 tensor into a 16-bit GPU tensor converts on the CPU
     * into a new, pageable tensor and copies that ("For blocking transfers conversions are
     * performed on CPU", pytorch/pytorch@v2.1.0 aten/src/ATen/native/cuda/Copy.cu,
     * copy_kernel_cuda). DeepSpeed's PR #5301 (deepspeedai/DeepSpeed@7b5b0660, v0.14.1)
     * replaced it with the pinned fp32 copy converted on the GPU and measured "Speedup h2d
     * memcpy by 6x on single GPU": the pageable path takes six pinned fp32 copies' time. The
     * wire carries the 16-bit bytes; the rest is host work (staging and conversion). */
    if (how == OFFLOAD_COPY_PAGEABLE)
        op.overhead = (6 * w32 - w16) * part / in->links[LEVEL_HOST].bandwidth;
    if (how == OFFLOAD_COPY_FUSED) op.overlap = OVERLAP_OPTIMIZER;
    return op;
}

/* Offload traffic over PCIe: the optimizer's (ZeRO-Offload) and the parameters' (ZeRO-Infinity). */
static void comm_offload(const sim_input *in, const strategy *s, comm_plan *p)
{
    const training *t = in->t;
    double mb = (double)t->grad_accum;
    double part = in->trainable / (double)in->shard_dp;
    double stored = in->param_bytes / (double)in->shard_dp; /* the partition as stored */
    if (t->offload_optimizer != OFFLOAD_NONE && s->offload_optimizer) {
        /* ZeRO-Offload (arXiv 2101.06840 section 4.1): the gradient partition goes down over
         * PCIe as it is reduced (every micro-batch when the strategy reduces every
         * micro-batch), and updated 16-bit parameters come back up after the CPU step, unless
         * the parameters live on the host too: then the step updates them there (DeepSpeed
         * stage3.py: fp16_partitioned_groups_flat on the CPU with offload_param; FSDP
         * CPUOffload's flat parameter) and the next forward's fetch below brings them. */
        bool every = s->grad_reduce == REDUCE_PER_MICRO_BATCH;
        double gw = in->fw->offload_grads_fp32 && in->bt.master > 0 ? in->bt.master : in->bt.grad;
        double w32 = in->bt.master > 0 ? in->bt.master : in->bt.grad;
        if (s->shards.parameters && in->fw->z3_grads_host_accum) {
            /* The host accumulation buffer (framework.h): each micro-batch's partition down and
             * back up on one stream beside the backward, then the fp32 gradient down at the
             * boundary, blocking (fw_deepspeed.c names the code). */
            comm_add(p,
                (comm_op){COLL_P2P, GROUP_HOST, 2 * in->bt.grad * part, mb, true, OVERLAP_BACKWARD, 0,
                    "offload: gradients to host and back", 0, 0, 0, 0});
            comm_add(p,
                (comm_op){COLL_P2P, GROUP_HOST, (in->fw->z3_boundary_fp32 ? w32 : in->bt.grad) * part, 1,
                    false, OVERLAP_NONE, 0, "offload: gradients at the boundary", 0, 0, 0, 0});
        } else {
            comm_add(p,
                (comm_op){COLL_P2P, GROUP_HOST, gw * part, every ? mb : 1, every, OVERLAP_BACKWARD, 0,
                    "offload: gradients to host", 0, 0, 0, 0});
        }
        if (!(t->offload_params != OFFLOAD_NONE && s->offload_params))
            comm_add(p, comm_offload_params_back(in, s, part));
    }
    if (t->offload_params != OFFLOAD_NONE && s->offload_params) {
        /* ZeRO-Infinity: the parameter partition is fetched for forward and for backward. */
        comm_add(p,
            (comm_op){COLL_P2P, GROUP_HOST, stored, mb, true, OVERLAP_FORWARD, 0,
                "offload: parameters for forward", 0, 0, 0, 0});
        comm_add(p,
            (comm_op){COLL_P2P, GROUP_HOST, stored, mb, true, OVERLAP_BACKWARD, 0,
                "offload: parameters for backward", 0, 0, 0, 0});
        /* Parameters offloaded, optimizer not: the fp32 states step on the GPU and the updated
         * 16-bit partition goes back down to its host copy once a step
         * (microsoft/DeepSpeed@38327e07 deepspeed/runtime/zero/stage3.py: the fp32 partitions
         * sit on the accelerator "if not self.offload_optimizer"). */
        if (t->offload_optimizer == OFFLOAD_NONE)
            comm_add(p, (comm_op){COLL_P2P, GROUP_HOST, stored, 1, false, OVERLAP_NONE, 0,
                            "offload: updated parameters to host", 0, 0, 0, 0});
    }
}

/* Activation offload: each micro-batch's stored block inputs go to the host in forward and
 * come back in backward over PCIe, on their own stream beside the compute, or on the compute
 * stream itself where the framework's copies block (DeepSpeed's cpu_checkpointing). */
static void comm_act_offload(const sim_input *in, comm_plan *p)
{
    double bytes = in->t->offload_activations ? memory_ckpt_inputs(in) : 0;
    if (bytes <= 0) return;
    double mb = (double)in->t->grad_accum;
    bool sync = in->t->offload_act_sync >= 0 ? in->t->offload_act_sync != 0 : in->fw->act_offload_sync;
    comm_add(p, (comm_op){COLL_P2P, GROUP_HOST, bytes, mb, true, sync ? OVERLAP_NONE : OVERLAP_FORWARD, 0,
                    "offload: activations to host", 0, 0, 0, 0});
    comm_add(p, (comm_op){COLL_P2P, GROUP_HOST, bytes, mb, true, sync ? OVERLAP_NONE : OVERLAP_BACKWARD, 0,
                    "offload: activations from host", 0, 0, 0, 0});
}

void comm_add_common(const sim_input *in, const strategy *s, comm_plan *p)
{
    const training *t = in->t;
    const model *m = in->m;
    double mb = (double)t->grad_accum;
    if (!m->params_only && t->tp > 1)
        comm_tp(in, p);
    else if (in->etp > 1)
        comm_tp_experts(in, p, (double)t->grad_accum, t->checkpointing == CKPT_FULL);
    if (!m->params_only && t->pp > 1) {
        /* One activation tensor forward and one gradient backward per micro-batch per stage
         * boundary, split over TP ranks (Megatron's scatter-gather optimisation). */
        double act =
            in->bt.act * (double)(t->seq_len / t->cp * t->micro_batch * m->hidden_size) / (double)t->tp;
        comm_add(p,
            (comm_op){COLL_P2P, GROUP_PP, act, 2 * mb, true, OVERLAP_NONE, 0, "PP send/recv (activations)", 0,
                0, 0, 0});
    }
    if (!m->params_only && t->cp > 1) comm_cp(in, p);
    if (!m->params_only && t->ep > 1) comm_ep(in, s, p);
    if (in->groups[GROUP_REPLICA].n > 1 &&
        (s->shards.optimizer || s->shards.gradients || s->shards.parameters)) {
        /* Hybrid sharding (HSDP, MiCS): each shard group reduces its gradients inside, then
         * the shards are all-reduced across the replicas: 2 (R-1)/R of grads / S per rank
         * over the network instead of the whole gradient (Zhang et al. 2022, section 3.2). */
        bool every = s->grad_reduce == REDUCE_PER_MICRO_BATCH;
        double shard = in->bt.reduce * in->trainable / (double)in->shard_dp * (t->quant_grads ? 0.25 : 1);
        comm_add(p,
            (comm_op){COLL_ALL_REDUCE, GROUP_REPLICA, shard, every ? mb : 1, every,
                strategy_overlap(in, s) ? OVERLAP_BACKWARD : OVERLAP_NONE, 0,
                "gradient all-reduce across replicas", 0, 0, 0, 0});
    }
    comm_offload(in, s, p);
    comm_act_offload(in, p);
    /* BF16_Optimizer adds each micro-batch's bf16 gradients into its buffer on the compute
     * stream, hp_grad.add_(lp.grad.to(hp_grad.dtype)) (fw_deepspeed.c update_hp_grads): in fp32
     * the cast reads 2 and writes 4 bytes a parameter, the add reads 4 + 4 and writes 4 (18); a
     * bf16 buffer (the pipeline engine's) casts nothing, the add moves 2 + 2 + 2 (6). */
    if (t->bf16_optimizer) {
        double g = in->bt.grad, lp = in->bt.param;
        p->compute_copies += (3 * g + (g != lp ? lp + g : 0)) * in->trainable * mb / in->hbm_rate;
    }
    if (framework_autocast(in->fw, s, t) && !m->params_only) {
        /* Autocast over fp32 parameters (--param-dtype fp32, torchtitan's DDP: framework.h
         * ddp_autocast): every forward (and the full recompute's) casts each
         * weight to 16 bits (read 4, write 2 bytes), and each backward casts its 16-bit weight
         * gradient back to fp32 through the cast's backward (read 2, write 4), on the compute
         * stream at the HBM rate. */
        double passes = mb * (1 + (t->checkpointing == CKPT_FULL ? 1 : 0)) + mb;
        p->compute_copies += 6 * in->local_params * passes / in->hbm_rate;
    }
}

/* Cost of one op (per call) on its group's levels. */
static void comm_op_cost(const sim_input *in, const comm_op *op, coll_cost *c)
{
    if (op->group == GROUP_HOST) {
        memset(c, 0, sizeof *c);
        c->seconds = op->size / in->links[LEVEL_HOST].bandwidth + in->links[LEVEL_HOST].alpha;
        c->bytes[LEVEL_HOST] = op->size;
        return;
    }
    coll_cost_of(op->kind, op->size, in->groups[op->group], in->links, c);
}

void comm_summarise(const sim_input *in, comm_plan *p, comm_summary *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < p->n; i++) {
        coll_cost c;
        comm_op *op = &p->op[i];
        op->tail_seconds = 0;
        comm_op_cost(in, op, &c);
        if (op->tail > 0 && op->overlap != OVERLAP_NONE) {
            /* The tail is the same call on fewer bytes (the same shape: NCCL's kept tables). */
            coll_cost tc;
            comm_op tail = *op;
            tail.size = op->tail;
            comm_op_cost(in, &tail, &tc);
            op->tail_seconds = tc.seconds;
        }
        op->seconds = c.seconds + op->overhead;
        for (int l = 0; l < LEVEL_COUNT; l++) {
            s->bytes_level[l] += c.bytes[l] * p->op[i].calls;
            s->bytes_kind[p->op[i].kind] += c.bytes[l] * p->op[i].calls;
            s->bytes_group[p->op[i].group] += c.bytes[l] * p->op[i].calls;
            s->bytes_total += c.bytes[l] * p->op[i].calls;
        }
        s->seconds_total += c.seconds * p->op[i].calls;
    }
}
