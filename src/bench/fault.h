/* fault.h -- test hook: ZEROBENCH_FAULT=1 corrupts one result element before each check. */
#ifndef ZB_FAULT_H
#define ZB_FAULT_H

#include <stdlib.h>

/* fault_injected: 1 when the environment asks for a deliberate wrong
 * element (tests use it to prove each checker counts mismatches). */
static inline int fault_injected(void)
{
    const char *v = getenv("ZEROBENCH_FAULT");
    return v && *v && *v != '0';
}

#endif
