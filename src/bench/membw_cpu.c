/* membw_cpu.c -- the CPU "membw" sub-benchmark: STREAM-style copy/scale/add/triad, best of N. */
#include <mpi.h>
#include <stdio.h>

#include "bench.h"
#include "membw.h"
#include "zb_report.h"
#include "stream.h"
#include "timer.h"

int membw_main(const struct bench_opts *o, const struct be_info *bi)
{
    struct report rep;
    report_begin(&rep, o, bi);
    long long bad = 0;
    int failed = 0;
    if (rep.is_root) {
        report_header(&rep);
        printf("# membw: STREAM-style kernels on 3 arrays of doubles (OpenMP parallel, simd), "
               "warmup cycles: %d timed cycles: %d\n",
            o->warmup, o->iters);
        printf("# bytes counted STREAM's way: copy/scale 16 B/element, add/triad 24 B/element "
               "(no write-allocate); rate from the best time, GB/s = 1e9 B/s\n");
        printf("# times are max over processes; #wrong: elements of a, b, c off the scalar "
               "replay by more than 1e-13 relative after all cycles\n#\n");
    }
    membw_table_columns(&rep, STREAM_NKERNELS);
    for (size_t bytes = o->min_bytes; bytes;) {
        struct stream_arrays s;
        struct membw_times t;
        size_t n = bytes / sizeof(double);
        int mine = n > 0 && stream_alloc(&s, n) == 0;
        if (!bench_all_ok(mine)) {
            if (mine) stream_free(&s);
            failed = 1;
            break;
        }
        membw_times_init(&t);
        for (int i = 0; i < o->warmup; i++)
            for (int k = 0; k < STREAM_NKERNELS; k++) stream_run(&s, k, STREAM_Q);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < o->iters; i++)
            for (int k = 0; k < STREAM_NKERNELS; k++) {
                double t0 = timer_now();
                stream_run(&s, k, STREAM_Q);
                membw_times_add(&t, k, timer_now() - t0);
            }
        long long wrong = o->check ? (long long)stream_check(&s, o->warmup + o->iters, STREAM_Q) : -1;
        stream_free(&s);
        if (membw_table_rows(&rep, STREAM_NKERNELS, n, &t, wrong) > 0) bad++;
        bytes = bench_next_size(o, bytes, o->step_factor);
    }
    if (failed && rep.is_root) fprintf(stderr, "zerobench: membw: cannot allocate 3 arrays on some rank\n");
    return report_close(&rep, "wrong_sizes", bad, failed);
}
