/* setup.h -- the flags every planning command shares, turned into model, hardware and training. */
#ifndef ZS_SETUP_H
#define ZS_SETUP_H

#include <stdbool.h>

#include "cli.h"
#include "dsconfig.h"
#include "error.h"
#include "hardware.h"
#include "model.h"
#include "strategy.h"
#include "training.h"

typedef enum { FMT_TABLE, FMT_JSON, FMT_CSV } out_format;

typedef struct setup {
    model m;
    param_counts pc;
    hardware hw;
    training t;
    ds_config ds;
    char model_path[4096];
    char hw_path[4096];
    char ds_path[4096];
    const strategy *chosen[5];   /* NULL-terminated strategies to evaluate */
    out_format format;
    bool explain;
    /* raw flag values, applied in finish() in a fixed order so flags win over ds_config */
    const char *model_arg, *hw_arg, *ds_arg, *strategy_arg;
    double params, largest_layer;   /* --params, --largest-layer-params; 0 = unset */
    double hbm_override;            /* --hbm bytes; 0 = profile's */
    double tokens;                  /* --tokens: training budget in tokens; 0 = none */
    double price;                   /* --price-per-gpu-hour dollars; < 0 = profile's */
    int n_flags;
    struct { int id; const char *value; } flags[64]; /* training flags, applied after ds_config */
} setup;

/* Option ids shared by the commands that take a model and a configuration. */
enum {
    OPT_MODEL = 1000, OPT_PARAMS, OPT_LARGEST, OPT_HARDWARE, OPT_GPUS, OPT_GPN, OPT_STRATEGY,
    OPT_PRECISION, OPT_OPTIMIZER, OPT_GRAD_DTYPE, OPT_MICRO, OPT_SEQ, OPT_ACCUM, OPT_TP, OPT_PP,
    OPT_VSTAGES, OPT_CKPT, OPT_SP, OPT_EAGER, OPT_OFF_OPT, OPT_OFF_PARAM, OPT_DEEPSPEED,
    OPT_REDUCE_BUCKET, OPT_AG_BUCKET, OPT_PREFETCH, OPT_MAX_LIVE, OPT_PERSIST, OPT_OVERLAP,
    OPT_BUCKET_VIEW, OPT_FORMAT, OPT_EXPLAIN, OPT_HBM, OPT_TOKENS, OPT_PRICE,
};

/* The shared options table (ends with a NULL name). */
extern const cli_opt setup_options[];

/* Start from the defaults (model none, hardware a100-80gb, strategy all, format table). */
void setup_init(setup *s);

/* Record one shared option. Returns ZS_OK, or ZS_ERR_USAGE for a bad value. */
int setup_take(setup *s, int id, const char *value, zs_error *err);

/* Apply one training flag (an OPT_* id other than model, hardware, files and output) to t.
 * Fails with ZS_ERR_USAGE naming the flag. */
int setup_apply(training *t, int id, const char *value, zs_error *err);

/* Load files and apply flags: model or --params, hardware, ds_config, then the flags, then
 * validation. Fails with ZS_ERR_USAGE (flags) or ZS_ERR_INPUT (files). */
int setup_finish(setup *s, zs_error *err);

#endif
