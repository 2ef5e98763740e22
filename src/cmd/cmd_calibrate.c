/* cmd_calibrate.c -- `zerosim calibrate`: fit a hardware profile to nccl-tests logs, zerobench
 * results and measured runs, and write the calibrated profile. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/busbw.h"
#include "analysis/calibrate.h"
#include "analysis/fwfit.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/framework.h"
#include "io/atomicfile.h"
#include "io/catalog.h"
#include "io/hardware_json.h"
#include "io/jsonprint.h"
#include "io/jsonutil.h"
#include "report/plot.h"
#include "report/report_calibrate.h"

enum { C_NCCL = 1, C_HARNESS, C_FRAMEWORK, C_FORMAT }; /* the options take works out */
/* --format's names: the index is 1 for JSON. */
#define CALIBRATE_FORMATS "table|json"

static void usage(FILE *f, const cli_opt *opts)
{
    fprintf(f,
        "usage: zerosim calibrate --hardware BASE [--nccl-tests LOG...] [--harness FILE...] [--runs FILE]\n"
        "                         [-o OUT.json] [--format " CALIBRATE_FORMATS "] [--force]\n\n"
        "Fit latency and bandwidth per collective (weighted least squares, GSL; robust to outliers),\n"
        "combine them per link level, fit GEMM and streaming efficiencies from zerobench, and the\n"
        "end-to-end matmul efficiency from measured runs; write BASE with the fitted values and their\n"
        "standard errors. Predictions with a calibrated profile carry 90%% intervals.\n\nOptions:\n");
    cli_print_options(f, opts);
    fprintf(f,
        "\nExample:\n  zerosim calibrate --nccl-tests allreduce.log --nccl-tests allgather.log --hardware "
        "a100-80gb -o hardware/my-cluster.json\n");
}

#define MAX_INPUTS 64

/* What the command line asked for. */
typedef struct calib_args {
    const char *logs[MAX_INPUTS], *harness[MAX_INPUTS];
    int nl, nh;
    const char *runs_path, *hw_arg, *out, *hint, *plot_dir, *filter;
    const framework *fw; /* --framework: fit it on the runs */
    bool json, force;
} calib_args;

/* Refuse to write over something we read. */
static bool same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (!realpath(a, ra) || !realpath(b, rb)) return false;
    return strcmp(ra, rb) == 0;
}

/* The measured points of each fitted set, kept for the chart. */
typedef struct kept_points {
    plot_fit_set set[CALIB_MAX_SETS];
    double *mem[CALIB_MAX_SETS];
    int n;
} kept_points;

/* Fails (ZS_ERR_NOMEM) only when out of memory. */
static int keep(kept_points *k, const coll_samples *s, const calib_set *fit, zs_error *err)
{
    if (k->n >= CALIB_MAX_SETS) return ZS_OK;
    double *buf = malloc(sizeof(double) * 2 * (size_t)(s->n + 1));
    if (!buf) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
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
    return ZS_OK;
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
    bool found = plot_find_gnuplot(gnuplot, sizeof gnuplot);
    if (plot_dir_prepare(dir, &err) || plot_calibration(&o, k->set, k->n, found ? gnuplot : NULL, &err))
        return cmd_error("calibrate", err.code, err.msg);
    if (!found)
        fprintf(stderr, "zerosim calibrate: gnuplot not found; wrote .dat and .gp files to %s\n", dir);
    return 0;
}

/* Calibrate's take: the repeatable inputs, --framework and --format; no bare arguments. */
static int take(void *ctx, int id, const char *v, zs_error *err)
{
    calib_args *a = ctx;
    int k;
    switch (id) {
    case C_NCCL:
        if (a->nl == MAX_INPUTS) return zs_fail(err, ZS_ERR_USAGE, "too many input files");
        a->logs[a->nl++] = v;
        return ZS_OK;
    case C_HARNESS:
        if (a->nh == MAX_INPUTS) return zs_fail(err, ZS_ERR_USAGE, "too many input files");
        a->harness[a->nh++] = v;
        return ZS_OK;
    case C_FRAMEWORK:
        if (!(a->fw = framework_find(v)))
            return zs_fail(err, ZS_ERR_USAGE,
                "--framework: expected one of the frameworks (see 'zerosim estimate --help')");
        return ZS_OK;
    case C_FORMAT:
        /* json, once asked for, stays: a later --format table does not take it back */
        if ((k = cli_choice("format", v, CALIBRATE_FORMATS, err)) < 0) return err->code;
        a->json |= k == 1;
        return ZS_OK;
    }
    return zs_fail(
        err, ZS_ERR_USAGE, "unexpected argument (name inputs with --nccl-tests, --harness or --runs)");
}

/* Parse the command line into *a. Returns 0, -1 after --help, or an exit status (message
 * printed). */
static int parse_args(int argc, char **argv, calib_args *a)
{
    memset(a, 0, sizeof *a);
    /* -o is the one short option, as in the command line. */
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "-o") == 0) argv[k] = "--output";
    const cli_opt opts[] = {
        {"nccl-tests", "LOG", "an nccl-tests output log (repeat for more; all formats since 2017)",
            .id = C_NCCL},
        {"harness", "FILE", "a zerobench -J result file (repeat for more)", .id = C_HARNESS},
        {"runs", "FILE", "measured training runs (CSV/JSON as 'zerosim validate' reads)",
            .text = &a->runs_path},
        {"filter", "TEXT", "with --runs: only runs whose name contains TEXT", .text = &a->filter},
        {"framework", "F",
            "with --runs: fit F's GEMM efficiency and per-step overhead on this system instead of the\n"
            "                              profile's matmul fraction (runs without a framework column ran on "
            "F)",
            .id = C_FRAMEWORK},
        {"hardware", "NAME|FILE", "the base profile to calibrate (required)", .text = &a->hw_arg},
        {"output", "OUT.json", "write the calibrated profile here (also -o)", .text = &a->out},
        {"collective", "NAME", "collective of logs that do not name it (all_reduce, all_gather, ...)",
            .text = &a->hint},
        {"plot", "DIR", "also draw calibration.png/.svg (measured vs fitted, log-log) in DIR",
            .text = &a->plot_dir},
        {"format", "F", CALIBRATE_FORMATS " (default table)", .id = C_FORMAT},
        {"force", NULL,
            "keep fitted values that fail a plausibility check (R^2, line rate, latency, back end, hosts)",
            .on = &a->force},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"calibrate", opts, usage, a, .take = take}, argc, argv);
    if (rc != CMD_GO) return rc == 0 ? -1 : rc;
    if (!a->hw_arg)
        return cmd_error("calibrate", ZS_ERR_USAGE, "missing --hardware BASE (the profile to calibrate)");
    if (!a->nl && !a->nh && !a->runs_path)
        return cmd_error("calibrate", ZS_ERR_USAGE,
            "nothing to fit: give --nccl-tests LOG, --harness FILE or --runs FILE");
    return 0;
}

/* Every input path, in the order the profile records them: logs, harness files, runs. */
static int inputs_of(const calib_args *a, const char **in)
{
    int n = 0;
    for (int k = 0; k < a->nl; k++) in[n++] = a->logs[k];
    for (int k = 0; k < a->nh; k++) in[n++] = a->harness[k];
    if (a->runs_path) in[n++] = a->runs_path;
    return n;
}

/* --framework F: F's GEMM efficiency and per-step overhead fitted on all the runs (those without
 * a framework column ran on F), predicted on hw as calibrated so far; recorded in hw's
 * framework fits, replacing an earlier fit of F. Fails like fwfit_all. */
static int fit_framework(const framework *fw, run_record *runs, int nr, const char *path, hardware *hw,
    calibration *c, zs_error *err)
{
    for (int k = 0; k < nr; k++)
        if (strcmp(runs[k].framework, "generic") == 0)
            snprintf(runs[k].framework, sizeof runs[k].framework, "%s", fw->name);
    fwfit_result fr;
    if (fwfit_all(runs, nr, fw, hw, &fr, err)) {
        zs_error_prefix(err, path);
        return err->code;
    }
    if (calibrate_check_framework(c, &fr, path, err)) return err->code;
    hw_framework_fit *f = NULL;
    for (int i = 0; i < hw->n_fw_fits && !f; i++)
        if (strcmp(hw->fw_fits[i].name, fw->name) == 0) f = &hw->fw_fits[i];
    if (!f && hw->n_fw_fits == HW_MAX_FRAMEWORK_FITS)
        return zs_fail(err, ZS_ERR_INPUT, "--framework: the profile already holds %d framework fits",
            HW_MAX_FRAMEWORK_FITS);
    if (!f) f = &hw->fw_fits[hw->n_fw_fits++];
    *f = (hw_framework_fit){{0}, fr.efficiency, fr.stderr_eff, fr.overhead, fr.stderr_overhead, fr.n_train};
    snprintf(f->name, sizeof f->name, "%s", fw->name);
    c->have_framework = true;
    report_calibrate_framework(stdout, &fr, hw);
    return ZS_OK;
}

/* Fit every input into c and hw (links and efficiencies first, so the runs are predicted with
 * them), keeping the measured points for the chart. */
static int fit_inputs(const calib_args *a, hardware *hw, calibration *c, kept_points *kept, zs_error *err)
{
    int rc = ZS_OK;
    for (int k = 0; k < a->nl && !rc; k++) {
        coll_samples s;
        if ((rc = nccltests_parse(a->logs[k], a->hint, &s, err))) break;
        rc = calibrate_add_set(c, &s, a->logs[k], hw->gpus_per_node, 0, err);
        if (!rc) rc = keep(kept, &s, &c->sets[c->n_sets - 1], err);
        coll_samples_free(&s);
    }
    for (int k = 0; k < a->nh && !rc; k++) {
        harness_file h;
        if ((rc = harness_read(a->harness[k], &h, err))) break;
        /* The harness says where it ran: back end and ranks per node. */
        bool gpu = strcmp(h.backend, "cuda") == 0;
        rc = calibrate_check_backend(c, &h, a->harness[k], err);
        for (int j = 0; j < h.n_sets && !rc; j++)
            if (h.sets[j].ranks > 1 &&
                !(rc = calibrate_add_set(
                      c, &h.sets[j], a->harness[k], hw->gpus_per_node, h.ranks_per_node, err)))
                rc = keep(kept, &h.sets[j], &c->sets[c->n_sets - 1], err);
        if (!rc && !gpu) rc = calibrate_check_host(c, &h, hw, a->harness[k], err);
        if (!rc) rc = calibrate_add_bench(c, h.points, h.n_points, hw, gpu, err);
        harness_file_free(&h);
    }
    run_record *runs = NULL;
    int nr = 0;
    char note[600];
    if (!rc && a->runs_path && !(rc = runs_load_noted(a->runs_path, &runs, &nr, note, sizeof note, err))) {
        if (note[0]) fprintf(stderr, "zerosim calibrate: warning: %s\n", note);
        if (a->filter) {
            int kept_runs = 0;
            for (int k = 0; k < nr; k++)
                if (strstr(runs[k].name, a->filter)) runs[kept_runs++] = runs[k];
            nr = kept_runs;
        }
        if (c->n_sets || c->have_gemm || c->have_hbm || c->have_host) rc = calibrate_apply(c, hw, err);
        bool timed = false;
        for (int k = 0; k < nr; k++) timed |= runs_measured_step(&runs[k]) > 0;
        if (!rc && timed && a->fw)
            rc = fit_framework(a->fw, runs, nr, a->runs_path, hw, c, err);
        else if (!rc && timed)
            rc = calibrate_runs(c, runs, nr, hw, err);
        if (!rc) rc = calibrate_memory(c, runs, nr, hw, err);
        if (!rc && !timed && (a->fw || !c->have_memory))
            rc = zs_fail(err, ZS_ERR_INPUT,
                "%s: no row with a measured step time (columns measured_step_seconds or "
                "measured_tokens_per_second) among its %d%s, %s",
                a->runs_path, nr, a->filter ? " the --filter keeps" : " rows",
                a->fw ? "which --framework fits on" : "nor 3 with peak_memory_bytes for the allocator fit");
    }
    free(runs);
    if (!rc) rc = calibrate_apply(c, hw, err);
    return rc;
}

/* The calibrated profile: the base file with the fitted fields (through the profile's field
 * table, which refuses a value its loader would reject), the calibration record and the
 * "-calibrated" name. *prof is NULL on failure. */
static int build_profile(const calib_args *a, const char *hw_path, const hardware *hw, const calibration *c,
    cJSON **prof, zs_error *err)
{
    if (json_load_object(hw_path, prof, err)) return err->code;
    size_t off[16];
    int n = calibrate_fields(c, off, 16);
    int rc = hardware_json_section(*prof, "efficiency", err);
    for (int k = 0; k < n && !rc; k++) rc = hardware_json_set(*prof, hw, off[k], err);
    if (rc) zs_error_prefix(err, "the calibrated profile");
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const char *in[2 * MAX_INPUTS + 1];
    int ni = inputs_of(a, in);
    cJSON *cal = rc ? NULL : report_calibrate_record(c, a->hw_arg, in, ni, date);
    if (!rc && !cal) rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    if (!rc) {
        cJSON *old = cJSON_GetObjectItemCaseSensitive(*prof, "calibration");
        if (!(old ? cJSON_ReplaceItemViaPointer(*prof, old, cal)
                  : cJSON_AddItemToObject(*prof, "calibration", cal))) {
            cJSON_Delete(cal);
            rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
        }
    }
    if (!rc) {
        char name[96];
        snprintf(name, sizeof name, "%s-calibrated", hw->name);
        cJSON *nm = cJSON_GetObjectItemCaseSensitive(*prof, "name");
        if (nm && cJSON_IsString(nm) && !cJSON_SetValuestring(nm, name))
            rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    }
    /* Framework fits, one object each under "frameworks". */
    if (!rc && hw->n_fw_fits > 0) {
        cJSON *fws = cJSON_GetObjectItemCaseSensitive(*prof, "frameworks");
        if (!fws && !(fws = cJSON_AddObjectToObject(*prof, "frameworks")))
            rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
        for (int i = 0; i < hw->n_fw_fits && !rc; i++) {
            const hw_framework_fit *f = &hw->fw_fits[i];
            cJSON *o = report_calibrate_fw_fit(f);
            if (!o) {
                rc = zs_fail(err, ZS_ERR_NOMEM, "out of memory");
                break;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(fws, f->name);
            cJSON_AddItemToObject(fws, f->name, o);
        }
    }
    /* What calibrate writes must load: the same loader, on the same JSON. */
    hardware back;
    if (!rc && hardware_from_json(*prof, "the calibrated profile", &back, err)) rc = err->code;
    if (rc) {
        cJSON_Delete(*prof);
        *prof = NULL;
    }
    return rc;
}

/* Write the profile to path whole or not at all (atomicfile: devices and FIFOs directly). */
static int write_profile(const char *path, const cJSON *prof, zs_error *err)
{
    char *text = json_print(prof, true);
    if (!text) return zs_fail(err, ZS_ERR_NOMEM, "out of memory");
    atomicfile f;
    int rc = ZS_OK;
    if (atomicfile_open(&f, path) != 0) {
        rc = zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    } else {
        fputs(text, f.f);
        fputc('\n', f.f);
        if (atomicfile_commit(&f) != 0)
            rc = zs_fail(err, ZS_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    }
    free(text);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    calib_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    zs_error err = {0};
    char hw_path[4096];
    hardware hw;
    if (catalog_resolve("hardware", a.hw_arg, hw_path, sizeof hw_path, &err) ||
        hardware_load(hw_path, &hw, &err))
        return cmd_error("calibrate", err.code, err.msg);
    if (a.out) {
        const char *in[2 * MAX_INPUTS + 2];
        int n = inputs_of(&a, in);
        in[n++] = hw_path;
        for (int k = 0; k < n; k++)
            if (same_file(a.out, in[k]))
                return cmd_error(
                    "calibrate", ZS_ERR_USAGE, "-o would overwrite an input file; choose another path");
    }
    static kept_points kept;
    cJSON *prof = NULL;
    calibration *c = calloc(1, sizeof *c);
    if (!c) return cmd_error("calibrate", ZS_ERR_NOMEM, "out of memory");
    c->force = a.force;
    rc = fit_inputs(&a, &hw, c, &kept, &err);
    if (!rc) rc = build_profile(&a, hw_path, &hw, c, &prof, &err);
    if (!rc && a.out) rc = write_profile(a.out, prof, &err);
    if (!rc && a.json)
        rc = report_calibrate_json(
            stdout, c, &hw, cJSON_GetObjectItemCaseSensitive(prof, "calibration"), a.out, &err);
    else if (!rc)
        report_calibrate_table(stdout, c, &hw, a.hw_arg, a.out);
    cJSON_Delete(prof);
    for (int k = 0; k < c->n_warnings && !rc; k++)
        fprintf(stderr, "zerosim calibrate: warning: %s\n", c->warnings[k]);
    free(c);
    if (rc) {
        kept_free(&kept);
        return cmd_error("calibrate", rc, err.msg);
    }
    rc = a.plot_dir && kept.n ? draw(a.plot_dir, &kept) : 0;
    kept_free(&kept);
    return rc;
}
