/* calibrate.h -- fitting a hardware profile's parameters to measurements. */
#ifndef ZS_CALIBRATE_H
#define ZS_CALIBRATE_H

#include <stdbool.h>

#include "core/collective.h"
#include "core/error.h"
#include "analysis/fit.h"
#include "analysis/fwfit.h"
#include "core/hardware.h"
#include "io/harness.h"
#include "io/nccltests.h"
#include "io/runs.h"

#define CALIB_MAX_SETS 128
#define CALIB_SET_POINTS 64 /* nccl-tests' default sweep, 8 B to 8 GB by 2x, is 31 sizes */
#define CALIB_MAX_GEMM 256

/* Plausibility gates. A fitted value beyond one of these is refused (ZS_ERR_INPUT, exit 3,
 * naming the input and the value) unless calibration.force is set (--force), in which case it
 * is kept (clamped where a bound is physical) and the reason is recorded as a warning. A value
 * the profile loader would reject (hardware.c's field table) is refused even with --force.
 *
 * CALIB_MIN_R2: weighted R^2 of a collective's latency + size / bandwidth fit, and of the GEMM
 *   efficiency curve. Clean nccl-tests logs fit at 0.9997 or better (tests/data/nccl); the
 *   model leaves more than 10% of the relative variance unexplained only when the timings do
 *   not follow it (mixed runs, congestion, a shared machine: zerobench on this 2-vCPU VM gives
 *   0.55 to 0.84), and then its latency and bandwidth mean nothing.
 * CALIB_MAX_ALPHA: latency per algorithm step, seconds. NCCL's own tuning model puts a ring
 *   step at 0.6 to 14 us on NVLink and the network (NVIDIA/nccl src/graph/tuning.cc @ 5067397c,
 *   hwLatencies, as the catalog profiles cite); 1 ms is 70x the slowest, and means the log
 *   timed something else (launch stalls, timeouts, oversubscribed CPUs).
 * Bus bandwidth above the link's line rate is physically impossible for the link the profile
 *   describes (a wrong profile, in-network reduction such as NVLS/SHARP, or a wrong rank
 *   count); a two-level set with g ranks per node sends 1/g of each GPU's data over the
 *   network, so its bound there is g x the NIC share (its level efficiency above 1 is then
 *   clamped with a warning). A level efficiency below CALIB_MIN_EFFICIENCY means the log
 *   measured another path (a CPU back end, PCIe instead of NVLink, sockets instead of
 *   InfiniBand): NCCL reaches 0.7 to 0.9 of line rate at large sizes (the README's fits: 0.80
 *   NVLink, 0.90 InfiniBand).
 * GEMM, HBM and host streaming fractions above 1 of the datasheet peak: impossible.
 * CALIB_MAX_ALLOCATOR: allocator overhead as a fraction of allocated bytes. The ZeRO paper
 *   (Rajbhandari et al., SC20, section 3.2) reports fragmentation bad enough to run out of
 *   memory "with over 30% of memory still available"; 0.5 is well past that.
 * Zerobench's CPU back end measures MPI between CPU processes, not a GPU profile's links, and
 * nccl-tests "#  Rank ... on HOST" lines decide intra- vs inter-node (a log whose ranks all ran
 * on one host but outnumber the profile's GPUs per node is refused). */
/* CALIB_MAX_FW_REL_STDERR: a framework fit (calibrate --framework) whose standard error is more
 *   than this fraction of the fitted gemm_efficiency (or of a step_overhead whose error is above
 *   CALIB_FW_OVERHEAD_NOISE seconds) is too noisy to use: at 0.5 the 95% interval runs from about
 *   0 to twice the value, the whole search range (the shipped fits: 0.016 to 0.079 on 0.8 to 1.06,
 *   README). A fit that ends on its search bound (fwfit.h) is refused likewise.
 * CALIB_MIN_STREAM: host or HBM streaming below this fraction of the datasheet is not the
 *   profile's memory system: STREAM-like kernels with every core reach 0.6 to 0.9 of the channel
 *   rate on servers (the catalog's own: A100 HBM Triad 0.83, README calibration) and a fraction
 *   of that with a few threads; 0.3 leaves room for a poor DIMM population, and below it the
 *   file measured fewer cores or another machine (zerobench on the 2-vCPU VM: 0.015 to 0.18 of
 *   a DGX A100's host). */
#define CALIB_MAX_FW_REL_STDERR 0.5
#define CALIB_FW_OVERHEAD_NOISE 0.01
#define CALIB_MIN_STREAM 0.3
#define CALIB_MIN_R2 0.9
#define CALIB_MAX_ALPHA 1e-3
/* CALIB_NCCL_MIN_ALPHA: the low end of the search for a per-step latency through NCCL's model,
 *   seconds: 10 ns is 60x below the fastest step tuning.cc tables (NVLink LL 0.6 us). */
#define CALIB_NCCL_MIN_ALPHA 1e-8
/* CALIB_NCCL_MAX_RMS: NCCL's model inverted must reproduce a set's times to a root-mean-square
 *   log error of 0.4 (about 50%) or the latency it gives means nothing and the alpha-beta one is
 *   kept (with a note). Clean nccl-tests logs fit within 0.2 (tests/data/nccl); a log whose
 *   times the model's algorithms cannot produce (20 s per call) sits far above. */
#define CALIB_NCCL_MAX_RMS 0.4
#define CALIB_MIN_EFFICIENCY 0.05
#define CALIB_MAX_ALLOCATOR 0.5
#define CALIB_MAX_WARNINGS 8

/* One collective's fit: a set of (size, time) points from one log or harness document. */
typedef struct calib_set {
    char collective[24];
    char source[256]; /* file it came from */
    int ranks;
    link_level level; /* intra-node when every rank shares a node, else inter-node */
    int per_node;     /* ranks per node assumed (at most; for the bandwidth bound) */
    ab_fit fit;       /* latency and bus bandwidth, with standard errors */
    double alpha;     /* latency per algorithm step: fit latency / steps (seconds) */
    double alpha_stderr;
    double residual_max; /* largest |relative residual| of the fitted points */
    bool nccl_inverted;  /* alpha is NCCL's tuning model inverted (calib_nccl.c), not fit / steps */
    int npts;            /* the points kept for that inversion (at most CALIB_SET_POINTS, evenly) */
    double pt_bytes[CALIB_SET_POINTS];   /* size as nccl-tests counts it, bytes */
    double pt_seconds[CALIB_SET_POINTS]; /* measured time per call, seconds */
} calib_set;

typedef struct calibration {
    bool force;     /* keep values the gates would refuse (--force) */
    int n_warnings; /* for the command to print: gates passed only
                       because of force, clamped efficiencies */
    char warnings[CALIB_MAX_WARNINGS][520];
    calib_set sets[CALIB_MAX_SETS];
    int n_sets;
    /* Per link level (LEVEL_INTRA, LEVEL_INTER): inverse-variance combination of the sets. */
    bool have_level[2];
    double alpha[2], alpha_stderr[2];         /* seconds per step */
    double bandwidth[2], bandwidth_stderr[2]; /* achieved bytes/s per GPU */
    /* GEMM efficiency curves (cuBLAS or CPU GEMM): the size dependence of the 16-bit GEMMs
     * (bf16, fp16) that the profile's efficiency describes, and of the FP8 GEMMs, whose best
     * fraction over the 16-bit one is the profile's fp8_matmul_ratio. Points gather over every
     * file (one per precision and shape set) and are refitted as each file adds some. */
    bool have_gemm, have_gemm_fp8;
    eff_fit gemm, gemm_fp8;
    int gemm_n[2];                    /* points: [0] 16-bit, [1] fp8 */
    double gemm_w[2][CALIB_MAX_GEMM]; /* FLOPs per call */
    double gemm_f[2][CALIB_MAX_GEMM]; /* achieved fraction of that precision's peak */
    /* Streaming bandwidth (copy/triad, Adam) as a fraction of the datasheet figure. */
    bool have_hbm, have_host;
    double hbm_fraction, hbm_stderr, host_fraction, host_stderr;
    /* End-to-end matmul efficiency from measured runs. */
    bool have_runs;
    int runs_refused;           /* runs their framework refuses: left out of the fit */
    char runs_refused_note[240]; /* the first: "line N: rule" */
    bool have_framework; /* a framework's efficiency and overhead were fitted (cmd_calibrate) */
    int runs;
    double matmul_max, matmul_stderr;
    double mape_before, mape_after; /* on the runs, before and after */
    /* Memory overhead from runs that report their peak memory: measured = allocated x
     * (1 + allocator_fraction) + cuda_context. */
    bool have_memory;
    int memory_runs;
    double allocator_fraction, allocator_stderr;
} calibration;

/* Fit one nccl-tests or zerobench collective set and append it. The level: inter-node when the
 * set's ranks ran on more than one host (s->hosts), intra-node when on one; otherwise the
 * harness's own ranks_per_node when known (pass 0 otherwise), else ranks <= gpus_per_node.
 * Fails with ZS_ERR_INPUT naming the source: too few points, a degenerate or negative fit (see
 * fit_alpha_beta), an unknown collective; and, unless c->force, R^2 below CALIB_MIN_R2, a
 * latency per step above CALIB_MAX_ALPHA, or more ranks on one host than gpus_per_node. */
int calibrate_add_set(calibration *c, const coll_samples *s, const char *source, int64_t gpus_per_node,
    int ranks_per_node, zs_error *err);

/* Refuse (ZS_ERR_INPUT, unless c->force) collective results of zerobench's CPU back end for a
 * profile: they time MPI between CPU processes, not the GPU links the profile describes. */
int calibrate_check_backend(calibration *c, const harness_file *h, const char *source, zs_error *err);

/* Gate a framework fit (fwfit_all on the runs of runs_path): refused (ZS_ERR_INPUT, unless
 * c->force) when it ended on a search bound or is too noisy (CALIB_MAX_FW_REL_STDERR), with
 * the runs it used and left out. */
int calibrate_check_framework(calibration *c, const fwfit_result *fr, const char *runs_path, zs_error *err);

/* Refuse (ZS_ERR_INPUT, unless c->force) a zerobench file's host streaming measured on another
 * host than the profile's: fewer CPUs than half the profile's cpu_cores per node. cpu_model
 * and cpus are the file's system (cpus 0: unknown, not checked). */
int calibrate_check_host(calibration *c, const harness_file *h, const hardware *hw, const char *source,
    zs_error *err);

/* Fit GEMM (flop/s) and streaming points from a zerobench file against hw's peaks. `gpu`
 * says whether the points came from the GPU (HBM) or the host (CPU memory). A GPU GEMM point
 * is judged against the peak of its own type (the label's second word): bfloat16 and half
 * against the 16-bit peaks, f8e4m3/f8e5m2 against the FP8 peak; tf32 and float points are
 * left out (no profile efficiency describes them), so gpu-check's mixed files fit cleanly.
 * Fails with ZS_ERR_INPUT on a failed GEMM fit and, unless c->force, a GEMM fit with R^2 below
 * CALIB_MIN_R2 or above the peak, or streaming above the datasheet bandwidth. */
int calibrate_add_bench(
    calibration *c, const bench_point *p, int n, const hardware *hw, bool gpu, zs_error *err);

/* Combine the sets per level and write the fitted values into hw (effective bandwidth as
 * efficiency = bandwidth / line rate, latency per step, their standard errors; matmul half
 * size; streaming fractions). Fails with ZS_ERR_INPUT when nothing was fitted and, unless
 * c->force, when a set's bus bandwidth is above what its link can carry or a level's efficiency
 * is below CALIB_MIN_EFFICIENCY (forced: clamped into [0.001, 1], the profile's bounds). */
int calibrate_apply(calibration *c, hardware *hw, zs_error *err);

/* Fit matmul_max_fraction so that predicted step times match the runs (iterated scale
 * fit, robust), writing it and its standard error into hw. Fails with ZS_ERR_INPUT when
 * fewer than 3 runs have a measured step time or a run cannot be predicted, and unless
 * c->force when the runs need more than the peak (forced: clamped to 1). */
int calibrate_runs(calibration *c, const run_record *runs, int n, hardware *hw, zs_error *err);

/* Fit the allocator overhead fraction from runs with peak_memory_bytes (at least 3), keeping
 * the profile's CUDA context: measured - context = (1 + f) x allocated, a robust scale fit.
 * Writes hw->allocator_fraction. Returns ZS_OK without change when fewer than 3 runs report
 * memory; fails with ZS_ERR_INPUT when a run cannot be predicted or the fit gives f < 0 (the
 * model over-predicts memory: check the runs' configurations), and unless c->force when f is
 * above CALIB_MAX_ALLOCATOR. */
int calibrate_memory(calibration *c, const run_record *runs, int n, hardware *hw, zs_error *err);

/* The hardware fields (offsetof(hardware, member)) the calibration set, in the order the
 * calibrated profile gets them: per fitted level latency, its stderr, the bandwidth stderr and
 * the efficiency; then GEMM half size, HBM fraction and stderr, host memory fraction, matmul
 * efficiency and stderr, allocator fraction. Writes at most max (16 suffice). Never fails. */
int calibrate_fields(const calibration *c, size_t *off, int max);

#endif
