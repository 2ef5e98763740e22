/* timer.h -- monotonic wall clock for the timing loops. */
#ifndef ZB_TIMER_H
#define ZB_TIMER_H

#include <time.h>

/* timer_now: seconds since an arbitrary epoch (CLOCK_MONOTONIC); returns 0
 * if the clock cannot be read, which no supported system does. */
static inline double timer_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
