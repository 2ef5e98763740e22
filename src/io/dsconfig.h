/* dsconfig.h -- reading a DeepSpeed ds_config.json into a training configuration. */
#ifndef ZS_DSCONFIG_H
#define ZS_DSCONFIG_H

#include <cjson/cJSON.h>

#include "core/error.h"
#include "core/training.h"

typedef struct ds_config {
    int stage;                /* zero_optimization.stage 0..3; -1 when absent */
    int stage0_accum;         /* data_types.grad_accum_dtype's bytes under bf16 without ZeRO (4
                                 fp32, 2 bf16; 0 absent): what each release runs for it differs
                                 (setup_ds_release) */
    int64_t train_batch_size; /* sequences per step over all DP ranks; 0 when absent/"auto" */
    bool micro_batch_set;     /* train_micro_batch_size_per_gpu was a number */
    bool grad_accum_set;      /* gradient_accumulation_steps was a number */
    bool hf_auto[3];          /* reduce_bucket_size, stage3_prefetch_bucket_size,
                                 stage3_param_persistence_threshold were "auto": the HF
                                 Trainer fills them from the hidden size (dsconfig_fill_auto) */
    bool reduce_bucket_zero;  /* reduce_bucket_size 0: DeepSpeed reduces each gradient alone */
    bool mics_set;            /* zero_optimization.mics_shard_size set t->shard_group */
    bool hpz_set;             /* zero_optimization.zero_hpz_partition_size > 1 set t->hpz_group */
    bool optimizer_set;       /* optimizer.type set t->optimizer */
    char optimizer_type[48];  /* optimizer.type as written */
    char optimizer_note[256]; /* how DeepSpeed runs that type, when zerosim maps it */
    char precision_note[128]; /* fp32 from the precision sections, said */
    char grad_note[160];      /* what data_types.grad_accum_dtype set, said */
    char defaulted[768];      /* comma-separated keys that were absent or "auto" */
    char ignored[768];        /* comma-separated keys present that zerosim does not model */
    char filled[256];         /* what dsconfig_fill_auto filled, for the report */
} ds_config;

/* Apply a DeepSpeed config to t (which holds the defaults). Accepts what real configs hold:
 * "auto", numbers written as floats or strings ("5e8"), booleans as strings. Fails with
 * ZS_ERR_INPUT naming the path and key (e.g. stage 4, offload device "gpu"). */
int dsconfig_load(const char *path, training *t, ds_config *ds, zs_error *err);

/* The same from a parsed object; origin names the input in messages. */
int dsconfig_from_json(const cJSON *root, const char *origin, training *t, ds_config *ds, zs_error *err);

/* Fill the "auto" bucket keys as the HF Trainer / accelerate DeepSpeed integration does
 * (transformers integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_finalize):
 * reduce_bucket_size = h^2, stage3_prefetch_bucket_size = int(0.9 h^2),
 * stage3_param_persistence_threshold = 10 h, and say so in ds->filled. With hidden <= 0 (a
 * bare --params) the keys keep DeepSpeed's defaults and are listed as defaulted. Never fails. */
void dsconfig_fill_auto(ds_config *ds, int64_t hidden, training *t);

#endif
