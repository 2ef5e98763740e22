/* devsel.c -- GPU selection per process (pure apart from getenv; unit-tested on CPU). */
#include "devsel.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* parse_nonneg: decimal integer >= 0 with nothing after it; -1 otherwise. */
static int parse_nonneg(const char *s)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > INT_MAX) return -1;
    return (int)v;
}

int devsel_local_rank(int fallback)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID",
        "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        int v = parse_nonneg(getenv(vars[i]));
        if (v >= 0) return v;
    }
    return fallback;
}

int devsel_first(int local_rank, int gpus, int ndev, const char *explicit, char *err, size_t len)
{
    if (explicit && *explicit) {
        int d = parse_nonneg(explicit);
        if (d < 0) {
            snprintf(err, len, "ZEROBENCH_DEVICE='%s' is not a device number", explicit);
            return -1;
        }
        if ((long)d + gpus > ndev) {
            snprintf(err, len, "ZEROBENCH_DEVICE=%d with -g %d needs devices %d..%d but %d visible", d, gpus,
                d, d + gpus - 1, ndev);
            return -1;
        }
        return d;
    }
    if ((long)(local_rank + 1) * gpus <= ndev) return local_rank * gpus;
    if (ndev == gpus) return 0;
    snprintf(err, len,
        "local rank %d needs devices %d..%d of its node but %d visible (-g %d); "
        "set ZEROBENCH_DEVICE or give each process its own GPUs",
        local_rank, local_rank * gpus, (local_rank + 1) * gpus - 1, ndev, gpus);
    return -1;
}
