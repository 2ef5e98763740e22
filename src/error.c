/* error.c -- building error values. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int zs_fail(zs_error *err, int code, const char *fmt, ...)
{
    if (!err) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

void zs_error_prefix(zs_error *err, const char *prefix)
{
    if (!err || !prefix) return;
    char tmp[sizeof err->msg];
    snprintf(tmp, sizeof tmp, "%s: %s", prefix, err->msg);
    memcpy(err->msg, tmp, sizeof tmp);
}
