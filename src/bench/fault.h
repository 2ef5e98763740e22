/* fault.h -- test hooks: ZEROBENCH_FAULT=1 corrupts one result element before each check;
 * ZEROBENCH_NO_INPLACE=1 forces in-place N/A. */
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

/* fault_no_in_place: ZEROBENCH_NO_INPLACE=1 makes the harness treat the
 * collective as one whose in-place form the back end lacks (as NCCL's
 * all-to-all), so the CPU tests reach the N/A path. */
static inline int fault_no_in_place(void)
{
    const char *v = getenv("ZEROBENCH_NO_INPLACE");
    return v && *v && *v != '0';
}

#endif
