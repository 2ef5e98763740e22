/* steptime.c -- overlap model: buckets hide under backward, prefetch under forward. */
#include "steptime.h"

#include <math.h>

#include "framework.h"
#include <string.h>

double steptime_optimizer_bytes(const byte_table *bt)
{
    double weights = bt->master > 0 ? 2 * bt->master + bt->param : 2 * bt->param;
    return bt->grad + weights + 2 * bt->moments;
}

/* Exposed time of collectives that overlap a window of compute per micro-batch: what does
 * not fit under each micro-batch's window, plus the tail bucket of the last one. Ops that run
 * once (not per micro-batch) all fall in the last micro-batch. */
static double exposed(double per_mb, double last_only, double window, double m, double tail)
{
    if (per_mb + last_only <= 0) return 0;
    return (m - 1) * fmax(0, per_mb - window) + fmax(0, per_mb + last_only - window) + tail;
}

void steptime_compute(const sim_input *in, const comm_plan *plan, double opt_div,
                      step_time *st)
{
    const training *t = in->t;
    memset(st, 0, sizeof *st);
    double m = (double)t->grad_accum;
    double fwd = in->mb.fwd, bwd = in->mb.bwd;
    st->compute = m * (fwd + bwd);
    /* 1F1B bubble: (p - 1) micro-batch slots of forward + backward; interleaving with v
     * chunks divides it by v (Narayanan et al. 2021, section 2.2). */
    if (t->pp > 1) st->bubble = (double)(t->pp - 1) / (double)t->virtual_stages * (fwd + bwd);

    /* Per overlap window: per-micro-batch time, once-per-step time, tail. Offload traffic is
     * kept apart so the report can show it. */
    double per[2][OVERLAP_COUNT] = {{0}}, once[2][OVERLAP_COUNT] = {{0}}, tail[2][OVERLAP_COUNT] = {{0}};
    for (int i = 0; i < plan->n; i++) {
        const comm_op *op = &plan->op[i];
        int host = op->group == GROUP_HOST;
        double secs = op->seconds * op->calls * (1 - op->hidden);
        if (op->overlap == OVERLAP_NONE) {
            per[host][OVERLAP_NONE] += secs;
            continue;
        }
        if (op->per_micro) per[host][op->overlap] += secs / m;
        else once[host][op->overlap] += secs;
        tail[host][op->overlap] = fmax(tail[host][op->overlap], op->tail_seconds);
    }
    for (int h = 0; h < 2; h++) {
        double e = per[h][OVERLAP_NONE] +
                   exposed(per[h][OVERLAP_FORWARD], once[h][OVERLAP_FORWARD], fwd, m, tail[h][OVERLAP_FORWARD]) +
                   exposed(per[h][OVERLAP_BACKWARD], once[h][OVERLAP_BACKWARD], bwd, m, tail[h][OVERLAP_BACKWARD]) +
                   /* Ring attention hides only under the attention it feeds (backward: 2x). */
                   exposed(per[h][OVERLAP_ATTN_FWD], once[h][OVERLAP_ATTN_FWD], in->mb.attn, m, 0) +
                   exposed(per[h][OVERLAP_ATTN_BWD], once[h][OVERLAP_ATTN_BWD], 2 * in->mb.attn, m, 0);
        if (h) st->offload = e;
        else st->comm_exposed = e;
    }

    /* Optimizer: memory-bound over the local shard (ZeRO shards it N ways, DDP does not). */
    double shard = in->trainable / opt_div;
    double bytes = shard * steptime_optimizer_bytes(&in->bt);
    if (t->offload_optimizer != OFFLOAD_NONE) st->optimizer = bytes / in->host_rate;
    else st->optimizer = bytes / in->hbm_rate;
    st->overhead = t->step_overhead >= 0 ? t->step_overhead : in->fw->step_overhead;
    st->total = st->compute + st->bubble + st->comm_exposed + st->optimizer + st->offload + st->overhead;
}
