/* fuzz_units.c -- libFuzzer target: the command line's counts ("7e9", "7B"), sizes ("80GiB") and whole numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/units.h"

/* Each parse that succeeds must give a value its printers can show. */
static void show(double v)
{
    char buf[64];
    fuzz_check_num(v);
    FUZZ_CHECK(v <= 1e18);
    FUZZ_CHECK(strlen(units_fmt_bytes(v, buf, sizeof buf)) < sizeof buf);
    FUZZ_CHECK(strlen(units_fmt_count(v, buf, sizeof buf)) < sizeof buf);
    FUZZ_CHECK(strlen(units_fmt_short(v, buf, sizeof buf)) < sizeof buf);
    FUZZ_CHECK(strlen(units_fmt_seconds(v, buf, sizeof buf)) < sizeof buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    zs_error err = {0};
    double v;
    if (units_parse_count(text, "--params", &v, &err) == ZS_OK) show(v);
    else FUZZ_CHECK(err.code == ZS_ERR_USAGE && err.msg[0]);
    if (units_parse_bytes(text, "--hbm", &v, &err) == ZS_OK) show(v);
    else FUZZ_CHECK(err.code == ZS_ERR_USAGE && err.msg[0]);
    /* the ranges the CLI uses, and the widest the API allows */
    static const struct { int64_t min, max; } r[] = {
        {1, 10000000}, {1, 4096}, {1, 100000000}, {0, 1}, {INT64_MIN, INT64_MAX},
    };
    for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
        int64_t n = 0;
        if (units_parse_int(text, "--gpus", r[k].min, r[k].max, &n, &err) == ZS_OK)
            FUZZ_CHECK(n >= r[k].min && n <= r[k].max);
        else
            FUZZ_CHECK(err.code == ZS_ERR_USAGE && err.msg[0]);
    }
    free(text);
    return 0;
}
