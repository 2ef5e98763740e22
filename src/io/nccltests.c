/* nccltests.c -- the nccl-tests text log reader (every table layout since 2017); -J JSON goes to
 * nccltests_json.c. */
#include "io/nccltests.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/busbw.h"
#include "io/jsonutil.h"
#include "io/logtok.h"
#include "io/ncclrows.h"
#include "io/nccltests_int.h"

/* ------------------------------------------------------------------ parse state */

/* Where the fields of a table row are, from the "# size count ..." header or guessed. */
typedef struct layout {
    int known;                             /* 1 once set */
    int lead;                              /* fields before the first pass */
    int i_type, i_redop, i_root;           /* field indices; -1 when absent */
    int npass;                             /* 1 or 2 */
    int pass_at[2];                        /* first field of each pass */
    int pass_ip[2];                        /* 1 when that pass is the in-place one */
    int per_pass;                          /* fields per pass (4, or 8 with -I) */
    int o_time, o_algbw, o_busbw, o_wrong; /* offsets inside a pass; o_wrong -1 when absent */
    int wrong_delta;                       /* 1: pre-2022 "error"/"res" column (max deviation, not a count) */
    int ms;                                /* 1: times in ms (2017-2019 "bytes N type op" tables) */
} layout;

typedef struct parser {
    run_meta m; /* origin, err, collective, ranks: what nccl_finish needs */
    coll_samples *out;
    int cap; /* allocated rows */
    layout lay;
    int banner_ip_first; /* banner above the header lists in-place first */
    int banner_ip_only;  /* banner names in-place only */
    int units_us;        /* units line said (us): 1, (ms): 2, none: 0 */
    int run_line;        /* line of the first nThread header */
    int rows_in_run;     /* complete rows since that header */
    int rank_lines;      /* "#  Rank" lines seen */
    int group0;          /* group of the first one */
    int dup_rank;        /* 1 when a rank number was listed twice */
    unsigned char *seen; /* rank numbers seen (bitmap) */
    int seen_cap;        /* bytes in seen */
    char *pend;          /* an incomplete row waiting for more fields, or NULL */
    size_t pend_len, pend_cap;
    int pend_line;      /* where it started */
    int first_row_line; /* line of the first complete row */
} parser;

/* Bad input at a line of the log (0: the log as a whole). */
static int pfail(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pfail(parser *p, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = nccl_vfail(&p->m, line, fmt, ap);
    va_end(ap);
    return rc;
}

/* Out of memory: ZS_ERR_NOMEM (exit 4), as everywhere. */
static int oom(parser *p)
{
    return zs_fail(p->m.err, ZS_ERR_NOMEM, "%s: out of memory", p->m.origin);
}

/* Remember an nccl-tests binary name ("alltoallv_perf") with no collective of ours. */
static void note_unsupported(parser *p, tok t, int line)
{
    if (p->m.unsupported[0]) return;
    const char *b = t.s, *e = t.s + t.len;
    for (const char *c = t.s; c < e; c++)
        if (*c == '/') b = c + 1;
    tok_copy((tok){b, (int)(e - b)}, p->m.unsupported, sizeof p->m.unsupported);
    p->m.unsupported_line = line;
}

/* ------------------------------------------------------------------ header lines */

static bool name_is_time(tok t)
{
    return tok_eq(t, "time") || tok_eq(t, "cputime");
}

/* "size count type redop root time algbw busbw #wrong time ..." and its older forms. */
static int read_table_header(parser *p, const tok *t, int n, int line)
{
    layout L;
    memset(&L, 0, sizeof L);
    L.i_type = L.i_redop = L.i_root = -1;
    L.o_time = L.o_algbw = L.o_busbw = L.o_wrong = -1;
    int i = 0;
    for (; i < n && !name_is_time(t[i]); i++) {
        if (tok_eq(t[i], "type"))
            L.i_type = i;
        else if (tok_eq(t[i], "redop") || tok_eq(t[i], "op"))
            L.i_redop = i;
        else if (tok_eq(t[i], "root"))
            L.i_root = i;
    }
    L.lead = i;
    int groups = 0, gsize[3] = {0, 0, 0};
    for (; i < n; i++) {
        if (tok_eq(t[i], "timestamp")) break;
        if (name_is_time(t[i])) {
            if (groups == 2) return pfail(p, line, "table header has more than two time columns");
            L.pass_at[groups++] = i;
        }
        int g = groups - 1, off = i - L.pass_at[g];
        gsize[g]++;
        if (g > 0) continue;
        if (name_is_time(t[i]))
            L.o_time = off;
        else if (tok_eq(t[i], "algbw"))
            L.o_algbw = off;
        else if (tok_eq(t[i], "busbw"))
            L.o_busbw = off;
        else if (tok_eq(t[i], "#wrong") || tok_eq(t[i], "wrong"))
            L.o_wrong = off;
        else if (tok_eq(t[i], "error") || tok_eq(t[i], "res")) {
            L.o_wrong = off;
            L.wrong_delta = 1;
        }
    }
    if (groups == 0 || L.o_algbw < 0 || L.o_busbw < 0 || L.lead < 2)
        return pfail(p, line,
            "unrecognised table header (expected size, count, ..., time, "
            "algbw, busbw)");
    if (groups == 2 && gsize[0] != gsize[1])
        return pfail(p, line, "table header: the two passes have different columns");
    L.npass = groups;
    L.per_pass = gsize[0];
    if (groups == 2) {
        L.pass_ip[0] = p->banner_ip_first;
        L.pass_ip[1] = !p->banner_ip_first;
    } else {
        L.pass_ip[0] = p->banner_ip_only;
    }
    L.ms = tok_eq(t[0], "bytes"); /* 2017-2019: "bytes N type op", time in ms, no units line */
    L.known = 1;
    p->lay = L;
    p->units_us = 0;
    return ZS_OK;
}

/* "#  Rank  0 Group  0 Pid 3811 on node-a device  0 [...]" (older: "#  Rank  0 on box01 ..."):
 * counts the ranks of the first group and notes their hosts. Fails only when out of memory. */
static int read_rank_line(parser *p, const tok *t, int n)
{
    if (n < 2 || !tok_uint(t[1])) return ZS_OK;
    long r = strtol(t[1].s, NULL, 10);
    int group = 0;
    if (n >= 4 && tok_eq(t[2], "Group") && tok_int(t[3])) group = tok_atoi(t[3].s);
    if (p->rank_lines == 0) p->group0 = group;
    p->rank_lines++;
    if (group == p->group0) {
        p->m.group_ranks++;
        for (int i = 2; i + 1 < n; i++)
            if (tok_eq(t[i], "on")) {
                nccl_note_host(&p->m, t[i + 1].s, (size_t)t[i + 1].len);
                break;
            }
    }
    if (r >= 0 && r < (1L << 24)) { /* remember it, to spot the same rank listed twice */
        int byte = (int)(r / 8);
        if (byte >= p->seen_cap) {
            int nc = p->seen_cap ? p->seen_cap : 64;
            while (nc <= byte) nc *= 2;
            unsigned char *ns = realloc(p->seen, (size_t)nc);
            if (!ns) return oom(p);
            memset(ns + p->seen_cap, 0, (size_t)(nc - p->seen_cap));
            p->seen = ns;
            p->seen_cap = nc;
        }
        if (p->seen[byte] & (1u << (r % 8))) p->dup_rank = 1;
        p->seen[byte] |= (unsigned char)(1u << (r % 8));
    }
    return ZS_OK;
}

/* The "# nThread 1 nGpus 1 ... iters: 20 ..." header that opens a run: its thread, GPU and
 * iteration counts. Fails (pfail) when a second run or a repeated header starts here. */
static int run_header(parser *p, const tok *t, int n, int line)
{
    if (p->run_line) {
        if (p->rows_in_run > 0)
            return pfail(p, line,
                "a second nccl-tests run starts here (the first started at "
                "line %d); give one run per file",
                p->run_line);
        return pfail(p, line,
            "the run header is repeated (first at line %d) before any "
            "result: each process ran alone, as happens when nccl-tests built "
            "without MPI=1 is started by mpirun; rebuild with MPI=1",
            p->run_line);
    }
    p->run_line = line;
    for (int i = 0; i + 1 < n; i++) {
        if (tok_eq(t[i], "nThread") && tok_uint(t[i + 1])) p->m.nthread = tok_atoi(t[i + 1].s);
        if (tok_eq(t[i], "nGpus") && tok_uint(t[i + 1])) p->m.ngpus = tok_atoi(t[i + 1].s);
        if (tok_eq(t[i], "iters:") && tok_uint(t[i + 1]) &&
            !(i > 0 && (tok_eq(t[i - 1], "warmup") || tok_eq(t[i - 1], "agg"))))
            p->out->iters = tok_atoi(t[i + 1].s);
    }
    return ZS_OK;
}

/* A line that nccl-tests starts with '#' (the '#' already removed; also used when a copy
 * through Markdown lost the '#'). */
static int header_line(parser *p, const char *s, int line)
{
    tok t[MAXTOK];
    int n = tok_split(s, t, MAXTOK, NULL);
    if (n == 0) return ZS_OK;
    if (strstr(s, "Collective test starting:")) {
        const char *name = strchr(strstr(s, "starting:"), ':') + 1;
        tok nt[2];
        if (tok_split(name, nt, 2, NULL) >= 1) {
            const char *c = nccl_binary_collective(nt[0].s, (size_t)nt[0].len);
            if (c)
                nccl_set_coll(&p->m, c, line, 1);
            else
                note_unsupported(p, nt[0], line);
        }
        return ZS_OK;
    }
    if (tok_eq(t[0], "zerobench") && n >= 2) { /* "# zerobench allreduce, cpu back end, ..." */
        char name[32];
        tok_copy(t[1], name, sizeof name);
        char *comma = strchr(name, ',');
        if (comma) *comma = '\0';
        const char *c = busbw_canonical(name);
        if (!c)
            return pfail(p, line,
                "this is zerobench %s output, not a collective table; read its "
                "-J JSON file instead",
                name);
        nccl_set_coll(&p->m, c, line, 1);
        return ZS_OK;
    }
    if (tok_eq(t[0], "nThread")) return run_header(p, t, n, line);
    if (tok_eq(t[0], "Rank")) {
        if (read_rank_line(p, t, n)) return p->m.err->code;
        if (p->dup_rank)
            return pfail(p, line,
                "rank %.*s is listed twice: the log mixes runs, or each process "
                "ran alone (nccl-tests built without MPI=1 but started by mpirun)",
                t[1].len, t[1].s);
        return ZS_OK;
    }
    if ((tok_eq(t[0], "size") || tok_eq(t[0], "bytes")) && n >= 6) {
        for (int i = 1; i < n; i++)
            if (tok_eq(t[i], "algbw")) return read_table_header(p, t, n, line);
        return ZS_OK;
    }
    if (tok_eq(t[0], "(B)")) {
        for (int i = 1; i < n; i++) {
            if (tok_eq(t[i], "(us)")) {
                p->units_us = 1;
                break;
            }
            if (tok_eq(t[i], "(ms)")) {
                p->units_us = 2;
                break;
            }
        }
        return ZS_OK;
    }
    const char *oop = strstr(s, "out-of-place"), *ip = strstr(s, "in-place");
    if (oop || ip) {
        p->banner_ip_first = oop && ip && ip < oop;
        p->banner_ip_only = ip && !oop;
        return ZS_OK;
    }
    if (n >= 5 && tok_eq(t[0], "Out") && tok_eq(t[1], "of") && tok_eq(t[2], "bounds")) {
        for (int i = 3; i < n; i++)
            if (tok_uint(t[i])) {
                p->out->oob = tok_atoi(t[i].s);
                break;
            }
        return ZS_OK;
    }
    if (n >= 4 && tok_eq(t[0], "Avg") && tok_eq(t[1], "bus") && tok_eq(t[2], "bandwidth")) {
        double v;
        for (int i = 3; i < n; i++)
            if (tok_num(t[i], &v)) {
                p->out->avg_busbw = v * 1e9;
                break;
            }
    }
    return ZS_OK;
}

/* Lines nccl-tests writes with a '#' that may have lost it (pasted through Markdown). */
static bool bare_header(const tok *t, int n)
{
    if (n == 0) return false;
    if (tok_eq(t[0], "nThread") || tok_eq(t[0], "Rank") || tok_eq(t[0], "(B)")) return true;
    if (tok_eq(t[0], "Using") && n >= 2 && tok_eq(t[1], "devices")) return true;
    if (tok_eq(t[0], "out-of-place") || tok_eq(t[0], "in-place")) return true;
    if (n >= 3 && tok_eq(t[0], "Out") && tok_eq(t[1], "of") && tok_eq(t[2], "bounds")) return true;
    if (n >= 3 && tok_eq(t[0], "Avg") && tok_eq(t[1], "bus")) return true;
    if (n >= 2 && tok_eq(t[0], "Collective") && tok_eq(t[1], "test")) return true;
    if (tok_eq(t[0], "size") || tok_eq(t[0], "bytes"))
        for (int i = 1; i < n; i++)
            if (tok_eq(t[i], "algbw")) return true;
    return false;
}

/* ------------------------------------------------------------------ rows */

static bool valid_tail(int r)
{
    return r == 8 || r == 16 || r == 10 || r == 18;
}

/* Guess the layout of a header-less table from one complete row. */
static bool guess_layout(layout *L, const tok *t, int n)
{
    if (n < 11 || !tok_uint(t[0]) || !tok_uint(t[1])) return false;
    double dummy;
    if (tok_num(t[2], &dummy)) return false; /* the type column is a word */
    memset(L, 0, sizeof *L);
    L->i_type = 2;
    L->i_redop = L->i_root = -1;
    int i = 3;
    if (!tok_num(t[3], &dummy) && !tok_na(t[3])) L->i_redop = i++;
    if (tok_int(t[i]) && valid_tail(n - i - 1) && !valid_tail(n - i)) L->i_root = i++;
    int rem = n - i;
    if (!valid_tail(rem)) return false;
    L->lead = i;
    L->npass = 2;
    L->per_pass = rem >= 16 ? 8 : 4;
    L->pass_at[0] = i;
    L->pass_at[1] = i + L->per_pass;
    L->pass_ip[1] = 1;
    L->o_time = 0;
    L->o_algbw = 1;
    L->o_busbw = 2;
    L->o_wrong = 3;
    /* pre-2022 logs print the max error with an exponent (0e+00, 5e-07); later ones print
     * the count with %g: "0", "12", or "1e+06" for a large count */
    double w;
    L->wrong_delta = !tok_uint(t[i + 3]) && tok_num(t[i + 3], &w) && w < 1;
    L->known = 1;
    return true;
}

static int full_fields(const layout *L)
{
    return L->lead + L->npass * L->per_pass;
}

/* nccl-tests' own pre-2022 pass/fail rule: max |error| <= tolerance(type) x (ranks - 1). */
static double delta_tolerance(const char *type)
{
    if (!strcmp(type, "half") || !strcmp(type, "bfloat16")) return 1e-2;
    if (!strcmp(type, "float")) return 1e-5;
    if (!strcmp(type, "double")) return 1e-12;
    return 1e-200; /* integers: exact */
}

static int ensure_cap(parser *p)
{
    if (p->out->n < p->cap) return ZS_OK;
    int nc = p->cap ? p->cap * 2 : 64;
    coll_sample *nv = realloc(p->out->v, (size_t)nc * sizeof *nv);
    if (!nv) return oom(p);
    p->out->v = nv;
    p->cap = nc;
    return ZS_OK;
}

static int read_pass(parser *p, const tok *t, int at, int ip, const char *type, int line, pass_vals *pv)
{
    const layout *L = &p->lay;
    const char *pname = ip ? "in-place" : "out-of-place";
    tok tt = t[at + L->o_time];
    memset(pv, 0, sizeof *pv);
    pv->wrong = -1;
    if (tok_na(tt)) return ZS_OK;
    double v;
    if (!tok_num(tt, &v))
        return pfail(
            p, line, "%s time \"%.*s\" (field %d) is not a number", pname, tt.len, tt.s, at + L->o_time + 1);
    int ms = L->ms ? p->units_us != 1 : p->units_us == 2;
    pv->time = v * (ms ? 1e-3 : 1e-6);
    if (v <= 0 || pv->time <= 0) /* a denormal time underflows to 0 s once scaled */
        return pfail(p, line, "%s time %.*s is not positive", pname, tt.len, tt.s);
    const int offs[2] = {L->o_algbw, L->o_busbw};
    const char *names[2] = {"algbw", "busbw"};
    double bw[2];
    for (int k = 0; k < 2; k++) {
        tok b = t[at + offs[k]];
        if (!tok_num(b, &bw[k]) || bw[k] < 0 || !isfinite(bw[k] * 1e9)) /* GB/s -> B/s */
            return pfail(p, line, "%s %s \"%.*s\" (field %d) is not a non-negative number", pname, names[k],
                b.len, b.s, at + offs[k] + 1);
    }
    pv->algbw = bw[0] * 1e9;
    pv->busbw = bw[1] * 1e9;
    if (L->o_wrong >= 0) {
        tok w = t[at + L->o_wrong];
        if (!tok_na(w)) {
            if (!tok_num(w, &v) || v < 0)
                return pfail(p, line, "%s %s \"%.*s\" (field %d) is not a non-negative number", pname,
                    L->wrong_delta ? "error" : "#wrong", w.len, w.s, at + L->o_wrong + 1);
            if (L->wrong_delta) {
                int nr = p->m.group_ranks > 1 ? p->m.group_ranks : 2;
                pv->wrong = v > delta_tolerance(type) * (nr - 1) ? 1 : 0;
            } else {
                pv->wrong = tok_clamp_int(v);
            }
        }
    }
    pv->present = 1;
    return ZS_OK;
}

/* A complete row: fields checked and stored. */
static int store_row(parser *p, const tok *t, int n, int line)
{
    const layout *L = &p->lay;
    int need = full_fields(L);
    if (n > need) {
        int extra = n - need;
        bool stamp =
            (extra == 2 && tok_date(t[need]) && tok_clock(t[need + 1])) || (extra == 1 && tok_date(t[need]));
        if (!stamp)
            return pfail(p, line, "row has %d fields, expected %d (\"%.*s\" is extra)", n, need, t[need].len,
                t[need].s);
    }
    if (!tok_uint(t[0]) || !tok_uint(t[1])) return pfail(p, line, "size and count must be whole numbers");
    coll_sample s;
    memset(&s, 0, sizeof s);
    s.line = line;
    s.root = -1;
    s.wrong = -1;
    s.bytes = strtod(t[0].s, NULL);
    if (L->i_type >= 0) tok_copy(t[L->i_type], s.type, sizeof s.type);
    if (L->i_redop >= 0) tok_copy(t[L->i_redop], s.redop, sizeof s.redop);
    if (L->i_root >= 0) {
        if (!tok_int(t[L->i_root]))
            return pfail(p, line, "root \"%.*s\" (field %d) is not a whole number", t[L->i_root].len,
                t[L->i_root].s, L->i_root + 1);
        s.root = tok_atoi(t[L->i_root].s);
    }
    pass_vals pv[2];
    int oop = -1, ip = -1;
    for (int k = 0; k < L->npass; k++) {
        int rc = read_pass(p, t, L->pass_at[k], L->pass_ip[k], s.type, line, &pv[k]);
        if (rc) return rc;
        if (pv[k].present) {
            if (L->pass_ip[k])
                ip = k;
            else
                oop = k;
        }
    }
    int use = oop >= 0 ? oop : ip;
    if (use < 0) return pfail(p, line, "row has no time in either pass (all N/A)");
    s.seconds = pv[use].time;
    s.algbw = pv[use].algbw;
    s.busbw = pv[use].busbw;
    s.wrong = pv[use].wrong;
    s.seconds_ip = ip >= 0 ? pv[ip].time : 0;
    int rc = ensure_cap(p);
    if (rc) return rc;
    p->out->v[p->out->n++] = s;
    p->rows_in_run++;
    if (!p->first_row_line) p->first_row_line = line;
    return ZS_OK;
}

static void pend_clear(parser *p)
{
    p->pend_len = 0;
    if (p->pend) p->pend[0] = '\0';
    p->pend_line = 0;
}

static int pend_append(parser *p, const char *frag)
{
    size_t fl = strlen(frag);
    if (p->pend_len + fl + 2 > p->pend_cap) {
        size_t nc = (p->pend_len + fl + 2) * 2;
        char *nb = realloc(p->pend, nc);
        if (!nb) return oom(p);
        p->pend = nb;
        p->pend_cap = nc;
    }
    if (p->pend_len) p->pend[p->pend_len++] = ' ';
    memcpy(p->pend + p->pend_len, frag, fl + 1);
    p->pend_len += fl;
    return ZS_OK;
}

/* Store the pending row if it is complete now. */
static int pend_try(parser *p)
{
    tok t[MAXTOK];
    int more;
    int n = tok_split(p->pend, t, MAXTOK, &more);
    if (more) return pfail(p, p->pend_line, "row has more than %d fields", MAXTOK);
    if (!p->lay.known) {
        if (!guess_layout(&p->lay, t, n)) return ZS_OK; /* maybe the rest is on a later line */
    }
    if (n < full_fields(&p->lay)) return ZS_OK;
    int rc = store_row(p, t, n, p->pend_line);
    pend_clear(p);
    return rc;
}

/* Tokens that can continue a row split by an interleaved message. */
static bool continuation(const tok *t, int n)
{
    for (int i = 0; i < n; i++)
        if (!tok_num(t[i], NULL) && !tok_na(t[i]) && !tok_date(t[i]) && !tok_clock(t[i])) return false;
    return n > 0;
}

/* ------------------------------------------------------------------ the text parser */

static int process_line(parser *p, char *s, int line)
{
    int rank;
    const char *c = tok_strip_prefixes(s, &rank);
    if (rank > 0) return ZS_OK; /* nccl-tests prints its table from rank 0 only */
    char *f = s + (c - s);      /* c points into s */
    tok_cut_nccl_debug(f);
    while (tok_is_space(*f)) f++;
    if (!*f) return ZS_OK;
    if (*f == '#') return header_line(p, f + 1, line);
    tok t[MAXTOK];
    int n = tok_split(f, t, MAXTOK, NULL);
    if (bare_header(t, n)) return header_line(p, f, line);
    if (n >= 2 && tok_uint(t[0]) && tok_uint(t[1])) {
        if (p->pend_len && !p->lay.known) {
            int n_prev = tok_split(p->pend, t, MAXTOK, NULL);
            return pfail(p, p->pend_line,
                "cannot read this row (%d fields): no table header "
                "above it and not a known nccl-tests row layout",
                n_prev);
        }
        if (p->pend_len) {
            int n_prev = tok_split(p->pend, t, MAXTOK, NULL);
            return pfail(p, p->pend_line,
                "row is truncated (%d of %d fields) but more rows "
                "follow (line %d)",
                n_prev, p->lay.known ? full_fields(&p->lay) : 0, line);
        }
        p->pend_line = line;
        int rc = pend_append(p, f);
        return rc ? rc : pend_try(p);
    }
    if (p->pend_len && continuation(t, n)) {
        int rc = pend_append(p, f);
        return rc ? rc : pend_try(p);
    }
    if (!p->first_row_line) /* a command echo before the table: "./build/all_reduce_perf -b 8" */
        for (int i = 0; i < n; i++) {
            const char *cl = nccl_binary_collective(t[i].s, (size_t)t[i].len);
            if (cl) {
                nccl_set_coll(&p->m, cl, line, 0);
                break;
            }
            if (tok_has(t[i], "_perf")) note_unsupported(p, t[i], line);
        }
    return ZS_OK;
}

/* More than 1% control bytes in the first 64 KiB: not a text log. */
static bool looks_binary(const char *text)
{
    size_t n = 0, bad = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c && n < 65536; c++, n++)
        if ((*c < 0x20 && !strchr("\t\n\r\v\f\x1b", *c)) || *c == 0x7f) bad++;
    return bad * 100 > n;
}

static void parser_free(parser *p)
{
    free(p->pend);
    free(p->seen);
}

int nccltests_parse_text(
    const char *text, const char *origin, const char *collective_hint, coll_samples *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    out->avg_busbw = -1;
    out->oob = -1;
    if (!origin) origin = "(log)";
    if (!text) return zs_fail(err, ZS_ERR_INPUT, "%s: no text", origin);
    if ((unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb && (unsigned char)text[2] == 0xbf)
        text += 3; /* UTF-8 byte-order mark */
    const char *s = text;
    while (*s && (tok_is_space(*s) || *s == '\n')) s++;
    if (!*s) return zs_fail(err, ZS_ERR_INPUT, "%s: the log is empty", origin);
    if (looks_binary(text)) return zs_fail(err, ZS_ERR_INPUT, "%s: not a text log (binary data)", origin);
    const char *s2 = s + 1;
    while (*s2 && (tok_is_space(*s2) || *s2 == '\n')) s2++;
    if (*s == '{' || (*s == '[' && (*s2 == '{' || *s2 == ']'))) /* not "[1,0]<stdout>:" */
        return nccl_parse_json_doc(text, origin, collective_hint, out, err);

    parser p;
    memset(&p, 0, sizeof p);
    p.m.origin = origin;
    p.m.err = err;
    p.out = out;
    char *buf = NULL;
    size_t cap = 0;
    int line = 0, rc = ZS_OK;
    for (const char *c = text; *c && rc == ZS_OK;) {
        const char *e = strchr(c, '\n');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        line++;
        if (len + 1 > cap) {
            size_t nc = (len + 1) * 2;
            char *nb = realloc(buf, nc);
            if (!nb) {
                rc = oom(&p);
                break;
            }
            buf = nb;
            cap = nc;
        }
        memcpy(buf, c, len);
        buf[len] = '\0';
        rc = process_line(&p, buf, line);
        c = e ? e + 1 : c + len;
    }
    free(buf);
    if (rc == ZS_OK && p.pend_len) { /* an incomplete last row: the run was cut short */
        out->truncated_line = p.pend_line;
        pend_clear(&p);
    }
    if (rc == ZS_OK && out->n == 0) {
        if (out->truncated_line)
            rc = pfail(&p, out->truncated_line, "no complete data rows (the only row is truncated)");
        else if (p.lay.known)
            rc = pfail(&p, 0, "no data rows under the table header (the run produced no results?)");
        else
            rc = pfail(&p, 0, "no data rows: not an nccl-tests log?");
    }
    if (rc == ZS_OK) rc = nccl_finish(&p.m, collective_hint, out);
    parser_free(&p);
    if (rc != ZS_OK) coll_samples_free(out);
    return rc;
}

int nccltests_parse(const char *path, const char *collective_hint, coll_samples *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (file_read_text(path, &text, &len, err)) {
        /* PowerShell's ">" writes UTF-16: say so rather than just "NUL bytes" */
        FILE *f = fopen(path, "rb");
        unsigned char bom[2] = {0, 0};
        if (f) {
            if (fread(bom, 1, 2, f) != 2) bom[0] = 0;
            fclose(f);
        }
        if ((bom[0] == 0xff && bom[1] == 0xfe) || (bom[0] == 0xfe && bom[1] == 0xff))
            zs_fail(err, ZS_ERR_INPUT,
                "%s: UTF-16 text (as PowerShell's > writes); convert it "
                "to UTF-8 first (iconv -f UTF-16 -t UTF-8)",
                path);
        return ZS_ERR_INPUT;
    }
    int rc = nccltests_parse_text(text, path, collective_hint, out, err);
    free(text);
    return rc;
}
