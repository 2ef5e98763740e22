/* bench_sim.c -- `make bench`: full evaluations per second on one core, and plan search speed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/compare.h"
#include "analysis/plan.h"
#include "cmd/setup.h"
#include "core/sim.h"
#include "core/strategy.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int load_seq(setup *s, const char *model_arg, const char *hw, const char *seq, bool quiet)
{
    zs_error err = {0};
    setup_init(s);
    setup_take(s, OPT_MODEL, model_arg, &err);
    setup_take(s, OPT_HARDWARE, hw, &err);
    if (seq) setup_take(s, OPT_SEQ, seq, &err);
    if (setup_finish(s, &err)) {
        if (!quiet) fprintf(stderr, "bench: %s\n", err.msg);
        return -1;
    }
    return 0;
}

static int load(setup *s, const char *model_arg, const char *hw)
{
    return load_seq(s, model_arg, hw, NULL, false);
}

int main(void)
{
    setup s;
    if (load(&s, "llama-2-70b", "a100-80gb")) return 1;
    /* Estimate path: prepare + memory + communication + step time, varying the configuration
     * so nothing is cached. */
    enum { RUNS = 5, N = 400000 };
    double rate[RUNS], sink = 0;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now();
        long evals = 0;
        for (int i = 0; i < N; i++) {
            training t = s.t;
            t.gpus = 8 << (i % 8);
            t.micro_batch = 1 << (i % 4);
            t.grad_accum = 1 + i % 16;
            t.checkpointing = (ckpt_kind)(i % 3);
            sim_input in;
            zs_error e;
            zs_error_quiet(&e); /* as a search clears it: {.quiet = true} zeroes 512 bytes */
            if (sim_prepare(&in, &s.m, &s.pc, &s.hw, &t, &e)) continue;
            result r;
            sim_run(&in, strategies[i % 4], 0, &r);
            sink += r.step.total;
            evals++;
        }
        rate[run] = (double)evals / (now() - t0);
    }
    qsort(rate, RUNS, sizeof rate[0], cmp);
    printf("estimate path: %.2f M full evaluations/s on one core (median of %d runs of %d; min %.2f, max "
           "%.2f)\n",
        rate[RUNS / 2] / 1e6, RUNS, N, rate[0] / 1e6, rate[RUNS - 1] / 1e6);

    /* Plan: a large space (Llama-2-7B, up to 65536 A100s in whole nodes, a global batch of
     * 720720 sequences, whose many divisors keep most GPU counts feasible): about 0.66 M
     * configurations. */
    if (load(&s, "llama-2-7b", "a100-80gb")) return 1;
    plan_space sp;
    plan_space_init(&sp);
    sp.max_gpus = 65536;
    sp.global_batch = 720720;
    sp.max_micro_batch = 64;
    for (int threads = 1; threads <= 2; threads++) {
        char nt[8];
        snprintf(nt, sizeof nt, "%d", threads);
        setenv("ZEROSIM_THREADS", nt, 1);
        double secs[RUNS];
        uint64_t evaluated = 0;
        for (int run = 0; run < RUNS; run++) {
            plan_result pr;
            zs_error err = {0};
            double t0 = now();
            scenario sc = setup_scenario(&s);
            if (plan_search(&sc, &sp, 10, NULL, NULL, &pr, &err)) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            secs[run] = now() - t0;
            evaluated = pr.evaluated;
            sink += pr.n_top ? pr.top[0].score : 0;
            plan_result_free(&pr);
        }
        qsort(secs, RUNS, sizeof secs[0], cmp);
        printf("plan, %d thread%s: llama-2-7b on up to %lld a100-80gb GPUs, global batch %lld: %llu "
               "configurations "
               "in %.3f s (median of %d) = %.2f M configurations/s\n",
            threads, threads > 1 ? "s" : "", (long long)sp.max_gpus, (long long)sp.global_batch,
            (unsigned long long)evaluated, secs[RUNS / 2], RUNS, (double)evaluated / secs[RUNS / 2] / 1e6);
    }
    /* compare: every catalog model on A100 and H100 (64 GPUs, searches up to 64, all four
     * strategies, the default framework), the slowest model's median of 5. */
    setenv("ZEROSIM_THREADS", "1", 1);
    static const char *const hws[] = {"a100-80gb", "h100-80gb"};
    char names[64][128];
    int nm = 0;
    {
        FILE *ls = popen("ls models/*.json 2>/dev/null", "r");
        while (ls && nm < 64 && fgets(names[nm], sizeof names[nm], ls)) {
            names[nm][strcspn(names[nm], "\n")] = '\0';
            nm++;
        }
        if (ls) pclose(ls);
    }
    double worst = 0;
    const char *worst_name = "";
    for (int h = 0; h < 2; h++) {
        for (int k = 0; k < nm; k++) {
            /* GPT-2's learned position table stops at 1024 tokens: those models at 1024. */
            if (load_seq(&s, names[k], hws[h], NULL, true) && load_seq(&s, names[k], hws[h], "1024", false))
                continue;
            s.t.gpus = 64;
            scenario sc = setup_scenario(&s);
            plan_space csp;
            plan_space_init(&csp);
            csp.global_batch = 512;
            static compare_row rows[COMPARE_MAX_ROWS];
            double secs[RUNS];
            for (int run = 0; run < RUNS; run++) {
                int n = 0;
                zs_error err = {0};
                double t0 = now();
                compare_run(&sc, &csp, NULL, rows, COMPARE_MAX_ROWS, &n, &err);
                secs[run] = now() - t0;
            }
            qsort(secs, RUNS, sizeof secs[0], cmp);
            if (secs[RUNS / 2] > worst) {
                worst = secs[RUNS / 2];
                worst_name = names[k];
            }
        }
    }
    printf("compare: %d catalog models x {a100-80gb, h100-80gb}, 64 GPUs, 1 thread: slowest %.1f ms (%s; "
           "median of %d)\n",
        nm, worst * 1e3, worst_name, RUNS);

    /* plan --framework all for Llama-3.1-405B on up to 16384 H100s (issue 11's target: 1 s). */
    if (load(&s, "llama-3.1-405b", "h100-80gb")) return 1;
    plan_space fsp;
    plan_space_init(&fsp);
    fsp.max_gpus = 16384;
    fsp.global_batch = 2048;
    int nf = 0;
    for (int k = 0; frameworks[k]; k++)
        if (frameworks[k] != &fw_generic) fsp.frameworks[nf++] = frameworks[k];
    fsp.frameworks[nf] = NULL;
    setenv("ZEROSIM_THREADS", "1", 1);
    double fsecs[RUNS];
    uint64_t fev = 0;
    for (int run = 0; run < RUNS; run++) {
        plan_result pr;
        zs_error err = {0};
        scenario sc = setup_scenario(&s);
        double t0 = now();
        if (plan_search(&sc, &fsp, 10, NULL, NULL, &pr, &err)) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        fsecs[run] = now() - t0;
        fev = pr.evaluated;
        plan_result_free(&pr);
    }
    qsort(fsecs, RUNS, sizeof fsecs[0], cmp);
    printf("plan --framework all, 1 thread: llama-3.1-405b on up to 16384 h100-80gb GPUs: %llu "
           "configurations in %.3f s (median of %d)\n",
        (unsigned long long)fev, fsecs[RUNS / 2], RUNS);
    /* Issue 13's target (2 s): DeepSeek-V3 on up to 2048 H100s at 32k tokens, so plan searches
     * EP x CP x TP x PP x DP (and every strategy, offload and recomputation). */
    if (load(&s, "deepseek-v3", "h100-80gb")) return 1;
    s.t.seq_len = 32768;
    plan_space dsp;
    plan_space_init(&dsp);
    dsp.max_gpus = 2048;
    dsp.global_batch = 1024;
    double dsecs[RUNS];
    uint64_t dev = 0;
    for (int run = 0; run < RUNS; run++) {
        plan_result pr;
        zs_error err = {0};
        scenario sc = setup_scenario(&s);
        double t0 = now();
        if (plan_search(&sc, &dsp, 10, NULL, NULL, &pr, &err)) {
            fprintf(stderr, "bench: %s\n", err.msg);
            return 1;
        }
        dsecs[run] = now() - t0;
        dev = pr.evaluated;
        plan_result_free(&pr);
    }
    qsort(dsecs, RUNS, sizeof dsecs[0], cmp);
    printf("plan, 1 thread: deepseek-v3 at 32k tokens on up to 2048 h100-80gb GPUs (EP x CP x TP x PP x DP): "
           "%llu configurations in %.3f s (median of %d)\n",
        (unsigned long long)dev, dsecs[RUNS / 2], RUNS);
    return sink == 12345.678 ? 2 : 0; /* keep the work observable */
}
