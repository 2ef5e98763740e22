/* fmt.h -- fixed-width number formatting for the result tables. */
#ifndef ZB_FMT_H
#define ZB_FMT_H

#include <stddef.h>

/* fmt_num: writes v right-aligned in exactly width characters into buf
 * (buf must hold width+1 bytes): two decimals when they fit, then one, then
 * none, then exponent notation. Never fails; NaN/inf print as "nan"/"inf". */
void fmt_num(char *buf, int width, double v);

#endif
