/* setup.h -- the flags every planning command shares, turned into model, hardware and training. */
#ifndef ZS_SETUP_H
#define ZS_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cli.h"
#include "io/dsconfig.h"
#include "io/launchcfg.h"
#include "io/model_json.h"
#include "io/weights.h"
#include "core/error.h"
#include "core/hardware.h"
#include "core/hwvariant.h"
#include "core/model.h"
#include "report/report.h"
#include "core/scenario.h"
#include "core/strategy.h"
#include "core/training.h"

typedef struct setup {
    model m;
    param_counts pc;
    hardware hw; /* with --hbm and --price-per-gpu-hour applied */
    training t;
    ds_config ds;
    char model_path[4096];
    char hw_path[4096];
    char ds_path[4096];
    char model_used[256], hw_used[256]; /* the catalog entry a loosely written name matched ("": as given) */
    const strategy *chosen[STRATEGY_MAX + 1]; /* NULL-terminated strategies to evaluate */
    out_format format;
    bool explain;
    /* file and strategy arguments, resolved in finish() */
    const char *model_arg, *hw_arg, *ds_arg, *strategy_arg, *framework_arg;
    const char *weights_arg;      /* --weights: a safetensors checkpoint, checked against --model */
    wt_summary weights;           /* what it holds, compared with pc (when weights_arg) */
    bool model_positional;        /* the model was the command's positional argument */
    bool strict;                  /* --strict: refuse a model_type zerosim does not know */
    model_notes notes;            /* what loading the model used or left out (printed by the command) */
    bool all_frameworks;          /* --framework all (plan): every real framework */
    double params, largest_layer; /* --params, --largest-layer-params; 0 = unset */
    double hbm_override;          /* --hbm bytes; 0 = profile's */
    double tokens;                /* --tokens: training budget in tokens; 0 = none */
    double price;                 /* --price-per-gpu-hour dollars; < 0 = profile's */
    double decoder_seq;           /* --decoder-seq-len tokens (encoder-decoder); 0 = the model's */
    hw_variant variant;           /* --network-bandwidth, --nics-per-node, --power-cap (0 = profile's) */
    /* Training flags are parsed when read (a bad value is a usage error before any file is
     * opened) into flag_t, and copied over t after ds_config in finish(), so flags win. */
    training flag_t;
    bool searches_gpus;  /* plan: --gpus is searched, so train_batch_size is not
                            checked against the flag's DP */
    char ds_notes[2048]; /* what the ds_config report line says beyond the path */
    uint64_t given;      /* bit id - TRAINING_FLAG_FIRST: training flag id was given */
    const char *cfg_arg;  /* --config: a launcher YAML (Axolotl, LLaMA-Factory, accelerate), or NULL */
    launch_config cfg;    /* what it set (read in finish) */
    char cfg_over[1024];  /* "key: --flag wins", "; "-separated: the command line over the file */
} setup;

/* Ids of the shared options that are no training flag (the training flags' are training.h's
 * OPT_GPUS ...). */
enum {
    OPT_MODEL = 1000,
    OPT_PARAMS,
    OPT_LARGEST,
    OPT_HARDWARE,
    OPT_HBM,
    OPT_STRATEGY,
    OPT_FRAMEWORK,
    OPT_DEC_SEQ,
    OPT_DEEPSPEED,
    OPT_TOKENS,
    OPT_PRICE,
    OPT_FORMAT,
    OPT_EXPLAIN,
    OPT_WEIGHTS,
    OPT_STRICT,
    OPT_CONFIG,
    OPT_NET_BW,
    OPT_NICS,
    OPT_POWER_CAP,
};

/* The shared options table (ends with a NULL name), built once from training_flags[] and
 * setup's own rows, choice lists in the help generated from their tables. */
const cli_opt *setup_options_table(void);
#define setup_options (setup_options_table())

/* "--gpus --gpus-per-node ...": the flags sweep takes lists and ranges of, wrapped into lines
 * of at most width columns, the first starting at column `col`. Writes into buf (len bytes)
 * and returns it. Never fails: a list too long is cut. */
const char *setup_sweepable(char *buf, size_t len, int col, int width);

/* Start from the defaults (model none, hardware a100-80gb, strategy all, format table). */
void setup_init(setup *s);

/* Record one shared option, parsing its value. Returns ZS_OK, or ZS_ERR_USAGE for a bad
 * value. */
int setup_take(setup *s, int id, const char *value, zs_error *err);

/* Apply one training flag (a training.h OPT_* id) to t. Fails with ZS_ERR_USAGE naming the
 * flag, the value and what was expected. */
int setup_apply(training *t, int id, const char *value, zs_error *err);

/* Whether the shared option `id` (an OPT_* training flag) was given. Never fails. */
static inline bool setup_flag_given(const setup *s, int id)
{
    return training_flag(id) && (s->given >> (id - TRAINING_FLAG_FIRST) & 1);
}

/* Load files and apply flags: model or --params, hardware, ds_config, then the flags, then
 * validation. Fails with ZS_ERR_USAGE (flags) or ZS_ERR_INPUT (files). */
int setup_finish(setup *s, zs_error *err);

/* With --weights, when the checkpoint's parameters differ from the config's by more than its
 * buffers and extra layers explain: one line naming the file, both counts and the difference,
 * written into buf (len bytes); returns whether there is one. Never fails. */
bool setup_weights_warning(const setup *s, char *buf, size_t len);

/* The finished setup as the plain scenario the core reads (pointers into s). Never fails. */
scenario setup_scenario(const setup *s);

/* What the report needs beyond the scenario: format, --explain, ds_config notes. */
report_options setup_report_options(const setup *s);

/* The shared options and a command's own (extra may be NULL; first when extra_first), less
 * the shared ones named in `drop` (a NULL-terminated list of names, may be NULL), into out
 * (cap entries, NULL-name terminated). Returns out. Never fails: options past cap are left
 * out. */
const cli_opt *setup_merge_options(
    const cli_opt *extra, bool extra_first, const char *const *drop, cli_opt *out, int cap);

/* "table|json|csv": --format's names in out_format's order (the index is the format), for the
 * commands whose --format is their own (validate). Never fails. */
const char *setup_format_names(void);

#endif
