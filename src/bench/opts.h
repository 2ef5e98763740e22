/* opts.h -- nccl-tests style command-line flags shared by every sub-benchmark. */
#ifndef ZB_OPTS_H
#define ZB_OPTS_H

#include <stddef.h>
#include <stdio.h>

#define OPTS_MAX_SHAPES 32
#define OPTS_ALL (-2) /* -d all / -o all */

struct bench_opts {
    const char *bench;     /* sub-benchmark name (first argument) */
    size_t min_bytes;      /* -b: bytes (collectives, membw: per array) or parameters (adam) */
    size_t max_bytes;      /* -e: same unit as -b */
    size_t step_bytes;     /* -i: additive step, used when step_factor <= 1 */
    size_t step_factor;    /* -f: multiplicative step; 1 selects -i */
    int iters;             /* -n: timed iterations per row */
    int warmup;            /* -w: untimed warm-up iterations */
    int check;             /* -c: 1 validates results before timing */
    int dtype;             /* -d: enum zb_dtype, -1 = sub-benchmark default, OPTS_ALL = every type */
    int op;                /* -o: enum zb_op, -1 = sum, OPTS_ALL = every op */
    int root;              /* -r: root rank (broadcast) */
    int per_iter;          /* -I: 1 reports per-iteration min/max/p99/cv */
    int average;           /* -a: time across ranks 0=rank0 1=avg 2=min 3=max */
    int gpus;              /* -g: GPUs driven by one process (CUDA back end) */
    const char *json_path; /* -J: JSON output file, NULL for none */
    int blocking;          /* -z: 1 waits for each collective before the next (nccl-tests blocking_coll) */
    int graph;             /* -G: CUDA graph launches of the captured timed loop, 0 = none */
    int agg;               /* -m: collectives per timed iteration (grouped when > 1) */
    int cycles;            /* -N: times the whole sweep is run and printed */
    int cputime;           /* -C: 1 reports host time to enqueue, not time to completion */
    int imb;               /* --timing imb: barrier + per-call timing, median over iterations x ranks */
    /* gemm --model: model-shaped GEMMs (see gemm_model.h); 0 = not given */
    const char *model;     /* --model: label of the model (free text, printed and in JSON) */
    long long hidden;      /* --hidden: model width h */
    long long ffn;         /* --ffn: MLP inner width */
    long long heads;       /* --heads: query heads */
    long long kv_heads;    /* --kv-heads: key/value heads (default: heads) */
    long long head_dim;    /* --head-dim: default hidden / heads */
    long long vocab;       /* --vocab: vocabulary size */
    int gated;             /* --gated 0|1: SwiGLU gate projection (default 1, or the model file's) */
    int gated_set;         /* 1 when --gated was given */
    int tp;                /* --tp: tensor-parallel degree (default 1) */
    long long micro_batch; /* --micro-batch: sequences per micro-batch (default 1) */
    long long seq_len;     /* --seq-len: tokens per sequence (default 2048) */
    const char *precision; /* --precision: bf16, tf32, fp8 (GPU) / fp32, fp64 (CPU); NULL = default */
    int tensors;           /* --tensors: adam tensor count */
    int variant;           /* --variant: adam -1 both, 0 fp32, 1 mixed */
    const char *impl;      /* --impl: gemm implementation (auto, blocked, cblas, all) */
    size_t shapes[OPTS_MAX_SHAPES][3]; /* --shape MxNxK: gemm shapes (M, N, K) */
    int nshapes;                       /* number of --shape given */
    int argc;                          /* original argc, for metadata */
    char **argv;                       /* original argv, for metadata */
};

/* opts_parse: fills o from argv (argv[1] is the sub-benchmark name);
 * def_min/def_max are the sub-benchmark's -b/-e defaults.
 * Returns 0 on success, 1 when --help/-h was given, 2 on a bad flag with
 * a one-line message (no trailing newline) in err. */
int opts_parse(
    int argc, char **argv, size_t def_min, size_t def_max, struct bench_opts *o, char *err, size_t errlen);

/* opts_usage: prints the usage text to f. */
void opts_usage(FILE *f, const char *prog);

#endif
