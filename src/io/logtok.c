/* logtok.c -- tokens of a log line and the launcher/NCCL noise around them (nccl-tests logs). */
#include "io/logtok.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool tok_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split s on blanks; returns the count (at most max; extra tokens are counted in *more). */
int tok_split(const char *s, tok *t, int max, int *more)
{
    int n = 0;
    if (more) *more = 0;
    while (*s) {
        while (tok_is_space(*s)) s++;
        if (!*s) break;
        const char *b = s;
        while (*s && !tok_is_space(*s)) s++;
        if (n < max)
            t[n++] = (tok){b, (int)(s - b)};
        else if (more)
            (*more)++;
    }
    return n;
}

bool tok_eq(tok t, const char *w)
{
    return (int)strlen(w) == t.len && memcmp(t.s, w, (size_t)t.len) == 0;
}

bool tok_has(tok t, const char *w)
{
    int wl = (int)strlen(w);
    for (int i = 0; i + wl <= t.len; i++)
        if (memcmp(t.s + i, w, (size_t)wl) == 0) return true;
    return false;
}

bool tok_uint(tok t)
{
    if (t.len == 0 || t.len > 20) return false;
    for (int i = 0; i < t.len; i++)
        if (!isdigit((unsigned char)t.s[i])) return false;
    return true;
}

bool tok_int(tok t)
{
    if (t.len > 1 && t.s[0] == '-') return tok_uint((tok){t.s + 1, t.len - 1});
    return tok_uint(t);
}

bool tok_na(tok t)
{
    return tok_eq(t, "N/A") || tok_eq(t, "n/a");
}

/* A finite number filling the whole token. */
bool tok_num(tok t, double *v)
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

bool tok_date(tok t) /* 2025-01-31 (nccl-tests -S) */
{
    if (t.len != 10) return false;
    for (int i = 0; i < 10; i++) {
        if (i == 4 || i == 7) {
            if (t.s[i] != '-') return false;
        } else if (!isdigit((unsigned char)t.s[i]))
            return false;
    }
    return true;
}

bool tok_clock(tok t) /* 12:34:56 */
{
    if (t.len != 8) return false;
    for (int i = 0; i < 8; i++) {
        if (i == 2 || i == 5) {
            if (t.s[i] != ':') return false;
        } else if (!isdigit((unsigned char)t.s[i]))
            return false;
    }
    return true;
}

void tok_copy(tok t, char *out, size_t cap)
{
    size_t n = (size_t)t.len < cap - 1 ? (size_t)t.len : cap - 1;
    memcpy(out, t.s, n);
    out[n] = '\0';
}

/* A double clamped into int range (casting an out-of-range double is undefined). */
int tok_clamp_int(double v)
{
    if (!(v > INT_MIN)) return isnan(v) ? 0 : INT_MIN;
    if (v > INT_MAX) return INT_MAX;
    return (int)v;
}

/* The integer at the start of s (strtol, clamped into int range). */
int tok_atoi(const char *s)
{
    long v = strtol(s, NULL, 10);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* ------------------------------------------------------------------ line clean-up */

/* Skip launcher prefixes: Open MPI --tag-output "[1,0]<stdout>:", Intel MPI / others "[0] ",
 * srun --label "0: ", SkyPilot "(head, rank=0, pid=1) ". *rank gets the tagged rank (-1 when
 * untagged). */
const char *tok_strip_prefixes(const char *s, int *rank)
{
    *rank = -1;
    for (int round = 0; round < 4; round++) {
        const char *p = s;
        if (*p == '(') {
            const char *close = strchr(p, ')');
            if (!close || close - p > 200 || close[1] != ' ') break;
            const char *r = strstr(p, "rank=");
            if (r && r < close) *rank = tok_atoi(r + 5);
            s = close + 2;
            continue;
        }
        if (*p == '[' && isdigit((unsigned char)p[1])) {
            /* strtol's end pointer is a char *, though it only points into the const text */
            char *q;
            long a = strtol(p + 1, &q, 10), b = -1;
            if (*q == ',' && isdigit((unsigned char)q[1])) b = strtol(q + 1, &q, 10);
            if (*q != ']') break;
            q++;
            if (strncmp(q, "<stdout>:", 9) == 0 || strncmp(q, "<stderr>:", 9) == 0)
                q += 9;
            else if (b >= 0 || !(*q == ' ' || *q == '\0'))
                break;
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
                *rank = tok_atoi(q);
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
        if (*c == ':') {
            colons++;
            prev = last;
            last = c;
        }
    if (colons < 2 || prev == b) return false;
    for (const char *c = prev + 1; c < e; c++)
        if (c != last && !isdigit((unsigned char)*c)) return false;
    return last + 1 < e && last - prev > 1;
}

/* Cut an NCCL debug message ("host:pid:tid [dev] NCCL INFO ...") out of line s: NCCL writes
 * them to stdout, so they land between, and sometimes inside, table rows. Whatever came
 * before the message on the line stays. Returns 1 when something was cut. */
int tok_cut_nccl_debug(char *s)
{
    for (char *br = strchr(s, '['); br; br = strchr(br + 1, '[')) {
        char *q = br + 1;
        if (!isdigit((unsigned char)*q)) continue;
        while (isdigit((unsigned char)*q)) q++;
        if (*q != ']' || br == s || br[-1] != ' ') continue;
        char *e = br;
        while (e > s && e[-1] == ' ') e--;
        char *b = e;
        while (b > s && !tok_is_space(b[-1])) b--;
        if (!host_like(b, e)) continue;
        *b = '\0';
        /* a launcher tag glued to the cut ("... -1[0]" or "... -1[1,0]<stdout>:") */
        size_t n = strlen(s);
        while (n && tok_is_space(s[n - 1])) s[--n] = '\0';
        char *open = strrchr(s, '[');
        if (open) {
            int dummy;
            const char *after = tok_strip_prefixes(open, &dummy);
            if (after != open && *after == '\0') *open = '\0';
        }
        return 1;
    }
    return 0;
}
