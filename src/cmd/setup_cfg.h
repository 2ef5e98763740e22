/* setup_cfg.h -- checks between a --config launcher file and the ds_config it names. */
#ifndef ZS_SETUP_CFG_H
#define ZS_SETUP_CFG_H

#include "cmd/setup.h"

/* The Trainer's micro-batch and accumulation keys of s's --config against the numbers of the
 * ds_config it names (already read into s): a number (not "auto") that differs is refused, as
 * transformers' HfTrainerDeepSpeedConfig refuses it; flags given are not checked. Fails with
 * ZS_ERR_INPUT naming the file, both keys and both values. */
int setup_config_ds_match(setup *s, zs_error *err);

#endif
