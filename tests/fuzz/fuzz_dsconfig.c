/* fuzz_dsconfig.c -- libFuzzer target: DeepSpeed ds_config.json through training checks and simulation. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "io/dsconfig.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    if (cJSON_IsObject(root)) {
        training t;
        ds_config ds;
        zs_error err = {0};
        training_init(&t);
        t.gpus = 16;
        if (dsconfig_from_json(root, "fuzz", &t, &ds, &err) == ZS_OK) {
            FUZZ_CHECK(ds.stage >= -1 && ds.stage <= 3);
            FUZZ_CHECK(ds.train_batch_size >= 0);
            FUZZ_CHECK(memchr(ds.defaulted, '\0', sizeof ds.defaulted) != NULL);
            const double b[] = {t.reduce_bucket, t.allgather_bucket, t.prefetch_bucket,
                                t.max_live_params, t.persistence_threshold};
            for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) fuzz_check_num(b[i]);
            const param_counts *pc;
            const model *m = fuzz_ref_model(&pc);
            /* the stage the config asks for (all when it names none), as the CLI runs it */
            const strategy *only = ds.stage >= 0 ? strategies[ds.stage] : NULL;
            if (training_validate(&t, &err) == ZS_OK)
                fuzz_simulate(m, pc, fuzz_ref_hardware(), &t, only);
            else
                fuzz_check_error(&err);
        } else {
            fuzz_check_error(&err);
        }
    }
    cJSON_Delete(root);
    free(text);
    return 0;
}
