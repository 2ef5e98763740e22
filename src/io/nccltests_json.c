/* nccltests_json.c -- the nccl-tests -J JSON reader; a zerobench document given to the log
 * reader goes to harness.c. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/busbw.h"
#include "io/harness.h"
#include "io/logtok.h"
#include "io/ncclrows.h"
#include "io/nccltests.h"
#include "io/nccltests_int.h"

/* ------------------------------------------------------------------ nccl-tests -J JSON */

/* One pass object of an nccl-tests JSON result ({"time", "alg_bw", "bus_bw", "nwrong"}). */
static int nt_pass(
    const cJSON *o, const char *origin, int row, const char *name, pass_vals *pv, zs_error *err)
{
    memset(pv, 0, sizeof *pv);
    pv->wrong = -1;
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    if (!cJSON_IsObject(o))
        return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].%s: expected an object", origin, row, name);
    double t;
    const char *tk = cJSON_GetObjectItemCaseSensitive(o, "time") ? "time" : "cpu_time";
    if (!nccl_jnum(o, tk, &t))
        return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].%s.%s: missing or not a finite number", origin,
            row, name, tk);
    if (t <= 0 || t * 1e-6 <= 0) /* a denormal time underflows to 0 s */
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: results[%d].%s.%s: %g is not positive", origin, row, name, tk, t);
    double a, b;
    if (!nccl_jnum(o, "alg_bw", &a) || !nccl_jnum(o, "bus_bw", &b) || a < 0 || b < 0 || !isfinite(a * 1e9) ||
        !isfinite(b * 1e9))
        return zs_fail(
            err, ZS_ERR_INPUT, "%s: results[%d].%s: alg_bw/bus_bw missing or invalid", origin, row, name);
    nccl_json_pass(o, t, a, b, "nwrong", pv);
    return ZS_OK;
}

static int parse_nccltests_json(
    const cJSON *root, const char *origin, const char *hint, coll_samples *out, zs_error *err)
{
    run_meta m;
    memset(&m, 0, sizeof m);
    m.origin = origin;
    m.err = err;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(root, "args");
    const cJSON *a0 = cJSON_IsArray(args) ? cJSON_GetArrayItem(args, 0) : NULL;
    if (cJSON_IsString(a0))
        nccl_set_coll(&m, nccl_binary_collective(a0->valuestring, strlen(a0->valuestring)), 0, 1);
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(root, "config");
    double v;
    if (nccl_jnum(cfg, "iterations", &v) && v > 0 && v < INT_MAX) out->iters = (int)v;
    if (nccl_jnum(cfg, "nthreads", &v) && v > 0 && v < 1e6) m.nthread = (int)v;
    if (nccl_jnum(cfg, "ngpus", &v) && v > 0 && v < 1e6) m.ngpus = (int)v;
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(cfg, "devices");
    const cJSON *d;
    int listed = 0, group0 = 0;
    cJSON_ArrayForEach(d, devs)
    {
        double g = 0;
        nccl_jnum(d, "group", &g);
        if (listed++ == 0) group0 = tok_clamp_int(g);
        if (tok_clamp_int(g) != group0) continue;
        m.group_ranks++;
        const char *host = nccl_jstr(d, "hostname");
        if (host) nccl_note_host(&m, host, strlen(host));
    }
    const cJSON *bw = cJSON_GetObjectItemCaseSensitive(root, "average_bus_bandwidth");
    if (nccl_jnum(bw, "bandwidth", &v)) out->avg_busbw = v * 1e9;
    const cJSON *oob = cJSON_GetObjectItemCaseSensitive(root, "out_of_bounds");
    if (nccl_jnum(oob, "count", &v)) out->oob = tok_clamp_int(v);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "results");
    int n = cJSON_GetArraySize(res);
    if (!cJSON_IsArray(res) || n == 0)
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: no \"results\" rows (not an nccl-tests JSON "
            "file?)",
            origin);
    out->v = calloc((size_t)n, sizeof *out->v);
    if (!out->v) return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", origin);
    int i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, res)
    {
        coll_sample *s = &out->v[i];
        s->line = i + 1;
        s->root = -1;
        double size;
        if (!nccl_jnum(r, "size", &size) || size < 0)
            return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].size: missing or invalid", origin, i);
        s->bytes = size;
        nccl_json_row_labels(r, "redop", s);
        pass_vals pv[2];
        int rc = nt_pass(
            cJSON_GetObjectItemCaseSensitive(r, "out_of_place"), origin, i, "out_of_place", &pv[0], err);
        if (!rc)
            rc = nt_pass(cJSON_GetObjectItemCaseSensitive(r, "in_place"), origin, i, "in_place", &pv[1], err);
        if (rc) return rc;
        if (!pv[0].present && !pv[1].present)
            return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d]: no time in either pass", origin, i);
        nccl_sample_passes(s, &pv[0], &pv[1]);
        i++;
    }
    out->n = n;
    return nccl_finish(&m, hint, out);
}

/* nccl-tests -J output, or a zerobench collective document given to the log reader. */
int nccl_parse_json_doc(
    const char *text, const char *origin, const char *hint, coll_samples *out, zs_error *err)
{
    cJSON *root = nccl_json_parse(text, origin, err);
    if (!root) return err ? err->code : ZS_ERR_INPUT;
    int rc;
    const char *tool = cJSON_IsObject(root) ? nccl_jstr(root, "tool") : NULL;
    if (cJSON_IsArray(root) || (tool && !strcmp(tool, "zerobench"))) {
        harness_file h;
        memset(&h, 0, sizeof h);
        rc = harness_from_cjson(root, origin, &h, err);
        if (!rc && h.n_sets == 0) {
            rc = zs_fail(err, ZS_ERR_INPUT,
                "%s: holds zerobench %s results, not a collective "
                "(use harness_read)",
                origin, h.n_points ? h.points[0].bench : "no");
            harness_file_free(&h);
        } else if (!rc && h.n_sets != 1) {
            rc = zs_fail(err, ZS_ERR_INPUT,
                "%s: holds %d collective runs; expected one (use "
                "harness_read)",
                origin, h.n_sets);
            harness_file_free(&h);
        }
        if (!rc) {
            const char *hc = hint && *hint ? busbw_canonical(hint) : NULL;
            if (hint && *hint && !hc)
                rc = zs_fail(err, ZS_ERR_INPUT, "%s: unknown collective \"%s\"", origin, hint);
            else if (hc && strcmp(hc, h.sets[0].collective) != 0)
                rc = zs_fail(err, ZS_ERR_INPUT, "%s: the file is a %s run, but %s was given", origin,
                    h.sets[0].collective, hc);
            if (rc)
                harness_file_free(&h);
            else {
                *out = h.sets[0];
                free(h.sets);
                free(h.points);
            }
        }
    } else if (cJSON_IsObject(root)) {
        rc = parse_nccltests_json(root, origin, hint, out, err);
        if (rc) coll_samples_free(out);
    } else {
        rc = zs_fail(err, ZS_ERR_INPUT, "%s: JSON top level is neither an object nor an array", origin);
    }
    cJSON_Delete(root);
    return rc;
}
