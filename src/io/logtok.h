/* logtok.h -- tokens of a log line and the launcher/NCCL noise around them (nccl-tests logs). */
#ifndef ZS_LOGTOK_H
#define ZS_LOGTOK_H

#include <stdbool.h>
#include <stddef.h>

#define MAXTOK 96 /* fields a table row may have */

/* A blank-separated word of a line, pointing into it. */
typedef struct tok {
    const char *s; /* start, not NUL-terminated */
    int len;       /* characters */
} tok;

/* Blank other than newline: space, tab, CR, VT, FF. */
bool tok_is_space(char c);

/* Split s on blanks into at most max tokens; extra tokens are counted in *more (may be NULL).
 * Returns the count. Never fails. */
int tok_split(const char *s, tok *t, int max, int *more);

/* Predicates on one token; none fails. */
bool tok_eq(tok t, const char *w);  /* exactly w */
bool tok_has(tok t, const char *w); /* contains w */
bool tok_uint(tok t);               /* 1 to 20 decimal digits */
bool tok_int(tok t);                /* optionally signed tok_uint */
bool tok_na(tok t);                 /* "N/A" (nccl-tests -c 0) */
bool tok_num(tok t, double *v);     /* a finite number filling the token; *v when v != NULL */
bool tok_date(tok t);               /* 2025-01-31 (nccl-tests -S) */
bool tok_clock(tok t);              /* 12:34:56 */

/* Copy t into out (cap bytes, NUL-terminated, truncating). */
void tok_copy(tok t, char *out, size_t cap);

/* A double clamped into int range (NaN gives 0): casting an out-of-range double is undefined. */
int tok_clamp_int(double v);

/* The integer at the start of s (strtol, clamped into int range). */
int tok_atoi(const char *s);

/* Skip launcher prefixes: Open MPI --tag-output "[1,0]<stdout>:", Intel MPI / others "[0] ",
 * srun --label "0: ", SkyPilot "(head, rank=0, pid=1) ". *rank gets the tagged rank (-1 when
 * untagged). Returns the rest of s. Never fails. */
const char *tok_strip_prefixes(const char *s, int *rank);

/* Cut an NCCL debug message ("host:pid:tid [dev] NCCL INFO ...") out of line s in place: NCCL
 * writes them to stdout, so they land between, and sometimes inside, table rows. Whatever came
 * before the message stays. Returns 1 when something was cut. Never fails. */
int tok_cut_nccl_debug(char *s);

#endif
