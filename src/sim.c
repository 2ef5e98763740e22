/* sim.c -- the common harness: derive once, then let each strategy fill its parts. */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strategy.h"

int sim_prepare(sim_input *in, const model *m, const param_counts *pc, const hardware *hw,
                const training *t, zs_error *err)
{
    if (training_validate(t, err)) return err->code;
    memset(in, 0, sizeof *in);
    in->m = m;
    in->pc = pc;
    in->hw = hw;
    in->t = t;
    in->bt = training_bytes(t);
    in->dp = training_dp(t);
    in->gpus_per_node = t->gpus_per_node > 0 ? t->gpus_per_node : hw->gpus_per_node;
    if (in->gpus_per_node > t->gpus) in->gpus_per_node = t->gpus;
    in->nodes = (t->gpus + in->gpus_per_node - 1) / in->gpus_per_node;

    double tp = (double)t->tp, pp = (double)t->pp;
    if (m->params_only) {
        in->stage_layers = 0;
        in->local_params = pc->total / (tp * pp);
        in->local_largest = pc->largest_module / tp;
        in->local_small = 0;
        return ZS_OK;
    }
    if (t->pp > m->num_layers)
        return zs_fail(err, ZS_ERR_USAGE, "--pp %lld: more pipeline stages than the model's %lld layers",
                       (long long)t->pp, (long long)m->num_layers);
    if (m->num_heads % t->tp != 0 || (m->num_kv_heads % t->tp != 0 && t->tp % m->num_kv_heads != 0))
        return zs_fail(err, ZS_ERR_USAGE, "--tp %lld does not divide the model's %lld attention heads (%lld key/value heads)",
                       (long long)t->tp, (long long)m->num_heads, (long long)m->num_kv_heads);
    if (t->offload_params != OFFLOAD_NONE && t->offload_optimizer == OFFLOAD_NONE)
        return zs_fail(err, ZS_ERR_USAGE, "--offload-params needs --offload-optimizer too (DeepSpeed offloads parameters only with the optimizer)");
    in->stage_layers = (m->num_layers + t->pp - 1) / t->pp;
    double layers = (double)in->stage_layers;
    if (t->pp == 1) {
        in->local_params = pc->total;
    } else {
        /* First stage: embedding + its blocks; last: blocks + final norm + head (a tied
         * head is a second copy of the embedding there, as Megatron keeps it). */
        double head = m->tied_embeddings ? pc->embedding : pc->lm_head;
        double first = pc->per_layer * layers + pc->embedding;
        double last = pc->per_layer * layers + pc->final_norm + head;
        in->local_params = fmax(first, last);
    }
    in->local_params /= tp;
    in->local_largest = pc->largest_module / tp;
    if (t->persistence_threshold > 0) {
        /* Recount small tensors against the run's threshold. */
        param_counts small;
        zs_error ignore;
        if (model_count(m, t->persistence_threshold, &small, &ignore) == ZS_OK)
            in->local_small = small.layer_small_params * layers + small.global_small_params;
    }
    return ZS_OK;
}

void sim_run(const sim_input *in, const strategy *s, result *r)
{
    memset(r, 0, sizeof *r);
    r->strategy = s;
    r->applicable = s->memory(in, &r->mem, r->why, sizeof r->why);
    if (!r->applicable) return;
    memory_activations(in, &r->mem);
    memory_finish(in, &r->mem);
    r->fits = r->mem.fits_gpu && r->mem.fits_host;
}
