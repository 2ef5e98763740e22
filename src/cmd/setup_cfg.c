/* setup_cfg.c -- --config against the ds_config it names: the HF Trainer's mismatch rule. */
#include "cmd/setup_cfg.h"

#include <stdint.h>

/* The Trainer's batch keys against the ds_config's numbers: transformers refuses a number that is
 * not "auto" and differs (integrations/deepspeed.py, HfTrainerDeepSpeedConfig.fill_match: "Please
 * correct the following DeepSpeed config values that mismatch TrainingArguments values"). Flags
 * given win over both and are not checked. Fails with ZS_ERR_INPUT naming both keys. */
int setup_config_ds_match(setup *s, zs_error *err)
{
    const launch_config *c = &s->cfg;
    const struct {
        int id;
        bool set;
        const char *ds_key;
        int64_t ds, cfg;
    } k[] = {{OPT_MICRO, s->ds.micro_batch_set, "train_micro_batch_size_per_gpu", s->t.micro_batch,
                 c->t.micro_batch},
        {OPT_ACCUM, s->ds.grad_accum_set, "gradient_accumulation_steps", s->t.grad_accum, c->t.grad_accum}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        int bit = k[i].id - TRAINING_FLAG_FIRST;
        if (!k[i].set || !(c->set >> bit & 1) || (s->given >> bit & 1) || k[i].ds == k[i].cfg)
            continue;
        return zs_fail(err, ZS_ERR_INPUT,
            "%s: %s %lld and %s's %s %lld differ: the HF Trainer refuses a ds_config number that mismatches "
            "its own (set it to \"auto\")",
            s->cfg_arg, c->key_of[bit], (long long)k[i].cfg, s->ds_path, k[i].ds_key, (long long)k[i].ds);
    }
    return ZS_OK;
}
