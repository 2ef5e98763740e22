/* dsconfig.h -- reading a DeepSpeed ds_config.json into a training configuration. */
#ifndef ZS_DSCONFIG_H
#define ZS_DSCONFIG_H

#include <cjson/cJSON.h>

#include "error.h"
#include "training.h"

typedef struct ds_config {
    int stage;                 /* zero_optimization.stage 0..3; -1 when absent */
    int64_t train_batch_size;  /* sequences per step over all DP ranks; 0 when absent/"auto" */
    bool micro_batch_set;      /* train_micro_batch_size_per_gpu was a number */
    bool grad_accum_set;       /* gradient_accumulation_steps was a number */
    char defaulted[768];       /* comma-separated keys that were absent or "auto" */
} ds_config;

/* Apply a DeepSpeed config to t (which holds the defaults). Accepts what real configs hold:
 * "auto", numbers written as floats or strings ("5e8"), booleans as strings. Fails with
 * ZS_ERR_INPUT naming the path and key (e.g. stage 4, offload device "gpu"). */
int dsconfig_load(const char *path, training *t, ds_config *ds, zs_error *err);

/* The same from a parsed object; origin names the input in messages. */
int dsconfig_from_json(const cJSON *root, const char *origin, training *t, ds_config *ds,
                       zs_error *err);

#endif
