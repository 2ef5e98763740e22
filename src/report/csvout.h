/* csvout.h -- RFC 4180 CSV output: fields quoted when they need it. */
#ifndef ZS_CSVOUT_H
#define ZS_CSVOUT_H

#include <stdbool.h>
#include <stdio.h>

/* Write s as one CSV field: as is when it needs no quotes, else in double quotes with each
 * quote doubled (RFC 4180 section 2, rules 6-7); NULL writes an empty field. Write errors show
 * in ferror(f). */
void csvout_field(FILE *f, const char *s);

#endif
