/* test.h -- a tiny assertion harness: counts checks, prints failures, ends with "N passed, N failed". */
#ifndef ZS_TEST_H
#define ZS_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int test_passed;        /* checks that held */
extern int test_failed;        /* checks that did not */
extern const char *test_current; /* name of the running test, for failure messages */

void test_report(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Run one test function, naming it in failure messages. */
#define RUN_TEST(fn) do { test_current = #fn; fn(); } while (0)

#define CHECK(cond) test_report(!!(cond), __FILE__, __LINE__, "%s", #cond)

/* Exact integer equality; both sides printed on failure. */
#define CHECK_EQ_INT(got, want) do { \
    long long g_ = (long long)(got), w_ = (long long)(want); \
    test_report(g_ == w_, __FILE__, __LINE__, "%s = %lld, want %lld", #got, g_, w_); \
} while (0)

/* Relative closeness: |got - want| <= rel * |want| (or <= rel when want == 0). */
#define CHECK_NEAR(got, want, rel) do { \
    double g_ = (double)(got), w_ = (double)(want), r_ = (double)(rel); \
    double tol_ = w_ != 0 ? r_ * fabs(w_) : r_; \
    test_report(isfinite(g_) && fabs(g_ - w_) <= tol_, __FILE__, __LINE__, \
                "%s = %.9g, want %.9g (rel tol %g)", #got, g_, w_, r_); \
} while (0)

#define CHECK_STREQ(got, want) do { \
    const char *g_ = (got), *w_ = (want); \
    test_report(g_ && w_ && strcmp(g_, w_) == 0, __FILE__, __LINE__, \
                "%s = \"%s\", want \"%s\"", #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* xorshift64*: a fixed seed makes every run check the same cases. */
static inline uint64_t test_xorshift(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

/* A test's argument list (string literals) as the char ** that cli_next and cli_parse take
 * (they never write through it); the union avoids casting const away. */
static inline char **test_argv(const char *const *args)
{
    union { const char *const *in; char **out; } u = {args};
    return u.out;
}

/* Each tests/test_*.c exports one suite; list it here (test_main.c runs them in this order). */
#define SUITES(X) \
    X(units) X(model) X(families) X(hardware) X(training) X(memory) X(finetune) X(compat) X(comm) X(kernels) X(gemm) \
        X(fit) X(calib) X(props) X(cli) X(jsonprint) \
        X(safetensors) X(hub) X(api) X(launch)

#define DECLARE_SUITE(s) void suite_##s(void);
SUITES(DECLARE_SUITE)

#endif
