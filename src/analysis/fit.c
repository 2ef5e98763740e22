/* fit.c -- alpha-beta, efficiency-curve and scale-factor fits with GSL, errors as values. */
#include "analysis/fit.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_statistics_double.h>

/* GSL's default error handler aborts the process; every entry point runs with it off and
 * puts the caller's handler back before returning. */
typedef struct gsl_guard {
    gsl_error_handler_t *old; /* handler to restore */
} gsl_guard;

static gsl_guard guard_on(void)
{
    return (gsl_guard){gsl_set_error_handler_off()};
}
static void guard_off(gsl_guard g)
{
    gsl_set_error_handler(g.old);
}

/* A least-squares system of n points and p coefficients: X c = y, with weights w when
 * weighted, and the coefficients' covariance. */
typedef struct lsq {
    gsl_matrix *X, *cov;   /* n x p, p x p */
    gsl_vector *y, *w, *c; /* n, n (NULL unless weighted), p */
} lsq;

/* False when out of memory; s is freed by lsq_free either way. */
static bool lsq_alloc(lsq *s, size_t n, size_t p, bool weighted)
{
    s->X = gsl_matrix_alloc(n, p);
    s->cov = gsl_matrix_alloc(p, p);
    s->y = gsl_vector_alloc(n);
    s->w = weighted ? gsl_vector_alloc(n) : NULL;
    s->c = gsl_vector_alloc(p);
    return s->X && s->cov && s->y && (s->w || !weighted) && s->c;
}

static void lsq_free(lsq *s)
{
    if (s->X) gsl_matrix_free(s->X);
    if (s->cov) gsl_matrix_free(s->cov);
    if (s->y) gsl_vector_free(s->y);
    if (s->w) gsl_vector_free(s->w);
    if (s->c) gsl_vector_free(s->c);
}

/* Human-friendly size for messages ("64 KiB"). */
static const char *fmt_size(double b, char *buf, size_t len)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (b >= 1024 && i < 4) {
        b /= 1024;
        i++;
    }
    snprintf(buf, len, "%.4g %s", b, u[i]);
    return buf;
}

/* Fails (ZS_ERR_INPUT, "<fit>: point <i+1>: <what> <v> is not positive") unless v is a positive
 * finite number. */
static int not_positive(const char *fit, int i, const char *what, double v, zs_error *err)
{
    if (isfinite(v) && v > 0) return ZS_OK;
    return zs_fail(err, ZS_ERR_INPUT, "%s: point %d: %s %g is not positive", fit, i + 1, what, v);
}

/* Relative-error scale below which no point is called an outlier: timings are never
 * more precise than 0.01%, and noise-free data must not lose points to rounding. */
#define ROBUST_SCALE_FLOOR 1e-4
#define BISQUARE_TUNE 4.685

/* Fills row i (p entries) of a relative-error design matrix from the points in ctx. */
typedef void (*design_row)(const void *ctx, int i, double *row);

/* Robust pass on the relative-error system X c = 1 of n points, p columns, rows from row():
 * a bisquare fit (gsl_multifit_robust) gives the robust coefficients, and keep[i] = 0 for
 * points whose residual from it lies beyond bisquare's rejection point, 4.685 robust
 * standard deviations (1.4826 x MAD of the residuals). GSL's own final weights are not used
 * for this: its scale estimate can stay inflated by the ordinary least-squares start.
 * Returns the number dropped, or -1 on a GSL failure or when out of memory. */
static int robust_mask(int n_points, int p_cols, design_row row, const void *ctx, int *keep)
{
    size_t n = (size_t)n_points, p = (size_t)p_cols;
    gsl_multifit_robust_workspace *w = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, p);
    lsq s;
    bool ok = lsq_alloc(&s, n, p, false);
    double *r = malloc(n * sizeof *r), *work = malloc(n * sizeof *work);
    int dropped = -1;
    if (w && ok && r && work) {
        for (int i = 0; i < n_points; i++) row(ctx, i, gsl_matrix_ptr(s.X, (size_t)i, 0));
        gsl_vector_set_all(s.y, 1.0);
        int rc = gsl_multifit_robust(s.X, s.y, s.c, s.cov, w);
        if (rc == GSL_SUCCESS || rc == GSL_EMAXITER) {
            for (size_t i = 0; i < n; i++) {
                double pred = 0;
                for (size_t j = 0; j < p; j++) pred += gsl_matrix_get(s.X, i, j) * gsl_vector_get(s.c, j);
                r[i] = gsl_vector_get(s.y, i) - pred;
            }
            double scale = gsl_stats_mad(r, 1, n, work);
            if (!(scale > ROBUST_SCALE_FLOOR)) scale = ROBUST_SCALE_FLOOR;
            dropped = 0;
            for (size_t i = 0; i < n; i++) {
                keep[i] = fabs(r[i]) <= BISQUARE_TUNE * scale;
                if (!keep[i]) dropped++;
            }
        }
    }
    if (w) gsl_multifit_robust_free(w);
    lsq_free(&s);
    free(r);
    free(work);
    return dropped;
}

/* Weighted fit of t = a + x c on the kept points; x already scaled by xs. */
static int ab_wls(
    const double *x, const double *t, const int *keep, int n, double xs, ab_fit *o, zs_error *err)
{
    int m = 0;
    for (int i = 0; i < n; i++) m += keep[i];
    lsq s;
    bool ok = lsq_alloc(&s, (size_t)m, 2, true);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)m, 2);
    int rc = ZS_OK;
    if (!ok || !ws) {
        rc = zs_fail(err, ZS_ERR_NOMEM, "alpha-beta fit: out of memory");
        goto done;
    }
    for (int i = 0, k = 0; i < n; i++) {
        if (!keep[i]) continue;
        gsl_matrix_set(s.X, (size_t)k, 0, 1.0);
        gsl_matrix_set(s.X, (size_t)k, 1, x[i] / xs);
        gsl_vector_set(s.y, (size_t)k, t[i]);
        gsl_vector_set(s.w, (size_t)k, 1.0 / (t[i] * t[i]));
        k++;
    }
    double chisq;
    int g = gsl_multifit_wlinear(s.X, s.w, s.y, s.c, s.cov, &chisq, ws);
    if (g) {
        rc = zs_fail(err, ZS_ERR_INPUT, "alpha-beta fit: least squares failed (%s)", gsl_strerror(g));
        goto done;
    }
    /* The weights are relative (1/t^2), so scale (X'WX)^-1 by the residual variance. */
    double s2 = m > 2 ? chisq / (m - 2) : 0;
    double sw = 0, swy = 0;
    for (int k = 0; k < m; k++) {
        sw += gsl_vector_get(s.w, (size_t)k);
        swy += gsl_vector_get(s.w, (size_t)k) * gsl_vector_get(s.y, (size_t)k);
    }
    double ybar = swy / sw, tss = 0;
    for (int k = 0; k < m; k++) {
        double d = gsl_vector_get(s.y, (size_t)k) - ybar;
        tss += gsl_vector_get(s.w, (size_t)k) * d * d;
    }
    o->latency = gsl_vector_get(s.c, 0);
    double inv_b = gsl_vector_get(s.c, 1) / xs;
    o->cov[0][0] = gsl_matrix_get(s.cov, 0, 0) * s2;
    o->cov[0][1] = o->cov[1][0] = gsl_matrix_get(s.cov, 0, 1) * s2 / xs;
    o->cov[1][1] = gsl_matrix_get(s.cov, 1, 1) * s2 / (xs * xs);
    o->latency_stderr = sqrt(o->cov[0][0]);
    o->busbw = inv_b > 0 ? 1.0 / inv_b : 0;
    o->busbw_stderr = inv_b > 0 ? sqrt(o->cov[1][1]) / (inv_b * inv_b) : 0;
    o->r2 = tss > 0 ? 1 - chisq / tss : 1;
    o->n = m;
    if (!(inv_b > 0)) {
        rc = -1; /* reported by the caller, which knows the sizes */
        goto done;
    }
done:
    lsq_free(&s);
    if (ws) gsl_multifit_linear_free(ws);
    return rc;
}

/* Alpha-beta points: sizes x (scaled, then divided by xs) and times t. */
typedef struct ab_points {
    const double *x, *t;
    double xs;
} ab_points;

static void ab_row(const void *ctx, int i, double *row)
{
    const ab_points *d = ctx; /* relative-error form: (1, x)/t . (a, c) = 1 */
    row[0] = 1.0 / d->t[i];
    row[1] = d->x[i] / d->xs / d->t[i];
}

int fit_alpha_beta(
    const double *bytes, const double *seconds, int n, double factor, int robust, ab_fit *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 3)
        return zs_fail(err, ZS_ERR_INPUT,
            "alpha-beta fit: %d point%s; need at least 3 sizes "
            "(small ones for the latency, large ones for the bandwidth)",
            n, n == 1 ? "" : "s");
    if (!(factor > 0) || !isfinite(factor))
        return zs_fail(err, ZS_ERR_INPUT,
            "alpha-beta fit: bus-bandwidth factor %g is not "
            "positive (a one-rank collective moves no data)",
            factor);
    double xmin = INFINITY, xmax = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(seconds[i]) || seconds[i] <= 0)
            return zs_fail(err, ZS_ERR_INPUT,
                "alpha-beta fit: point %d: time %g s is not a "
                "positive number",
                i + 1, seconds[i]);
        if (!isfinite(bytes[i]) || bytes[i] < 0)
            return zs_fail(err, ZS_ERR_INPUT,
                "alpha-beta fit: point %d: size %g bytes is "
                "negative or not finite",
                i + 1, bytes[i]);
        if (bytes[i] < xmin) xmin = bytes[i];
        if (bytes[i] > xmax) xmax = bytes[i];
    }
    char b1[32], b2[32];
    if (xmin == xmax)
        return zs_fail(err, ZS_ERR_INPUT,
            "alpha-beta fit: all %d points have the same size "
            "(%s), so latency and bandwidth cannot be told apart; sweep sizes "
            "(e.g. nccl-tests -b 8 -e 8G -f 2)",
            n, fmt_size(xmax, b1, sizeof b1));
    double *x = malloc((size_t)n * sizeof *x);
    int *keep = malloc((size_t)n * sizeof *keep);
    if (!x || !keep) {
        free(x);
        free(keep);
        return zs_fail(err, ZS_ERR_NOMEM, "alpha-beta fit: out of memory");
    }
    double xs = xmax * factor;
    for (int i = 0; i < n; i++) {
        x[i] = bytes[i] * factor;
        keep[i] = 1;
    }
    gsl_guard gg = guard_on();
    int rc = ZS_OK;
    if (robust) {
        const ab_points pts = {x, seconds, xs};
        int dropped = robust_mask(n, 2, ab_row, &pts, keep);
        if (dropped < 0) {
            rc = zs_fail(err, ZS_ERR_INPUT, "alpha-beta fit: the robust (bisquare) pass failed");
        } else {
            out->outliers = dropped;
            double kmin = INFINITY, kmax = 0;
            int kept = 0;
            for (int i = 0; i < n; i++)
                if (keep[i]) {
                    kept++;
                    if (bytes[i] < kmin) kmin = bytes[i];
                    if (bytes[i] > kmax) kmax = bytes[i];
                }
            if (kept < 3 || kmin == kmax)
                rc = zs_fail(err, ZS_ERR_INPUT,
                    "alpha-beta fit: the robust pass rejected %d of "
                    "%d points, leaving too few distinct sizes; the data do not follow "
                    "time = latency + size/bandwidth",
                    dropped, n);
        }
    }
    if (rc == ZS_OK) {
        int outliers = out->outliers;
        int w = ab_wls(x, seconds, keep, n, xs, out, err);
        out->outliers = outliers;
        if (w > 0) {
            rc = w;
        } else if (w < 0) {
            rc = zs_fail(err, ZS_ERR_INPUT,
                "alpha-beta fit: fitted bandwidth is not positive: "
                "time does not grow with size up to the largest size (%s); add larger "
                "sizes (64 MiB and up, e.g. -e 8G)",
                fmt_size(xmax, b1, sizeof b1));
        } else if (out->latency < 0) {
            rc = zs_fail(err, ZS_ERR_INPUT,
                "alpha-beta fit: fitted latency is negative "
                "(%.3g us, stderr %.2g us): the smallest size (%s) is too large to pin "
                "it down; add small sizes (8 B to 64 KiB, e.g. -b 8) where time is "
                "flat",
                out->latency * 1e6, out->latency_stderr * 1e6, fmt_size(xmin, b2, sizeof b2));
        }
    }
    guard_off(gg);
    free(x);
    free(keep);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

/* ------------------------------------------------------------------ efficiency curve */

/* Parameters are (ln emax, ln h) with w_half = h * scale: both stay positive. */
typedef struct eff_data {
    const double *u; /* work / scale */
    const double *y; /* fractions */
    size_t n;        /* points */
} eff_data;

static int eff_f(const gsl_vector *p, void *vd, gsl_vector *f)
{
    const eff_data *d = vd;
    double e = exp(gsl_vector_get(p, 0)), h = exp(gsl_vector_get(p, 1));
    for (size_t i = 0; i < d->n; i++) gsl_vector_set(f, i, e * d->u[i] / (d->u[i] + h) - d->y[i]);
    return GSL_SUCCESS;
}

static int eff_df(const gsl_vector *p, void *vd, gsl_matrix *J)
{
    const eff_data *d = vd;
    double e = exp(gsl_vector_get(p, 0)), h = exp(gsl_vector_get(p, 1));
    for (size_t i = 0; i < d->n; i++) {
        double q = d->u[i] + h;
        gsl_matrix_set(J, i, 0, e * d->u[i] / q);            /* d/d ln e */
        gsl_matrix_set(J, i, 1, -e * d->u[i] * h / (q * q)); /* d/d ln h */
    }
    return GSL_SUCCESS;
}

/* The points' checks (at least 3, positive, not all the same work) and their range (*wmin,
 * *wmax and *ymax start at INFINITY, 0 and 0). */
static int eff_check(const double *work, const double *fraction, int n, double *wmin, double *wmax,
    double *ymax, zs_error *err)
{
    if (n < 3)
        return zs_fail(err, ZS_ERR_INPUT,
            "efficiency fit: %d point%s; need at least 3 work "
            "sizes spanning the knee of the curve",
            n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        if (not_positive("efficiency fit", i, "work", work[i], err) ||
            not_positive("efficiency fit", i, "fraction", fraction[i], err))
            return err->code;
        if (work[i] < *wmin) *wmin = work[i];
        if (work[i] > *wmax) *wmax = work[i];
        if (fraction[i] > *ymax) *ymax = fraction[i];
    }
    if (*wmin == *wmax)
        return zs_fail(err, ZS_ERR_INPUT,
            "efficiency fit: all %d points have the same work "
            "(%g); sweep the problem size",
            n, *wmin);
    return ZS_OK;
}

/* u[i] = work[i] / scale, and the starting (emax, h) from 1/eff = 1/emax + (h/emax) (1/u),
 * an ordinary line fit (else 1.2 ymax and 1). */
static void eff_start(const double *work, const double *fraction, int n, double scale, double ymax, double *u,
    double *e0, double *h0)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        u[i] = work[i] / scale;
        double a = 1 / u[i], b = 1 / fraction[i];
        sx += a;
        sy += b;
        sxx += a * a;
        sxy += a * b;
    }
    double den = n * sxx - sx * sx;
    double slope = den != 0 ? (n * sxy - sx * sy) / den : 0;
    double icpt = (sy - slope * sx) / n;
    *e0 = ymax * 1.2;
    *h0 = 1;
    if (icpt > 0 && slope > 0) {
        *e0 = 1 / icpt;
        *h0 = slope * *e0;
    }
}

/* The converged fit into *out: emax, w_half (times scale), their standard errors and r2.
 * Fails when the covariance fails or the curve does not level off below 10 wmax. */
static int eff_result(gsl_multifit_nlinear_workspace *w, const gsl_vector *wts, gsl_matrix *cov,
    const double *fraction, int n, double scale, double wmax, eff_fit *out, zs_error *err)
{
    const gsl_vector *p = gsl_multifit_nlinear_position(w);
    const gsl_vector *f = gsl_multifit_nlinear_residual(w); /* weighted residuals */
    double chisq = 0, sw = 0, swy = 0, tss = 0;
    for (int i = 0; i < n; i++) {
        double wi = gsl_vector_get(wts, (size_t)i);
        chisq += gsl_vector_get(f, (size_t)i) * gsl_vector_get(f, (size_t)i);
        sw += wi;
        swy += wi * fraction[i];
    }
    for (int i = 0; i < n; i++) {
        double d = fraction[i] - swy / sw;
        tss += gsl_vector_get(wts, (size_t)i) * d * d;
    }
    int g = gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 0.0, cov);
    if (g) return zs_fail(err, ZS_ERR_INPUT, "efficiency fit: covariance failed (%s)", gsl_strerror(g));
    double s2 = n > 2 ? chisq / (n - 2) : 0;
    out->emax = exp(gsl_vector_get(p, 0));
    out->w_half = exp(gsl_vector_get(p, 1)) * scale;
    /* delta method: se(x) = x se(ln x) */
    out->emax_stderr = out->emax * sqrt(gsl_matrix_get(cov, 0, 0) * s2);
    out->w_half_stderr = out->w_half * sqrt(gsl_matrix_get(cov, 1, 1) * s2);
    out->r2 = tss > 0 ? 1 - chisq / tss : 1;
    out->n = n;
    if (!isfinite(out->emax) || !isfinite(out->w_half) || !isfinite(out->emax_stderr) ||
        !isfinite(out->w_half_stderr) || out->w_half > 10 * wmax || out->emax_stderr >= out->emax)
        return zs_fail(err, ZS_ERR_INPUT,
            "efficiency fit: the points do not level off (fitted "
            "w_half %.3g beyond the largest work %.3g, emax %.3g +- %.2g); add larger "
            "work sizes",
            out->w_half, wmax, out->emax, out->emax_stderr);
    return ZS_OK;
}

int fit_efficiency(const double *work, const double *fraction, int n, eff_fit *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    double wmin = INFINITY, wmax = 0, ymax = 0;
    if (eff_check(work, fraction, n, &wmin, &wmax, &ymax, err)) return err->code;
    double scale = sqrt(wmin * wmax);
    double *u = malloc((size_t)n * sizeof *u);
    if (!u) return zs_fail(err, ZS_ERR_NOMEM, "efficiency fit: out of memory");
    double e0, h0;
    eff_start(work, fraction, n, scale, ymax, u, &e0, &h0);
    eff_data d = {u, fraction, (size_t)n};
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = eff_f;
    fdf.df = eff_df;
    fdf.n = (size_t)n;
    fdf.p = 2;
    fdf.params = &d;
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    gsl_guard gg = guard_on();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, (size_t)n, 2);
    gsl_vector *p0 = gsl_vector_alloc(2), *wts = gsl_vector_alloc((size_t)n);
    gsl_matrix *cov = gsl_matrix_alloc(2, 2);
    int rc = ZS_OK;
    if (!w || !p0 || !cov || !wts) {
        rc = zs_fail(err, ZS_ERR_NOMEM, "efficiency fit: out of memory");
        goto done;
    }
    gsl_vector_set(p0, 0, log(e0));
    gsl_vector_set(p0, 1, log(h0));
    int info = 0;
    for (int i = 0; i < n; i++) /* relative errors: timing noise scales with the time */
        gsl_vector_set(wts, (size_t)i, 1.0 / (fraction[i] * fraction[i]));
    int g = gsl_multifit_nlinear_winit(p0, wts, &fdf, w);
    if (!g) g = gsl_multifit_nlinear_driver(500, 1e-10, 1e-12, 0.0, NULL, NULL, &info, w);
    if (g) {
        rc = zs_fail(err, ZS_ERR_INPUT,
            "efficiency fit: did not converge (%s); the points may "
            "not follow emax * W / (W + w_half)",
            gsl_strerror(g));
        goto done;
    }
    rc = eff_result(w, wts, cov, fraction, n, scale, wmax, out, err);
done:
    if (w) gsl_multifit_nlinear_free(w);
    if (p0) gsl_vector_free(p0);
    if (wts) gsl_vector_free(wts);
    if (cov) gsl_matrix_free(cov);
    guard_off(gg);
    free(u);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

/* ------------------------------------------------------------------ scale factor */

/* Scale points: the relative-error form 1 = k * (predicted / measured). */
typedef struct ratio_points {
    const double *predicted, *measured;
} ratio_points;

static void ratio_row(const void *ctx, int i, double *row)
{
    const ratio_points *d = ctx;
    row[0] = d->predicted[i] / d->measured[i];
}

int fit_scale(const double *predicted, const double *measured, int n, int robust, double *k, double *k_stderr,
    zs_error *err)
{
    *k = 0;
    if (k_stderr) *k_stderr = 0;
    int need = robust ? 3 : 2;
    if (n < need)
        return zs_fail(
            err, ZS_ERR_INPUT, "scale fit: %d point%s; need at least %d", n, n == 1 ? "" : "s", need);
    for (int i = 0; i < n; i++)
        if (not_positive("scale fit", i, "predicted", predicted[i], err) ||
            not_positive("scale fit", i, "measured", measured[i], err))
            return err->code;
    int *keep = malloc((size_t)n * sizeof *keep);
    if (!keep) return zs_fail(err, ZS_ERR_NOMEM, "scale fit: out of memory");
    for (int i = 0; i < n; i++) keep[i] = 1;
    gsl_guard gg = guard_on();
    int rc = ZS_OK;
    if (robust) {
        const ratio_points pts = {predicted, measured};
        int dropped = robust_mask(n, 1, ratio_row, &pts, keep);
        if (dropped < 0)
            rc = zs_fail(err, ZS_ERR_INPUT, "scale fit: the robust (bisquare) pass failed");
        else if (n - dropped < 2)
            rc = zs_fail(err, ZS_ERR_INPUT,
                "scale fit: the robust pass rejected %d of %d "
                "points; too few left",
                dropped, n);
    }
    if (rc == ZS_OK) {
        int m = 0;
        for (int i = 0; i < n; i++) m += keep[i];
        lsq s;
        bool ok = lsq_alloc(&s, (size_t)m, 1, false);
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)m, 1);
        if (ok && ws) {
            for (int i = 0, j = 0; i < n; i++) {
                if (!keep[i]) continue;
                gsl_matrix_set(s.X, (size_t)j, 0, predicted[i] / measured[i]);
                gsl_vector_set(s.y, (size_t)j, 1.0);
                j++;
            }
            double chisq;
            /* gsl_multifit_linear already scales the covariance by chisq / (m - 1) */
            int g = gsl_multifit_linear(s.X, s.y, s.c, s.cov, &chisq, ws);
            if (g) {
                rc = zs_fail(err, ZS_ERR_INPUT, "scale fit: least squares failed (%s)", gsl_strerror(g));
            } else {
                *k = gsl_vector_get(s.c, 0);
                if (k_stderr) *k_stderr = sqrt(gsl_matrix_get(s.cov, 0, 0));
            }
        } else {
            rc = zs_fail(err, ZS_ERR_NOMEM, "scale fit: out of memory");
        }
        lsq_free(&s);
        if (ws) gsl_multifit_linear_free(ws);
    }
    guard_off(gg);
    free(keep);
    if (rc) {
        *k = 0;
        if (k_stderr) *k_stderr = 0;
    }
    return rc;
}
