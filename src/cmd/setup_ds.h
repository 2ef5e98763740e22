/* setup_ds.h -- a --deepspeed ds_config into the setup: its stage, batch, groups and release. */
#ifndef ZS_SETUP_DS_H
#define ZS_SETUP_DS_H

#include "cmd/setup.h"

/* Append one "; "-separated note to the ds_config line of the report; dropped when full. */
__attribute__((format(printf, 2, 3))) void setup_note_ds(setup *s, const char *fmt, ...);

/* Read --deepspeed's ds_config into s (training settings, notes, the strategy its stage names).
 * Fails with the reader's error. */
int setup_read_ds(setup *s, zs_error *err);

/* What the ds_config's bf16 without ZeRO (an explicit stage 0 that chose the strategy) runs in
 * the run's DeepSpeed release (fw_deepspeed.c, DEEPSPEED_BF16_OPTIMIZER): BF16_Optimizer
 * (ZeRO-1 with --bf16-optimizer; in bf16 under the pipeline engine of 0.17.6+), bf16 alone
 * (bf16-pure) in 0.5.5-0.6.1, else DDP as read; said in the ds_config's notes. Call once the
 * framework and the flags are in s->t. Fails with ZS_ERR_INPUT naming the file and
 * data_types.grad_accum_dtype where that release raises. */
int setup_ds_release(setup *s, zs_error *err);

/* train_batch_size = micro x accum x dp: derive whichever of the first two is missing, then
 * check the three agree. Fails with ZS_ERR_INPUT naming the ds_config and the numbers. */
int setup_ds_batch(setup *s, zs_error *err);

/* A ds_config's MiCS and hpZ groups against the run's DP x CP, named by their keys (bad input,
 * as DeepSpeed's own asserts; the core names the flags). */
int setup_ds_groups(setup *s, zs_error *err);

#endif
