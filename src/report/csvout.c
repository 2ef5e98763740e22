/* csvout.c -- RFC 4180 quoting for every command's CSV output. */
#include "report/csvout.h"

#include <string.h>

bool csvout_needs_quotes(const char *s)
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

void csvout_row(FILE *f, const char *const *fields, int n)
{
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', f);
        csvout_field(f, fields[i]);
    }
    fputc('\n', f);
}
