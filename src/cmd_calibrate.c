/* cmd_calibrate.c -- `zerosim calibrate`: fit a hardware profile to nccl-tests logs, zerobench
 * results and measured runs, and write the calibrated profile. */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "busbw.h"
#include "calibrate.h"
#include "catalog.h"
#include "cli.h"
#include "commands.h"
#include "hardware_json.h"
#include "jsonutil.h"
#include "plot.h"

enum { C_NCCL = 1, C_HARNESS, C_RUNS, C_HW, C_OUT, C_FORMAT, C_HINT, C_PLOT, C_FILTER };

static const cli_opt opts[] = {
    {"nccl-tests", "LOG", "an nccl-tests output log (repeat for more; all formats since 2017)", C_NCCL},
    {"harness", "FILE", "a zerobench -J result file (repeat for more)", C_HARNESS},
    {"runs", "FILE", "measured training runs (CSV/JSON as 'zerosim validate' reads)", C_RUNS},
    {"filter", "TEXT", "with --runs: only runs whose name contains TEXT", C_FILTER},
    {"hardware", "NAME|FILE", "the base profile to calibrate (required)", C_HW},
    {"output", "OUT.json", "write the calibrated profile here (also -o)", C_OUT},
    {"collective", "NAME", "collective of logs that do not name it (all_reduce, all_gather, ...)", C_HINT},
    {"plot", "DIR", "also draw calibration.png/.svg (measured vs fitted, log-log) in DIR", C_PLOT},
    {"format", "F", "table|json (default table)", C_FORMAT},
    {NULL, NULL, NULL, 0},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: zerosim calibrate --hardware BASE [--nccl-tests LOG...] [--harness FILE...] [--runs FILE]\n"
               "                         [-o OUT.json] [--format table|json]\n\n"
               "Fit latency and bandwidth per collective (weighted least squares, GSL; robust to outliers),\n"
               "combine them per link level, fit GEMM and streaming efficiencies from zerobench, and the\n"
               "end-to-end matmul efficiency from measured runs; write BASE with the fitted values and their\n"
               "standard errors. Predictions with a calibrated profile carry 90%% intervals.\n\nOptions:\n");
    cli_print_options(f, opts);
    fprintf(f, "\nExample:\n  zerosim calibrate --nccl-tests allreduce.log --nccl-tests allgather.log --hardware a100-80gb -o hardware/my-cluster.json\n");
}

#define MAX_INPUTS 64

/* Refuse to write over something we read. */
static bool same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (!realpath(a, ra) || !realpath(b, rb)) return false;
    return strcmp(ra, rb) == 0;
}

static void set_num(cJSON *obj, const char *key, double v)
{
    if (!obj) return;
    cJSON *old = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (old) cJSON_SetNumberValue(old, v);
    else cJSON_AddNumberToObject(obj, key, v);
}

static cJSON *section(cJSON *root, const char *name)
{
    cJSON *s = cJSON_GetObjectItemCaseSensitive(root, name);
    if (!s) s = cJSON_AddObjectToObject(root, name);
    return s;
}

/* Write text to path atomically: a temporary file beside it, then rename. */
static int write_atomic(const char *path, const char *text, zs_error *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return zs_fail(err, ZS_ERR_IO, "%s: cannot write", tmp);
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        return zs_fail(err, ZS_ERR_IO, "%s: cannot write", path);
    }
    return ZS_OK;
}

/* The measured points of each fitted set, kept for the chart. */
typedef struct kept_points {
    plot_fit_set set[CALIB_MAX_SETS];
    double *mem[CALIB_MAX_SETS];
    int n;
} kept_points;

static void keep(kept_points *k, const coll_samples *s, const calib_set *fit)
{
    if (k->n >= CALIB_MAX_SETS) return;
    double *buf = malloc(sizeof(double) * 2 * (size_t)(s->n + 1));
    if (!buf) return;
    plot_fit_set *p = &k->set[k->n];
    p->bytes = buf;
    p->seconds = buf + s->n + 1;
    p->n = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->v[i].wrong > 0) continue;
        buf[p->n] = s->v[i].bytes;
        buf[s->n + 1 + p->n] = s->v[i].seconds;
        p->n++;
    }
    snprintf(p->label, sizeof p->label, "%s, %d ranks", fit->collective, fit->ranks);
    p->latency = fit->fit.latency;
    p->busbw = fit->fit.busbw;
    p->factor = busbw_factor(fit->collective, fit->ranks);
    k->mem[k->n++] = buf;
}

static void kept_free(kept_points *k)
{
    for (int i = 0; i < k->n; i++) free(k->mem[i]);
    k->n = 0;
}

/* Draw the chart; returns 0 or an exit status after printing the error. */
static int draw(const char *dir, kept_points *k)
{
    zs_error err = {0};
    plot_options o;
    plot_options_init(&o, dir);
    char gnuplot[4096];
    if (plot_dir_prepare(dir, &err) || plot_write_calibration(&o, k->set, k->n, &err))
        return cmd_error("calibrate", err.code, err.msg);
    if (!plot_find_gnuplot(gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "zerosim calibrate: gnuplot not found; wrote .dat and .gp files to %s\n", dir);
        return 0;
    }
    if (plot_render(PLOT_CALIBRATION, gnuplot, &o, &err)) return cmd_error("calibrate", err.code, err.msg);
    return 0;
}

static void fits_json(cJSON *arr, const calibration *c)
{
    for (int i = 0; i < c->n_sets; i++) {
        const calib_set *s = &c->sets[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "collective", s->collective);
        cJSON_AddNumberToObject(o, "ranks", s->ranks);
        cJSON_AddStringToObject(o, "level", s->level == LEVEL_INTRA ? "intra_node" : "inter_node");
        cJSON_AddNumberToObject(o, "latency_seconds", s->fit.latency);
        cJSON_AddNumberToObject(o, "latency_stderr", s->fit.latency_stderr);
        cJSON_AddNumberToObject(o, "bus_bandwidth_bytes_per_second", s->fit.busbw);
        cJSON_AddNumberToObject(o, "bus_bandwidth_stderr", s->fit.busbw_stderr);
        cJSON_AddNumberToObject(o, "r2", s->fit.r2);
        cJSON_AddNumberToObject(o, "points", s->fit.n);
        cJSON_AddNumberToObject(o, "outliers", s->fit.outliers);
        cJSON_AddNumberToObject(o, "max_relative_residual", s->residual_max);
        cJSON_AddStringToObject(o, "source", s->source);
        cJSON_AddItemToArray(arr, o);
    }
}

int cmd_calibrate(int argc, char **argv)
{
    const char *logs[MAX_INPUTS], *harness[MAX_INPUTS], *runs_path = NULL, *hw_arg = NULL, *out = NULL, *hint = NULL, *v;
    const char *plot_dir = NULL, *filter = NULL;
    static kept_points kept;
    int nl = 0, nh = 0, i = 1, id;
    bool json = false;
    zs_error err = {0};
    /* -o is the one short option, as in the command line. */
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "-o") == 0) argv[k] = "--output";
    while ((id = cli_next(argc, argv, &i, opts, &v, &err)) != CLI_END) {
        if (id == CLI_HELP) { usage(stdout); return 0; }
        if (id == CLI_ERROR) return cmd_error("calibrate", err.code, err.msg);
        if (id == CLI_POSITIONAL) return cmd_error("calibrate", ZS_ERR_USAGE, "unexpected argument (name inputs with --nccl-tests, --harness or --runs)");
        if ((id == C_NCCL && nl == MAX_INPUTS) || (id == C_HARNESS && nh == MAX_INPUTS))
            return cmd_error("calibrate", ZS_ERR_USAGE, "too many input files");
        switch (id) {
        case C_NCCL: logs[nl++] = v; break;
        case C_HARNESS: harness[nh++] = v; break;
        case C_RUNS: runs_path = v; break;
        case C_HW: hw_arg = v; break;
        case C_OUT: out = v; break;
        case C_HINT: hint = v; break;
        case C_PLOT: plot_dir = v; break;
        case C_FILTER: filter = v; break;
        case C_FORMAT:
            if (strcmp(v, "json") == 0) json = true;
            else if (strcmp(v, "table") != 0) return cmd_error("calibrate", ZS_ERR_USAGE, "--format: expected table or json");
            break;
        }
    }
    if (!hw_arg) return cmd_error("calibrate", ZS_ERR_USAGE, "missing --hardware BASE (the profile to calibrate)");
    if (!nl && !nh && !runs_path) return cmd_error("calibrate", ZS_ERR_USAGE, "nothing to fit: give --nccl-tests LOG, --harness FILE or --runs FILE");
    char hw_path[4096];
    hardware hw;
    if (catalog_resolve("hardware", hw_arg, hw_path, sizeof hw_path, &err) || hardware_load(hw_path, &hw, &err))
        return cmd_error("calibrate", err.code, err.msg);
    if (out) {
        const char *inputs[2 * MAX_INPUTS + 2];
        int n = 0;
        inputs[n++] = hw_path;
        if (runs_path) inputs[n++] = runs_path;
        for (int k = 0; k < nl; k++) inputs[n++] = logs[k];
        for (int k = 0; k < nh; k++) inputs[n++] = harness[k];
        for (int k = 0; k < n; k++)
            if (same_file(out, inputs[k])) return cmd_error("calibrate", ZS_ERR_USAGE, "-o would overwrite an input file; choose another path");
    }

    calibration *c = calloc(1, sizeof *c);
    if (!c) return cmd_error("calibrate", ZS_ERR_IO, "out of memory");
    int rc = ZS_OK;
    for (int k = 0; k < nl && !rc; k++) {
        coll_samples s;
        if ((rc = nccltests_parse(logs[k], hint, &s, &err))) break;
        rc = calibrate_add_set(c, &s, logs[k], hw.gpus_per_node, 0, &err);
        if (!rc) keep(&kept, &s, &c->sets[c->n_sets - 1]);
        coll_samples_free(&s);
    }
    for (int k = 0; k < nh && !rc; k++) {
        harness_file h;
        if ((rc = harness_read(harness[k], &h, &err))) break;
        /* The harness says where it ran: back end and ranks per node. */
        bool gpu = strcmp(h.backend, "cuda") == 0;
        int per_node = h.ranks_per_node;
        for (int j = 0; j < h.n_sets && !rc; j++)
            if (h.sets[j].ranks > 1 && !(rc = calibrate_add_set(c, &h.sets[j], harness[k], hw.gpus_per_node, per_node, &err)))
                keep(&kept, &h.sets[j], &c->sets[c->n_sets - 1]);
        if (!rc) rc = calibrate_add_bench(c, h.points, h.n_points, &hw, gpu, &err);
        harness_file_free(&h);
    }
    run_record *runs = NULL;
    int nr = 0;
    if (!rc && runs_path && !(rc = runs_load(runs_path, &runs, &nr, &err))) {
        if (filter) {
            int kept_runs = 0;
            for (int k = 0; k < nr; k++)
                if (strstr(runs[k].name, filter)) runs[kept_runs++] = runs[k];
            nr = kept_runs;
        }
        /* Links and efficiencies first, so the runs are predicted with them. */
        if (c->n_sets || c->have_gemm || c->have_hbm || c->have_host) rc = calibrate_apply(c, &hw, &err);
        bool timed = false;
        for (int k = 0; k < nr; k++) timed |= runs_measured_step(&runs[k]) > 0;
        if (!rc && timed) rc = calibrate_runs(c, runs, nr, &hw, &err);
        if (!rc) rc = calibrate_memory(c, runs, nr, &hw, &err);
    }
    free(runs);
    if (!rc) rc = calibrate_apply(c, &hw, &err);
    if (rc) { free(c); kept_free(&kept); return cmd_error("calibrate", rc, err.msg); }

    /* The calibrated profile: the base file with fitted values and their errors. */
    cJSON *prof;
    if (json_load_object(hw_path, &prof, &err)) { free(c); return cmd_error("calibrate", err.code, err.msg); }
    cJSON *eff = section(prof, "efficiency");
    const char *lvl[2] = {"intra_node", "inter_node"};
    const char *frac[2] = {"intra_node_fraction", "inter_node_fraction"};
    for (int l = 0; l < 2; l++) {
        if (!c->have_level[l]) continue;
        const hw_link *lk = l == 0 ? &hw.intra : &hw.inter;
        cJSON *sec = section(prof, lvl[l]);
        set_num(sec, "latency_seconds", lk->latency);
        set_num(sec, "latency_seconds_stderr", lk->latency_stderr);
        set_num(sec, "bandwidth_stderr", lk->bandwidth_stderr);
        set_num(eff, frac[l], lk->efficiency);
    }
    if (c->have_gemm) set_num(eff, "matmul_half_flops", hw.matmul_half_flops);
    if (c->have_hbm) { set_num(eff, "hbm_fraction", hw.hbm_fraction); set_num(eff, "hbm_fraction_stderr", hw.hbm_fraction_stderr); }
    if (c->have_host) set_num(eff, "host_memory_fraction", hw.host_memory_fraction);
    if (c->have_runs) { set_num(eff, "matmul_max_fraction", hw.matmul_max_fraction); set_num(eff, "matmul_max_fraction_stderr", hw.matmul_max_stderr); }
    if (c->have_memory) set_num(section(prof, "memory_overhead"), "allocator_fraction", hw.allocator_fraction);
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON *cal = cJSON_CreateObject();
    cJSON_AddStringToObject(cal, "date", date);
    cJSON_AddStringToObject(cal, "base", hw_arg);
    cJSON_AddStringToObject(cal, "method", "zerosim calibrate: weighted least squares (GSL) per collective, inverse-variance combination per link level; stderr from the covariance scaled by the residual variance");
    cJSON *inp = cJSON_AddArrayToObject(cal, "inputs");
    for (int k = 0; k < nl; k++) cJSON_AddItemToArray(inp, cJSON_CreateString(logs[k]));
    for (int k = 0; k < nh; k++) cJSON_AddItemToArray(inp, cJSON_CreateString(harness[k]));
    if (runs_path) cJSON_AddItemToArray(inp, cJSON_CreateString(runs_path));
    fits_json(cJSON_AddArrayToObject(cal, "collectives"), c);
    if (c->have_runs) {
        cJSON *r = cJSON_AddObjectToObject(cal, "runs");
        cJSON_AddNumberToObject(r, "count", c->runs);
        cJSON_AddNumberToObject(r, "matmul_max_fraction", c->matmul_max);
        cJSON_AddNumberToObject(r, "matmul_max_fraction_stderr", c->matmul_stderr);
        cJSON_AddNumberToObject(r, "mape_before", c->mape_before);
        cJSON_AddNumberToObject(r, "mape_after", c->mape_after);
    }
    if (c->have_memory) {
        cJSON *mm = cJSON_AddObjectToObject(cal, "memory");
        cJSON_AddNumberToObject(mm, "runs", c->memory_runs);
        cJSON_AddNumberToObject(mm, "allocator_fraction", c->allocator_fraction);
        cJSON_AddNumberToObject(mm, "allocator_fraction_stderr", c->allocator_stderr);
    }
    if (c->have_gemm) {
        cJSON *g = cJSON_AddObjectToObject(cal, "gemm");
        cJSON_AddNumberToObject(g, "max_fraction", c->gemm.emax);
        cJSON_AddNumberToObject(g, "max_fraction_stderr", c->gemm.emax_stderr);
        cJSON_AddNumberToObject(g, "half_flops", c->gemm.w_half);
        cJSON_AddNumberToObject(g, "half_flops_stderr", c->gemm.w_half_stderr);
        cJSON_AddNumberToObject(g, "r2", c->gemm.r2);
    }
    if (!cJSON_ReplaceItemInObjectCaseSensitive(prof, "calibration", cal)) cJSON_AddItemToObject(prof, "calibration", cal);
    char name[96];
    snprintf(name, sizeof name, "%s-calibrated", hw.name);
    cJSON *nm = cJSON_GetObjectItemCaseSensitive(prof, "name");
    if (nm && cJSON_IsString(nm)) cJSON_SetValuestring(nm, name);
    if (out) {
        char *text = cJSON_Print(prof);
        rc = text ? write_atomic(out, text, &err) : zs_fail(&err, ZS_ERR_IO, "out of memory");
        free(text);
        if (rc) { cJSON_Delete(prof); free(c); return cmd_error("calibrate", rc, err.msg); }
    }

    if (json) {
        cJSON *rep = cJSON_CreateObject();
        cJSON_AddNumberToObject(rep, "schema_version", 1);
        fits_json(cJSON_AddArrayToObject(rep, "collectives"), c);
        cJSON *lv = cJSON_AddArrayToObject(rep, "levels");
        for (int l = 0; l < 2; l++) {
            if (!c->have_level[l]) continue;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "level", lvl[l]);
            cJSON_AddNumberToObject(o, "latency_seconds_per_step", c->alpha[l]);
            cJSON_AddNumberToObject(o, "latency_stderr", c->alpha_stderr[l]);
            cJSON_AddNumberToObject(o, "bandwidth_bytes_per_second", c->bandwidth[l]);
            cJSON_AddNumberToObject(o, "bandwidth_stderr", c->bandwidth_stderr[l]);
            cJSON_AddNumberToObject(o, "efficiency", l == 0 ? hw.intra.efficiency : hw.inter.efficiency);
            cJSON_AddItemToArray(lv, o);
        }
        cJSON *cal2 = cJSON_GetObjectItemCaseSensitive(prof, "calibration");
        cJSON *runs_j = cJSON_GetObjectItemCaseSensitive(cal2, "runs");
        if (runs_j) cJSON_AddItemToObject(rep, "runs", cJSON_Duplicate(runs_j, 1));
        cJSON *g = cJSON_GetObjectItemCaseSensitive(cal2, "gemm");
        if (g) cJSON_AddItemToObject(rep, "gemm", cJSON_Duplicate(g, 1));
        cJSON *mm = cJSON_GetObjectItemCaseSensitive(cal2, "memory");
        if (mm) cJSON_AddItemToObject(rep, "memory", cJSON_Duplicate(mm, 1));
        if (out) cJSON_AddStringToObject(rep, "profile", out);
        char *text = cJSON_Print(rep);
        if (text) puts(text);
        free(text);
        cJSON_Delete(rep);
    } else {
        printf("Calibrating %s (%s)\n\n", hw.name, hw_arg);
        if (c->n_sets) {
            printf("%-15s %6s %-6s %14s %14s %18s %14s %7s %5s %8s\n", "collective", "ranks", "level", "latency us",
                   "+/- us", "busbw GB/s", "+/- GB/s", "R^2", "pts", "max res");
            for (int k = 0; k < c->n_sets; k++) {
                const calib_set *s = &c->sets[k];
                printf("%-15s %6d %-6s %14.2f %14.2f %18.2f %14.2f %7.4f %5d %7.1f%%\n", s->collective, s->ranks,
                       s->level == LEVEL_INTRA ? "intra" : "inter", s->fit.latency * 1e6, s->fit.latency_stderr * 1e6,
                       s->fit.busbw / 1e9, s->fit.busbw_stderr / 1e9, s->fit.r2, s->fit.n, 100 * s->residual_max);
            }
            printf("\n");
        }
        for (int l = 0; l < 2; l++)
            if (c->have_level[l])
                printf("%s: latency %.2f +/- %.2f us per step, bandwidth %.1f +/- %.1f GB/s per GPU (efficiency %.3f)\n",
                       lvl[l], c->alpha[l] * 1e6, c->alpha_stderr[l] * 1e6, c->bandwidth[l] / 1e9,
                       c->bandwidth_stderr[l] / 1e9, l == 0 ? hw.intra.efficiency : hw.inter.efficiency);
        if (c->have_gemm)
            printf("GEMM: max %.3f +/- %.3f of peak, half efficiency at %.3g +/- %.2g FLOPs (R^2 %.4f)\n",
                   c->gemm.emax, c->gemm.emax_stderr, c->gemm.w_half, c->gemm.w_half_stderr, c->gemm.r2);
        if (c->have_hbm) printf("HBM streaming: %.3f +/- %.3f of datasheet\n", c->hbm_fraction, c->hbm_stderr);
        if (c->have_host) printf("host memory streaming: %.3f +/- %.3f of datasheet\n", c->host_fraction, c->host_stderr);
        if (c->have_runs)
            printf("runs: %d; end-to-end matmul efficiency %.3f +/- %.3f; step-time MAPE %.1f%% -> %.1f%%\n", c->runs,
                   c->matmul_max, c->matmul_stderr, 100 * c->mape_before, 100 * c->mape_after);
        if (c->have_memory)
            printf("memory: %d runs; allocator overhead %.1f%% +/- %.1f%% of allocated (CUDA context %.2f GiB kept)\n",
                   c->memory_runs, 100 * c->allocator_fraction, 100 * c->allocator_stderr, hw.cuda_context_bytes / 1073741824.0);
        if (out) printf("\nwrote %s\n", out);
    }
    cJSON_Delete(prof);
    free(c);
    rc = plot_dir && kept.n ? draw(plot_dir, &kept) : 0;
    kept_free(&kept);
    return rc;
}
