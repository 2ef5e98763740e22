/* stats.h -- order statistics over a sample of times. */
#ifndef ZB_STATS_H
#define ZB_STATS_H

#include <stddef.h>

struct stats {
    double min;    /* smallest sample */
    double max;    /* largest sample */
    double avg;    /* arithmetic mean */
    double p50;    /* median (nearest rank) */
    double p99;    /* 99th percentile (nearest rank: ceil(0.99 n)-th smallest) */
    double cv_pct; /* population standard deviation / mean, in percent */
};

/* stats_compute: statistics of x[0..n); n == 0 yields all zeros. Sorts a
 * private copy; returns -1 if that copy cannot be allocated, else 0. */
int stats_compute(const double *x, size_t n, struct stats *s);

#endif
