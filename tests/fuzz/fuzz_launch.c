/* fuzz_launch.c -- libFuzzer target: launcher YAML (Axolotl, LLaMA-Factory, accelerate) through
 * libyaml, the readers and the training checks, then simulated. */
#include <stdlib.h>
#include <string.h>

#include "io/launchcfg.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    launch_config *lc = malloc(sizeof *lc);
    FUZZ_CHECK(lc != NULL);
    zs_error err = {0};
    if (launchcfg_from_text(text, strlen(text), "fuzz.yaml", lc, &err) == ZS_OK) {
        FUZZ_CHECK(memchr(lc->used, '\0', sizeof lc->used) != NULL);
        FUZZ_CHECK(memchr(lc->defaulted, '\0', sizeof lc->defaulted) != NULL);
        FUZZ_CHECK(memchr(lc->ignored, '\0', sizeof lc->ignored) != NULL);
        FUZZ_CHECK(lc->t.micro_batch >= 1 && lc->t.grad_accum >= 1 && lc->t.gpus >= 1);
        /* The training it read, on the reference model and node (the file's model is not
         * loaded: no Hub fetch), simulated and checked as estimate's answers are. */
        if (training_validate(&lc->t, &err) != ZS_OK) {
            fuzz_check_error(&err);
        } else {
            const param_counts *pc;
            const model *m = fuzz_ref_model(&pc);
            fuzz_simulate(m, pc, fuzz_ref_hardware(), &lc->t, NULL);
        }
    } else {
        fuzz_check_error(&err);
    }
    free(lc);
    free(text);
    return 0;
}
