/* ncclrows.c -- what the nccl-tests text and JSON readers and the zerobench reader share: the
 * checks once a run's rows are in, the pass and row helpers, and JSON parsing. */
#include "io/ncclrows.h"

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

/* ------------------------------------------------------------------ run checks */

const char *nccl_binary_collective(const char *name, size_t len)
{
    char buf[256];
    if (len == 0 || len >= sizeof buf) return NULL;
    memcpy(buf, name, len);
    buf[len] = '\0';
    const char *base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    const char *perf = strstr(base, "_perf");
    if (!perf || perf == base) return NULL;
    char stem[64];
    size_t sl = (size_t)(perf - base);
    if (sl >= sizeof stem) return NULL;
    memcpy(stem, base, sl);
    stem[sl] = '\0';
    return busbw_canonical(stem);
}

int nccl_vfail(run_meta *m, int line, const char *fmt, va_list ap)
{
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (line > 0) return zs_fail(m->err, ZS_ERR_INPUT, "%s:%d: %s", m->origin, line, msg);
    return zs_fail(m->err, ZS_ERR_INPUT, "%s: %s", m->origin, msg);
}

static int mfail(run_meta *m, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int mfail(run_meta *m, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = nccl_vfail(m, line, fmt, ap);
    va_end(ap);
    return rc;
}

void nccl_set_coll(run_meta *m, const char *canon, int line, int strong)
{
    if (!canon) return;
    if (m->coll[0] && (m->coll_strong || !strong)) return; /* the first strong name wins */
    snprintf(m->coll, sizeof m->coll, "%s", canon);
    m->coll_line = line;
    m->coll_strong = strong;
}

void nccl_note_host(run_meta *m, const char *host, size_t len)
{
    if (len == 0) return;
    if (len >= sizeof m->host0) len = sizeof m->host0 - 1;
    if (m->hosts == 0) {
        memcpy(m->host0, host, len);
        m->host0[len] = '\0';
        m->hosts = 1;
    } else if (m->hosts == 1 && (strlen(m->host0) != len || memcmp(m->host0, host, len) != 0)) {
        m->hosts = 2;
    }
}

int nccl_finish(run_meta *m, const char *hint, coll_samples *o)
{
    const char *h = NULL;
    if (hint && *hint) {
        h = busbw_canonical(hint);
        if (!h)
            return mfail(m, 0,
                "unknown collective \"%s\" (expected all_reduce, all_gather, "
                "reduce_scatter, broadcast, reduce, all_to_all, send_recv, gather, "
                "scatter or hypercube)",
                hint);
    }
    if (!m->coll[0] && m->unsupported[0])
        return mfail(m, m->unsupported_line,
            "%s is not a collective this reader models "
            "(supported: all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
            "all_to_all, send_recv, gather, scatter, hypercube)",
            m->unsupported);
    if (m->coll[0] && h && strcmp(m->coll, h) != 0)
        return mfail(m, m->coll_line, "the log is a %s run, but %s was given", m->coll, h);
    const char *coll = m->coll[0] ? m->coll : h;
    if (!coll)
        return mfail(m, 0,
            "the log does not name its collective (no \"Collective test "
            "starting\" line, no *_perf command line); name it explicitly (e.g. all_reduce)");
    snprintf(o->collective, sizeof o->collective, "%s", coll);

    if (m->group_ranks > 0) {
        o->ranks = m->group_ranks;
    } else {
        /* infer n from busbw/algbw of the row with the most digits */
        int best = -1;
        for (int i = 0; i < o->n; i++)
            if (best < 0 || o->v[i].algbw > o->v[best].algbw) best = i;
        double f = best >= 0 && o->v[best].algbw >= 1e9 ? o->v[best].busbw / o->v[best].algbw : 0;
        double est = 0;
        busbw_kind k = busbw_lookup(coll)->printed;
        if (k == BUSBW_ALL_REDUCE && f > 0 && f < 2)
            est = 2 / (2 - f); /* f = 2(n-1)/n */
        else if (k == BUSBW_SHARE && f > 0 && f < 1)
            est = 1 / (1 - f); /* f = (n-1)/n */
        /* both bounded to int range: casting a larger estimate, or the product overflowing,
         * is undefined (a ratio that close to its limit tells no rank count anyway) */
        if (est >= 1.5 && est < INT_MAX && fabs(est - floor(est + 0.5)) < 0.15)
            o->ranks = (int)floor(est + 0.5);
        else if (m->nthread > 0 && m->ngpus > 0 && m->nthread <= INT_MAX / m->ngpus)
            o->ranks = m->nthread * m->ngpus;
        o->ranks_inferred = o->ranks > 0;
    }
    o->hosts = m->hosts;
    for (int i = 0; i < o->n; i++) {
        snprintf(o->v[i].collective, sizeof o->v[i].collective, "%s", coll);
        o->v[i].ranks = o->ranks;
    }
    /* busbw = algbw x factor(collective, ranks): catches a wrong hint or rank count */
    busbw_kind printed = busbw_lookup(coll)->printed;
    if (o->ranks > 0 && !o->ranks_inferred && printed != BUSBW_NONE) {
        int n = o->ranks;
        double fac = busbw_kind_factor(printed, n);
        for (int i = 0; i < o->n; i++) {
            const coll_sample *s = &o->v[i];
            if (s->algbw < 1e9) continue; /* two decimals of GB/s: too few digits below 1 */
            double r = s->busbw / s->algbw;
            if (fabs(r - fac) > 0.02 * fac + 0.011e9 / s->algbw)
                return mfail(m, s->line,
                    "busbw/algbw is %.3f, but %s on %d ranks has factor "
                    "%.3f (nccl-tests doc/PERFORMANCE.md): is the collective or the "
                    "rank count wrong?",
                    r, coll, n, fac);
        }
    }
    return ZS_OK;
}

/* ------------------------------------------------------------------ rows and JSON */

bool nccl_jnum(const cJSON *o, const char *key, double *v)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(j)) {
        *v = j->valuedouble;
        return isfinite(*v);
    }
    if (cJSON_IsString(j)) {
        char *end;
        double x = strtod(j->valuestring, &end);
        while (*end == ' ') end++;
        if (end == j->valuestring || *end || !isfinite(x)) return false;
        *v = x;
        return true;
    }
    return false;
}

const char *nccl_jstr(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

void nccl_json_pass(const cJSON *o, double time_us, double algbw_gbps, double busbw_gbps,
    const char *wrong_key, pass_vals *pv)
{
    double w;
    pv->present = 1;
    pv->time = time_us * 1e-6;
    pv->algbw = algbw_gbps * 1e9;
    pv->busbw = busbw_gbps * 1e9;
    if (nccl_jnum(o, wrong_key, &w) && w >= 0) pv->wrong = tok_clamp_int(w);
}

void nccl_json_row_labels(const cJSON *row, const char *redop_key, coll_sample *s)
{
    const char *ty = nccl_jstr(row, "type"), *op = nccl_jstr(row, redop_key);
    double v;
    if (ty) snprintf(s->type, sizeof s->type, "%s", ty);
    if (op) snprintf(s->redop, sizeof s->redop, "%s", op);
    if (nccl_jnum(row, "root", &v)) s->root = tok_clamp_int(v);
}

void nccl_sample_passes(coll_sample *s, const pass_vals *oop, const pass_vals *ip)
{
    const pass_vals *use = oop->present ? oop : ip;
    s->seconds = use->time;
    s->algbw = use->algbw;
    s->busbw = use->busbw;
    s->wrong = use->wrong;
    s->seconds_ip = ip->present ? ip->time : 0;
}

cJSON *nccl_json_parse(const char *text, const char *origin, zs_error *err)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
    if (j) json_last_key_wins(j); /* duplicate keys: the last wins, as in Python */
    if (!j) {
        int line = 1;
        const char *at = end ? end : cJSON_GetErrorPtr();
        for (const char *c = text; at && c < at && *c; c++)
            if (*c == '\n') line++;
        zs_fail(
            err, ZS_ERR_INPUT, "%s:%d: invalid JSON%s", origin, line, at && !*at ? " (truncated file?)" : "");
    }
    return j;
}

void coll_samples_free(coll_samples *s)
{
    if (!s) return;
    free(s->v);
    memset(s, 0, sizeof *s);
    s->avg_busbw = -1;
    s->oob = -1;
}
