/* fuzz_runs.c -- libFuzzer target: measured-run files (CSV and JSON) as validate and calibrate read them. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "io/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    run_record *runs = NULL;
    int n = 0;
    zs_error err = {0};
    if (runs_load_text(text, "fuzz", &runs, &n, &err) == ZS_OK) {
        FUZZ_CHECK(n > 0 && runs != NULL);
        for (int i = 0; i < n; i++) {
            const run_record *r = &runs[i];
            FUZZ_CHECK(r->model[0] && r->hardware[0]);
            FUZZ_CHECK(r->gpus >= 1 && r->tp >= 1 && r->pp >= 1 && r->virtual_stages >= 1);
            FUZZ_CHECK(r->micro_batch >= 1 && r->global_batch >= 1 && r->seq_len >= 1);
            FUZZ_CHECK(r->gpus_per_node >= 0);
            const double v[] = {r->step_seconds, r->tokens_per_second, r->tflops_per_gpu, r->mfu,
                                r->hfu, r->peak_memory_bytes};
            for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) fuzz_check_num(v[k]);
            /* validate divides by it and prints it */
            fuzz_check_num(runs_measured_step(r));
        }
        free(runs);
    } else {
        fuzz_check_error(&err);
    }
    free(text);
    return 0;
}
