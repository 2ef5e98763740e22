/* steptime.c -- overlap model: buckets hide under backward, prefetch under forward. */
#include "core/steptime.h"

#include <math.h>

#include "core/framework.h"
#include "core/minmax.h"
#include <string.h>

/* Bytes an Adam step moves per parameter, fused, for the byte table: read the gradient, the
 * master (or working) copy and both moments, write them back and the 16-bit copy. 28 for
 * mixed precision with 16-bit gradients and for fp32. */
static double steptime_optimizer_bytes(const byte_table *bt)
{
    double weights = bt->master > 0 ? 2 * bt->master + bt->param : 2 * bt->param;
    return bt->grad + weights + 2 * bt->moments;
}

/* Seconds one rank's CPU optimizer step takes with its states on NVMe (ZeRO-Infinity), given
 * the step's CPU time `cpu` over `shard` local parameters: reads and writes at the node's NVMe
 * bandwidth shared by its GPUs, overlapped with the CPU step as DeepSpeed's pipeline_read /
 * pipeline_write do. *io gets the NVMe seconds alone (may be NULL). Pure; 0 I/O when the
 * optimizer is not on NVMe. */
static double steptime_nvme_step(const sim_input *in, double shard, double cpu, double *io)
{
    const training *t = in->t;
    if (io) *io = 0;
    if (t->offload_optimizer != OFFLOAD_NVME || in->hw->nvme_bandwidth <= 0) return cpu;
    /* ZeRO-Infinity (Rajbhandari et al. 2021, arXiv 2104.07857, sections 5-6; DeepSpeed's
     * OptimizerSwapper): CPU Adam steps one sub-group at a time; before it, the sub-group's
     * fp32 master, moments and fp32 gradient are read from NVMe, after it master and moments
     * are written back. The node's drives serve all its GPUs. */
    double states = in->bt.master + in->bt.moments;
    double bw = in->hw->nvme_bandwidth / (double)in->gpus_per_node;
    double rd = (states + 4) * shard / bw, wr = states * shard / bw;
    if (io) *io = rd + wr;
    /* k sub-groups; pipelined I/O of one sub-group overlaps the step of its neighbour, so
     * all but one sub-group's share runs as max(cpu, io), the first read / last write and
     * one step do not: ov/k + cpu/k + (k-1)/k max(cpu, ov). Unpipelined I/O adds in full. */
    double k = zs_fmax(1, ceil(shard / t->sub_group_size));
    double ov = (t->nvme_pipeline_read ? rd : 0) + (t->nvme_pipeline_write ? wr : 0);
    double serial = rd + wr - ov;
    return ov / k + cpu / k + (k - 1) / k * zs_fmax(cpu, ov) + serial;
}

/* Exposed time of collectives that overlap a window of compute per micro-batch: what does
 * not fit under each micro-batch's window, plus the tail bucket of the last one. Ops that run
 * once (not per micro-batch) all fall in the last micro-batch. */
static double exposed(double per_mb, double last_only, double window, double m, double tail)
{
    if (per_mb + last_only <= 0) return 0;
    return (m - 1) * zs_fmax(0, per_mb - window) + zs_fmax(0, per_mb + last_only - window) + tail;
}

/* Slowdown of compute that runs beside collectives: NCCL runs each channel as one CTA that
 * holds an SM for the collective's whole duration (NCCL_MAX_NCHANNELS / NCCL_MIN_NCHANNELS in
 * NVIDIA's NCCL environment-variable docs bound the CTAs it uses), so a GEMM overlapping it
 * has channels/SMs fewer SMs and takes 1/(1-f) as long while they overlap. Size: 24 channels
 * of 132 SMs on an H100 (the profile's, measured with Nsight Systems) is f = 0.18, a
 * slowdown of 22%; Lee et al. 2025 (arXiv 2507.03114, abstract) measure an average compute
 * slowdown of 18.9% (at most 40%) when compute overlaps communication on A100/H100. The
 * overlapped time per micro-batch is min(collectives, window) in the forward and backward
 * windows, plus the part of collectives hidden under GEMMs (TP overlap); PCIe traffic runs on
 * copy engines and takes no SMs. The HBM bandwidth NCCL draws
 * is not modelled: GEMMs are bound by the SMs. Pure; 0 when the profile gives no channels or
 * SM count. */
static double steptime_contention(const sim_input *in, const comm_plan *plan,
    const double per[OVERLAP_WINDOWS], const double once[OVERLAP_WINDOWS], double m)
{
    const hardware *hw = in->hw;
    if (hw->nccl_channels <= 0 || hw->sm_count <= 0) return 0;
    double f = zs_fmin(0.9, (double)hw->nccl_channels / (double)hw->sm_count);
    double win[2] = {in->mb.fwd, in->mb.bwd};
    int kind[2] = {OVERLAP_FORWARD, OVERLAP_BACKWARD};
    double busy = 0;
    for (int i = 0; i < 2; i++) {
        double c = per[kind[i]], last = per[kind[i]] + once[kind[i]];
        if (last <= 0) continue;
        busy += (m - 1) * zs_fmin(c, win[i]) + zs_fmin(last, win[i]);
    }
    /* The part of a collective hidden under the GEMMs it splits (TP overlap) runs beside them
     * too, on SMs of its own. */
    double hidden = 0;
    for (int i = 0; i < plan->n; i++) {
        const comm_op *op = &plan->op[i];
        if (op->group != GROUP_HOST) hidden += op->seconds * op->calls * op->hidden;
    }
    busy += zs_fmin(hidden, m * (in->mb.fwd + in->mb.bwd));
    return busy * f / (1 - f);
}

/* Compute and bubble of a pipeline whose stages take different times: the slowest stage sets
 * the pace, so a step is (m - 1) T_max + sum_i T_i (DAPPLE's pipeline latency, Fan et al. 2021,
 * arXiv 2007.01045 section 4.2; with equal stages the 1F1B step (m + p - 1) T of Narayanan et
 * al. 2021 section 2.2), the sum over stages being p times the mean stage's `mean` seconds.
 * Compute is m T_max; the bubble the rest, divided by v for v interleaved chunks (section
 * 2.2.2). The 1/v holds for m a multiple of p, as Megatron's default group of p micro-batches
 * per virtual stage requires (framework.c); other m (generic, fsdp2) are approximated by it. */
static void steptime_pipeline_of(const training *t, double pipe_pace, double m, double mean, step_time *st)
{
    double pace = pipe_pace > 0 ? pipe_pace : 1, p = (double)t->pp;
    st->compute = m * pace * mean;
    if (t->pp > 1) st->bubble = zs_fmax(0, p - pace) / (double)t->virtual_stages * mean;
}

static void steptime_pipeline(const sim_input *in, double m, double mean, step_time *st)
{
    steptime_pipeline_of(in->t, in->pipe_pace, m, mean, st);
}

double steptime_batch_bound(const training *t, mb_time mb, double pipe_pace, double overhead)
{
    step_time st = {0};
    steptime_pipeline_of(t, pipe_pace, (double)t->grad_accum, mb.fwd + mb.bwd, &st);
    return st.compute + st.bubble + overhead; /* steptime_bound's sum less the optimizer */
}

/* Optimizer: memory-bound over the local shard (ZeRO shards it N ways, DDP does not). */
static double steptime_optimizer(const sim_input *in, double opt_div, double expert_div)
{
    double shard = in->trainable / opt_div + in->local_expert / expert_div;
    double bytes = shard * steptime_optimizer_bytes(&in->bt);
    if (in->t->offload_optimizer != OFFLOAD_NONE)
        return steptime_nvme_step(in, shard, bytes / in->host_rate, NULL);
    return bytes / in->hbm_rate;
}

double steptime_bound(const sim_input *in, double opt_div, double expert_div)
{
    step_time st = {0};
    steptime_pipeline(in, (double)in->t->grad_accum, in->mb.fwd + in->mb.bwd, &st);
    /* steptime_compute's sum in its order, less the terms that are never negative (exposed
     * communication, offload, contention): rounding is monotone, so never above its total. */
    return st.compute + st.bubble + steptime_optimizer(in, opt_div, expert_div) + in->step_overhead;
}

void steptime_compute(
    const sim_input *in, const comm_plan *plan, double opt_div, double expert_div, step_time *st)
{
    const training *t = in->t;
    memset(st, 0, sizeof *st);
    double m = (double)t->grad_accum;
    double fwd = in->mb.fwd, bwd = in->mb.bwd;
    steptime_pipeline(in, m, fwd + bwd, st);

    /* Per overlap window: per-micro-batch time, once-per-step time, tail. Offload traffic is
     * kept apart so the report can show it. */
    double per[2][OVERLAP_WINDOWS] = {{0}}, once[2][OVERLAP_WINDOWS] = {{0}};
    double tail[2][OVERLAP_WINDOWS] = {{0}};
    double beside_step = 0; /* copies the CPU optimizer step issues as it goes */
    for (int i = 0; i < plan->n; i++) {
        const comm_op *op = &plan->op[i];
        int host = op->group == GROUP_HOST;
        double secs = op->seconds * op->calls * (1 - op->hidden);
        if (op->overlap == OVERLAP_NONE) {
            per[host][OVERLAP_NONE] += secs;
            if (op->group == GROUP_EP) st->exposed_ep += secs;
            continue;
        }
        if (op->overlap == OVERLAP_OPTIMIZER) {
            beside_step += secs;
            continue;
        }
        if (op->per_micro)
            per[host][op->overlap] += secs / m;
        else
            once[host][op->overlap] += secs;
        tail[host][op->overlap] = zs_fmax(tail[host][op->overlap], op->tail_seconds);
    }
    for (int h = 0; h < 2; h++) {
        /* Ring attention hides only under the attention it feeds (backward: the kernel's
         * backward time); only CP's K/V ring uses these windows. */
        double ring = exposed(per[h][OVERLAP_ATTN_FWD], once[h][OVERLAP_ATTN_FWD], in->mb.attn, m, 0) +
            exposed(per[h][OVERLAP_ATTN_BWD], once[h][OVERLAP_ATTN_BWD], in->mb.attn_bwd, m, 0);
        double e = per[h][OVERLAP_NONE] +
            exposed(per[h][OVERLAP_FORWARD], once[h][OVERLAP_FORWARD], fwd, m, tail[h][OVERLAP_FORWARD]) +
            exposed(per[h][OVERLAP_BACKWARD], once[h][OVERLAP_BACKWARD], bwd, m, tail[h][OVERLAP_BACKWARD]) +
            ring;
        if (h)
            st->offload = e;
        else {
            st->comm_exposed = e;
            st->exposed_cp = ring;
        }
    }

    st->contention = steptime_contention(in, plan, per[0], once[0], m);
    st->compute += st->contention + plan->compute_copies;

    st->optimizer = steptime_optimizer(in, opt_div, expert_div);
    /* A copy the CPU step issues tile by tile shows only where it outlasts the step. */
    if (beside_step > 0) st->offload += zs_fmax(0, beside_step - st->optimizer);
    st->overhead = in->step_overhead;
    st->total = st->compute + st->bubble + st->comm_exposed + st->optimizer + st->offload + st->overhead;
}
