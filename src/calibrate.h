/* calibrate.h -- fitting a hardware profile's parameters to measurements. */
#ifndef ZS_CALIBRATE_H
#define ZS_CALIBRATE_H

#include <stdbool.h>

#include "collective.h"
#include "error.h"
#include "fit.h"
#include "hardware.h"
#include "harness.h"
#include "nccltests.h"
#include "runs.h"

#define CALIB_MAX_SETS 128

/* One collective's fit: a set of (size, time) points from one log or harness document. */
typedef struct calib_set {
    char collective[24];
    char source[256];        /* file it came from */
    int ranks;
    link_level level;        /* intra-node when every rank shares a node, else inter-node */
    ab_fit fit;              /* latency and bus bandwidth, with standard errors */
    double alpha;            /* latency per algorithm step: fit latency / steps (seconds) */
    double alpha_stderr;
    double residual_max;     /* largest |relative residual| of the fitted points */
} calib_set;

typedef struct calibration {
    calib_set sets[CALIB_MAX_SETS];
    int n_sets;
    /* Per link level (LEVEL_INTRA, LEVEL_INTER): inverse-variance combination of the sets. */
    bool have_level[2];
    double alpha[2], alpha_stderr[2];        /* seconds per step */
    double bandwidth[2], bandwidth_stderr[2];/* achieved bytes/s per GPU */
    /* GEMM efficiency curve (cuBLAS or CPU GEMM): the size dependence. */
    bool have_gemm;
    eff_fit gemm;
    /* Streaming bandwidth (copy/triad, Adam) as a fraction of the datasheet figure. */
    bool have_hbm, have_host;
    double hbm_fraction, hbm_stderr, host_fraction, host_stderr;
    /* End-to-end matmul efficiency from measured runs. */
    bool have_runs;
    int runs;
    double matmul_max, matmul_stderr;
    double mape_before, mape_after;          /* on the runs, before and after */
    /* Memory overhead from runs that report their peak memory: measured = allocated x
     * (1 + allocator_fraction) + cuda_context. */
    bool have_memory;
    int memory_runs;
    double allocator_fraction, allocator_stderr;
} calibration;

/* Fit one nccl-tests or zerobench collective set and append it. gpus_per_node decides the
 * level (ranks <= gpus_per_node: intra-node; the harness's own ranks_per_node wins when
 * known, pass 0 otherwise). Fails with ZS_ERR_INPUT naming the source: too few points, a
 * degenerate or negative fit (see fit_alpha_beta), an unknown collective. */
int calibrate_add_set(calibration *c, const coll_samples *s, const char *source,
                      int64_t gpus_per_node, int ranks_per_node, zs_error *err);

/* Fit GEMM (flop/s) and streaming points from a zerobench file against hw's peaks. `gpu`
 * says whether the points came from the GPU (HBM) or the host (CPU memory). */
int calibrate_add_bench(calibration *c, const bench_point *p, int n, const hardware *hw, bool gpu,
                        zs_error *err);

/* Combine the sets per level and write the fitted values into hw (effective bandwidth as
 * efficiency = bandwidth / line rate, latency per step, their standard errors; matmul half
 * size; streaming fractions). Fails with ZS_ERR_INPUT when nothing was fitted. */
int calibrate_apply(calibration *c, hardware *hw, zs_error *err);

/* Fit matmul_max_fraction so that predicted step times match the runs (iterated scale
 * fit, robust), writing it and its standard error into hw. Fails with ZS_ERR_INPUT when
 * fewer than 2 runs have a measured step time or a run cannot be predicted. */
int calibrate_runs(calibration *c, const run_record *runs, int n, hardware *hw, zs_error *err);

/* Fit the allocator overhead fraction from runs with peak_memory_bytes (at least 3), keeping
 * the profile's CUDA context: measured - context = (1 + f) x allocated, a robust scale fit.
 * Writes hw->allocator_fraction. Returns ZS_OK without change when fewer than 3 runs report
 * memory; fails with ZS_ERR_INPUT when a run cannot be predicted or the fit gives f < 0 (the
 * model over-predicts memory: check the runs' configurations). */
int calibrate_memory(calibration *c, const run_record *runs, int n, hardware *hw, zs_error *err);

/* The hardware fields (offsetof(hardware, member)) the calibration set, in the order the
 * calibrated profile gets them: per fitted level latency, its stderr, the bandwidth stderr and
 * the efficiency; then GEMM half size, HBM fraction and stderr, host memory fraction, matmul
 * efficiency and stderr, allocator fraction. Writes at most max (16 suffice). Never fails. */
int calibrate_fields(const calibration *c, size_t *off, int max);

#endif
