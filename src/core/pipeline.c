/* pipeline.c -- pipeline stage splits (Megatron-Core's uneven first/last stages) and their pace. */
#include "core/pipeline.h"

#include <math.h>

#include "core/minmax.h"

/* Stage views: the first, the most loaded middle one (stage 1: the most layers and the most
 * micro-batches in flight of the middle stages) and the last. */
static void pipeline_views(pipe_split *ps, int64_t pp)
{
    if (pp == 1) {
        ps->nviews = 1;
        ps->views[0] = (pipe_stage){ps->first, 0, true, true};
        return;
    }
    ps->nviews = 0;
    ps->views[ps->nviews++] = (pipe_stage){ps->first, 0, true, false};
    if (pp > 2) ps->views[ps->nviews++] = (pipe_stage){ps->mid, 1, false, false};
    ps->views[ps->nviews++] = (pipe_stage){ps->last, pp - 1, false, true};
}

/* Megatron-Core's uneven split (NVIDIA/Megatron-LM@d98e8a64 megatron/core/transformer/
 * transformer_config.py __post_init__ "Uneven PP" and transformer_block.py
 * get_num_layers_to_build): the given first/last counts, the rest evenly over the stages left,
 * "either middle stages and layers or none", every stage's count divisible by the virtual
 * pipeline size. */
static int pipeline_uneven(int64_t layers, const training *t, pipe_split *ps, zs_error *err)
{
    int64_t p = t->pp, v = t->virtual_stages, f = t->pp_first_layers, l = t->pp_last_layers;
    if (p < 2)
        return zs_fail(err, ZS_ERR_USAGE, "--pp-first-layers / --pp-last-layers need --pp 2 or more");
    int64_t rest = layers - f - l, stages = p - (f > 0) - (l > 0);
    if (rest < 0 || (rest > 0) != (stages > 0))
        return zs_fail(err, ZS_ERR_USAGE,
            "--pp-first-layers %lld + --pp-last-layers %lld leave %lld of the model's %lld layers for the "
            "%lld other stages (Megatron-Core needs layers left exactly when stages are)",
            (long long)f, (long long)l, (long long)rest, (long long)layers, (long long)stages);
    if (stages > 0 && rest % stages != 0)
        return zs_fail(err, ZS_ERR_USAGE,
            "the %lld layers left after --pp-first-layers / --pp-last-layers do not divide over the %lld "
            "middle stages (Megatron-Core requires it)",
            (long long)rest, (long long)stages);
    int64_t mid = stages > 0 ? rest / stages : 0;
    if ((f > 0 && f % v) || (l > 0 && l % v) || (stages > 0 && mid % v))
        return zs_fail(err, ZS_ERR_USAGE,
            "--virtual-stages %lld does not divide the stages' layers (first %lld, middle %lld, last %lld); "
            "Megatron-Core requires each stage's layers divisible by the virtual stages",
            (long long)v, (long long)(f > 0 ? f : mid), (long long)mid, (long long)(l > 0 ? l : mid));
    ps->first = f > 0 ? f : mid;
    ps->last = l > 0 ? l : mid;
    ps->mid = p > 2 ? mid : 0;
    return ZS_OK;
}

int pipeline_split(int64_t layers, const training *t, bool exact, pipe_split *out, zs_error *err)
{
    int64_t p = t->pp;
    /* The interleaved schedule splits each pipeline stage into chunks: nothing to split without
     * one. (Megatron-LM's parallel_state.py initialize_model_parallel raises "pipeline-model-
     * parallel size should be greater than 2 with interleaved schedule" in the versions read;
     * zerosim refuses only PP 1, where there is no pipeline to interleave.) */
    if (t->virtual_stages > 1 && p < 2)
        return zs_fail(err, ZS_ERR_USAGE, "--virtual-stages %lld needs --pp 2 or more (the interleaved "
            "schedule splits each pipeline stage)", (long long)t->virtual_stages);
    if (t->pp_first_layers > 0 || t->pp_last_layers > 0) {
        if (pipeline_uneven(layers, t, out, err)) return err->code;
    } else if (exact && (layers % p != 0 || (layers / p) % t->virtual_stages != 0)) {
        return zs_fail(err, ZS_ERR_USAGE,
            "%lld layers do not divide evenly into --pp %lld x --virtual-stages %lld (Megatron-LM requires "
            "it; --pp-first-layers / --pp-last-layers put fewer on the end stages)",
            (long long)layers, (long long)p, (long long)t->virtual_stages);
    } else {
        /* DeepSpeed's partition_uniform (deepspeed/runtime/utils.py): chunk = L // p, and the
         * first residual = L - chunk p parts one item more. */
        int64_t chunk = layers / p, residual = layers - chunk * p;
        out->first = chunk + (residual > 0);
        out->mid = p > 2 ? chunk + (residual > 1) : 0;
        out->last = p > 1 ? chunk : out->first;
    }
    pipeline_views(out, p);
    return ZS_OK;
}

int64_t pipeline_max_layers(const pipe_split *ps)
{
    int64_t n = ps->first > ps->mid ? ps->first : ps->mid;
    return n > ps->last ? n : ps->last;
}

double pipeline_pace(const pipe_split *ps, int64_t layers, int64_t pp, double head_share)
{
    if (pp <= 1 || layers <= 0) return 1;
    /* Stage i's time is n_i tau + [last] H, with L tau + H = p T_mean: in units of T_mean,
     * tau = p (1 - eta) / L and H = p eta. */
    double p = (double)pp, L = (double)layers, eta = zs_fmin(zs_fmax(head_share, 0), 1);
    double body = (double)(ps->first > ps->mid ? ps->first : ps->mid);
    double end = (double)ps->last;
    return p * zs_fmax((1 - eta) * body / L, (1 - eta) * end / L + eta);
}

bool pipeline_balance(int64_t layers, int64_t pp, int64_t v, int64_t *first, int64_t *last)
{
    *first = *last = 0;
    if (pp < 3 || v < 1 || (layers % pp == 0 && (layers / pp) % v == 0)) return false;
    int64_t mid = (layers + pp - 1) / pp;
    mid = (mid + v - 1) / v * v;
    for (; mid * (pp - 2) < layers; mid += v) {
        int64_t ends = layers - mid * (pp - 2); /* for the two end stages, in units of v */
        if (ends % v) continue;
        int64_t units = ends / v, f = units / 2 * v, l = (units - units / 2) * v;
        if (f >= v && l <= mid) {
            *first = f;
            *last = l;
            return true;
        }
    }
    return false;
}
