/* fmt.c -- fixed-width number formatting, nccl-tests style (fewer decimals when wide). */
#include "fmt.h"

#include <stdio.h>

void fmt_num(char *buf, int width, double v)
{
    size_t n = (size_t)width + 1;
    for (int prec = 2; prec >= 0; prec--)
        if (snprintf(buf, n, "%*.*f", width, prec, v) <= width) return;
    snprintf(buf, n, "%*.*e", width, width >= 7 ? 1 : 0, v);
}
