/* test_main.c -- runs every unit-test suite and prints the closing "N passed, N failed" line. */
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

int test_passed, test_failed;
const char *test_current = "";

void test_report(int ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) { test_passed++; return; }
    test_failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d [%s]: ", file, line, test_current);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}


int main(int argc, char **argv)
{
    /* Optional filter: run only the suites named on the command line. */
#define RUN_SUITE(s) do { \
        int want_ = argc < 2; \
        for (int i_ = 1; i_ < argc; i_++) if (strcmp(argv[i_], #s) == 0) want_ = 1; \
        if (want_) suite_##s(); \
    } while (0);
    SUITES(RUN_SUITE)
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}
