/* setup.h -- the flags every planning command shares, turned into model, hardware and training. */
#ifndef ZS_SETUP_H
#define ZS_SETUP_H

#include <stdbool.h>

#include "cmd/cli.h"
#include "io/dsconfig.h"
#include "core/error.h"
#include "core/hardware.h"
#include "core/model.h"
#include "report/report.h"
#include "core/scenario.h"
#include "core/strategy.h"
#include "core/training.h"

typedef struct setup {
    model m;
    param_counts pc;
    hardware hw;                 /* with --hbm and --price-per-gpu-hour applied */
    training t;
    ds_config ds;
    char model_path[4096];
    char hw_path[4096];
    char ds_path[4096];
    const strategy *chosen[STRATEGY_MAX + 1]; /* NULL-terminated strategies to evaluate */
    out_format format;
    bool explain;
    /* file and strategy arguments, resolved in finish() */
    const char *model_arg, *hw_arg, *ds_arg, *strategy_arg, *framework_arg;
    bool all_frameworks;            /* --framework all (plan): every real framework */
    double params, largest_layer;   /* --params, --largest-layer-params; 0 = unset */
    double hbm_override;            /* --hbm bytes; 0 = profile's */
    double tokens;                  /* --tokens: training budget in tokens; 0 = none */
    double price;                   /* --price-per-gpu-hour dollars; < 0 = profile's */
    double decoder_seq;             /* --decoder-seq-len tokens (encoder-decoder); 0 = the model's */
    /* Training flags are parsed when read (a bad value is a usage error before any file is
     * opened) into flag_t, and copied over t after ds_config in finish(), so flags win. */
    training flag_t;
    bool searches_gpus;             /* plan: --gpus is searched, so train_batch_size is not
                                       checked against the flag's DP */
    char ds_notes[2048];            /* what the ds_config report line says beyond the path */
    int n_flags;
    int flags[64];                  /* OPT_* ids given, in order */
} setup;

/* Option ids shared by the commands that take a model and a configuration. */
enum {
    OPT_MODEL = 1000, OPT_PARAMS, OPT_LARGEST, OPT_HARDWARE, OPT_GPUS, OPT_GPN, OPT_STRATEGY,
    OPT_PRECISION, OPT_OPTIMIZER, OPT_GRAD_DTYPE, OPT_MICRO, OPT_SEQ, OPT_ACCUM, OPT_TP, OPT_PP,
    OPT_VSTAGES, OPT_CKPT, OPT_SP, OPT_EAGER, OPT_OFF_OPT, OPT_OFF_PARAM, OPT_DEEPSPEED,
    OPT_REDUCE_BUCKET, OPT_AG_BUCKET, OPT_PREFETCH, OPT_MAX_LIVE, OPT_PERSIST, OPT_OVERLAP,
    OPT_BUCKET_VIEW, OPT_FORMAT, OPT_EXPLAIN, OPT_HBM, OPT_TOKENS, OPT_PRICE, OPT_FRAMEWORK,
    OPT_SHARD_GROUP, OPT_HPZ, OPT_QWZ, OPT_QGZ, OPT_GEMM_EFF, OPT_CP, OPT_EP, OPT_MOE_IMBALANCE, OPT_FINETUNE, OPT_LORA_RANK, OPT_LORA_TARGETS, OPT_DEC_SEQ,
};

/* The shared options table (ends with a NULL name). */
extern const cli_opt setup_options[];

/* Start from the defaults (model none, hardware a100-80gb, strategy all, format table). */
void setup_init(setup *s);

/* Record one shared option, parsing its value. Returns ZS_OK, or ZS_ERR_USAGE for a bad
 * value. */
int setup_take(setup *s, int id, const char *value, zs_error *err);

/* Apply one training flag (an OPT_* id other than model, hardware, files and output) to t.
 * Fails with ZS_ERR_USAGE naming the flag. */
int setup_apply(training *t, int id, const char *value, zs_error *err);

/* Whether the shared option `id` (an OPT_* training flag) was given. Never fails. */
bool setup_flag_given(const setup *s, int id);

/* Load files and apply flags: model or --params, hardware, ds_config, then the flags, then
 * validation. Fails with ZS_ERR_USAGE (flags) or ZS_ERR_INPUT (files). */
int setup_finish(setup *s, zs_error *err);

/* The finished setup as the plain scenario the core reads (pointers into s). Never fails. */
scenario setup_scenario(const setup *s);

/* What the report needs beyond the scenario: format, --explain, ds_config notes. */
report_options setup_report_options(const setup *s);

/* The shared options and a command's own (extra may be NULL; first when extra_first), less
 * the shared ones named in `drop` (a NULL-terminated list of names, may be NULL), into out
 * (cap entries, NULL-name terminated). Returns out. Never fails: options past cap are left
 * out. */
const cli_opt *setup_merge_options(const cli_opt *extra, bool extra_first, const char *const *drop,
                                   cli_opt *out, int cap);

#endif
