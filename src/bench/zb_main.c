/* zb_main.c -- zerobench entry: pick the sub-benchmark, parse flags, start MPI and the back end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "be.h"
#include "bench.h"
#include "coll.h"
#include "zb_harness.h"
#include "opts.h"

#include "mpi_dtype.h"

#ifdef ZB_NCCL
#define PROG "zerobench-cuda"
#else
#define PROG "zerobench"
#endif

/* One registered sub-benchmark: collectives go through the harness with
 * their table, the others have their own entry point. */
struct bench_entry {
    const char *name;                                              /* first command-line argument */
    const struct coll_def *coll;                                   /* collective table, or NULL */
    int (*run)(const struct bench_opts *, const struct be_info *); /* when coll is NULL */
    size_t def_min, def_max;                                       /* -b/-e defaults */
};

/* GPU defaults are larger so that adam and membw run well past the L2. */
#ifdef ZB_NCCL
#define ADAM_DEFAULT (64u << 20)
#define MEMBW_DEFAULT (1u << 30)
#else
#define ADAM_DEFAULT (16u << 20)
#define MEMBW_DEFAULT (128u << 20)
#endif

static const struct bench_entry benches[] = {
    {"allreduce", &coll_allreduce, NULL, 32u << 20, 32u << 20},
    {"allgather", &coll_allgather, NULL, 32u << 20, 32u << 20},
    {"allgather-list", &coll_allgather_list, NULL, 32u << 20, 32u << 20},
    {"reducescatter", &coll_reducescatter, NULL, 32u << 20, 32u << 20},
    {"broadcast", &coll_broadcast, NULL, 32u << 20, 32u << 20},
    {"alltoall", &coll_alltoall, NULL, 32u << 20, 32u << 20},
    {"reduce", &coll_reduce, NULL, 32u << 20, 32u << 20},
    {"gather", &coll_gather, NULL, 32u << 20, 32u << 20},
    {"scatter", &coll_scatter, NULL, 32u << 20, 32u << 20},
    {"sendrecv", &coll_sendrecv, NULL, 32u << 20, 32u << 20},
    {"adam", NULL, adam_main, ADAM_DEFAULT, ADAM_DEFAULT},
    {"membw", NULL, membw_main, MEMBW_DEFAULT, MEMBW_DEFAULT},
    {"gemm", NULL, gemm_main, 1, 1},
};

/* launch_rank: this process's rank as told by the launcher, so that only
 * one process of an mpirun prints usage errors (found before MPI_Init). */
static int launch_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const struct bench_entry *b = NULL;
    if (argc >= 2)
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
            if (!strcmp(argv[1], benches[i].name)) b = &benches[i];

    struct bench_opts o;
    char err[512];
    int rc = opts_parse(argc, argv, b ? b->def_min : 1, b ? b->def_max : 1, &o, err, sizeof err);
    if (rc == 1) {
        if (launch_rank() == 0) opts_usage(stdout, PROG);
        return 0;
    }
    if (rc == 0 && !b) {
        snprintf(err, sizeof err,
            "unknown sub-benchmark '%s' (one of allreduce, allgather, allgather-list, "
            "reducescatter, broadcast, alltoall, reduce, gather, scatter, sendrecv, adam, membw, gemm)",
            argv[1]);
        rc = 2;
    }
    if (rc != 0) {
        if (launch_rank() == 0) fprintf(stderr, PROG ": %s\n", err);
        return 2;
    }

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, PROG ": MPI_Init failed\n");
        return 1;
    }
    struct be_info bi;
    memset(&bi, 0, sizeof bi);
    rc = be_init(&o, b->coll != NULL, &bi);
    if (rc == 0) {
        rc = b->coll ? harness_main(b->coll, &o, &bi) : b->run(&o, &bi);
        fflush(stdout);
    }
    be_fini();
    mpi_ops_free();
    MPI_Finalize();
    return rc;
}
