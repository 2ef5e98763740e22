/* calibrate.c -- per-collective alpha-beta fits combined per link level, GEMM and bandwidth
 * efficiencies, and the end-to-end matmul efficiency from measured runs. */
#include "analysis/calibrate.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calib_nccl.h"
#include "core/busbw.h"
#include "analysis/validate.h"

/* Record a warning for the command to print (once: calibrate_apply runs twice). */
static void note(calibration *c, const char *msg)
{
    for (int i = 0; i < c->n_warnings; i++)
        if (strcmp(c->warnings[i], msg) == 0) return;
    if (c->n_warnings < CALIB_MAX_WARNINGS)
        snprintf(c->warnings[c->n_warnings++], sizeof c->warnings[0], "%s", msg);
}

/* A plausibility gate failed: refuse with the reason, or with c->force keep going and record
 * it as a warning. */
static int gate(calibration *c, zs_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int gate(calibration *c, zs_error *err, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!c->force) return zs_fail(err, ZS_ERR_INPUT, "%s (--force keeps it)", msg);
    size_t n = strlen(msg);
    snprintf(msg + n, sizeof msg - n, " (kept: --force)");
    note(c, msg);
    return ZS_OK;
}

/* Algorithm steps the fitted latency stands for (ring schedules, Thakur et al. 2005), so that
 * latency_seconds in the profile is per step as collective.c uses it. */
static double steps_of(const char *coll, int n)
{
    double k = n > 1 ? n - 1 : 1;
    if (strcmp(coll, "all_reduce") == 0) return 2 * k;
    if (strcmp(coll, "send_recv") == 0) return 1;
    return k;
}

int calibrate_add_set(calibration *c, const coll_samples *s, const char *source, int64_t gpus_per_node,
    int ranks_per_node, zs_error *err)
{
    if (c->n_sets >= CALIB_MAX_SETS)
        return zs_fail(err, ZS_ERR_INPUT, "%s: more than %d collective sets", source, CALIB_MAX_SETS);
    if (s->ranks < 2)
        return zs_fail(err, ZS_ERR_INPUT, "%s: %s on %d rank(s) moves nothing; measure with 2 or more",
            source, s->collective, s->ranks);
    double factor = busbw_factor(s->collective, s->ranks);
    if (factor <= 0)
        return zs_fail(err, ZS_ERR_INPUT, "%s: collective \"%s\" cannot be fitted", source, s->collective);
    double *x = calloc((size_t)s->n + 1, sizeof *x), *y = calloc((size_t)s->n + 1, sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->v[i].wrong > 0) continue; /* a wrong result is not a measurement */
        x[n] = s->v[i].bytes;
        y[n] = s->v[i].seconds;
        n++;
    }
    calib_set *cs = &c->sets[c->n_sets];
    memset(cs, 0, sizeof *cs);
    /* The points NCCL's model is inverted on (calibrate_apply): all of them, or an even pick. */
    int keep = n < CALIB_SET_POINTS ? n : CALIB_SET_POINTS;
    for (int i = 0; i < keep; i++) {
        int j = keep > 1 ? (int)((long long)i * (n - 1) / (keep - 1)) : 0;
        if (x[j] > 0 && y[j] > 0) {
            cs->pt_bytes[cs->npts] = x[j];
            cs->pt_seconds[cs->npts++] = y[j];
        }
    }
    int rc = fit_alpha_beta(x, y, n, factor, 1, &cs->fit, err);
    if (rc == ZS_OK) {
        for (int i = 0; i < n; i++) {
            double pred = cs->fit.latency + x[i] * factor / cs->fit.busbw;
            cs->residual_max = fmax(cs->residual_max, fabs(y[i] / pred - 1));
        }
    }
    free(x);
    free(y);
    if (rc) {
        zs_error_prefix(err, source);
        return rc;
    }
    snprintf(cs->collective, sizeof cs->collective, "%s", s->collective);
    snprintf(cs->source, sizeof cs->source, "%s", source);
    cs->ranks = s->ranks;
    int per_node = ranks_per_node > 0 ? ranks_per_node : (s->ranks <= gpus_per_node ? s->ranks : 1);
    cs->level = per_node >= s->ranks ? LEVEL_INTRA : LEVEL_INTER;
    /* The hosts the log names decide: ranks on two hosts crossed the network. */
    if (s->hosts > 1) cs->level = LEVEL_INTER;
    if (s->hosts == 1) {
        cs->level = LEVEL_INTRA;
        if (s->ranks > gpus_per_node &&
            (rc = gate(c, err,
                 "%s: all %d ranks of the %s run were on one host, but the profile has %lld "
                 "GPUs per node: calibrate the profile of the machine measured",
                 source, s->ranks, s->collective, (long long)gpus_per_node)))
            return rc;
    }
    /* Ranks per node, for the bound on a two-level set's bandwidth: known from the harness,
     * else at most half the ranks (two hosts or more) and the profile's GPUs per node. */
    if (cs->level == LEVEL_INTRA)
        cs->per_node = s->ranks;
    else if (ranks_per_node > 0)
        cs->per_node = ranks_per_node;
    else
        cs->per_node = (int)fmax(1, fmin((double)gpus_per_node, s->ranks / 2));
    double steps = steps_of(s->collective, s->ranks);
    cs->alpha = cs->fit.latency / steps;
    cs->alpha_stderr = cs->fit.latency_stderr / steps;
    if (cs->fit.r2 < CALIB_MIN_R2 &&
        (rc = gate(c, err,
             "%s: the %s fit has R^2 %.2f (at least %.2f expected): the times do not follow "
             "latency + size / bandwidth (mixed runs, congestion or a shared machine)",
             source, s->collective, cs->fit.r2, CALIB_MIN_R2)))
        return rc;
    if (cs->alpha > CALIB_MAX_ALPHA &&
        (rc = gate(c, err,
             "%s: the %s fit gives %.3g s of latency per step (at most %g s is plausible): "
             "the log timed something other than the link",
             source, s->collective, cs->alpha, CALIB_MAX_ALPHA)))
        return rc;
    c->n_sets++;
    return ZS_OK;
}

int calibrate_check_backend(calibration *c, const harness_file *h, const char *source, zs_error *err)
{
    if (h->n_sets == 0 || strcmp(h->backend, "cpu") != 0) return ZS_OK;
    return gate(c, err,
        "%s: zerobench's CPU back end timed MPI between CPU processes, not the profile's GPU "
        "links; measure with zerobench-cuda",
        source);
}

int calibrate_check_host(calibration *c, const harness_file *h, const hardware *hw, const char *source,
    zs_error *err)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < h->n_points; i++)
        if ((strcmp(h->points[i].bench, "membw") == 0 || strcmp(h->points[i].bench, "adam") == 0) &&
            h->points[i].wrong <= 0 && hw->host_memory_bandwidth > 0) {
            sum += h->points[i].value / hw->host_memory_bandwidth;
            n++;
        }
    if (n == 0) return ZS_OK;
    double fr = sum / n;
    bool few_cpus = h->cpus > 0 && hw->cpu_cores > 0 && 2 * (int64_t)h->cpus < hw->cpu_cores;
    if (fr >= CALIB_MIN_STREAM && !few_cpus) return ZS_OK;
    char cpus[32] = "? CPUs";
    if (h->cpus > 0) snprintf(cpus, sizeof cpus, "%d CPUs", h->cpus);
    return gate(c, err,
        "%s: host streaming %.3f of the profile's datasheet %.3g B/s (at least %.1f expected), measured "
        "on %.60s with %s; %s's host has %lld cores per node: measure on that host with every core",
        source, fr, hw->host_memory_bandwidth, CALIB_MIN_STREAM,
        h->cpu_model[0] ? h->cpu_model : "an unnamed CPU",
        cpus, hw->name, (long long)hw->cpu_cores);
}

int calibrate_check_framework(calibration *c, const fwfit_result *fr, const char *runs_path, zs_error *err)
{
    char left[300] = "";
    if (fr->n_refused)
        snprintf(left, sizeof left, "; %d left out, %.240s%s", fr->n_refused, fr->refused,
            fr->n_refused > 1 ? ", ..." : "");
    if (fr->at_bound)
        return gate(c, err,
            "%s: the %s fit ends on its search bound (gemm_efficiency %.3f in %.1f-%.3f, step_overhead "
            "%.3f s in 0-%.0f): the runs (lines %s%s) do not determine it",
            runs_path, fr->fw->name, fr->efficiency, FWFIT_EFF_MIN, fr->eff_max, fr->overhead,
            FWFIT_OVERHEAD_MAX, fr->used, left);
    bool eff = fr->stderr_eff > CALIB_MAX_FW_REL_STDERR * fr->efficiency;
    bool ovh = fr->stderr_overhead > CALIB_FW_OVERHEAD_NOISE &&
        fr->stderr_overhead > CALIB_MAX_FW_REL_STDERR * fr->overhead;
    if (eff || ovh)
        return gate(c, err,
            "%s: the %s fit is too noisy: standard error %.3g on %s %.3g from %d runs (at most %.1f of "
            "the value): give more runs, of different sizes (some compute-bound, some short steps)",
            runs_path, fr->fw->name, eff ? fr->stderr_eff : fr->stderr_overhead,
            eff ? "gemm_efficiency" : "step_overhead", eff ? fr->efficiency : fr->overhead, fr->n_train,
            CALIB_MAX_FW_REL_STDERR);
    return ZS_OK;
}

/* Which peak a GPU GEMM point of this label ("impl type MxNxK") is judged against: 0 for the
 * 16-bit group, 1 for FP8, -1 to leave it out. A label without a type ("?") is 16-bit, as
 * zerobench's GEMMs were before they named one. */
static int gemm_group(const char *label, const hardware *hw, double *peak)
{
    const char *ty = strchr(label, ' ');
    ty = ty ? ty + 1 : "?";
    size_t n = strcspn(ty, " ");
    if ((n == 8 && !strncmp(ty, "bfloat16", n)) || (n == 1 && *ty == '?')) {
        *peak = hw->peak_bf16 > 0 ? hw->peak_bf16 : hw->peak_fp16;
        return *peak > 0 ? 0 : -1;
    }
    if (n == 4 && !strncmp(ty, "half", n)) {
        *peak = hw->peak_fp16 > 0 ? hw->peak_fp16 : hw->peak_bf16;
        return *peak > 0 ? 0 : -1;
    }
    if (n == 6 && (!strncmp(ty, "f8e4m3", n) || !strncmp(ty, "f8e5m2", n))) {
        *peak = hw->peak_fp8;
        return *peak > 0 ? 1 : -1;
    }
    return -1;
}

/* Refit one GEMM group over every point gathered so far, with the quality gates. */
static int fit_gemm_group(calibration *c, int g, zs_error *err)
{
    static const char *what[2] = {"GEMM", "FP8 GEMM"};
    eff_fit *fit = g ? &c->gemm_fp8 : &c->gemm;
    int rc;
    if (c->gemm_n[g] < 3) return ZS_OK;
    if (fit_efficiency(c->gemm_w[g], c->gemm_f[g], c->gemm_n[g], fit, err)) return err->code;
    if (fit->r2 < CALIB_MIN_R2 &&
        (rc = gate(c, err, "%s efficiency fit has R^2 %.2f (at least %.2f expected)", what[g], fit->r2,
             CALIB_MIN_R2)))
        return rc;
    if (fit->emax > 1 &&
        (rc = gate(c, err,
             "%s reaches %.2f of the profile's peak: a peak cannot be exceeded "
             "(the wrong profile or data type?)",
             what[g], fit->emax)))
        return rc;
    if (g)
        c->have_gemm_fp8 = true;
    else
        c->have_gemm = true;
    return ZS_OK;
}

int calibrate_add_bench(
    calibration *c, const bench_point *p, int n, const hardware *hw, bool gpu, zs_error *err)
{
    double bw_sum = 0, bw_sq = 0;
    int nb = 0, added[2] = {0, 0};
    double datasheet = gpu ? hw->hbm_bandwidth : hw->host_memory_bandwidth;
    for (int i = 0; i < n; i++) {
        double peak = 0;
        int g;
        if (p[i].wrong > 0) continue;
        if (strcmp(p[i].bench, "gemm") == 0) {
            if (gpu && (g = gemm_group(p[i].label, hw, &peak)) >= 0 && c->gemm_n[g] < CALIB_MAX_GEMM) {
                c->gemm_w[g][c->gemm_n[g]] = p[i].x;
                c->gemm_f[g][c->gemm_n[g]++] = p[i].value / peak;
                added[g]++;
            }
        } else if ((strcmp(p[i].bench, "membw") == 0 || strcmp(p[i].bench, "adam") == 0) && datasheet > 0) {
            double fr = p[i].value / datasheet;
            bw_sum += fr;
            bw_sq += fr * fr;
            nb++;
        }
    }
    int rc;
    for (int g = 0; g < 2; g++)
        if (added[g] && (rc = fit_gemm_group(c, g, err))) return rc;
    if (nb > 0) {
        /* The best sustained fraction: the mean of the larger-size points the file holds. */
        double mean = bw_sum / nb, sd = nb > 1 ? sqrt(fmax(0, (bw_sq - nb * mean * mean) / (nb - 1))) : 0;
        if (mean > 1 &&
            (rc = gate(c, err,
                 "%s streaming reaches %.2f of the profile's datasheet bandwidth %.3g B/s, which "
                 "cannot be exceeded (the wrong profile?)",
                 gpu ? "HBM" : "host memory", mean, datasheet)))
            return rc;
        if (gpu) {
            c->have_hbm = true;
            c->hbm_fraction = fmin(1, mean);
            c->hbm_stderr = sd / sqrt(nb);
        } else {
            c->have_host = true;
            c->host_fraction = fmin(1, mean);
            c->host_stderr = sd / sqrt(nb);
        }
    }
    return ZS_OK;
}

/* Each set's latency per step at level l, combined by inverse variance into c. With an NCCL
 * release in the profile, the latency is the one NCCL's tuning model needs to reproduce the
 * set's times (calib_nccl.c: its base latency, protocols and algorithm choice taken out, the
 * links at the efficiencies just fitted), else the alpha-beta fit's latency over the ring's
 * steps. The standard error keeps the alpha-beta fit's relative one. */
static void level_alpha(calibration *c, const hardware *hw, int l)
{
    double wa = 0, sa = 0;
    bool bound_noted = false;
    for (int i = 0; i < c->n_sets; i++) {
        calib_set *s = &c->sets[i];
        if ((int)s->level != l) continue;
        double a, rms = 0;
        bool at_bound = false;
        if (!calib_nccl_alpha(s, hw, hw->intra.latency, &a, &at_bound, &rms)) {
            /* no NCCL release, or a collective its model does not cost: fit / steps stays */
        } else if (rms > CALIB_NCCL_MAX_RMS) {
            char msg[400];
            snprintf(msg, sizeof msg,
                "%s: NCCL's tuning model fits the %s times no better than %.0f%% at any latency: "
                "kept the alpha-beta latency per step",
                s->source, s->collective, 100 * (exp(rms) - 1));
            note(c, msg);
        } else {
            double rel = s->fit.latency > 0 ? s->fit.latency_stderr / s->fit.latency : 0;
            s->alpha = a;
            s->alpha_stderr = a * rel;
            s->nccl_inverted = true;
            if (at_bound && !bound_noted) {
                char msg[400];
                snprintf(msg, sizeof msg,
                    "%s: the %s times do not pin NCCL's per-step latency down (best at the %g s end "
                    "of the search): the log's smallest sizes are needed",
                    s->source, s->collective, a);
                note(c, msg);
                bound_noted = true;
            }
        }
        /* Inverse-variance weights; a perfect fit (zero stderr) gets a tiny floor. */
        double va = fmax(s->alpha_stderr * s->alpha_stderr, 1e-30);
        wa += 1 / va;
        sa += s->alpha / va;
    }
    c->alpha[l] = sa / wa;
    c->alpha_stderr[l] = sqrt(1 / wa);
}

int calibrate_apply(calibration *c, hardware *hw, zs_error *err)
{
    for (int l = 0; l < 2; l++) {
        double wb = 0, sb = 0;
        int k = 0;
        for (int i = 0; i < c->n_sets; i++) {
            const calib_set *s = &c->sets[i];
            if ((int)s->level != l) continue;
            /* A ring through several ranks per node crosses each node boundary on all their
             * NICs at once: its bus bandwidth is per_node x one GPU's NIC share (the network
             * part of collective.c's two-level schedule, and NCCL's ring in nccl.c alike), so
             * an inter-node set speaks for per_node shares. */
            double g = l == LEVEL_INTER && s->per_node > 1 ? (double)s->per_node : 1;
            double bw = s->fit.busbw / g, bw_err = s->fit.busbw_stderr / g;
            double vb = fmax(bw_err * bw_err, 1e-6 * bw);
            wb += 1 / vb;
            sb += bw / vb;
            k++;
        }
        if (!k) continue;
        c->have_level[l] = true;
        c->bandwidth[l] = sb / wb;
        c->bandwidth_stderr[l] = sqrt(1 / wb);
        hw_link *lk = l == LEVEL_INTRA ? &hw->intra : &hw->inter;
        /* Inter-node effective bandwidth is per GPU: its share of the node's NICs. */
        double line = l == LEVEL_INTRA
            ? lk->bandwidth
            : lk->bandwidth * (double)hw->nics_per_node / (double)hw->gpus_per_node;
        double eff = c->bandwidth[l] / line;
        const char *lname = l == LEVEL_INTRA ? "intra-node" : "inter-node";
        int rc = ZS_OK;
        /* Physical bound of each set: the link's line rate; a two-level set (several ranks per
         * node) sends only 1/g of each GPU's data over the network (collective.h), so its bus
         * bandwidth may reach g x the NIC share. */
        for (int i = 0; i < c->n_sets && !rc; i++) {
            const calib_set *s = &c->sets[i];
            double bound = l == LEVEL_INTRA ? line : line * (s->per_node > 1 ? s->per_node : 1);
            if ((int)s->level == l && s->fit.busbw > bound)
                rc = gate(c, err,
                    "%s: the %s bus bandwidth fitted, %.1f GB/s per GPU, is above the %.1f GB/s "
                    "the profile's %s link (%s) can carry: the wrong profile, in-network reduction "
                    "(NVLS, SHARP) or a wrong rank count",
                    s->source, s->collective, s->fit.busbw / 1e9, bound / 1e9, lname, lk->kind);
        }
        if (!rc && eff > 1) {
            char msg[300];
            snprintf(msg, sizeof msg,
                "the %s efficiency fitted from two-level runs, %.2f, is clamped to 1: their "
                "bus bandwidth is not the network's alone",
                lname, eff);
            note(c, msg);
        } else if (!rc && eff < CALIB_MIN_EFFICIENCY)
            rc = gate(c, err,
                "the %s bandwidth fitted, %.3g GB/s per GPU, is %.3f of the profile's line rate "
                "%.1f GB/s (%s; at least %.2f expected): the log measured another path",
                lname, c->bandwidth[l] / 1e9, eff, line / 1e9, lk->kind, CALIB_MIN_EFFICIENCY);
        if (rc) return rc;
        lk->efficiency = fmin(1, fmax(1e-3, eff));
        lk->bandwidth_stderr = c->bandwidth_stderr[l] *
            (l == LEVEL_INTRA ? 1 : (double)hw->gpus_per_node / (double)hw->nics_per_node);
        /* The latency after the efficiency: NCCL's model sees the links as fitted. */
        level_alpha(c, hw, l);
        lk->latency = c->alpha[l];
        lk->latency_stderr = c->alpha_stderr[l];
    }
    if (c->have_gemm) hw->matmul_half_flops = c->gemm.w_half;
    /* FP8's best fraction of its peak over the 16-bit one's, as both were measured here. */
    if (c->have_gemm && c->have_gemm_fp8) hw->fp8_matmul_ratio = fmin(2, c->gemm_fp8.emax / c->gemm.emax);
    if (c->have_hbm) {
        hw->hbm_fraction = c->hbm_fraction;
        hw->hbm_fraction_stderr = c->hbm_stderr;
    }
    if (c->have_host) hw->host_memory_fraction = c->host_fraction;
    if (!c->have_level[0] && !c->have_level[1] && !c->have_gemm && !c->have_hbm && !c->have_host &&
        !c->have_runs && !c->have_memory && !c->have_framework)
        return zs_fail(
            err, ZS_ERR_INPUT, "nothing to calibrate: give --nccl-tests logs, --harness files or --runs");
    return ZS_OK;
}

/* Predicted step times for the runs that have a measured one; n_out of them. */
static int predict_all(const run_record *runs, int n, const hardware *hw, double *pred, double *meas,
    double *mape, int *n_out, calibration *c, double *eff_top, zs_error *err)
{
    int k = 0;
    double sum = 0;
    if (eff_top) *eff_top = 0;
    for (int i = 0; i < n; i++) {
        double step = runs_measured_step(&runs[i]);
        if (step <= 0) continue;
        outcome o;
        if (validate_run_hw(&runs[i], hw, &o, err)) return err->code;
        if (o.refused[0]) { /* its framework does not run it: left out, counted the first time */
            if (c && c->runs_refused++ == 0)
                snprintf(c->runs_refused_note, sizeof c->runs_refused_note, "line %d: %.200s", runs[i].line,
                    o.refused);
            continue;
        }
        if (eff_top) *eff_top = fmax(*eff_top, o.gemm_efficiency);
        pred[k] = o.r.step.total;
        meas[k] = step;
        sum += fabs(pred[k] / meas[k] - 1);
        k++;
    }
    *n_out = k;
    *mape = k ? sum / k : 0;
    return ZS_OK;
}

int calibrate_runs(calibration *c, const run_record *runs, int n, hardware *hw, zs_error *err)
{
    double *pred = malloc(sizeof(double) * (size_t)n), *meas = malloc(sizeof(double) * (size_t)n);
    if (!pred || !meas) {
        free(pred);
        free(meas);
        return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    int k = 0, rc = ZS_OK;
    double mape, kfit = 1, kse = 0;
    c->runs_refused = 0;
    double eff = 1; /* the largest framework factor of the runs: fraction x it stays <= 1 */
    if ((rc = predict_all(runs, n, hw, pred, meas, &c->mape_before, &k, c, &eff, err))) goto out;
    double top = eff > 0 ? fmin(1, (1 - 1e-9) / eff) : 1;
    if (k < 3) {
        rc = zs_fail(err, ZS_ERR_INPUT, "--runs: %d runs with a measured step time that can be predicted; "
            "at least 3 are needed%s%.240s%s", k, c->runs_refused ? " (left out: " : "", c->runs_refused_note,
            c->runs_refused ? ")" : "");
        goto out;
    }
    /* measured = k x predicted; compute time scales as 1 / efficiency, other terms do not,
     * so iterate a few times until k settles at 1. */
    double raw = hw->matmul_max_fraction;
    for (int it = 0; it < 8; it++) {
        if ((rc = fit_scale(pred, meas, k, 1, &kfit, &kse, err))) goto out;
        raw = hw->matmul_max_fraction / kfit;
        hw->matmul_max_fraction = fmin(top, fmax(1e-3, raw));
        if ((rc = predict_all(runs, n, hw, pred, meas, &mape, &k, NULL, NULL, err))) goto out;
        if (fabs(kfit - 1) < 1e-4) break;
    }
    if (raw > top &&
        (rc = gate(c, err,
             "--runs: the runs are faster than the profile allows even at %.2f of peak matmul "
             "throughput (above 1 is impossible): check the runs' hardware and configurations",
             raw * (eff > 0 ? eff : 1))))
        goto out;
    c->have_runs = true;
    c->runs = k;
    c->matmul_max = hw->matmul_max_fraction;
    c->matmul_stderr = hw->matmul_max_fraction * kse; /* relative error of k carries over */
    hw->matmul_max_stderr = c->matmul_stderr;
    c->mape_after = mape;
out:
    free(pred);
    free(meas);
    return rc;
}

int calibrate_memory(calibration *c, const run_record *runs, int n, hardware *hw, zs_error *err)
{
    double *alloc = malloc(sizeof(double) * (size_t)(n + 1)),
           *meas = malloc(sizeof(double) * (size_t)(n + 1));
    int k = 0, rc = ZS_OK;
    if (!alloc || !meas) {
        rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (runs[i].peak_memory_bytes <= 0) continue;
        outcome o;
        if ((rc = validate_run_hw(&runs[i], hw, &o, err))) goto out;
        const memory *m = &o.r.mem;
        alloc[k] = m->total - m->cuda_context - m->allocator;
        meas[k] = runs[i].peak_memory_bytes - hw->cuda_context_bytes;
        if (alloc[k] > 0 && meas[k] > 0) k++;
    }
    if (k < 3) goto out;
    double scale, se;
    if ((rc = fit_scale(alloc, meas, k, 1, &scale, &se, err))) goto out;
    if (scale < 1) {
        rc = zs_fail(err, ZS_ERR_INPUT,
            "--runs: measured peak memory is %.1f%% below the model's allocations; "
            "check the runs' configurations (checkpointing, micro-batch) before fitting overhead",
            100 * (1 - scale));
        goto out;
    }
    if (scale - 1 > CALIB_MAX_ALLOCATOR &&
        (rc = gate(c, err,
             "--runs: measured peak memory implies allocator overhead of %.3g of the allocated "
             "bytes (at most %.1f is plausible): check the runs' configurations",
             scale - 1, CALIB_MAX_ALLOCATOR)))
        goto out;
    c->have_memory = true;
    c->memory_runs = k;
    c->allocator_fraction = hw->allocator_fraction = scale - 1;
    c->allocator_stderr = se;
out:
    free(alloc);
    free(meas);
    return rc;
}

int calibrate_fields(const calibration *c, size_t *off, int max)
{
    size_t f[16];
    int n = 0;
    for (int l = 0; l < 2; l++) {
        if (!c->have_level[l]) continue;
        size_t base = l == LEVEL_INTRA ? offsetof(hardware, intra) : offsetof(hardware, inter);
        f[n++] = base + offsetof(hw_link, latency);
        f[n++] = base + offsetof(hw_link, latency_stderr);
        f[n++] = base + offsetof(hw_link, bandwidth_stderr);
        f[n++] = base + offsetof(hw_link, efficiency);
    }
    if (c->have_gemm) f[n++] = offsetof(hardware, matmul_half_flops);
    if (c->have_gemm && c->have_gemm_fp8) f[n++] = offsetof(hardware, fp8_matmul_ratio);
    if (c->have_hbm) {
        f[n++] = offsetof(hardware, hbm_fraction);
        f[n++] = offsetof(hardware, hbm_fraction_stderr);
    }
    if (c->have_host) f[n++] = offsetof(hardware, host_memory_fraction);
    if (c->have_runs) {
        f[n++] = offsetof(hardware, matmul_max_fraction);
        f[n++] = offsetof(hardware, matmul_max_stderr);
    }
    if (c->have_memory) f[n++] = offsetof(hardware, allocator_fraction);
    if (n > max) n = max;
    memcpy(off, f, (size_t)n * sizeof *off);
    return n;
}
