/* fit.h -- GSL least-squares fits: collective latency/bandwidth, GEMM efficiency, scale factors. */
#ifndef ZS_FIT_H
#define ZS_FIT_H

#include "core/error.h"

/* time = latency + bytes * factor / busbw, fitted to measured (bytes, time) points. */
typedef struct ab_fit {
    double latency;        /* seconds (alpha) */
    double latency_stderr; /* seconds */
    double busbw;          /* bytes/s: time = latency + bytes * factor / busbw, factor = the
                              nccl-tests busbw factor for the collective and ranks */
    double busbw_stderr;   /* bytes/s (delta method from the covariance of 1/busbw) */
    double cov[2][2];      /* covariance of (latency [s], 1/busbw [s/byte]);
                              units s^2, s^2/byte, s^2/byte^2 */
    double r2;             /* coefficient of determination, weighted (1/time^2) */
    int n;                 /* points used */
    int outliers;          /* points dropped by the robust pass */
} ab_fit;

/* Weighted linear least squares (gsl_multifit_wlinear) of time = a + (bytes*factor) * (1/B),
 * weights 1/time^2 so that small and large messages both count (relative errors); the
 * covariance is scaled by the residual variance (chi^2 / (n - 2)), since the weights give
 * only relative errors. With robust != 0 a bisquare fit (gsl_multifit_robust on the
 * relative-error form) comes first; points whose relative residual from it lies beyond
 * bisquare's rejection point (4.685 x 1.4826 x MAD, that scale floored at 1e-4) are dropped
 * (counted in outliers) and the weighted fit is redone on the rest. Fails with ZS_ERR_INPUT,
 * the message saying what to change: fewer than 3 points (also after dropping outliers);
 * all sizes equal; a zero, negative or non-finite time, or a negative or non-finite size; a
 * factor that is not positive and finite; a negative fitted latency or bandwidth (naming
 * the sizes to add); a GSL failure. Never prints; GSL's abort-on-error handler is turned
 * off. *out is zeroed on failure. */
int fit_alpha_beta(
    const double *bytes, const double *seconds, int n, double factor, int robust, ab_fit *out, zs_error *err);

/* Efficiency curve eff(W) = emax * W / (W + w_half). */
typedef struct eff_fit {
    double emax;          /* asymptotic fraction of peak (dimensionless) */
    double emax_stderr;   /* same unit */
    double w_half;        /* work at which eff = emax / 2, in the unit of `work` (flop) */
    double w_half_stderr; /* same unit */
    double r2;            /* coefficient of determination, weighted (1/fraction^2) */
    int n;                /* points used */
} eff_fit;

/* Fit eff(W) by weighted nonlinear least squares (gsl_multifit_nlinear, Levenberg-Marquardt
 * trust region, analytic Jacobian, weights 1/fraction^2 for relative errors) to (work,
 * achieved fraction) points, in the parameters (ln emax, ln w_half) so both stay positive;
 * start values from the linearised form 1/eff = 1/emax + (w_half/emax) / W. Standard errors
 * from the covariance scaled by chi^2 / (n - 2), mapped back by the delta method. Fails with
 * ZS_ERR_INPUT on fewer than 3 points, all work equal, a non-positive or non-finite work or
 * fraction, non-convergence, or points that never level off (w_half beyond 10x the largest
 * work, or emax's stderr as large as emax). *out is zeroed on failure. */
int fit_efficiency(const double *work, const double *fraction, int n, eff_fit *out, zs_error *err);

/* Ratio fit of measured = k * predicted, weighted by 1/measured^2 (relative errors), with the
 * standard error of k scaled by the residual variance. robust != 0 drops outliers first, as
 * fit_alpha_beta does (bisquare fit, then 4.685 robust standard deviations), and refits. Fails with
 * ZS_ERR_INPUT on fewer than 2 points (3 when robust), a non-positive or non-finite value,
 * or a GSL failure. k_stderr may be NULL. */
int fit_scale(const double *predicted, const double *measured, int n, int robust, double *k, double *k_stderr,
    zs_error *err);

#endif
