/* strat_zero3.c -- ZeRO stage 3: parameters, gradients and optimizer states all sharded. */
#include <math.h>
#include <stdbool.h>

#include "core/framework.h"
#include "core/memory.h"
#include "core/minmax.h"
#include "core/scenario.h"
#include "core/strategy.h"

static void zero3_buffers(const strategy *s, const sim_input *in, memory *mem)
{
    (void)s;
    const training *t = in->t;
    /* Gradients of a module arrive whole before their reduce-scatter: one reduce bucket,
     * never more than the rank's parameters. */
    mem->comm_buffers = in->bt.grad * zs_fmin(t->reduce_bucket, in->local_params);
    /* Working set: the module being computed, gathered whole (the largest one bounds it),
     * plus what the prefetcher has fetched ahead, capped by stage3_max_live_parameters. */
    double live = zs_fmin(t->max_live_params, in->local_largest + t->prefetch_bucket);
    live = zs_fmin(zs_fmax(live, in->local_largest), in->local_params);
    /* Expert parallelism: a MoE block's experts are gathered whole over EDP (zero3_comm),
     * beside the dense working set. */
    if (memory_expert_shards(in) > 1) live += memory_expert_unit(in);
    mem->gathered_params = in->bt.gather * live;
}

/* ZeRO paper section 7.2.2: parameters are all-gathered for forward and again for backward,
 * and gradients reduce-scattered: 3P per micro-batch. A full recompute gathers once more.
 * The prefetcher hides gathers under compute; the first module's gather cannot hide.
 * ZeRO++ (Wang et al. 2023, arXiv 2306.10209, section 4): qwZ sends int8 weights in the
 * forward gather (half the bytes of 16-bit), hpZ gathers for backward from the secondary
 * partition inside the node, qgZ reduce-scatters int4 gradients (a quarter of the bytes). */
static void zero3_comm(const strategy *s, const sim_input *in, comm_plan *p)
{
    const training *t = in->t;
    const framework *fw = in->fw;
    double m = (double)t->grad_accum;
    /* With expert parallelism the routed experts gather over their own group (below). */
    double sharded = in->local_params - in->local_small - in->local_expert;
    /* One all-gather per module (DeepSpeed) or per unit (FSDP: a transformer block), the
     * first one's cannot hide; one reduce-scatter per reduce bucket or unit: per-call latency
     * and the framework's per-fetch work matter at scale. */
    double per_layer = fw->buffers == BUFFERS_UNITS ? 1 : in->pc->modules_per_layer;
    double modules = in->m->params_only ? 1 : zs_fmax(1, per_layer * (double)in->stage_layers + 2);
    /* Gathers move parameters as stored (QLoRA: NF4 for the frozen linears), FSDP's cast to
     * the compute dtype first (bt.gather). */
    double w = t->finetune != 0 && in->local_params > 0 ? in->param_bytes / in->local_params : in->bt.gather;
    double params = w * sharded / modules, first = w * zs_fmin(in->local_largest, sharded);
    double wq = t->quant_weights ? 0.5 : 1;
    bool overlap = strategy_overlap(in, s);
    overlap_kind fwd = overlap ? OVERLAP_FORWARD : OVERLAP_NONE;
    overlap_kind bwd = overlap ? OVERLAP_BACKWARD : OVERLAP_NONE;
    group_kind back = t->hpz_group > 1 ? GROUP_HPZ : GROUP_SHARD;
    /* The framework version's fetch (framework.h): calls per module, host work per call and
     * per rank, and whether the fetch waits (then no gather hides). */
    double per_mod = fw->gathers_per_module > 0 ? fw->gathers_per_module : 1;
    double ranks = (double)in->groups[GROUP_SHARD].n;
    /* Parameters per module: a linear's weight, and its bias where the model has them. */
    double ppm = in->m->params_only ? 1 : 1 + (in->m->mlp_bias || in->m->qkv_bias);
    double per_call = fw->gathers_per_module > 0 ? 1 : ppm;
    /* Host work per gather call, its per-rank part over the group it gathers from (hpZ's
     * backward gathers the secondary partition inside the node). */
    double hbm = fw->fetch_hbm_passes > 0 ? fw->fetch_hbm_passes * params / per_mod / in->hbm_rate : 0;
    double per_rank = fw->gather_per_rank + fw->gather_per_rank_param * per_call;
    double g_host = fw->gather_overhead + ranks * per_rank + hbm;
    double g_back = fw->gather_overhead + (double)in->groups[back].n * per_rank + hbm;
    overlap_kind gfwd = fw->sync_fetch ? OVERLAP_NONE : fwd, gbwd = fw->sync_fetch ? OVERLAP_NONE : bwd;
    comm_add(p,
        (comm_op){COLL_ALL_GATHER, GROUP_SHARD, wq * params / per_mod, per_mod * m * modules, true, gfwd,
            wq * first, "parameter all-gather (forward)", 0, 0, g_host, 0});
    /* Copies on the compute stream after each forward and backward unshard (framework.h):
     * every gathered byte of the step's two passes, at the HBM rate. */
    if (fw->unshard_copy_passes > 0)
        p->compute_copies += fw->unshard_copy_passes * 2 * m * w * sharded / in->hbm_rate;
    /* A full recompute gathers again unless the checkpoint sits inside the sharding unit
     * (framework_recompute_in_unit): then the unit's backward gather serves it. */
    double again = t->checkpointing == CKPT_FULL ? 2 : 1;
    double again_unit = framework_recompute_in_unit(fw, t) ? 1 : again;
    const char *bwd_what =
        again_unit > 1 ? "parameter all-gather (recompute + backward)" : "parameter all-gather (backward)";
    comm_add(p,
        (comm_op){COLL_ALL_GATHER, back, params / per_mod, per_mod * again_unit * m * modules, true, gbwd, 0,
            bwd_what, 0, 0, g_back, 0});
    if (in->local_expert > 0 && memory_expert_shards(in) > 1 && !in->m->params_only) {
        /* Expert parallelism (torchtitan: fully_shard on each MoE block's experts over the
         * expert-data-parallel mesh): one gather of the block's experts forward and again
         * backward (and for the recompute: their fully_shard sits inside the block's
         * checkpoint, so its hooks run in the recomputed forward), over EDP; their gradients
         * reduce-scatter there too (comm.c, with the other expert traffic). */
        double blocks = zs_fmax(
            1, (double)model_blocks(in->m, BLOCK_MOE) * (double)in->stage_layers / (double)in->m->num_layers);
        double unit = w * memory_expert_unit(in);
        comm_add(p,
            (comm_op){COLL_ALL_GATHER, GROUP_EDP, unit, m * blocks, true, fwd, 0,
                "expert parameter all-gather (forward, EDP)", 0, 0, fw->gather_overhead, 0});
        comm_add(p,
            (comm_op){COLL_ALL_GATHER, GROUP_EDP, unit, again * m * blocks, true, bwd, 0,
                "expert parameter all-gather (backward, EDP)", 0, 0, fw->gather_overhead, 0});
    }
    double gq = t->quant_grads ? 0.25 : 1;
    double grads = in->bt.reduce * in->trainable; /* as reduced: the wire dtype */
    double bucket = fw->buffers == BUFFERS_UNITS
        ? in->bt.reduce * zs_fmin(sharded / modules + in->local_small, in->trainable)
        : in->bt.reduce * zs_fmin(t->reduce_bucket, in->trainable);
    double buckets = ceil(grads / bucket);
    if (fw->reduces_per_module > 0) { /* one reduce-scatter per parameter (DeepSpeed v0.3) */
        buckets = fw->reduces_per_module * modules;
        bucket = grads / buckets;
    }
    double per_bucket = fw->reduces_per_module > 0 ? 1 : ppm * modules / buckets; /* gradients */
    double r_host =
        fw->reduce_overhead + ranks * (fw->reduce_per_rank + fw->reduce_per_rank_param * per_bucket);
    comm_add(p,
        (comm_op){COLL_REDUCE_SCATTER, GROUP_SHARD, gq * grads / buckets, m * buckets, true, bwd, gq * bucket,
            "gradient reduce-scatter", 0, 0, r_host, 0});
}

/* DeepSpeed turns overlap_comm on by default for stage 3 (deepspeed/runtime/zero/config.py);
 * offload_param exists only at stage 3 (ZeRO-Infinity, arXiv 2104.07857). */
const strategy strat_zero3 = {
    .id = STRAT_ZERO3,
    .name = "zero3",
    .label = "ZeRO-3",
    .shards = {.optimizer = true, .gradients = true, .parameters = true},
    .grad_reduce = REDUCE_PER_MICRO_BATCH,
    .offload_optimizer = true,
    .offload_params = true,
    .overlap_default = true,
    .buffers = zero3_buffers,
    .comm = zero3_comm,
};
