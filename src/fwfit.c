/* fwfit.c -- fit a framework's kernel efficiency on a declared half of measured runs. */
#include "fwfit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

/* The framework's time-like runs, copied so a trial efficiency can be set on them. */
typedef struct fit_set {
    run_record *run;
    bool *train;
    int n;
    const char *hw;
} fit_set;

/* Mean squared log error and mean |error| over the train or held-out half at efficiency k
 * (k = 0: the framework's own). */
static int score(const fit_set *fs, double k, bool train, double *msle, double *mape, double *worst, zs_error *err)
{
    double sq = 0, ab = 0, w = 0;
    int m = 0;
    for (int i = 0; i < fs->n; i++) {
        if (fs->train[i] != train) continue;
        fs->run[i].gemm_efficiency = k;
        outcome o;
        if (validate_run(&fs->run[i], fs->hw, &o, err)) return err->code;
        double l = log1p(o.error);
        sq += l * l;
        ab += fabs(o.error);
        w = fmax(w, fabs(o.error));
        m++;
    }
    *msle = m ? sq / m : 0;
    if (mape) *mape = m ? ab / m : 0;
    if (worst) *worst = w;
    return ZS_OK;
}

int fwfit_efficiency(const run_record *runs, int n, const framework *fw, const char *hw_override,
                     fwfit_result *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    out->fw = fw;
    out->builtin = fw->gemm_efficiency;
    fit_set fs = {calloc((size_t)(n > 0 ? n : 1), sizeof *fs.run), calloc((size_t)(n > 0 ? n : 1), sizeof *fs.train), 0, hw_override};
    if (!fs.run || !fs.train) {
        free(fs.run);
        free(fs.train);
        return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        const run_record *r = &runs[i];
        bool timed = runs_measured_step(r) > 0 || r->mfu > 0 || r->hfu > 0;
        if (strcmp(r->framework, fw->name) != 0 || !timed || r->excluded[0]) continue;
        fs.run[fs.n] = *r;
        fs.train[fs.n] = fs.n % 2 == 0;
        fs.n++;
    }
    out->n_train = (fs.n + 1) / 2;
    out->n_held = fs.n / 2;
    int rc = ZS_OK;
    if (fs.n < 2) {
        rc = zs_fail(err, ZS_ERR_INPUT, "framework %s: %d time-like runs, the fit needs 2 or more", fw->name, fs.n);
        goto done;
    }
    double msle;
    if ((rc = score(&fs, 0, true, &msle, &out->mape_train_builtin, NULL, err)) ||
        (rc = score(&fs, 0, false, &msle, &out->mape_held_builtin, &out->worst_held_builtin, err)))
        goto done;
    /* Golden-section search of the train half's mean squared log error. */
    const double g = (sqrt(5.0) - 1) / 2;
    double a = 0.2, b = 2.0, c = b - g * (b - a), d = a + g * (b - a), fc, fd;
    if ((rc = score(&fs, c, true, &fc, NULL, NULL, err)) || (rc = score(&fs, d, true, &fd, NULL, NULL, err))) goto done;
    for (int it = 0; it < 40 && b - a > 1e-4; it++) {
        if (fc < fd) { b = d; d = c; fd = fc; c = b - g * (b - a); rc = score(&fs, c, true, &fc, NULL, NULL, err); }
        else { a = c; c = d; fc = fd; d = a + g * (b - a); rc = score(&fs, d, true, &fd, NULL, NULL, err); }
        if (rc) goto done;
    }
    double k = (a + b) / 2, f0, fp, fm, h = 0.01 * k;
    if ((rc = score(&fs, k, true, &f0, &out->mape_train, NULL, err)) ||
        (rc = score(&fs, k, false, &msle, &out->mape_held, NULL, err)) ||
        (rc = score(&fs, k + h, true, &fp, NULL, NULL, err)) || (rc = score(&fs, k - h, true, &fm, NULL, NULL, err)))
        goto done;
    out->efficiency = k;
    /* Least squares on m residuals: var(k) = s^2 / (J'J), with J'J = m f'' / 2 and
     * s^2 = m f / (m - 1) for the mean squared residual f. */
    double curv = (fp - 2 * f0 + fm) / (h * h), m = (double)out->n_train;
    out->stderr_eff = curv > 0 && m > 1 ? sqrt((m * f0 / (m - 1)) / (m * curv / 2)) : 0;
done:
    free(fs.run);
    free(fs.train);
    return rc;
}
