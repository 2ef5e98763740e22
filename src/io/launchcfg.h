/* launchcfg.h -- training launcher configs (Axolotl, LLaMA-Factory, HF accelerate, HF
 * TrainingArguments/TRL, Megatron-LM arguments, torchtitan) read into training fields, every key
 * reported as used, defaulted or ignored. */
#ifndef ZS_LAUNCHCFG_H
#define ZS_LAUNCHCFG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/training.h"

typedef enum {
    LAUNCH_AXOLOTL,
    LAUNCH_LLAMAFACTORY,
    LAUNCH_ACCELERATE,
    LAUNCH_TRL,
    LAUNCH_MEGATRON,
    LAUNCH_TITAN
} launch_format;

typedef struct launch_config {
    launch_format format;
    training t;                           /* training_init's, with the fields the file set */
    uint64_t set;                         /* bit id - TRAINING_FLAG_FIRST: the file set training flag id */
    char key_of[TRAINING_FLAG_COUNT][48]; /* the key that set each flag, for "--flag wins" */
    char model[1024];                     /* base_model / model_name_or_path ("": none) */
    char model_key[32];
    char model_json[2048]; /* a HF-style config.json the file's shape arguments describe (Megatron's
                              --num-layers...), read when no model is named ("": none) */
    int64_t global_batch;  /* sequences per step over all DP ranks (Megatron --global-batch-size,
                              torchtitan training.global_batch_size); 0: none. Setup derives the
                              accumulation from it after the flags, with the framework's rule */
    char global_key[48];
    int64_t recompute_every; /* torchtitan's layer-wise checkpointing: one block in each `every`
                                (setup turns it into --recompute-layers once the model is known) */
    char batch_rule[160];    /* the framework's rule the global batch is checked by, for messages */
    char ds_path[4096];      /* a ds_config to follow ("": none), relative to the file */
    char ds_key[96];
    const char *strategy;  /* the strategy the file implies ("zero3", "ddp"...), or NULL */
    const char *framework; /* "deepspeed", "fsdp", "fsdp2", or NULL */
    char strategy_key[96], framework_key[96];
    bool shard_per_node;  /* HYBRID_SHARD: shard within a node, replicate across */
    char used[2048];      /* "key value -> what", "; "-separated */
    char defaulted[1024]; /* "key (the framework's default)", "; "-separated */
    char ignored[2048];   /* "key (why)", "; "-separated */
} launch_config;

/* The name of format f as the report says it ("axolotl", "llama-factory", "accelerate", "trl",
 * "megatron", "torchtitan"). Never fails ("?" for no format). */
const char *launch_format_name(launch_format f);

/* Read the launcher config at path (YAML, JSON or a Megatron-LM argument list or launch script),
 * recognising its format by its content, into lc. A TOML file is refused, naming how to convert
 * it to JSON. Fails
 * with ZS_ERR_INPUT naming the file and keys: a file of no known format, a value of the wrong
 * kind, keys that contradict each other (fp16 and bf16 both true); ZS_ERR_INPUT naming the path when
 * unreadable. */
int launchcfg_load(const char *path, launch_config *lc, zs_error *err);

/* The same from len bytes of text; origin names it in messages. A ds_config it names is
 * recorded in ds_path but not opened here. */
int launchcfg_from_text(const char *text, size_t len, const char *origin, launch_config *lc, zs_error *err);

#endif
