/* fwfit.c -- fit a framework's kernel efficiency on a declared half of measured runs. */
#include "analysis/fwfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/validate.h"

/* The framework's time-like runs, copied so a trial efficiency can be set on them. */
typedef struct fit_set {
    run_record *run;
    bool *train;
    int n;
    const char *hw;          /* profile name or path for every run, or NULL */
    const hardware *profile; /* a profile in memory for every run, or NULL */
    double eff_max;          /* the search's top: FWFIT_EFF_MAX, or less where a run's profile's
                                matmul fraction times it would pass the peak (sim.c refuses) */
} fit_set;

/* Mean squared log error and mean |error| over the train or held-out half at efficiency k
 * (k = 0: the framework's own). */
static int score(const fit_set *fs, double k, double o, bool train, double *msle, double *mape, double *worst,
    zs_error *err)
{
    double sq = 0, ab = 0, w = 0;
    int m = 0;
    for (int i = 0; i < fs->n; i++) {
        if (fs->train[i] != train) continue;
        fs->run[i].gemm_efficiency = k;
        fs->run[i].step_overhead = o;
        outcome got;
        if (fs->profile ? validate_run_hw(&fs->run[i], fs->profile, &got, err)
                        : validate_run(&fs->run[i], fs->hw, &got, err))
            return err->code;
        double l = log1p(got.error);
        sq += l * l;
        ab += fabs(got.error);
        w = fmax(w, fabs(got.error));
        m++;
    }
    *msle = m ? sq / m : 0;
    if (mape) *mape = m ? ab / m : 0;
    if (worst) *worst = w;
    return ZS_OK;
}

static int fit(const run_record *runs, int n, const framework *fw, const char *hw_override,
    const hardware *profile, bool split, fwfit_result *out, zs_error *err);

int fwfit_efficiency(const run_record *runs, int n, const framework *fw, const char *hw_override,
    fwfit_result *out, zs_error *err)
{
    return fit(runs, n, fw, hw_override, NULL, true, out, err);
}

int fwfit_all(
    const run_record *runs, int n, const framework *fw, const hardware *hw, fwfit_result *out, zs_error *err)
{
    return fit(runs, n, fw, NULL, hw, false, out, err);
}

/* Whether run r can be fitted: predicted at the framework's own values, a run the framework
 * refuses (validate's outcome.refused) is left out and counted in out; a kept run's line joins
 * out->used. Fails like validate_run. */
static int admit(const run_record *r, fit_set *fs, fwfit_result *out, bool *keep, zs_error *err)
{
    outcome got;
    if (fs->profile ? validate_run_hw(r, fs->profile, &got, err) : validate_run(r, fs->hw, &got, err))
        return err->code;
    *keep = !got.refused[0];
    /* Just under 1 / fraction: a trial at the bound itself must still run. */
    if (*keep && got.matmul_max_fraction > 0)
        fs->eff_max = fmin(fs->eff_max, (1 - 1e-9) / got.matmul_max_fraction);
    out->eff_max = fs->eff_max;
    if (!*keep) {
        if (out->n_refused++ == 0)
            snprintf(out->refused, sizeof out->refused, "line %d: %.200s", r->line, got.refused);
        return ZS_OK;
    }
    size_t o = strlen(out->used);
    if (o + 16 < sizeof out->used)
        snprintf(out->used + o, sizeof out->used - o, "%s%d", o ? ", " : "", r->line);
    else if (!strstr(out->used, "..."))
        snprintf(out->used + o, sizeof out->used - o, ", ...");
    return ZS_OK;
}

static int fit(const run_record *runs, int n, const framework *fw, const char *hw_override,
    const hardware *profile, bool split, fwfit_result *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    out->fw = fw;
    out->builtin = fw->gemm_efficiency;
    fit_set fs = {calloc((size_t)(n > 0 ? n : 1), sizeof *fs.run),
        calloc((size_t)(n > 0 ? n : 1), sizeof *fs.train), 0, hw_override, profile, FWFIT_EFF_MAX};
    if (!fs.run || !fs.train) {
        free(fs.run);
        free(fs.train);
        return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    int rc = ZS_OK;
    for (int i = 0; i < n; i++) {
        const run_record *r = &runs[i];
        bool timed = runs_measured_step(r) > 0 || r->mfu > 0 || r->hfu > 0;
        if (strcmp(r->framework, fw->name) != 0 || !timed || r->excluded[0]) continue;
        bool keep;
        if ((rc = admit(r, &fs, out, &keep, err))) goto done;
        if (!keep) continue;
        fs.run[fs.n] = *r;
        fs.train[fs.n] = !split || fs.n % 2 == 0;
        fs.n++;
    }
    out->n_train = split ? (fs.n + 1) / 2 : fs.n;
    out->n_held = split ? fs.n / 2 : 0;
    if (fs.n < 2) {
        rc = zs_fail(err, ZS_ERR_INPUT, "framework %s: %d time-like runs, the fit needs 2 or more%s%.240s%s",
            fw->name, fs.n, out->n_refused ? " (left out, refused by the framework: " : "", out->refused,
            out->n_refused ? ")" : "");
        goto done;
    }
    double msle;
    out->builtin_overhead = fw->step_overhead;
    if ((rc = score(&fs, 0, -1, true, &msle, &out->mape_train_builtin, NULL, err)) ||
        (rc = score(&fs, 0, -1, false, &msle, &out->mape_held_builtin, &out->worst_held_builtin, err)))
        goto done;
    /* Coordinate descent: golden-section on the efficiency, then on the overhead. */
    double k = fw->gemm_efficiency, o = fw->step_overhead;
    double prev_k = -1, prev_o = -1;
    for (int round = 0; round < 30 && (fabs(k - prev_k) > 1e-5 || fabs(o - prev_o) > 1e-5); round++) {
        prev_k = k;
        prev_o = o;
        for (int which = 0; which < 2; which++) {
            const double g = (sqrt(5.0) - 1) / 2;
            double a = which ? 0 : FWFIT_EFF_MIN, b = which ? FWFIT_OVERHEAD_MAX : fs.eff_max;
            double c = b - g * (b - a), d = a + g * (b - a), fc, fd;
            if ((rc = score(&fs, which ? k : c, which ? c : o, true, &fc, NULL, NULL, err)) ||
                (rc = score(&fs, which ? k : d, which ? d : o, true, &fd, NULL, NULL, err)))
                goto done;
            for (int it = 0; it < 40 && b - a > 1e-4; it++) {
                if (fc < fd) {
                    b = d;
                    d = c;
                    fd = fc;
                    c = b - g * (b - a);
                    rc = score(&fs, which ? k : c, which ? c : o, true, &fc, NULL, NULL, err);
                } else {
                    a = c;
                    c = d;
                    fc = fd;
                    d = a + g * (b - a);
                    rc = score(&fs, which ? k : d, which ? d : o, true, &fd, NULL, NULL, err);
                }
                if (rc) goto done;
            }
            if (which)
                o = (a + b) / 2;
            else
                k = (a + b) / 2;
        }
    }
    double f0, fp, fm;
    if ((rc = score(&fs, k, o, true, &f0, &out->mape_train, NULL, err)) ||
        (rc = score(&fs, k, o, false, &msle, &out->mape_held, NULL, err)))
        goto done;
    out->efficiency = k;
    out->overhead = o;
    if (k < FWFIT_EFF_MIN + FWFIT_BOUND_TOL || k > fs.eff_max - FWFIT_BOUND_TOL)
        out->at_bound = "gemm_efficiency";
    else if (o > FWFIT_OVERHEAD_MAX - FWFIT_BOUND_TOL)
        out->at_bound = "step_overhead";
    /* Least squares on m residuals: var(x) = s^2 / (J'J), with J'J = m f'' / 2 and
     * s^2 = m f / (m - 1) for the mean squared residual f (each parameter alone). */
    double m = (double)out->n_train;
    double hk = fmin(0.01 * k, (fs.eff_max - k) / 2), ho = fmax(0.01 * o, 1e-3);
    if ((rc = score(&fs, k + hk, o, true, &fp, NULL, NULL, err)) ||
        (rc = score(&fs, k - hk, o, true, &fm, NULL, NULL, err)))
        goto done;
    double curv = hk > 0 ? (fp - 2 * f0 + fm) / (hk * hk) : 0;
    out->stderr_eff = curv > 0 && m > 1 ? sqrt((m * f0 / (m - 1)) / (m * curv / 2)) : 0;
    if ((rc = score(&fs, k, o + ho, true, &fp, NULL, NULL, err)) ||
        (rc = score(&fs, k, o - ho > 0 ? o - ho : 0, true, &fm, NULL, NULL, err)))
        goto done;
    curv = o - ho > 0 ? (fp - 2 * f0 + fm) / (ho * ho) : 0;
    out->stderr_overhead = curv > 0 && m > 1 ? sqrt((m * f0 / (m - 1)) / (m * curv / 2)) : 0;
done:
    free(fs.run);
    free(fs.train);
    return rc;
}
