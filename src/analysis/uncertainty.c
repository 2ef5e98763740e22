/* uncertainty.c -- Monte Carlo propagation of fitted hardware parameters to step time (GSL RNG). */
#include "analysis/uncertainty.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/strategy.h"

bool uncertainty_available(const hardware *hw)
{
    return hw->intra.latency_stderr > 0 || hw->intra.bandwidth_stderr > 0 || hw->inter.latency_stderr > 0 ||
        hw->inter.bandwidth_stderr > 0 || hw->matmul_max_stderr > 0 || hw->hbm_fraction_stderr > 0;
}

static double draw(gsl_rng *r, double mean, double sd, double lo, double hi)
{
    if (sd <= 0) return mean;
    for (int i = 0; i < 64; i++) {
        double x = mean + gsl_ran_gaussian(r, sd);
        if (x >= lo && x <= hi) return x;
    }
    return mean;
}

/* A link's effective bandwidth is line rate x efficiency; its stderr is on the product. */
static void perturb_link(gsl_rng *r, hw_link *l)
{
    l->latency = draw(r, l->latency, l->latency_stderr, 0, 1);
    double eff_bw =
        draw(r, l->bandwidth * l->efficiency, l->bandwidth_stderr, 1e-3 * l->bandwidth * l->efficiency, 1e15);
    l->efficiency = eff_bw / l->bandwidth;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bool uncertainty_interval(const sim_input *in, const strategy *s, double level, double *lo, double *hi)
{
    result r;
    sim_run(in, s, 0, &r);
    *lo = *hi = r.step.total;
    if (!uncertainty_available(in->hw) || !r.applicable) return false;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) return false;
    gsl_rng_set(rng, 20261129);
    double *v = malloc(UNCERTAINTY_SAMPLES * sizeof *v);
    if (!v) {
        gsl_rng_free(rng);
        return false;
    }
    int n = 0;
    for (int i = 0; i < UNCERTAINTY_SAMPLES; i++) {
        hardware hw = *in->hw;
        perturb_link(rng, &hw.intra);
        perturb_link(rng, &hw.inter);
        hw.matmul_max_fraction = draw(rng, hw.matmul_max_fraction, hw.matmul_max_stderr, 1e-3, 1);
        hw.hbm_fraction = draw(rng, hw.hbm_fraction, hw.hbm_fraction_stderr, 1e-3, 1);
        sim_input x;
        zs_error err = {.quiet = true};
        if (sim_prepare(&x, in->m, in->pc, &hw, in->t, &err)) continue;
        sim_run(&x, s, 0, &r);
        v[n++] = r.step.total;
    }
    gsl_rng_free(rng);
    if (n < 10) {
        free(v);
        return false;
    }
    qsort(v, (size_t)n, sizeof *v, cmp);
    double tail = (1 - level) / 2;
    int a = (int)floor(tail * (n - 1)), b = (int)ceil((1 - tail) * (n - 1));
    *lo = fmin(v[a], *lo);
    *hi = fmax(v[b], *hi);
    free(v);
    return true;
}

void uncertainty_add(const scenario *sc, result *r)
{
    sim_input in;
    zs_error err = {.quiet = true};
    if (!uncertainty_available(sc->hw) || !r->applicable) return;
    if (sim_prepare(&in, sc->m, sc->pc, sc->hw, sc->t, &err)) return;
    r->has_interval = uncertainty_interval(&in, r->strategy, 0.9, &r->step_lo, &r->step_hi);
}
