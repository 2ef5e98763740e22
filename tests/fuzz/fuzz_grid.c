/* fuzz_grid.c -- libFuzzer target: sweep lists and ranges ("1,2,4", "8:4096:x2", "0:1:+0.25"). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "cmd/grid.h"
#include "core/units.h"

static void expand(const char *text, char (*out)[32], int max)
{
    zs_error err = {0};
    int n = grid_expand("gpus", text, out, max, &err);
    if (n < 0) {
        FUZZ_CHECK(n == -1 && err.code == ZS_ERR_USAGE && err.msg[0]);
        return;
    }
    FUZZ_CHECK(n >= 1 && n <= max);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(memchr(out[i], '\0', 32) != NULL && out[i][0] != '\0');
        /* what sweep does next with each value: parse it as its flag's number */
        int64_t k;
        double v;
        zs_error e2 = {0};
        if (units_parse_int(out[i], "--gpus", 1, 10000000, &k, &e2) != ZS_OK)
            FUZZ_CHECK(e2.code == ZS_ERR_USAGE);
        if (units_parse_count(out[i], "--reduce-bucket", &v, &e2) == ZS_OK)
            fuzz_check_num(v);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char out[GRID_MAX_VALUES][32];
    char *text = fuzz_text(data, size);
    expand(text, out, GRID_MAX_VALUES); /* as cmd_sweep calls it */
    expand(text, out, 3);               /* and the "more than max values" paths */
    free(text);
    return 0;
}
