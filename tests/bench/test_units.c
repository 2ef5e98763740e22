/* test_units.c -- zerobench unit tests that need no MPI: fp8 encodings, GPU selection, the fp8 GEMM check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/bench/devsel.h"
#include "../../src/bench/dtype.h"
#include "../../src/bench/gemm.h"

static int fails, checks;

#define EXPECT(cond, ...)                                   \
    do {                                                    \
        checks++;                                           \
        if (!(cond)) {                                      \
            fails++;                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);     \
            printf(__VA_ARGS__);                            \
            printf("\n");                                   \
        }                                                   \
    } while (0)

/* OCP 8-bit Floating Point Specification (OFP8) rev 1.0, 2023-06-20,
 * table 1 and section 5.3: encodings of the special and extreme values. */
static void test_fp8_spec(void)
{
    static const struct { int ebits; unsigned char bits; double value; } spec[] = {
        {4, 0x7e, 448.0},            /* E4M3 max normal S.1111.110 */
        {4, 0x08, 0x1p-6},           /* min normal S.0001.000 */
        {4, 0x07, 0.875 * 0x1p-6},   /* max subnormal S.0000.111 */
        {4, 0x01, 0x1p-9},           /* min subnormal S.0000.001 */
        {4, 0x38, 1.0},              /* exponent bias 7 */
        {4, 0xb8, -1.0},
        {5, 0x7b, 57344.0},          /* E5M2 max normal S.11110.11 */
        {5, 0x04, 0x1p-14},          /* min normal S.00001.00 */
        {5, 0x03, 0.75 * 0x1p-14},   /* max subnormal S.00000.11 */
        {5, 0x01, 0x1p-16},          /* min subnormal S.00000.01 */
        {5, 0x3c, 1.0},              /* exponent bias 15 */
    };
    for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
        float f = fp8_to_float(spec[i].bits, spec[i].ebits);
        EXPECT(f == (float)spec[i].value, "e%dm: 0x%02x decodes to %g, spec %g", spec[i].ebits,
               spec[i].bits, f, spec[i].value);
        unsigned char b = fp8_from_float((float)spec[i].value, spec[i].ebits);
        EXPECT(b == spec[i].bits, "e%d: %g encodes to 0x%02x, spec 0x%02x", spec[i].ebits, spec[i].value, b,
               spec[i].bits);
    }
    EXPECT(isnan(fp8_to_float(0x7f, 4)), "E4M3 S.1111.111 is NaN");
    EXPECT(isinf(fp8_to_float(0x7c, 5)), "E5M2 S.11111.00 is infinity");
    EXPECT(isnan(fp8_to_float(0x7d, 5)), "E5M2 S.11111.01 is NaN");
    /* round to nearest, ties to even (IEEE 754 roundTiesToEven, OFP8 section 4) */
    EXPECT(fp8_to_float(fp8_from_float(17.0f, 4), 4) == 16.0f, "E4M3 17 ties to even 16");
    EXPECT(fp8_to_float(fp8_from_float(19.0f, 4), 4) == 20.0f, "E4M3 19 ties to even 20");
    EXPECT(fp8_to_float(fp8_from_float(464.0f, 4), 4) == 448.0f, "E4M3 464 ties down to 448");
    EXPECT(fp8_from_float(480.0f, 4) == 0x7f, "E4M3 480 overflows to NaN (no infinity)");
    EXPECT(fp8_from_float(61440.0f, 5) == 0x7c, "E5M2 61440 ties to even: overflow to infinity");
    EXPECT(fp8_from_float(0x1p-10f, 4) == 0x00, "E4M3 2^-10 ties to even zero");
    EXPECT(fp8_from_float(3 * 0x1p-10f, 4) == 0x02, "E4M3 1.5 x 2^-9 ties to even 2 x 2^-9");
    /* every integer up to the table's exact_limit round-trips (used by the checks) */
    for (int t = ZB_F8E4M3; t <= ZB_F8E5M2; t++) {
        const struct dtype_info *ti = dtype_get(t);
        unsigned char buf[1];
        for (int k = 0; k <= (int)ti->exact_limit; k++) {
            dtype_store(t, buf, 0, k);
            EXPECT(dtype_load(t, buf, 0) == k, "%s: %d does not round-trip", ti->name, k);
        }
        dtype_store(t, buf, 0, ti->exact_limit + 1);
        EXPECT(dtype_load(t, buf, 0) != ti->exact_limit + 1,
               "%s: exact_limit %g is not the last exact integer", ti->name, ti->exact_limit);
    }
}

static void test_devsel(void)
{
    char err[256];
    EXPECT(devsel_first(1, 1, 8, NULL, err, sizeof err) == 1, "mpirun: local rank 1 of 8 GPUs -> 1");
    EXPECT(devsel_first(1, 2, 8, NULL, err, sizeof err) == 2, "-g 2: local rank 1 -> 2");
    EXPECT(devsel_first(3, 1, 1, NULL, err, sizeof err) == 0,
           "srun --gpus-per-task=1: one visible device -> 0");
    EXPECT(devsel_first(3, 2, 4, NULL, err, sizeof err) == -1 && strstr(err, "local rank 3"),
           "too few devices is an error naming the rank: %s", err);
    EXPECT(devsel_first(0, 1, 4, "2", err, sizeof err) == 2, "ZEROBENCH_DEVICE=2 wins");
    EXPECT(devsel_first(0, 1, 4, "4", err, sizeof err) == -1 && strstr(err, "ZEROBENCH_DEVICE"),
           "ZEROBENCH_DEVICE beyond the visible devices: %s", err);
    EXPECT(devsel_first(0, 1, 4, "x1", err, sizeof err) == -1, "ZEROBENCH_DEVICE not a number");
    const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID",
                          "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID"};
    for (size_t i = 0; i < 5; i++) unsetenv(vars[i]);
    EXPECT(devsel_local_rank(7) == 7, "no launcher variable: fallback");
    setenv("SLURM_LOCALID", "3", 1);
    EXPECT(devsel_local_rank(0) == 3, "Slurm's SLURM_LOCALID");
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
    EXPECT(devsel_local_rank(0) == 2, "Open MPI's variable first");
    unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
    unsetenv("SLURM_LOCALID");
    setenv("MPI_LOCALRANKID", "5", 1);
    EXPECT(devsel_local_rank(0) == 5, "MPICH Hydra's MPI_LOCALRANKID");
    setenv("MPI_LOCALRANKID", "-1", 1);
    EXPECT(devsel_local_rank(4) == 4, "a negative value is ignored");
    unsetenv("MPI_LOCALRANKID");
}

static void test_ops(void)
{
    EXPECT(op_parse("avg") == ZB_AVG && op_parse("premulsum") == ZB_PREMULSUM && op_parse("mulsum") == ZB_PREMULSUM,
           "op names");
    EXPECT(dtype_parse("f8e4m3") == ZB_F8E4M3 && dtype_parse("fp8e5m2") == ZB_F8E5M2, "fp8 names");
}

/* A bf16 result matrix for gemm_check_fp8. */
struct cmat {
    unsigned short *c;   /* M x N bf16 */
    size_t n;            /* columns */
};

static double get_c(void *ctx, size_t i, size_t j)
{
    const struct cmat *m = ctx;
    return dtype_load(ZB_BF16, m->c, i * m->n + j);
}

static double e4m3(uint32_t seed, uint64_t idx) { return fp8_to_float(fp8_from_float(gemm_value(seed, idx), 4), 4); }

/* gemm_check_fp8 must pass an exact product of the e4m3-rounded inputs and
 * fail a wrong-layout product (B read transposed), even at K = 4096 where a
 * K x 2^-14 bound (0.33 of sum |ab|) could not tell them apart. */
static void test_gemm_fp8_check(void)
{
    struct gemm_shape s = {8, 8, 4096};
    unsigned short c[64], w[64];
    for (size_t i = 0; i < s.m; i++)
        for (size_t j = 0; j < s.n; j++) {
            double ok = 0, bad = 0;
            for (size_t k = 0; k < s.k; k++) {
                double a = e4m3(GEMM_SEED_A, i * s.k + k);
                ok += a * e4m3(GEMM_SEED_B, k * s.n + j);
                bad += a * e4m3(GEMM_SEED_B, j * s.k + k);
            }
            dtype_store(ZB_BF16, c, i * s.n + j, ok);
            dtype_store(ZB_BF16, w, i * s.n + j, bad);
        }
    const char *mode = NULL;
    struct cmat good = {c, s.n}, wrong = {w, s.n};
    size_t n_good = gemm_check_fp8(&s, 0x1p-14, 0x1p-8, get_c, &good, &mode);
    EXPECT(n_good == 0 && mode && !strcmp(mode, "full"), "exact fp8 product: %zu wrong (%s)", n_good, mode);
    size_t n_bad = gemm_check_fp8(&s, 0x1p-14, 0x1p-8, get_c, &wrong, &mode);
    EXPECT(n_bad > 48, "wrong-layout fp8 product: only %zu of 64 elements caught", n_bad);
}

int main(void)
{
    test_fp8_spec();
    test_devsel();
    test_ops();
    test_gemm_fp8_check();
    printf("%d checks, %d failed\n", checks, fails);
    return fails ? 1 : 0;
}
