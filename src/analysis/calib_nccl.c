/* calib_nccl.c -- the per-step link latency that NCCL's tuning model needs to reproduce a log. */
#include "analysis/calib_nccl.h"

#include <math.h>
#include <string.h>

#include "core/collective.h"

/* What one evaluation of the fit needs: the set, its collective and group, the links. */
typedef struct inv {
    const calib_set *s;
    coll_kind kind;
    coll_group g;
    coll_link links[LEVEL_COUNT];
    link_level level;
    double intra; /* intra-node step latency of an inter-node set, seconds */
} inv;

/* Sum of squared log errors of NCCL's predicted times at per-step latency a. */
static double inv_sse(inv *v, double a)
{
    v->links[LEVEL_INTRA].alpha = v->level == LEVEL_INTRA ? a : v->intra;
    v->links[LEVEL_INTER].alpha = a;
    double sse = 0;
    for (int i = 0; i < v->s->npts; i++) {
        nccl_choice c = coll_nccl_choice(v->kind, v->s->pt_bytes[i], v->g, v->links);
        double r = log(c.seconds / v->s->pt_seconds[i]);
        sse += r * r;
    }
    return sse;
}

bool calib_nccl_alpha(const calib_set *s, const hardware *hw, double intra_latency, double *alpha,
    bool *at_bound, double *rms_log)
{
    static const char *const names[] = {"all_reduce", "reduce_scatter", "all_gather"};
    static const coll_kind kinds[] = {COLL_ALL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALL_GATHER};
    if (hw->nccl_version <= 0 || s->npts < 2 || s->ranks < 2) return false;
    inv v = {.s = s, .level = s->level, .intra = intra_latency};
    int k = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(s->collective, names[i]) == 0) k = i;
    if (k < 0) return false;
    v.kind = kinds[k];
    v.g = (coll_group){s->ranks, s->level == LEVEL_INTRA ? s->ranks : (s->per_node > 0 ? s->per_node : 1)};
    coll_links(hw, hw->gpus_per_node, v.links);
    /* A coarse scan in log a (the model's min over algorithms and protocols has kinks), then a
     * golden-section search between the best point's neighbours. */
    enum { GRID = 61 };
    /* Up to the plausibility gate, or past it when the alpha-beta fit's whole latency is (the
     * gate then refuses or, under --force, keeps what the times say). */
    double lo = log(CALIB_NCCL_MIN_ALPHA), hi = log(fmax(CALIB_MAX_ALPHA, 2 * s->fit.latency));
    double step = (hi - lo) / (GRID - 1);
    int best = 0;
    double best_sse = INFINITY;
    for (int i = 0; i < GRID; i++) {
        double e = inv_sse(&v, exp(lo + step * i));
        if (e < best_sse) {
            best_sse = e;
            best = i;
        }
    }
    double a = lo + step * (best > 0 ? best - 1 : 0), b = lo + step * (best < GRID - 1 ? best + 1 : GRID - 1);
    const double phi = 0.6180339887498949;
    double x1 = b - phi * (b - a), x2 = a + phi * (b - a);
    double f1 = inv_sse(&v, exp(x1)), f2 = inv_sse(&v, exp(x2));
    for (int it = 0; it < 60 && b - a > 1e-9; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - phi * (b - a);
            f1 = inv_sse(&v, exp(x1));
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + phi * (b - a);
            f2 = inv_sse(&v, exp(x2));
        }
    }
    double x = f1 <= f2 ? x1 : x2, fx = fmin(f1, f2);
    if (best_sse < fx) x = lo + step * best; /* the scan's point was better than the refinement */
    *alpha = exp(x);
    *rms_log = sqrt(fmin(fx, best_sse) / s->npts);
    *at_bound = x <= lo + step * 0.5 || x >= hi - step * 0.5;
    return true;
}
