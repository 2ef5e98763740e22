/* error.c -- building error values. */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int zs_fail(zs_error *err, int code, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    err->rule = fmt; /* a pointer, no text: plan counts its refusals by rule at no cost */
    if (err->quiet) {
        /* formatting is most of what a refused configuration costs in plan's search */
        err->msg[0] = '\0';
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

void zs_error_prefix(zs_error *err, const char *prefix)
{
    if (!err || !prefix || err->quiet) return;
    char tmp[sizeof err->msg];
    memcpy(tmp, err->msg, sizeof tmp);
    /* Using the result tells gcc the truncation is deliberate. */
    if (snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, tmp) < 0) err->msg[0] = '\0';
}
