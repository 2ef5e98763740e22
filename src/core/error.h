/* error.h -- errors carried as values: a status code plus a one-line message. */
#ifndef ZS_ERROR_H
#define ZS_ERROR_H

#include <stdbool.h>
#include <stddef.h>

/* Status codes double as the process exit statuses documented in the README. */
enum {
    ZS_OK = 0,
    ZS_ERR_NOFIT = 1, /* computed, but nothing fits */
    ZS_ERR_USAGE = 2, /* bad command line */
    ZS_ERR_INPUT = 3, /* bad input file or field */
    ZS_ERR_IO = 4,    /* an output could not be written, an external program failed */
};

/* Out of memory is one code everywhere: the run could not produce its output (exit 4). */
#define ZS_ERR_NOMEM ZS_ERR_IO

typedef struct zs_error {
    int code;      /* one of the ZS_ERR_* values; ZS_OK when clear */
    char msg[512]; /* one line, no trailing newline */
    bool quiet;    /* the caller wants only the code (plan's search): no message is formatted */
    const char *rule; /* the last failure's format string: which rule refused, even when quiet */
} zs_error;

/* Make e a quiet, clear error without zeroing its message buffer (a search's hot loop, where
 * {.quiet = true} clears 512 bytes a configuration). Never fails. */
static inline void zs_error_quiet(zs_error *e)
{
    e->code = 0;
    e->msg[0] = '\0';
    e->quiet = true;
    e->rule = NULL;
}

/* Record an error (printf-style message). Returns code, so callers can `return zs_fail(...)`.
 * A NULL err is allowed and ignored; a quiet one gets the code and an empty message. Never
 * fails. */
int zs_fail(zs_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefix an existing message with "prefix: " (e.g. a file name). Never fails; truncates. */
void zs_error_prefix(zs_error *err, const char *prefix);

#endif
