/* nccltests.c -- parsers for nccl-tests text and JSON logs and for zerobench JSON results. */
#include "nccltests.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "jsonutil.h"

/* ------------------------------------------------------------------ collective names */

static const struct {
    const char *canon;    /* our name */
    const char *squashed; /* lower case, no separators: nccl-tests and zerobench spellings */
} COLLS[] = {
    {"all_reduce", "allreduce"},   {"all_gather", "allgather"}, {"reduce_scatter", "reducescatter"},
    {"broadcast", "broadcast"},    {"reduce", "reduce"},        {"all_to_all", "alltoall"},
    {"send_recv", "sendrecv"},     {"gather", "gather"},        {"scatter", "scatter"},
    {"hypercube", "hypercube"},
};
#define NCOLLS (sizeof COLLS / sizeof COLLS[0])

const char *nccltests_collective(const char *name)
{
    if (!name) return NULL;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    char sq[64];
    size_t n = 0;
    for (const char *p = base; *p && *p != '.' && n + 1 < sizeof sq; p++) {
        if (*p == '_' || *p == '-' || *p == ' ') continue;
        sq[n++] = (char)tolower((unsigned char)*p);
    }
    sq[n] = '\0';
    char *perf = strstr(sq, "perf"); /* all_reduce_perf, all_reduce_perf_mpi */
    if (perf && perf != sq) *perf = '\0';
    for (size_t i = 0; i < NCOLLS; i++)
        if (strcmp(sq, COLLS[i].squashed) == 0) return COLLS[i].canon;
    return NULL;
}

/* The collective an nccl-tests binary name stands for ("./build/all_reduce_perf_mpi"), or
 * NULL when tok is not such a name. */
static const char *binary_collective(const char *tok, size_t len)
{
    char buf[256];
    if (len == 0 || len >= sizeof buf) return NULL;
    memcpy(buf, tok, len);
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
    return nccltests_collective(stem);
}

/* ------------------------------------------------------------------ tokens */

#define MAXTOK 96

typedef struct tok {
    const char *s; /* start, not NUL-terminated */
    int len;       /* characters */
} tok;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Split s on blanks; returns the count (at most max; extra tokens are counted in *more). */
static int tokenize(const char *s, tok *t, int max, int *more)
{
    int n = 0;
    if (more) *more = 0;
    while (*s) {
        while (is_space(*s)) s++;
        if (!*s) break;
        const char *b = s;
        while (*s && !is_space(*s)) s++;
        if (n < max) t[n++] = (tok){b, (int)(s - b)};
        else if (more) (*more)++;
    }
    return n;
}

static bool tok_eq(tok t, const char *w)
{
    return (int)strlen(w) == t.len && memcmp(t.s, w, (size_t)t.len) == 0;
}

static bool tok_has(tok t, const char *w)
{
    int wl = (int)strlen(w);
    for (int i = 0; i + wl <= t.len; i++)
        if (memcmp(t.s + i, w, (size_t)wl) == 0) return true;
    return false;
}

static bool tok_uint(tok t)
{
    if (t.len == 0 || t.len > 20) return false;
    for (int i = 0; i < t.len; i++)
        if (!isdigit((unsigned char)t.s[i])) return false;
    return true;
}

static bool tok_int(tok t)
{
    if (t.len > 1 && t.s[0] == '-') return tok_uint((tok){t.s + 1, t.len - 1});
    return tok_uint(t);
}

static bool tok_na(tok t) { return tok_eq(t, "N/A") || tok_eq(t, "n/a"); }

/* A finite number filling the whole token. */
static bool tok_num(tok t, double *v)
{
    char buf[64];
    if (t.len == 0 || t.len >= (int)sizeof buf) return false;
    memcpy(buf, t.s, (size_t)t.len);
    buf[t.len] = '\0';
    char *end;
    double x = strtod(buf, &end);
    if (end != buf + t.len || !isfinite(x)) return false;
    if (v) *v = x;
    return true;
}

static bool tok_date(tok t) /* 2025-01-31 (nccl-tests -S) */
{
    if (t.len != 10) return false;
    for (int i = 0; i < 10; i++) {
        if (i == 4 || i == 7) { if (t.s[i] != '-') return false; }
        else if (!isdigit((unsigned char)t.s[i])) return false;
    }
    return true;
}

static bool tok_clock(tok t) /* 12:34:56 */
{
    if (t.len != 8) return false;
    for (int i = 0; i < 8; i++) {
        if (i == 2 || i == 5) { if (t.s[i] != ':') return false; }
        else if (!isdigit((unsigned char)t.s[i])) return false;
    }
    return true;
}

static void tok_copy(tok t, char *out, size_t cap)
{
    size_t n = (size_t)t.len < cap - 1 ? (size_t)t.len : cap - 1;
    memcpy(out, t.s, n);
    out[n] = '\0';
}

/* A double clamped into int range (casting an out-of-range double is undefined). */
static int clamp_int(double v)
{
    if (!(v > INT_MIN)) return isnan(v) ? 0 : INT_MIN;
    if (v > INT_MAX) return INT_MAX;
    return (int)v;
}

/* The integer at the start of s (strtol, clamped into int range). */
static int str_int(const char *s)
{
    long v = strtol(s, NULL, 10);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* ------------------------------------------------------------------ parse state */

/* Where the fields of a table row are, from the "# size count ..." header or guessed. */
typedef struct layout {
    int known;            /* 1 once set */
    int lead;             /* fields before the first pass */
    int i_type, i_redop, i_root; /* field indices; -1 when absent */
    int npass;            /* 1 or 2 */
    int pass_at[2];       /* first field of each pass */
    int pass_ip[2];       /* 1 when that pass is the in-place one */
    int per_pass;         /* fields per pass (4, or 8 with -I) */
    int o_time, o_algbw, o_busbw, o_wrong; /* offsets inside a pass; o_wrong -1 when absent */
    int wrong_delta;      /* 1: pre-2022 "error"/"res" column (max deviation, not a count) */
    int ms;               /* 1: times in ms (2017-2019 "bytes N type op" tables) */
} layout;

typedef struct parser {
    const char *origin;   /* path for messages */
    zs_error *err;
    coll_samples *out;
    int cap;              /* allocated rows */
    layout lay;
    int banner_ip_first;  /* banner above the header lists in-place first */
    int banner_ip_only;   /* banner names in-place only */
    int units_us;         /* units line said (us): 1, (ms): 2, none: 0 */
    char coll[24];        /* collective named by the log */
    int coll_line;        /* where */
    int coll_strong;      /* 1: from "Collective test starting"/zerobench; 0: a command echo */
    char unsupported[32]; /* an nccl-tests binary this reader has no collective for */
    int unsupported_line; /* where */
    int nthread, ngpus;   /* from the nThread line; 0 when absent */
    int run_line;         /* line of the first nThread header */
    int rows_in_run;      /* complete rows since that header */
    int rank_lines;       /* "#  Rank" lines seen */
    int group0;           /* group of the first one */
    int group_ranks;      /* lines in that group */
    int dup_rank;         /* 1 when a rank number was listed twice */
    unsigned char *seen;  /* rank numbers seen (bitmap) */
    int seen_cap;         /* bytes in seen */
    char *pend;           /* an incomplete row waiting for more fields, or NULL */
    size_t pend_len, pend_cap;
    int pend_line;        /* where it started */
    int first_row_line;   /* line of the first complete row */
} parser;

static int pfail(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pfail(parser *p, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0) return zs_fail(p->err, ZS_ERR_INPUT, "%s:%d: %s", p->origin, line, msg);
    return zs_fail(p->err, ZS_ERR_INPUT, "%s: %s", p->origin, msg);
}

static void set_coll(parser *p, const char *canon, int line, int strong)
{
    if (!canon) return;
    if (p->coll[0] && (p->coll_strong || !strong)) return; /* the first strong name wins */
    snprintf(p->coll, sizeof p->coll, "%s", canon);
    p->coll_line = line;
    p->coll_strong = strong;
}

/* Remember an nccl-tests binary name ("alltoallv_perf") with no collective of ours. */
static void note_unsupported(parser *p, tok t, int line)
{
    if (p->unsupported[0]) return;
    const char *b = t.s, *e = t.s + t.len;
    for (const char *c = t.s; c < e; c++)
        if (*c == '/') b = c + 1;
    tok_copy((tok){b, (int)(e - b)}, p->unsupported, sizeof p->unsupported);
    p->unsupported_line = line;
}

/* ------------------------------------------------------------------ line clean-up */

/* Skip launcher prefixes: Open MPI --tag-output "[1,0]<stdout>:", Intel MPI / others "[0] ",
 * srun --label "0: ", SkyPilot "(head, rank=0, pid=1) ". *rank gets the tagged rank (-1 when
 * untagged). */
static const char *strip_prefixes(const char *s, int *rank)
{
    *rank = -1;
    for (int round = 0; round < 4; round++) {
        const char *p = s;
        if (*p == '(') {
            const char *close = strchr(p, ')');
            if (!close || close - p > 200 || close[1] != ' ') break;
            const char *r = strstr(p, "rank=");
            if (r && r < close) *rank = str_int(r + 5);
            s = close + 2;
            continue;
        }
        if (*p == '[' && isdigit((unsigned char)p[1])) {
            const char *q = p + 1;
            long a = strtol(q, (char **)&q, 10), b = -1;
            if (*q == ',' && isdigit((unsigned char)q[1])) b = strtol(q + 1, (char **)&q, 10);
            if (*q != ']') break;
            q++;
            if (strncmp(q, "<stdout>:", 9) == 0 || strncmp(q, "<stderr>:", 9) == 0) q += 9;
            else if (b >= 0 || !(*q == ' ' || *q == '\0')) break;
            *rank = (int)(b >= 0 ? b : a);
            s = q;
            continue;
        }
        const char *q = p;
        while (*q == ' ') q++;
        if (isdigit((unsigned char)*q)) {
            const char *d = q;
            while (isdigit((unsigned char)*d)) d++;
            if (d[0] == ':' && d[1] == ' ') { /* srun --label */
                *rank = str_int(q);
                s = d + 2;
                continue;
            }
        }
        break;
    }
    return s;
}

/* A token like "host:1234:5678" (NCCL's debug line prefix hostname:pid:tid). */
static bool host_like(const char *b, const char *e)
{
    int colons = 0;
    const char *last = NULL, *prev = NULL;
    for (const char *c = b; c < e; c++)
        if (*c == ':') { colons++; prev = last; last = c; }
    if (colons < 2 || prev == b) return false;
    for (const char *c = prev + 1; c < e; c++)
        if (c != last && !isdigit((unsigned char)*c)) return false;
    return last + 1 < e && last - prev > 1;
}

/* Cut an NCCL debug message ("host:pid:tid [dev] NCCL INFO ...") out of line s: NCCL writes
 * them to stdout, so they land between, and sometimes inside, table rows. Whatever came
 * before the message on the line stays. Returns 1 when something was cut. */
static int cut_nccl_debug(char *s)
{
    for (char *br = strchr(s, '['); br; br = strchr(br + 1, '[')) {
        char *q = br + 1;
        if (!isdigit((unsigned char)*q)) continue;
        while (isdigit((unsigned char)*q)) q++;
        if (*q != ']' || br == s || br[-1] != ' ') continue;
        char *e = br;
        while (e > s && e[-1] == ' ') e--;
        char *b = e;
        while (b > s && !is_space(b[-1])) b--;
        if (!host_like(b, e)) continue;
        *b = '\0';
        /* a launcher tag glued to the cut ("... -1[0]" or "... -1[1,0]<stdout>:") */
        size_t n = strlen(s);
        while (n && is_space(s[n - 1])) s[--n] = '\0';
        char *open = strrchr(s, '[');
        if (open) {
            int dummy;
            const char *after = strip_prefixes(open, &dummy);
            if (after != open && *after == '\0') *open = '\0';
        }
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ header lines */

static bool name_is_time(tok t) { return tok_eq(t, "time") || tok_eq(t, "cputime"); }

/* "size count type redop root time algbw busbw #wrong time ..." and its older forms. */
static int read_table_header(parser *p, const tok *t, int n, int line)
{
    layout L;
    memset(&L, 0, sizeof L);
    L.i_type = L.i_redop = L.i_root = -1;
    L.o_time = L.o_algbw = L.o_busbw = L.o_wrong = -1;
    int i = 0;
    for (; i < n && !name_is_time(t[i]); i++) {
        if (tok_eq(t[i], "type")) L.i_type = i;
        else if (tok_eq(t[i], "redop") || tok_eq(t[i], "op")) L.i_redop = i;
        else if (tok_eq(t[i], "root")) L.i_root = i;
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
        if (name_is_time(t[i])) L.o_time = off;
        else if (tok_eq(t[i], "algbw")) L.o_algbw = off;
        else if (tok_eq(t[i], "busbw")) L.o_busbw = off;
        else if (tok_eq(t[i], "#wrong") || tok_eq(t[i], "wrong")) L.o_wrong = off;
        else if (tok_eq(t[i], "error") || tok_eq(t[i], "res")) { L.o_wrong = off; L.wrong_delta = 1; }
    }
    if (groups == 0 || L.o_algbw < 0 || L.o_busbw < 0 || L.lead < 2)
        return pfail(p, line, "unrecognised table header (expected size, count, ..., time, "
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

static void read_rank_line(parser *p, const tok *t, int n)
{
    if (n < 2 || !tok_uint(t[1])) return;
    long r = strtol(t[1].s, NULL, 10);
    int group = 0;
    if (n >= 4 && tok_eq(t[2], "Group") && tok_int(t[3])) group = str_int(t[3].s);
    if (p->rank_lines == 0) p->group0 = group;
    p->rank_lines++;
    if (group == p->group0) p->group_ranks++;
    if (r >= 0 && r < (1L << 24)) { /* remember it, to spot the same rank listed twice */
        int byte = (int)(r / 8);
        if (byte >= p->seen_cap) {
            int nc = p->seen_cap ? p->seen_cap : 64;
            while (nc <= byte) nc *= 2;
            unsigned char *ns = realloc(p->seen, (size_t)nc);
            if (!ns) return;
            memset(ns + p->seen_cap, 0, (size_t)(nc - p->seen_cap));
            p->seen = ns;
            p->seen_cap = nc;
        }
        if (p->seen[byte] & (1u << (r % 8))) p->dup_rank = 1;
        p->seen[byte] |= (unsigned char)(1u << (r % 8));
    }
}

/* A line that nccl-tests starts with '#' (the '#' already removed; also used when a copy
 * through Markdown lost the '#'). */
static int header_line(parser *p, const char *s, int line)
{
    tok t[MAXTOK];
    int n = tokenize(s, t, MAXTOK, NULL);
    if (n == 0) return ZS_OK;
    if (strstr(s, "Collective test starting:")) {
        const char *name = strchr(strstr(s, "starting:"), ':') + 1;
        tok nt[2];
        if (tokenize(name, nt, 2, NULL) >= 1) {
            const char *c = binary_collective(nt[0].s, (size_t)nt[0].len);
            if (c) set_coll(p, c, line, 1);
            else note_unsupported(p, nt[0], line);
        }
        return ZS_OK;
    }
    if (tok_eq(t[0], "zerobench") && n >= 2) { /* "# zerobench allreduce, cpu back end, ..." */
        char name[32];
        tok_copy(t[1], name, sizeof name);
        char *comma = strchr(name, ',');
        if (comma) *comma = '\0';
        const char *c = nccltests_collective(name);
        if (!c)
            return pfail(p, line, "this is zerobench %s output, not a collective table; read its "
                         "-J JSON file instead", name);
        set_coll(p, c, line, 1);
        return ZS_OK;
    }
    if (tok_eq(t[0], "nThread")) {
        if (p->run_line) {
            if (p->rows_in_run > 0)
                return pfail(p, line, "a second nccl-tests run starts here (the first started at "
                             "line %d); give one run per file", p->run_line);
            return pfail(p, line, "the run header is repeated (first at line %d) before any "
                         "result: each process ran alone, as happens when nccl-tests built "
                         "without MPI=1 is started by mpirun; rebuild with MPI=1", p->run_line);
        }
        p->run_line = line;
        for (int i = 0; i + 1 < n; i++) {
            if (tok_eq(t[i], "nThread") && tok_uint(t[i + 1])) p->nthread = str_int(t[i + 1].s);
            if (tok_eq(t[i], "nGpus") && tok_uint(t[i + 1])) p->ngpus = str_int(t[i + 1].s);
            if (tok_eq(t[i], "iters:") && tok_uint(t[i + 1]) &&
                !(i > 0 && (tok_eq(t[i - 1], "warmup") || tok_eq(t[i - 1], "agg"))))
                p->out->iters = str_int(t[i + 1].s);
        }
        return ZS_OK;
    }
    if (tok_eq(t[0], "Rank")) {
        read_rank_line(p, t, n);
        if (p->dup_rank)
            return pfail(p, line, "rank %.*s is listed twice: the log mixes runs, or each process "
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
            if (tok_eq(t[i], "(us)")) { p->units_us = 1; break; }
            if (tok_eq(t[i], "(ms)")) { p->units_us = 2; break; }
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
            if (tok_uint(t[i])) { p->out->oob = str_int(t[i].s); break; }
        return ZS_OK;
    }
    if (n >= 4 && tok_eq(t[0], "Avg") && tok_eq(t[1], "bus") && tok_eq(t[2], "bandwidth")) {
        double v;
        for (int i = 3; i < n; i++)
            if (tok_num(t[i], &v)) { p->out->avg_busbw = v * 1e9; break; }
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

static bool valid_tail(int r) { return r == 8 || r == 16 || r == 10 || r == 18; }

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

static int full_fields(const layout *L) { return L->lead + L->npass * L->per_pass; }

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
    if (!nv) return pfail(p, 0, "out of memory");
    p->out->v = nv;
    p->cap = nc;
    return ZS_OK;
}

/* One pass of a row: time, algbw, busbw, wrong. present = 0 for an all-N/A pass. */
typedef struct pass_vals {
    int present;
    double time, algbw, busbw; /* s, bytes/s, bytes/s */
    int wrong;
} pass_vals;

static int read_pass(parser *p, const tok *t, int at, int ip, const char *type, int line,
                     pass_vals *pv)
{
    const layout *L = &p->lay;
    const char *pname = ip ? "in-place" : "out-of-place";
    tok tt = t[at + L->o_time];
    memset(pv, 0, sizeof *pv);
    pv->wrong = -1;
    if (tok_na(tt)) return ZS_OK;
    double v;
    if (!tok_num(tt, &v))
        return pfail(p, line, "%s time \"%.*s\" (field %d) is not a number", pname, tt.len, tt.s,
                     at + L->o_time + 1);
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
            return pfail(p, line, "%s %s \"%.*s\" (field %d) is not a non-negative number", pname,
                         names[k], b.len, b.s, at + offs[k] + 1);
    }
    pv->algbw = bw[0] * 1e9;
    pv->busbw = bw[1] * 1e9;
    if (L->o_wrong >= 0) {
        tok w = t[at + L->o_wrong];
        if (!tok_na(w)) {
            if (!tok_num(w, &v) || v < 0)
                return pfail(p, line, "%s %s \"%.*s\" (field %d) is not a non-negative number",
                             pname, L->wrong_delta ? "error" : "#wrong", w.len, w.s,
                             at + L->o_wrong + 1);
            if (L->wrong_delta) {
                int nr = p->group_ranks > 1 ? p->group_ranks : 2;
                pv->wrong = v > delta_tolerance(type) * (nr - 1) ? 1 : 0;
            } else {
                pv->wrong = clamp_int(v);
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
        bool stamp = (extra == 2 && tok_date(t[need]) && tok_clock(t[need + 1])) ||
                     (extra == 1 && tok_date(t[need]));
        if (!stamp)
            return pfail(p, line, "row has %d fields, expected %d (\"%.*s\" is extra)", n, need,
                         t[need].len, t[need].s);
    }
    if (!tok_uint(t[0]) || !tok_uint(t[1]))
        return pfail(p, line, "size and count must be whole numbers");
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
            return pfail(p, line, "root \"%.*s\" (field %d) is not a whole number",
                         t[L->i_root].len, t[L->i_root].s, L->i_root + 1);
        s.root = str_int(t[L->i_root].s);
    }
    pass_vals pv[2];
    int oop = -1, ip = -1;
    for (int k = 0; k < L->npass; k++) {
        int rc = read_pass(p, t, L->pass_at[k], L->pass_ip[k], s.type, line, &pv[k]);
        if (rc) return rc;
        if (pv[k].present) {
            if (L->pass_ip[k]) ip = k;
            else oop = k;
        }
    }
    int use = oop >= 0 ? oop : ip;
    if (use < 0) return pfail(p, line, "row has no time in either pass (all N/A)");
    s.seconds = pv[use].time;
    s.algbw = pv[use].algbw;
    s.busbw = pv[use].busbw;
    s.wrong = pv[use].wrong;
    s.seconds_ip = ip >= 0 ? pv[ip].time : 0;
    if (ensure_cap(p)) return ZS_ERR_INPUT;
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
        if (!nb) return pfail(p, 0, "out of memory");
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
    int n = tokenize(p->pend, t, MAXTOK, &more);
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
    const char *c = strip_prefixes(s, &rank);
    if (rank > 0) return ZS_OK; /* nccl-tests prints its table from rank 0 only */
    char *f = (char *)c;
    cut_nccl_debug(f);
    while (is_space(*f)) f++;
    if (!*f) return ZS_OK;
    if (*f == '#') return header_line(p, f + 1, line);
    tok t[MAXTOK];
    int n = tokenize(f, t, MAXTOK, NULL);
    if (bare_header(t, n)) return header_line(p, f, line);
    if (n >= 2 && tok_uint(t[0]) && tok_uint(t[1])) {
        if (p->pend_len && !p->lay.known) {
            int n_prev = tokenize(p->pend, t, MAXTOK, NULL);
            return pfail(p, p->pend_line, "cannot read this row (%d fields): no table header "
                         "above it and not a known nccl-tests row layout", n_prev);
        }
        if (p->pend_len) {
            int n_prev = tokenize(p->pend, t, MAXTOK, NULL);
            return pfail(p, p->pend_line, "row is truncated (%d of %d fields) but more rows "
                         "follow (line %d)", n_prev, p->lay.known ? full_fields(&p->lay) : 0, line);
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
            const char *cl = binary_collective(t[i].s, (size_t)t[i].len);
            if (cl) { set_coll(p, cl, line, 0); break; }
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

/* Shared checks once all rows are in: collective, ranks, busbw consistency. */
static int finish(parser *p, const char *hint)
{
    coll_samples *o = p->out;
    const char *h = NULL;
    if (hint && *hint) {
        h = nccltests_collective(hint);
        if (!h)
            return pfail(p, 0, "unknown collective \"%s\" (expected all_reduce, all_gather, "
                         "reduce_scatter, broadcast, reduce, all_to_all, send_recv, gather, "
                         "scatter or hypercube)", hint);
    }
    if (!p->coll[0] && p->unsupported[0])
        return pfail(p, p->unsupported_line, "%s is not a collective this reader models "
                     "(supported: all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
                     "all_to_all, send_recv, gather, scatter, hypercube)", p->unsupported);
    if (p->coll[0] && h && strcmp(p->coll, h) != 0)
        return pfail(p, p->coll_line, "the log is a %s run, but %s was given", p->coll, h);
    const char *coll = p->coll[0] ? p->coll : h;
    if (!coll)
        return pfail(p, 0, "the log does not name its collective (no \"Collective test "
                     "starting\" line, no *_perf command line); name it explicitly (e.g. all_reduce)");
    snprintf(o->collective, sizeof o->collective, "%s", coll);

    if (p->group_ranks > 0) {
        o->ranks = p->group_ranks;
    } else {
        /* infer n from busbw/algbw of the row with the most digits */
        int best = -1;
        for (int i = 0; i < o->n; i++)
            if (best < 0 || o->v[i].algbw > o->v[best].algbw) best = i;
        double f = best >= 0 && o->v[best].algbw >= 1e9 ? o->v[best].busbw / o->v[best].algbw : 0;
        double est = 0;
        if (!strcmp(coll, "all_reduce") && f > 0 && f < 2) est = 2 / (2 - f);
        else if ((!strcmp(coll, "all_gather") || !strcmp(coll, "reduce_scatter") ||
                  !strcmp(coll, "all_to_all") || !strcmp(coll, "gather") ||
                  !strcmp(coll, "scatter")) && f > 0 && f < 1)
            est = 1 / (1 - f);
        /* both bounded to int range: casting a larger estimate, or the product overflowing,
         * is undefined (a ratio that close to its limit tells no rank count anyway) */
        if (est >= 1.5 && est < INT_MAX && fabs(est - floor(est + 0.5)) < 0.15)
            o->ranks = (int)floor(est + 0.5);
        else if (p->nthread > 0 && p->ngpus > 0 && p->nthread <= INT_MAX / p->ngpus)
            o->ranks = p->nthread * p->ngpus;
        o->ranks_inferred = o->ranks > 0;
    }
    for (int i = 0; i < o->n; i++) {
        snprintf(o->v[i].collective, sizeof o->v[i].collective, "%s", coll);
        o->v[i].ranks = o->ranks;
    }
    /* busbw = algbw x factor(collective, ranks): catches a wrong hint or rank count */
    if (o->ranks > 0 && !o->ranks_inferred && strcmp(coll, "hypercube") != 0) {
        int n = o->ranks;
        double fac = 1;
        if (!strcmp(coll, "all_reduce")) fac = 2.0 * (n - 1) / n;
        else if (strcmp(coll, "broadcast") && strcmp(coll, "reduce") && strcmp(coll, "send_recv"))
            fac = (double)(n - 1) / n;
        for (int i = 0; i < o->n; i++) {
            const coll_sample *s = &o->v[i];
            if (s->algbw < 1e9) continue; /* two decimals of GB/s: too few digits below 1 */
            double r = s->busbw / s->algbw;
            if (fabs(r - fac) > 0.02 * fac + 0.011e9 / s->algbw)
                return pfail(p, s->line, "busbw/algbw is %.3f, but %s on %d ranks has factor "
                             "%.3f (nccl-tests doc/PERFORMANCE.md): is the collective or the "
                             "rank count wrong?", r, coll, n, fac);
        }
    }
    return ZS_OK;
}

static int parse_json_doc(const char *text, const char *origin, const char *hint,
                          coll_samples *out, zs_error *err);

static void parser_free(parser *p)
{
    free(p->pend);
    free(p->seen);
}

int nccltests_parse_text(const char *text, const char *origin, const char *collective_hint,
                         coll_samples *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    out->avg_busbw = -1;
    out->oob = -1;
    if (!origin) origin = "(log)";
    if (!text) return zs_fail(err, ZS_ERR_INPUT, "%s: no text", origin);
    if ((unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb &&
        (unsigned char)text[2] == 0xbf)
        text += 3; /* UTF-8 byte-order mark */
    const char *s = text;
    while (*s && (is_space(*s) || *s == '\n')) s++;
    if (!*s) return zs_fail(err, ZS_ERR_INPUT, "%s: the log is empty", origin);
    if (looks_binary(text))
        return zs_fail(err, ZS_ERR_INPUT, "%s: not a text log (binary data)", origin);
    const char *s2 = s + 1;
    while (*s2 && (is_space(*s2) || *s2 == '\n')) s2++;
    if (*s == '{' || (*s == '[' && (*s2 == '{' || *s2 == ']'))) /* not "[1,0]<stdout>:" */
        return parse_json_doc(text, origin, collective_hint, out, err);

    parser p;
    memset(&p, 0, sizeof p);
    p.origin = origin;
    p.err = err;
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
            if (!nb) { rc = pfail(&p, line, "out of memory"); break; }
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
    if (rc == ZS_OK) rc = finish(&p, collective_hint);
    parser_free(&p);
    if (rc != ZS_OK) coll_samples_free(out);
    return rc;
}

int nccltests_parse(const char *path, const char *collective_hint, coll_samples *out,
                    zs_error *err)
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
            zs_fail(err, ZS_ERR_INPUT, "%s: UTF-16 text (as PowerShell's > writes); convert it "
                    "to UTF-8 first (iconv -f UTF-16 -t UTF-8)", path);
        return ZS_ERR_INPUT;
    }
    int rc = nccltests_parse_text(text, path, collective_hint, out, err);
    free(text);
    return rc;
}

void coll_samples_free(coll_samples *s)
{
    if (!s) return;
    free(s->v);
    memset(s, 0, sizeof *s);
    s->avg_busbw = -1;
    s->oob = -1;
}

/* ------------------------------------------------------------------ JSON helpers */

/* A number given as a JSON number or a numeric string ("nan" and friends are refused). */
static bool jnum(const cJSON *o, const char *key, double *v)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(j)) { *v = j->valuedouble; return isfinite(*v); }
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

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* ------------------------------------------------------------------ nccl-tests -J JSON */

/* One pass object of an nccl-tests JSON result ({"time", "alg_bw", "bus_bw", "nwrong"}). */
static int nt_pass(const cJSON *o, const char *origin, int row, const char *name, pass_vals *pv,
                   zs_error *err)
{
    memset(pv, 0, sizeof *pv);
    pv->wrong = -1;
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    if (!cJSON_IsObject(o))
        return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].%s: expected an object", origin, row, name);
    double t;
    const char *tk = cJSON_GetObjectItemCaseSensitive(o, "time") ? "time" : "cpu_time";
    if (!jnum(o, tk, &t))
        return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].%s.%s: missing or not a finite number",
                       origin, row, name, tk);
    if (t <= 0 || t * 1e-6 <= 0) /* a denormal time underflows to 0 s */
        return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].%s.%s: %g is not positive", origin,
                       row, name, tk, t);
    double a, b, w;
    if (!jnum(o, "alg_bw", &a) || !jnum(o, "bus_bw", &b) || a < 0 || b < 0 ||
        !isfinite(a * 1e9) || !isfinite(b * 1e9))
        return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].%s: alg_bw/bus_bw missing or invalid",
                       origin, row, name);
    pv->present = 1;
    pv->time = t * 1e-6;
    pv->algbw = a * 1e9;
    pv->busbw = b * 1e9;
    if (jnum(o, "nwrong", &w) && w >= 0) pv->wrong = clamp_int(w);
    return ZS_OK;
}

static int parse_nccltests_json(const cJSON *root, const char *origin, const char *hint,
                                coll_samples *out, zs_error *err)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.origin = origin;
    p.err = err;
    p.out = out;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(root, "args");
    const cJSON *a0 = cJSON_IsArray(args) ? cJSON_GetArrayItem(args, 0) : NULL;
    if (cJSON_IsString(a0))
        set_coll(&p, binary_collective(a0->valuestring, strlen(a0->valuestring)), 0, 1);
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(root, "config");
    double v;
    if (jnum(cfg, "iterations", &v) && v > 0 && v < INT_MAX) out->iters = (int)v;
    if (jnum(cfg, "nthreads", &v) && v > 0 && v < 1e6) p.nthread = (int)v;
    if (jnum(cfg, "ngpus", &v) && v > 0 && v < 1e6) p.ngpus = (int)v;
    const cJSON *devs = cJSON_GetObjectItemCaseSensitive(cfg, "devices");
    const cJSON *d;
    cJSON_ArrayForEach(d, devs) {
        double g = 0;
        jnum(d, "group", &g);
        if (p.rank_lines == 0) p.group0 = clamp_int(g);
        p.rank_lines++;
        if (clamp_int(g) == p.group0) p.group_ranks++;
    }
    const cJSON *bw = cJSON_GetObjectItemCaseSensitive(root, "average_bus_bandwidth");
    if (jnum(bw, "bandwidth", &v)) out->avg_busbw = v * 1e9;
    const cJSON *oob = cJSON_GetObjectItemCaseSensitive(root, "out_of_bounds");
    if (jnum(oob, "count", &v)) out->oob = clamp_int(v);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "results");
    int n = cJSON_GetArraySize(res);
    if (!cJSON_IsArray(res) || n == 0)
        return zs_fail(err, ZS_ERR_INPUT, "%s: no \"results\" rows (not an nccl-tests JSON "
                       "file?)", origin);
    out->v = calloc((size_t)n, sizeof *out->v);
    if (!out->v) return zs_fail(err, ZS_ERR_INPUT, "%s: out of memory", origin);
    int i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, res) {
        coll_sample *s = &out->v[i];
        s->line = i + 1;
        s->root = -1;
        double size;
        if (!jnum(r, "size", &size) || size < 0)
            return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d].size: missing or invalid", origin, i);
        s->bytes = size;
        const char *ty = jstr(r, "type"), *op = jstr(r, "redop");
        if (ty) snprintf(s->type, sizeof s->type, "%s", ty);
        if (op) snprintf(s->redop, sizeof s->redop, "%s", op);
        if (jnum(r, "root", &v)) s->root = clamp_int(v);
        pass_vals pv[2];
        int rc = nt_pass(cJSON_GetObjectItemCaseSensitive(r, "out_of_place"), origin, i,
                         "out_of_place", &pv[0], err);
        if (!rc) rc = nt_pass(cJSON_GetObjectItemCaseSensitive(r, "in_place"), origin, i,
                              "in_place", &pv[1], err);
        if (rc) return rc;
        int use = pv[0].present ? 0 : 1;
        if (!pv[use].present)
            return zs_fail(err, ZS_ERR_INPUT, "%s: results[%d]: no time in either pass", origin, i);
        s->seconds = pv[use].time;
        s->algbw = pv[use].algbw;
        s->busbw = pv[use].busbw;
        s->wrong = pv[use].wrong;
        s->seconds_ip = pv[1].present ? pv[1].time : 0;
        i++;
    }
    out->n = n;
    int rc = finish(&p, hint);
    parser_free(&p);
    return rc;
}

/* ------------------------------------------------------------------ zerobench JSON */

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

/* zerobench pass object {"time_us", "algbw_gbps", "busbw_gbps", "wrong"}. */
static int zb_pass(const cJSON *o, const char *origin, int doc, int row, const char *name,
                   pass_vals *pv, zs_error *err)
{
    memset(pv, 0, sizeof *pv);
    pv->wrong = -1;
    if (!o || cJSON_IsNull(o)) return ZS_OK;
    double t, a, b, w;
    if (!jnum(o, "time_us", &t))
        return hfail(err, origin, doc, "rows[%d].%s.time_us: missing or not a number", row, name);
    if (t <= 0 || t * 1e-6 <= 0) /* a denormal time underflows to 0 s */
        return hfail(err, origin, doc, "rows[%d].%s.time_us: %g is not positive", row, name, t);
    if (!jnum(o, "algbw_gbps", &a) || !jnum(o, "busbw_gbps", &b) || a < 0 || b < 0 ||
        !isfinite(a * 1e9) || !isfinite(b * 1e9))
        return hfail(err, origin, doc, "rows[%d].%s: algbw_gbps/busbw_gbps missing or invalid",
                     row, name);
    pv->present = 1;
    pv->time = t * 1e-6;
    pv->algbw = a * 1e9;
    pv->busbw = b * 1e9;
    if (jnum(o, "wrong", &w) && w >= 0) pv->wrong = clamp_int(w);
    return ZS_OK;
}

static int zb_collective(const cJSON *doc, const char *coll, const char *origin, int di,
                         coll_samples *s, zs_error *err)
{
    memset(s, 0, sizeof *s);
    s->avg_busbw = -1;
    s->oob = -1;
    snprintf(s->collective, sizeof s->collective, "%s", coll);
    double v;
    const cJSON *mpi = cJSON_GetObjectItemCaseSensitive(doc, "mpi");
    if (jnum(mpi, "ranks", &v) && v >= 1 && v < INT_MAX) s->ranks = (int)v;
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(doc, "config");
    if (jnum(cfg, "iters", &v) && v >= 1 && v < INT_MAX) s->iters = (int)v;
    const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
    if (jnum(sum, "avg_busbw_gbps", &v)) s->avg_busbw = v * 1e9;
    if (jnum(sum, "wrong_passes", &v)) s->oob = clamp_int(v);
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    int n = cJSON_GetArraySize(rows);
    if (!cJSON_IsArray(rows) || n == 0) return hfail(err, origin, di, "no \"rows\"");
    s->v = calloc((size_t)n, sizeof *s->v);
    if (!s->v) return hfail(err, origin, di, "out of memory");
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rows) {
        coll_sample *c = &s->v[i];
        snprintf(c->collective, sizeof c->collective, "%s", coll);
        c->ranks = s->ranks;
        c->line = i + 1;
        c->root = -1;
        if (!jnum(r, "bytes", &c->bytes) || c->bytes < 0) {
            coll_samples_free(s);
            return hfail(err, origin, di, "rows[%d].bytes: missing or invalid", i);
        }
        const char *ty = jstr(r, "type"), *op = jstr(r, "op");
        if (ty) snprintf(c->type, sizeof c->type, "%s", ty);
        if (op) snprintf(c->redop, sizeof c->redop, "%s", op);
        if (jnum(r, "root", &v)) c->root = clamp_int(v);
        pass_vals pv[2];
        int rc = zb_pass(cJSON_GetObjectItemCaseSensitive(r, "out_of_place"), origin, di, i,
                         "out_of_place", &pv[0], err);
        if (!rc) rc = zb_pass(cJSON_GetObjectItemCaseSensitive(r, "in_place"), origin, di, i,
                              "in_place", &pv[1], err);
        if (!rc && !pv[0].present && !pv[1].present)
            rc = hfail(err, origin, di, "rows[%d]: neither out_of_place nor in_place", i);
        if (rc) { coll_samples_free(s); return rc; }
        int use = pv[0].present ? 0 : 1;
        c->seconds = pv[use].time;
        c->algbw = pv[use].algbw;
        c->busbw = pv[use].busbw;
        c->wrong = pv[use].wrong;
        c->seconds_ip = pv[1].present ? pv[1].time : 0;
        i++;
    }
    s->n = n;
    return ZS_OK;
}

static int zb_points(const cJSON *doc, const char *bench, const char *origin, int di,
                     harness_file *h, zs_error *err)
{
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
    int n = cJSON_GetArraySize(rows);
    if (!cJSON_IsArray(rows) || n == 0) return hfail(err, origin, di, "no \"rows\"");
    bench_point *nv = realloc(h->points, (size_t)(h->n_points + n) * sizeof *nv);
    if (!nv) return hfail(err, origin, di, "out of memory");
    h->points = nv;
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rows) {
        bench_point *b = &h->points[h->n_points];
        memset(b, 0, sizeof *b);
        snprintf(b->bench, sizeof b->bench, "%s", bench);
        double t, w;
        if (!jnum(r, "time_us", &t))
            return hfail(err, origin, di, "rows[%d].time_us: missing or not a number", i);
        if (t <= 0 || t * 1e-6 <= 0) /* a denormal time underflows to 0 s */
            return hfail(err, origin, di, "rows[%d].time_us: %g is not positive", i, t);
        b->seconds = t * 1e-6;
        b->wrong = jnum(r, "wrong", &w) && w >= 0 ? clamp_int(w) : -1;
        const char *key = NULL;
        double work = 0, moved = 0;
        if (!strcmp(bench, "adam")) {
            const char *var = jstr(r, "variant");
            snprintf(b->label, sizeof b->label, "%s", var ? var : "");
            key = "params";
            if (!jnum(r, key, &work)) work = -1;
            if (!jnum(r, "bytes", &moved) || !(moved > 0))
                return hfail(err, origin, di, "rows[%d].bytes: missing or not a positive number", i);
            snprintf(b->x_unit, sizeof b->x_unit, "params");
            snprintf(b->unit, sizeof b->unit, "bytes/s");
            b->value = moved / b->seconds;
        } else if (!strcmp(bench, "membw")) {
            const char *k = jstr(r, "kernel");
            snprintf(b->label, sizeof b->label, "%s", k ? k : "");
            key = "bytes";
            if (!jnum(r, key, &work)) work = -1;
            snprintf(b->x_unit, sizeof b->x_unit, "bytes");
            snprintf(b->unit, sizeof b->unit, "bytes/s");
            b->value = work / b->seconds;
        } else { /* gemm */
            const char *impl = jstr(r, "impl"), *ty = jstr(r, "type");
            double m = 0, nn = 0, k = 0;
            jnum(r, "m", &m);
            jnum(r, "n", &nn);
            jnum(r, "k", &k);
            snprintf(b->label, sizeof b->label, "%s %s %.0fx%.0fx%.0f", impl ? impl : "?",
                     ty ? ty : "?", m, nn, k);
            key = "flops";
            if (!jnum(r, key, &work)) work = -1;
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
    const char *tool = jstr(doc, "tool");
    if (!tool || strcmp(tool, "zerobench") != 0)
        return hfail(err, origin, di, "not a zerobench result (\"tool\" is %s%s%s)",
                     tool ? "\"" : "", tool ? tool : "absent", tool ? "\"" : "");
    double ver;
    if (!jnum(doc, "schema_version", &ver))
        return hfail(err, origin, di, "\"schema_version\" missing");
    if (ver != 1)
        return hfail(err, origin, di, "schema_version %g is not supported (this reader knows 1)", ver);
    const char *bench = jstr(doc, "benchmark");
    if (!bench) return hfail(err, origin, di, "\"benchmark\" missing");
    const char *coll = nccltests_collective(bench);
    if (coll) {
        coll_samples *ns = realloc(h->sets, (size_t)(h->n_sets + 1) * sizeof *ns);
        if (!ns) return hfail(err, origin, di, "out of memory");
        h->sets = ns;
        int rc = zb_collective(doc, coll, origin, di, &h->sets[h->n_sets], err);
        if (rc) return rc;
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

static int harness_from_json(const cJSON *root, const char *origin, harness_file *out, zs_error *err)
{
    int rc = ZS_OK;
    if (cJSON_IsArray(root)) {
        int i = 0;
        const cJSON *d;
        cJSON_ArrayForEach(d, root) {
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

/* Parse JSON text; a syntax error names the line. */
static cJSON *parse_json_text(const char *text, const char *origin, zs_error *err)
{
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
    if (j) json_last_key_wins(j); /* duplicate keys: the last wins, as in Python */
    if (!j) {
        int line = 1;
        const char *at = end ? end : cJSON_GetErrorPtr();
        for (const char *c = text; at && c < at && *c; c++)
            if (*c == '\n') line++;
        zs_fail(err, ZS_ERR_INPUT, "%s:%d: invalid JSON%s", origin, line,
                at && !*at ? " (truncated file?)" : "");
    }
    return j;
}

int harness_read_text(const char *text, const char *origin, harness_file *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!origin) origin = "(json)";
    cJSON *root = parse_json_text(text, origin, err);
    if (!root) return ZS_ERR_INPUT;
    int rc = harness_from_json(root, origin, out, err);
    cJSON_Delete(root);
    return rc;
}

int harness_read(const char *path, harness_file *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (file_read_text(path, &text, &len, err)) return ZS_ERR_INPUT;
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
        return zs_fail(err, ZS_ERR_INPUT, "%s: holds %s results, no collective (use harness_read)",
                       path, b);
    }
    *out = h.sets;
    *n_sets = h.n_sets;
    free(h.points);
    return ZS_OK;
}

/* nccl-tests -J output, or a zerobench collective document given to the log reader. */
static int parse_json_doc(const char *text, const char *origin, const char *hint,
                          coll_samples *out, zs_error *err)
{
    cJSON *root = parse_json_text(text, origin, err);
    if (!root) return ZS_ERR_INPUT;
    int rc;
    const char *tool = cJSON_IsObject(root) ? jstr(root, "tool") : NULL;
    if (cJSON_IsArray(root) || (tool && !strcmp(tool, "zerobench"))) {
        harness_file h;
        memset(&h, 0, sizeof h);
        rc = harness_from_json(root, origin, &h, err);
        if (!rc && h.n_sets == 0) {
            rc = zs_fail(err, ZS_ERR_INPUT, "%s: holds zerobench %s results, not a collective "
                         "(use harness_read)", origin, h.n_points ? h.points[0].bench : "no");
            harness_file_free(&h);
        } else if (!rc && h.n_sets != 1) {
            rc = zs_fail(err, ZS_ERR_INPUT, "%s: holds %d collective runs; expected one (use "
                         "harness_read)", origin, h.n_sets);
            harness_file_free(&h);
        }
        if (!rc) {
            const char *hc = hint && *hint ? nccltests_collective(hint) : NULL;
            if (hint && *hint && !hc)
                rc = zs_fail(err, ZS_ERR_INPUT, "%s: unknown collective \"%s\"", origin, hint);
            else if (hc && strcmp(hc, h.sets[0].collective) != 0)
                rc = zs_fail(err, ZS_ERR_INPUT, "%s: the file is a %s run, but %s was given",
                             origin, h.sets[0].collective, hc);
            if (rc) harness_file_free(&h);
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
