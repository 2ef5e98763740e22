/* opts.c -- command-line parsing with one-line errors (exit status 2 is the caller's). */
#include "opts.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

/* opts_parse_size: parses "N", "NK", "NM", "NG" (1K = 1024) into *out.
 * Returns 0, or -1 for an empty, signed, malformed or overflowing value. */
static int opts_parse_size(const char *s, size_t *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    unsigned long long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (ULLONG_MAX - 9) / 10) return -1;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    unsigned long long mult = 1;
    switch (*p) {
    case '\0': break;
    case 'k':
    case 'K':
        mult = 1ull << 10;
        p++;
        break;
    case 'm':
    case 'M':
        mult = 1ull << 20;
        p++;
        break;
    case 'g':
    case 'G':
        mult = 1ull << 30;
        p++;
        break;
    default: return -1;
    }
    if (*p != '\0') return -1;
    if (v > SIZE_MAX / mult) return -1;
    *out = (size_t)(v * mult);
    return 0;
}

/* parse_int: decimal integer in [lo, hi]; 0 or -1. */
static int parse_int(const char *s, int lo, int hi, int *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 2;
}

/* parse_shape: "MxNxK" with positive sizes (K/M/G suffixes allowed). */
static int parse_shape(const char *s, size_t dims[3])
{
    char buf[128];
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    char *save = NULL, *tok = strtok_r(buf, "xX", &save);
    for (int i = 0; i < 3; i++) {
        if (!tok || opts_parse_size(tok, &dims[i]) != 0 || dims[i] == 0) return -1;
        tok = strtok_r(NULL, "xX", &save);
    }
    return tok ? -1 : 0;
}

/* Integer flags: letter, accepted range, field, and the range as the error states it. */
static const struct {
    char c;            /* flag letter */
    int lo, hi;        /* accepted values */
    size_t off;        /* offsetof the int field in struct bench_opts */
    const char *range; /* for the error message */
} int_flags[] = {
    {'n', 1, INT_MAX, offsetof(struct bench_opts, iters), "an integer >= 1"},
    {'w', 0, INT_MAX, offsetof(struct bench_opts, warmup), "an integer >= 0"},
    {'c', 0, 1, offsetof(struct bench_opts, check), "0 or 1"},
    {'I', 0, 1, offsetof(struct bench_opts, per_iter), "0 or 1"},
    {'a', 0, 3, offsetof(struct bench_opts, average), "0=rank0 1=avg 2=min 3=max"},
    {'g', 1, 1024, offsetof(struct bench_opts, gpus), "an integer >= 1"},
    {'r', 0, INT_MAX, offsetof(struct bench_opts, root), "an integer >= 0"},
    {'T', 1, 1 << 20, offsetof(struct bench_opts, tensors), "an integer >= 1"},
    {'z', 0, 1, offsetof(struct bench_opts, blocking), "0 or 1"},
    {'G', 0, 1 << 20, offsetof(struct bench_opts, graph), "an integer >= 0"},
    {'m', 1, 1 << 20, offsetof(struct bench_opts, agg), "an integer >= 1"},
    {'N', 1, 1 << 20, offsetof(struct bench_opts, cycles),
        "an integer >= 1 (0, nccl-tests' endless run, is not supported)"},
    {'C', 0, 1, offsetof(struct bench_opts, cputime), "0 or 1"},
    {'p', 1, 1 << 20, offsetof(struct bench_opts, tp), "an integer >= 1"},
    {'q', 0, 1, offsetof(struct bench_opts, gated), "0 or 1"},
};

/* Long-only integer flags of gemm --model: positive sizes. */
static const struct {
    char c;     /* internal letter */
    size_t off; /* offsetof the long long field */
} ll_flags[] = {
    {'1', offsetof(struct bench_opts, hidden)},
    {'2', offsetof(struct bench_opts, ffn)},
    {'3', offsetof(struct bench_opts, heads)},
    {'4', offsetof(struct bench_opts, kv_heads)},
    {'5', offsetof(struct bench_opts, head_dim)},
    {'6', offsetof(struct bench_opts, vocab)},
    {'7', offsetof(struct bench_opts, micro_batch)},
    {'8', offsetof(struct bench_opts, seq_len)},
};

/* Long-only flags whose value is one word of a list: an int field gets the
 * word's value, a string field (values NULL) the word itself. */
static const struct {
    char c;               /* internal letter */
    const char *words[8]; /* accepted words, NULL-terminated */
    const int *values;    /* int field: each word's value; NULL: a const char * field */
    size_t off;           /* offsetof the field in struct bench_opts */
    const char *expect;   /* the words as the error message lists them */
} word_flags[] = {
    {'t', {"nccl", "imb"}, (const int[]){0, 1}, offsetof(struct bench_opts, imb), "nccl or imb"},
    {'V', {"fp32", "mixed", "all"}, (const int[]){0, 1, -1}, offsetof(struct bench_opts, variant),
        "fp32, mixed or all"},
    {'P', {"bf16", "tf32", "fp8", "fp32", "fp64", "fp16"}, NULL, offsetof(struct bench_opts, precision),
        "bf16, fp16, tf32, fp8, fp32 or fp64"},
    {'M', {"auto", "blocked", "cblas", "all"}, NULL, offsetof(struct bench_opts, impl),
        "auto, blocked, cblas or all"},
};

/* word_index: position of s in the NULL-terminated list words, or -1. */
static int word_index(const char *s, const char *const *words)
{
    for (int w = 0; words[w]; w++)
        if (!strcmp(s, words[w])) return w;
    return -1;
}

/* Flag table: short letter, long name. Every flag takes a value except help. */
static const struct {
    char s;
    const char *l;
} flags[] = {
    {'b', "minbytes"},
    {'e', "maxbytes"},
    {'i', "stepbytes"},
    {'f', "stepfactor"},
    {'n', "iters"},
    {'w', "warmup_iters"},
    {'c', "check"},
    {'d', "datatype"},
    {'o', "op"},
    {'r', "root"},
    {'I', "per_iter_timing"},
    {'a', "average"},
    {'g', "ngpus"},
    {'J', "output_file"},
    {'T', "tensors"},
    {'V', "variant"},
    {'M', "impl"},
    {'S', "shape"},
    {'z', "blocking"},
    {'G', "cudagraph"},
    {'m', "agg_iters"},
    {'N', "run_cycles"},
    {'C', "report_cputime"},
    {'t', "timing"},
    {'L', "model"},
    {'1', "hidden"},
    {'2', "ffn"},
    {'3', "heads"},
    {'4', "kv-heads"},
    {'5', "head-dim"},
    {'6', "vocab"},
    {'7', "micro-batch"},
    {'8', "seq-len"},
    {'p', "tp"},
    {'q', "gated"},
    {'P', "precision"},
};

enum { OPT_NAME = 48 }; /* room for a flag's name as typed */

/* One flag at argv[*i]: its letter into *c, its value (after '=', glued to a short flag, or
 * the next argument, which *i then steps over) into *val, the flag as typed into name. */
static int opt_flag(
    int argc, char **argv, int *i, char *c, const char **val, char name[OPT_NAME], char *err, size_t errlen)
{
    const char *a = argv[*i];
    *c = 0;
    *val = NULL;
    snprintf(name, OPT_NAME, "%s", a); /* the flag as typed, without "=value" */
    if (a[0] == '-' && a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (n + 2 < OPT_NAME) name[n + 2] = '\0';
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
            if (strlen(flags[k].l) == n && !strncmp(flags[k].l, a + 2, n)) *c = flags[k].s;
        if (!*c) return fail(err, errlen, "unknown option '%s' (try --help)", a);
        if (eq) *val = eq + 1;
    } else if (a[0] == '-' && a[1] && strchr("beifnwcdorIagJzGmNC", a[1])) {
        *c = a[1];
        name[2] = '\0';
        if (a[2]) *val = a + 2;
    } else {
        return fail(err, errlen, "unknown option '%s' (try --help)", a);
    }
    if (!*val) {
        if (*i + 1 >= argc) return fail(err, errlen, "option '%s' needs a value", name);
        *val = argv[++*i];
    }
    return 0;
}

/* A value of a table flag (int_flags, ll_flags, word_flags) into its field. */
static int opt_table_value(
    struct bench_opts *o, char c, const char *val, const char *name, char *err, size_t errlen)
{
    if (c == 'q') o->gated_set = 1;
    for (size_t k = 0; k < sizeof int_flags / sizeof int_flags[0]; k++) {
        if (int_flags[k].c != c) continue;
        int *field = (int *)((char *)o + int_flags[k].off);
        if (parse_int(val, int_flags[k].lo, int_flags[k].hi, field))
            return fail(err, errlen, "invalid value '%s' for %s (%s)", val, name, int_flags[k].range);
    }
    for (size_t k = 0; k < sizeof ll_flags / sizeof ll_flags[0]; k++) {
        if (ll_flags[k].c != c) continue;
        size_t v;
        if (opts_parse_size(val, &v) != 0 || v == 0 || v > (size_t)1 << 40)
            return fail(err, errlen, "invalid value '%s' for %s (a positive integer)", val, name);
        *(long long *)((char *)o + ll_flags[k].off) = (long long)v;
    }
    for (size_t k = 0; k < sizeof word_flags / sizeof word_flags[0]; k++) {
        if (word_flags[k].c != c) continue;
        int w = word_index(val, word_flags[k].words);
        if (w < 0) return fail(err, errlen, "unknown %s '%s' (%s)", name, val, word_flags[k].expect);
        char *field = (char *)o + word_flags[k].off;
        if (word_flags[k].values)
            *(int *)field = word_flags[k].values[w];
        else
            *(const char **)field = val;
    }
    return 0;
}

/* One flag's value into *o (flag letter c, typed as name; a: the argument it came from);
 * *have_b / *have_e note -b / -e. */
static int opt_value(struct bench_opts *o, char c, const char *val, const char *name, const char *a,
    int *have_b, int *have_e, char *err, size_t errlen)
{
    size_t sz;
    switch (c) {
    case 'b':
    case 'e':
    case 'i':
        if (opts_parse_size(val, &sz) != 0)
            return fail(
                err, errlen, "invalid size '%s' for -%c (expected N, NK, NM or NG; 1K = 1024)", val, c);
        if (sz == 0) return fail(err, errlen, "-%c must be greater than 0", c);
        if (c == 'b') {
            o->min_bytes = sz;
            *have_b = 1;
        } else if (c == 'e') {
            o->max_bytes = sz;
            *have_e = 1;
        } else
            o->step_bytes = sz;
        return 0;
    case 'f': {
        int f;
        if (parse_int(val, 1, 1 << 20, &f))
            return fail(err, errlen, "invalid step factor '%s' for -f (integer >= 1)", val);
        o->step_factor = (size_t)f;
        return 0;
    }
    case 'n':
    case 'w':
    case 'c':
    case 'I':
    case 'a':
    case 'g':
    case 'r':
    case 'T':
    case 'z':
    case 'G':
    case 'm':
    case 'N':
    case 'C':
    case 'p':
    case 'q':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case 't':
    case 'V':
    case 'P':
    case 'M': return opt_table_value(o, c, val, name, err, errlen);
    case 'L':
        if (!*val) return fail(err, errlen, "--model needs a name");
        o->model = val;
        return 0;
    case 'd':
        if (!strcmp(val, "all")) {
            o->dtype = OPTS_ALL;
            return 0;
        }
        o->dtype = dtype_parse(val);
        if (o->dtype < 0)
            return fail(err, errlen, "unknown datatype '%s' for -d (one of %s)", val, dtype_names());
        return 0;
    case 'o':
        if (!strcmp(val, "all")) {
            o->op = OPTS_ALL;
            return 0;
        }
        o->op = op_parse(val);
        if (o->op < 0)
            return fail(
                err, errlen, "unknown op '%s' for -o (one of sum,prod,min,max,avg,premulsum,all)", val);
        return 0;
    case 'J':
        if (!*val) return fail(err, errlen, "-J needs a file name");
        o->json_path = val;
        return 0;
    case 'S':
        if (o->nshapes >= OPTS_MAX_SHAPES)
            return fail(err, errlen, "too many --shape (at most %d)", OPTS_MAX_SHAPES);
        if (parse_shape(val, o->shapes[o->nshapes]))
            return fail(err, errlen, "invalid --shape '%s' (expected MxNxK, e.g. 4096x4096x4096)", val);
        o->nshapes++;
        return 0;
    default: return fail(err, errlen, "unknown option '%s' (try --help)", a);
    }
}

int opts_parse(
    int argc, char **argv, size_t def_min, size_t def_max, struct bench_opts *o, char *err, size_t errlen)
{
    /* every field not named here is 0 or NULL */
    *o = (struct bench_opts){
        .argc = argc,
        .argv = argv,
        .step_bytes = 1u << 20,
        .step_factor = 1,
        .iters = 20,
        .warmup = 1,
        .check = 1,
        .dtype = -1,
        .op = -1,
        .average = 1,
        .gpus = 1,
        .tensors = 64,
        .variant = -1,
        .impl = "auto",
        .agg = 1,
        .cycles = 1,
        .tp = 1,
        .gated = 1,
        .micro_batch = 1,
        .seq_len = 2048,
    };
    int have_b = 0, have_e = 0;

    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    if (argc < 2) return fail(err, errlen, "missing sub-benchmark (try --help)");
    o->bench = argv[1];
    if (argv[1][0] == '-')
        return fail(err, errlen, "first argument must be a sub-benchmark, got '%s' (try --help)", argv[1]);

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val;
        char c, name[OPT_NAME];
        int rc = opt_flag(argc, argv, &i, &c, &val, name, err, errlen);
        if (!rc) rc = opt_value(o, c, val, name, a, &have_b, &have_e, err, errlen);
        if (rc) return rc;
    }
    if (!have_b) o->min_bytes = (have_e && o->max_bytes < def_min) ? o->max_bytes : def_min;
    if (!have_e) o->max_bytes = have_b ? o->min_bytes : def_max;
    if (o->max_bytes < o->min_bytes)
        return fail(err, errlen, "-e %zu is below -b %zu", o->max_bytes, o->min_bytes);
    if (o->graph && (o->per_iter || o->imb))
        return fail(err, errlen,
            "-G (CUDA graphs) times the whole captured loop: it cannot be combined with -I 1 or --timing "
            "imb");
    if (o->graph && o->blocking)
        return fail(err, errlen, "-z 1 (a wait after every call) cannot be captured in a CUDA graph (-G)");
    if (o->imb && o->cputime)
        return fail(err, errlen,
            "-C 1 (enqueue time) and --timing imb (per-call completion time) exclude each other");
    return 0;
}

void opts_usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s SUB-BENCHMARK [options]\n"
        "\n"
        "sub-benchmarks:\n"
        "  allreduce allgather reducescatter broadcast alltoall    collectives (nccl-tests table)\n"
        "  reduce gather scatter sendrecv                          collectives (nccl-tests table)\n"
        "  allgather-list  all-gather + one copy per rank (torch.distributed.all_gather's list form)\n"
        "  adam     fused Adam step (fp32 and mixed bf16/fp32) vs memory bandwidth\n"
        "  membw    STREAM-style copy/scale/add/triad bandwidth\n"
        "  gemm     matrix multiply, TFLOP/s\n"
        "\n"
        "options (nccl-tests names; sizes take K/M/G suffixes, 1K = 1024):\n"
        "  -b, --minbytes N       smallest size (adam: parameters; membw: bytes per array)\n"
        "  -e, --maxbytes N       largest size (default: -b when only -b is given)\n"
        "  -f, --stepfactor N     multiply the size by N each row (default 1: use -i)\n"
        "  -i, --stepbytes N      add N bytes each row when -f is 1 (default 1M)\n"
        "  -n, --iters N          timed iterations per row (default 20)\n"
        "  -w, --warmup_iters N   warm-up iterations (default 1)\n"
        "  -c, --check 0|1        validate results before timing (default 1)\n"
        "  -d, --datatype T       %s\n"
        "  -o, --op OP            sum, prod, min, max, avg, premulsum (x2 before the sum), all (default "
        "sum)\n"
        "  -r, --root N           root rank for broadcast (default 0)\n"
        "  -I, --per_iter_timing 0|1  also report per-iteration min/max/p99/cv\n"
        "  -a, --average 0-3      time across ranks: 0=rank 0, 1=average (default), 2=min, 3=max\n"
        "  -g, --ngpus N          GPUs driven by one process (CUDA back end)\n"
        "  -J, --output_file F    write all rows and metadata as JSON to F\n"
        "  -z, --blocking 0|1     wait for each collective to complete before the next\n"
        "  -G, --cudagraph N      capture the timed loop in a CUDA graph, launch it N times (CUDA)\n"
        "  -m, --agg_iters N      collectives per timed iteration, grouped (default 1)\n"
        "  -N, --run_cycles N     run and print the whole sweep N times (default 1)\n"
        "  -C, --report_cputime 0|1  time = host time to enqueue the calls, not to complete them\n"
        "      --timing nccl|imb  nccl: back-to-back calls, one clock (default); imb: barrier before\n"
        "                         every call, per-call times, time = median over iterations x ranks\n"
        "      --tensors N        adam: number of tensors in the fused step (default 64)\n"
        "      --variant V        adam: fp32, mixed or all (default all)\n"
        "      --shape MxNxK      gemm: C[MxN] = A[MxK] B[KxN]; repeatable\n"
        "      --impl I           gemm (CPU): auto, blocked, cblas or all\n"
        "gemm --model LABEL: the GEMMs of one transformer layer plus the logits (forward, dgrad, wgrad):\n"
        "      --hidden H --ffn F --heads A [--kv-heads K] [--head-dim D] --vocab V [--gated 0|1]\n"
        "      [--tp N] [--micro-batch B] [--seq-len S] [--precision bf16|fp16|tf32|fp8|fp32|fp64]\n"
        "  -h, --help             this text\n"
        "\n"
        "exit status: 0 ok, 1 wrong results or run-time error, 2 bad usage\n",
        prog, dtype_names());
}
