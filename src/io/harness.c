/* harness.c -- the zerobench -J JSON reader: collective sets, adam/membw/gemm points, and where
 * the benchmark ran (back end, ranks per node). */
#include "io/harness.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/busbw.h"
#include "io/jsonutil.h"
#include "io/logtok.h"
#include "io/ncclrows.h"

static int hfail(zs_error *err, const char *origin, int doc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int hfail(zs_error *err, const char *origin, int doc, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (doc >= 0) return zs_fail(err, ZS_ERR_INPUT, "%s: document %d: %s", origin, doc, msg);
    return zs_fail(err, ZS_ERR_INPUT, "%s: %s", origin, msg);
}

/* Out of memory: ZS_ERR_NOMEM (exit 4), as everywhere. */
static int hoom(zs_error *err, const char *origin)
{
    return zs_fail(err, ZS_ERR_NOMEM, "%s: out of memory", origin);
}

/* zerobench pass object {"time_us", "algbw_gbps", "busbw_gbps", "wrong"}. */
static int zb_pass(
    const cJSON *o, const char *origin, int doc, int row, const char *name, pass_vals *pv, zs_error *err)
{
    memset(pv, 0, sizeof *pv);
    pv->wrong = -1;
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    double t, a, b;
    if (!nccl_jnum(o, "time_us", &t))
        return hfail(err, origin, doc, "rows[%d].%s.time_us: missing or not a number", row, name);
    if (t <= 0 || t * 1e-6 <= 0) /* a denormal time underflows to 0 s */
        return hfail(err, origin, doc, "rows[%d].%s.time_us: %g is not positive", row, name, t);
    if (!nccl_jnum(o, "algbw_gbps", &a) || !nccl_jnum(o, "busbw_gbps", &b) || a < 0 || b < 0 ||
        !isfinite(a * 1e9) || !isfinite(b * 1e9))
        return hfail(err, origin, doc, "rows[%d].%s: algbw_gbps/busbw_gbps missing or invalid", row, name);
    nccl_json_pass(o, t, a, b, "wrong", pv);
    return ZS_OK;
}

static int zb_collective(
    const cJSON *doc, const char *coll, const char *origin, int di, coll_samples *s, zs_error *err)
{
    memset(s, 0, sizeof *s);
    s->avg_busbw = -1;
    s->oob = -1;
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    double v;
    const cJSON *mpi = cJSON_GetObjectItemCaseSensitive(doc, "mpi");
    if (nccl_jnum(mpi, "ranks", &v) && v >= 1 && v < INT_MAX) s->ranks = (int)v;
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
    if (nccl_jnum(cfg, "iters", &v) && v >= 1 && v < INT_MAX) s->iters = (int)v;
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    if (nccl_jnum(sum, "avg_busbw_gbps", &v)) s->avg_busbw = v * 1e9;
    if (nccl_jnum(sum, "wrong_passes", &v)) s->oob = tok_clamp_int(v);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    int n = cJSON_GetArraySize(rows);
    if (!cJSON_IsArray(rows) || n == 0) return hfail(err, origin, di, "no \"rows\"");
    s->v = calloc((size_t)n, sizeof *s->v);
    if (!s->v) return hoom(err, origin);
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rows)
    {
        coll_sample *c = &s->v[i];
        snprintf(c->collective, sizeof c->collective, "%s", coll);
        c->ranks = s->ranks;
        c->line = i + 1;
        c->root = -1;
        if (!nccl_jnum(r, "bytes", &c->bytes) || c->bytes < 0) {
            coll_samples_free(s);
            return hfail(err, origin, di, "rows[%d].bytes: missing or invalid", i);
        }
        nccl_json_row_labels(r, "op", c);
        pass_vals pv[2];
        int rc = zb_pass(
            cJSON_GetObjectItemCaseSensitive(r, "out_of_place"), origin, di, i, "out_of_place", &pv[0], err);
        if (!rc)
            rc = zb_pass(
                cJSON_GetObjectItemCaseSensitive(r, "in_place"), origin, di, i, "in_place", &pv[1], err);
        if (!rc && !pv[0].present && !pv[1].present)
            rc = hfail(err, origin, di, "rows[%d]: neither out_of_place nor in_place", i);
        if (rc) {
            coll_samples_free(s);
            return rc;
        }
        nccl_sample_passes(c, &pv[0], &pv[1]);
        i++;
    }
    s->n = n;
    return ZS_OK;
}

static int zb_points(
    const cJSON *doc, const char *bench, const char *origin, int di, harness_file *h, zs_error *err)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    int n = cJSON_GetArraySize(rows);
    if (!cJSON_IsArray(rows) || n == 0) return hfail(err, origin, di, "no \"rows\"");
    bench_point *nv = realloc(h->points, (size_t)(h->n_points + n) * sizeof *nv);
    if (!nv) return hoom(err, origin);
    h->points = nv;
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rows)
    {
        bench_point *b = &h->points[h->n_points];
        memset(b, 0, sizeof *b);
        snprintf(b->bench, sizeof b->bench, "%s", bench);
        double t, w;
        if (!nccl_jnum(r, "time_us", &t))
            return hfail(err, origin, di, "rows[%d].time_us: missing or not a number", i);
        if (t <= 0 || t * 1e-6 <= 0) /* a denormal time underflows to 0 s */
            return hfail(err, origin, di, "rows[%d].time_us: %g is not positive", i, t);
        b->seconds = t * 1e-6;
        b->wrong = nccl_jnum(r, "wrong", &w) && w >= 0 ? tok_clamp_int(w) : -1;
        const char *key = NULL;
        double work = 0, moved = 0;
        if (!strcmp(bench, "adam")) {
            const char *var = nccl_jstr(r, "variant");
            snprintf(b->label, sizeof b->label, "%s", var ? var : "");
            key = "params";
            if (!nccl_jnum(r, key, &work)) work = -1;
            if (!nccl_jnum(r, "bytes", &moved) || !(moved > 0))
                return hfail(err, origin, di, "rows[%d].bytes: missing or not a positive number", i);
            snprintf(b->x_unit, sizeof b->x_unit, "params");
            snprintf(b->unit, sizeof b->unit, "bytes/s");
            b->value = moved / b->seconds;
        } else if (!strcmp(bench, "membw")) {
            const char *k = nccl_jstr(r, "kernel");
            snprintf(b->label, sizeof b->label, "%s", k ? k : "");
            key = "bytes";
            if (!nccl_jnum(r, key, &work)) work = -1;
            snprintf(b->x_unit, sizeof b->x_unit, "bytes");
            snprintf(b->unit, sizeof b->unit, "bytes/s");
            b->value = work / b->seconds;
        } else { /* gemm */
            const char *impl = nccl_jstr(r, "impl"), *ty = nccl_jstr(r, "type");
            double m = 0, nn = 0, k = 0;
            nccl_jnum(r, "m", &m);
            nccl_jnum(r, "n", &nn);
            nccl_jnum(r, "k", &k);
            snprintf(b->label, sizeof b->label, "%s %s %.0fx%.0fx%.0f", impl ? impl : "?", ty ? ty : "?", m,
                nn, k);
            key = "flops";
            if (!nccl_jnum(r, key, &work)) work = -1;
            snprintf(b->x_unit, sizeof b->x_unit, "flop");
            snprintf(b->unit, sizeof b->unit, "flop/s");
            b->value = work / b->seconds;
        }
        if (!(work > 0))
            return hfail(err, origin, di, "rows[%d].%s: missing or not a positive number", i, key);
        if (!isfinite(b->value)) /* work / time beyond double range */
            return hfail(err, origin, di, "rows[%d]: the rate (%s / time_us) is not finite", i,
                strcmp(bench, "adam") ? key : "bytes");
        b->x = work;
        h->n_points++;
        i++;
    }
    return ZS_OK;
}

static int zb_doc(const cJSON *doc, const char *origin, int di, harness_file *h, zs_error *err)
{
    if (!cJSON_IsObject(doc)) return hfail(err, origin, di, "expected a JSON object");
    const char *tool = nccl_jstr(doc, "tool");
    if (!tool || strcmp(tool, "zerobench") != 0)
        return hfail(err, origin, di, "not a zerobench result (\"tool\" is %s%s%s)", tool ? "\"" : "",
            tool ? tool : "absent", tool ? "\"" : "");
    double ver;
    if (!nccl_jnum(doc, "schema_version", &ver)) return hfail(err, origin, di, "\"schema_version\" missing");
    if (ver != 1)
        return hfail(err, origin, di, "schema_version %g is not supported (this reader knows 1)", ver);
    const char *bench = nccl_jstr(doc, "benchmark");
    if (!bench) return hfail(err, origin, di, "\"benchmark\" missing");
    /* where it ran: the back end and the MPI layout, the same for every document */
    const char *backend = nccl_jstr(doc, "backend");
    if (backend && !h->backend[0])
        snprintf(h->backend, sizeof h->backend, "%s", backend);
    else if (backend && strcmp(backend, h->backend) != 0)
        return hfail(err, origin, di,
            "backend \"%s\" differs from the file's first (\"%s\"): "
            "give one back end per file",
            backend, h->backend);
    const cJSON *mpi = cJSON_GetObjectItemCaseSensitive(doc, "mpi");
    double v;
    if (nccl_jnum(mpi, "ranks_per_node", &v) && v >= 1 && v <= (1 << 20) && !h->ranks_per_node)
        h->ranks_per_node = (int)v;
    if (nccl_jnum(mpi, "nodes", &v) && v >= 1 && v <= (1 << 20) && !h->nodes) h->nodes = (int)v;
    const cJSON *sys = cJSON_GetObjectItemCaseSensitive(doc, "system");
    const char *cpu = nccl_jstr(sys, "cpu_model");
    if (cpu && !h->cpu_model[0]) snprintf(h->cpu_model, sizeof h->cpu_model, "%s", cpu);
    if (nccl_jnum(sys, "cpus", &v) && v >= 1 && v <= (1 << 24) && !h->cpus) h->cpus = (int)v;
    const char *coll = busbw_canonical(bench);
    if (coll) {
        coll_samples *ns = realloc(h->sets, (size_t)(h->n_sets + 1) * sizeof *ns);
        if (!ns) return hoom(err, origin);
        h->sets = ns;
        int rc = zb_collective(doc, coll, origin, di, &h->sets[h->n_sets], err);
        if (rc) return rc;
        if (nccl_jnum(mpi, "nodes", &v) && v >= 1) h->sets[h->n_sets].hosts = v > 1 ? 2 : 1;
        h->n_sets++;
        return ZS_OK;
    }
    if (!strcmp(bench, "adam") || !strcmp(bench, "membw") || !strcmp(bench, "gemm"))
        return zb_points(doc, bench, origin, di, h, err);
    return hfail(err, origin, di, "unknown benchmark \"%s\"", bench);
}

void harness_file_free(harness_file *h)
{
    if (!h) return;
    for (int i = 0; i < h->n_sets; i++) coll_samples_free(&h->sets[i]);
    free(h->sets);
    free(h->points);
    memset(h, 0, sizeof *h);
}

int harness_from_cjson(const cJSON *root, const char *origin, harness_file *out, zs_error *err)
{
    int rc = ZS_OK;
    if (cJSON_IsArray(root)) {
        int i = 0;
        const cJSON *d;
        cJSON_ArrayForEach(d, root)
        {
            rc = zb_doc(d, origin, i++, out, err);
            if (rc) break;
        }
        if (!rc && i == 0) rc = hfail(err, origin, -1, "empty JSON array");
    } else {
        rc = zb_doc(root, origin, -1, out, err);
    }
    if (rc) harness_file_free(out);
    return rc;
}

int harness_read_text(const char *text, const char *origin, harness_file *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!origin) origin = "(json)";
    cJSON *root = nccl_json_parse(text, origin, err);
    if (!root) return err ? err->code : ZS_ERR_INPUT;
    int rc = harness_from_cjson(root, origin, out, err);
    cJSON_Delete(root);
    return rc;
}

int harness_read(const char *path, harness_file *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (file_read_text(path, &text, &len, err)) return err ? err->code : ZS_ERR_INPUT;
    int rc = harness_read_text(text, path, out, err);
    free(text);
    return rc;
}

int harness_parse(const char *path, coll_samples **out, int *n_sets, zs_error *err)
{
    *out = NULL;
    *n_sets = 0;
    harness_file h;
    int rc = harness_read(path, &h, err);
    if (rc) return rc;
    if (h.n_sets == 0) {
        char b[16];
        snprintf(b, sizeof b, "%s", h.n_points ? h.points[0].bench : "no");
        harness_file_free(&h);
        return zs_fail(err, ZS_ERR_INPUT, "%s: holds %s results, no collective (use harness_read)", path, b);
    }
    *out = h.sets;
    *n_sets = h.n_sets;
    free(h.points);
    return ZS_OK;
}
