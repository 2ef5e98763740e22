/* csvout.h -- RFC 4180 CSV output: fields quoted when they need it. */
#ifndef ZS_CSVOUT_H
#define ZS_CSVOUT_H

#include <stdbool.h>
#include <stdio.h>

/* Whether s must be quoted in a CSV field: it holds a comma, a double quote, a CR or LF, or
 * starts or ends with a space or tab (which readers may trim). Never fails. */
bool csvout_needs_quotes(const char *s);

/* Write s as one CSV field: as is when it needs no quotes, else in double quotes with each
 * quote doubled (RFC 4180 section 2, rules 6-7); NULL writes an empty field. Write errors show
 * in ferror(f). */
void csvout_field(FILE *f, const char *s);

/* Write n fields separated by commas and end the record with "\n" (a NULL entry is an empty
 * field). Write errors show in ferror(f). */
void csvout_row(FILE *f, const char *const *fields, int n);

#endif
