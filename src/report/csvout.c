/* csvout.c -- RFC 4180 quoting for every command's CSV output. */
#include "report/csvout.h"

#include <string.h>

/* Whether s must be quoted in a CSV field: it holds a comma, a double quote, a CR or LF, or
 * starts or ends with a space or tab (which readers may trim). Never fails. */
static bool csvout_needs_quotes(const char *s)
{
    if (!s || !*s) return false;
    size_t n = strlen(s);
    return strpbrk(s, ",\"\r\n") != NULL || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' ||
        s[n - 1] == '\t';
}

void csvout_field(FILE *f, const char *s)
{
    if (!s) return;
    if (!csvout_needs_quotes(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
