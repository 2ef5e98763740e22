/* test_training.c -- byte tables, training checks and DeepSpeed config reading. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/dsconfig.h"
#include "io/jsonutil.h"
#include "io/model_json.h"
#include "cmd/setup.h"
#include "test.h"
#include "core/training.h"
#include "core/pipeline.h"

static void byte_tables(void)
{
    training t;
    training_init(&t);
    /* ZeRO paper section 3.1: mixed-precision Adam, 2 + 2 + K with K = 12. */
    t.precision = PREC_FP16;
    t.optimizer = OPT_ADAM;
    byte_table b = training_bytes(&t);
    CHECK_EQ_INT(b.param + b.grad + b.master + b.moments, 16);
    CHECK_EQ_INT(b.master + b.moments, 12);
    /* Megatron keeps fp32 main gradients: 18 bytes per parameter (Megatron-LM
     * docs/source/api-guide/dist_optimizer.md table: "fp16 param, fp32 grads": 18). */
    t.grad_bytes = 4;
    b = training_bytes(&t);
    CHECK_EQ_INT(b.param + b.grad + b.master + b.moments, 18);
    /* fp32 Adam: 4 + 4 + 8 = 16 bytes; pure bf16 AdamW: 2 + 2 + 2 + 2 = 8 bytes. */
    t.grad_bytes = 0;
    t.precision = PREC_FP32;
    b = training_bytes(&t);
    CHECK_EQ_INT(b.param + b.grad + b.master + b.moments, 16);
    t.precision = PREC_BF16_PURE;
    b = training_bytes(&t);
    CHECK_EQ_INT(b.param + b.grad + b.master + b.moments, 8);
}

/* Pipeline splits as Megatron-Core computes them (NVIDIA/Megatron-LM@d98e8a64
 * transformer_config.py "Uneven PP", transformer_block.py get_num_layers_to_build) and as
 * DeepSpeed's partition_uniform does (deepspeed/runtime/utils.py). */
static void pipeline_splits(void)
{
    training t;
    training_init(&t);
    pipe_split ps;
    zs_error e = {.quiet = true};
    /* Llama 3 (Dubey et al. 2024, section 3.3.2): 126 layers on 16 stages, one layer fewer on
     * the first and last: 7 + 14 x 8 + 7. */
    t.pp = 16; t.pp_first_layers = 7; t.pp_last_layers = 7;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == 0);
    CHECK_EQ_INT(ps.first, 7); CHECK_EQ_INT(ps.mid, 8); CHECK_EQ_INT(ps.last, 7);
    CHECK_EQ_INT(ps.nviews, 3);
    CHECK_EQ_INT(ps.views[1].index, 1); CHECK_EQ_INT(ps.views[2].index, 15);
    CHECK(ps.views[0].embedding && ps.views[2].head && !ps.views[1].head);
    CHECK_EQ_INT(pipeline_max_layers(&ps), 8);
    /* Only the first given: the last is a middle stage, 119 / 15 does not divide. */
    t.pp_last_layers = 0;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == ZS_ERR_USAGE);
    /* 126 - 6 = 120 over 15 stages of 8 does. */
    t.pp_first_layers = 6;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == 0);
    CHECK_EQ_INT(ps.first, 6); CHECK_EQ_INT(ps.mid, 8); CHECK_EQ_INT(ps.last, 8);
    /* Each stage's layers divisible by the virtual stages: 6 and 8 by 2 yes, by 4 no. */
    t.virtual_stages = 2;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == 0);
    t.virtual_stages = 4;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == ZS_ERR_USAGE);
    /* Two stages: middle layers exactly when there are middle stages. */
    t.virtual_stages = 1; t.pp = 2; t.pp_first_layers = 5; t.pp_last_layers = 7;
    CHECK(pipeline_split(12, &t, true, &ps, &e) == 0);
    CHECK(pipeline_split(13, &t, true, &ps, &e) == ZS_ERR_USAGE);
    CHECK_EQ_INT(ps.nviews, 2);
    t.pp = 1;
    CHECK(pipeline_split(12, &t, true, &ps, &e) == ZS_ERR_USAGE);
    /* No flags: Megatron needs L divisible by pp (and the stage's by v); DeepSpeed's uniform
     * partition of 10 over 4 is [0, 3, 6, 8, 10]: 3, 3, 2, 2. */
    t.pp_first_layers = t.pp_last_layers = 0; t.pp = 16;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == ZS_ERR_USAGE);
    t.pp = 4;
    CHECK(pipeline_split(10, &t, false, &ps, &e) == 0);
    CHECK_EQ_INT(ps.first, 3); CHECK_EQ_INT(ps.mid, 3); CHECK_EQ_INT(ps.last, 2);
    t.pp = 1;
    CHECK(pipeline_split(10, &t, true, &ps, &e) == 0);
    CHECK_EQ_INT(ps.nviews, 1);
    CHECK(ps.views[0].embedding && ps.views[0].head);
    /* The balanced ends plan proposes: 126 on 16 as Llama 3's 7 / 7; with 2 chunks 6 and 8
     * (6 + 14 x 8 + 8, each even); 96 on 8 divides already. */
    int64_t f, l;
    CHECK(pipeline_balance(126, 16, 1, &f, &l) && f == 7 && l == 7);
    CHECK(pipeline_balance(126, 16, 2, &f, &l) && f == 6 && l == 8);
    CHECK(!pipeline_balance(96, 8, 1, &f, &l));
    /* Pace: 7 / 8 / 7 with no head cost is the 8-layer stage over the mean 126 / 16; a head of
     * a tenth of the model on the 7-layer last stage: 16 (0.9 x 7 / 126 + 0.1). */
    t.pp = 16; t.pp_first_layers = t.pp_last_layers = 7;
    CHECK(pipeline_split(126, &t, true, &ps, &e) == 0);
    CHECK_NEAR(pipeline_pace(&ps, 126, 16, 0), 16.0 * 8 / 126, 1e-12);
    CHECK_NEAR(pipeline_pace(&ps, 126, 16, 0.1), 16 * (0.9 * 7 / 126 + 0.1), 1e-12);
    CHECK_NEAR(pipeline_pace(&ps, 126, 1, 0.1), 1, 1e-12);
}

static void validate(void)
{
    training t;
    zs_error e = {0};
    training_init(&t);
    t.gpus = 12; t.tp = 8;
    CHECK(training_validate(&t, &e) == ZS_ERR_USAGE && strstr(e.msg, "--tp"));
    t.gpus = 0; t.tp = 1;
    CHECK(training_validate(&t, &e) == ZS_ERR_USAGE && strstr(e.msg, "--gpus"));
    t.gpus = 16; t.tp = 4; t.pp = 2;
    CHECK(training_validate(&t, &e) == ZS_OK);
    CHECK_EQ_INT(training_dp(&t), 2);
}

static void deepspeed_configs(void)
{
    training t;
    ds_config ds;
    zs_error e = {0};
    /* The HF Trainer's ZeRO-3 offload template: "auto" everywhere, floats for counts. */
    training_init(&t);
    CHECK(dsconfig_load("tests/data/ds_config_hf_zero3.json", &t, &ds, &e) == 0);
    CHECK_EQ_INT(ds.stage, 3);
    CHECK(t.offload_optimizer == OFFLOAD_CPU && t.offload_params == OFFLOAD_CPU);
    CHECK_EQ_INT(t.max_live_params, 1e9);
    CHECK_EQ_INT(t.reduce_bucket, 5e8);          /* "auto": left for dsconfig_fill_auto */
    CHECK(ds.hf_auto[0] && ds.hf_auto[1] && ds.hf_auto[2]);
    CHECK(t.overlap_comm == 1);
    /* Keys read but not modelled are listed, never dropped silently. */
    CHECK(strstr(ds.ignored, "zero_optimization.contiguous_gradients") != NULL);
    CHECK(strstr(ds.ignored, "optimizer.params.lr") != NULL && strstr(ds.ignored, "fp16.loss_scale") != NULL);
    CHECK(ds.optimizer_set && t.optimizer == OPT_ADAMW); /* "type": "AdamW" is read */
    CHECK(strstr(ds.ignored, "stage3_max_live_parameters") == NULL);
    CHECK(strstr(ds.defaulted, "train_micro_batch_size_per_gpu") != NULL);
    /* Numbers and booleans written as strings. */
    training_init(&t);
    CHECK(dsconfig_load("tests/data/ds_config_zero2.json", &t, &ds, &e) == 0);
    CHECK_EQ_INT(ds.stage, 2);
    CHECK_EQ_INT(t.allgather_bucket, 2e8);
    CHECK_EQ_INT(t.reduce_bucket, 2e8);
    CHECK(t.overlap_comm == 0);
    CHECK(t.precision == PREC_BF16);
    CHECK_EQ_INT(t.micro_batch, 4);
    CHECK_EQ_INT(ds.train_batch_size, 256);
    /* Bad values name the key. */
    cJSON *j = cJSON_Parse("{\"zero_optimization\": {\"stage\": 4}}");
    CHECK(dsconfig_from_json(j, "ds.json", &t, &ds, &e) == ZS_ERR_INPUT && strstr(e.msg, "stage"));
    cJSON_Delete(j);
    j = cJSON_Parse("{\"zero_optimization\": {\"offload_optimizer\": {\"device\": \"gpu\"}}}");
    CHECK(dsconfig_from_json(j, "ds.json", &t, &ds, &e) == ZS_ERR_INPUT && strstr(e.msg, "offload_optimizer.device"));
    cJSON_Delete(j);
}

/* Run setup on flags; returns its code and leaves the setup in *s. */
static int setup_run(setup *s, const char *const *args, zs_error *e)
{
    setup_init(s);
    int argc = 0;
    while (args[argc]) argc++;
    int i = 0, id;
    const char *v;
    while ((id = cli_next(argc, test_argv(args), &i, setup_options, &v, e)) > 0)
        if (setup_take(s, id, v, e)) return e->code;
    if (id == CLI_ERROR) return e->code;
    return setup_finish(s, e);
}

/* DeepSpeed's legacy keys and its asserted batch identity (deepspeed/runtime/zero/config.py
 * maps cpu_offload to offload_optimizer device cpu; constants.py keeps "bfloat16" as the old
 * name of "bf16"; config.py _batch_assertion); Python's json keeps the last duplicate key. */
static void deepspeed_legacy(void)
{
    training t;
    ds_config ds;
    zs_error e = {0};
    training_init(&t);
    CHECK(dsconfig_load("tests/data/ds_config_legacy.json", &t, &ds, &e) == 0);
    CHECK(t.offload_optimizer == OFFLOAD_CPU);
    CHECK(t.precision == PREC_BF16);              /* not fp32 */
    CHECK_EQ_INT(ds.stage, 2);                    /* "stage": 1, "stage": 2 -> 2 */
    CHECK(ds.reduce_bucket_zero);                 /* DeepSpeed accepts 0 */
    CHECK(strstr(ds.ignored, "gradient_clipping") && strstr(ds.ignored, "contiguous_gradients"));
    /* 64 = 4 x 2 x 8 holds on 8 GPUs; on 4 DeepSpeed's assertion fails, and so does setup. */
    setup s;
    const char *ok[] = {"--model", "llama-2-7b", "--gpus", "8", "--deepspeed", "tests/data/ds_config_legacy.json", NULL};
    CHECK(setup_run(&s, ok, &e) == ZS_OK);
    /* The one-tensor bucket is the largest tensor: llama-2-7b's 32000 x 4096 embedding
     * (HF config.json vocab_size 32000, hidden_size 4096). */
    CHECK_EQ_INT(s.t.reduce_bucket, 32000 * 4096);
    CHECK(strstr(s.ds_notes, "ignored (not modelled)") != NULL);
    const char *bad[] = {"--model", "llama-2-7b", "--gpus", "4", "--deepspeed", "tests/data/ds_config_legacy.json", NULL};
    CHECK(setup_run(&s, bad, &e) == ZS_ERR_INPUT && strstr(e.msg, "train_batch_size 64"));
    /* An explicit flag that breaks the identity fails too. */
    const char *bad2[] = {"--model", "llama-2-7b", "--gpus", "8", "--micro-batch", "2", "--deepspeed", "tests/data/ds_config_legacy.json", NULL};
    CHECK(setup_run(&s, bad2, &e) == ZS_ERR_INPUT);
}

/* "auto" as the HF Trainer fills it (transformers integrations/deepspeed.py and the HF
 * DeepSpeed docs: reduce_bucket_size = hidden_size^2, stage3_prefetch_bucket_size =
 * 0.9 hidden_size^2, stage3_param_persistence_threshold = 10 hidden_size), for llama-2-7b's
 * hidden_size 4096 (its HF config.json). */
static void deepspeed_hf_auto(void)
{
    setup s;
    zs_error e = {0};
    const char *args[] = {"--model", "llama-2-7b", "--gpus", "8", "--deepspeed", "tests/data/ds_config_hf_auto.json", NULL};
    CHECK(setup_run(&s, args, &e) == ZS_OK);
    CHECK_EQ_INT(s.t.reduce_bucket, 16777216);
    CHECK_EQ_INT(s.t.prefetch_bucket, 15099494);
    CHECK_EQ_INT(s.t.persistence_threshold, 40960);
    CHECK(strstr(s.ds_notes, "HF Trainer") != NULL);
    /* A flag still wins over the filled value. */
    const char *flag[] = {"--model", "llama-2-7b", "--gpus", "8", "--reduce-bucket", "5e8", "--deepspeed", "tests/data/ds_config_hf_auto.json", NULL};
    CHECK(setup_run(&s, flag, &e) == ZS_OK);
    CHECK_EQ_INT(s.t.reduce_bucket, 5e8);
}

/* Read text as a ds_config over defaults; returns the reader's code. */
static int ds_text(const char *text, training *t, ds_config *ds, zs_error *e)
{
    cJSON *j = cJSON_Parse(text);
    training_init(t);
    int rc = dsconfig_from_json(j, "ds.json", t, ds, e);
    cJSON_Delete(j);
    return rc;
}

/* Issue 22: optimizer.type as DeepSpeed resolves it (microsoft/DeepSpeed@38327e07
 * deepspeed/runtime/config.py lowercases DEEPSPEED_OPTIMIZERS names; engine.py
 * _configure_basic_optimizer runs "Adam" as AdamW unless adam_w_mode is false, FusedLamb keeps
 * exp_avg and exp_avg_sq, anything else is torch.optim's exact name). */
static void deepspeed_optimizer(void)
{
    training t;
    ds_config ds;
    zs_error e = {0};
    CHECK(ds_text("{\"optimizer\": {\"type\": \"SGD\"}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.optimizer == OPT_SGD && ds.optimizer_set);
    CHECK_EQ_INT(training_bytes(&t).moments, 4);
    CHECK(ds_text("{\"optimizer\": {\"type\": \"Adafactor\"}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.optimizer == OPT_ADAFACTOR);
    CHECK(ds_text("{\"optimizer\": {\"type\": \"adam\"}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.optimizer == OPT_ADAMW && strstr(ds.optimizer_note, "adam_w_mode"));
    CHECK(ds_text("{\"optimizer\": {\"type\": \"Adam\", \"params\": {\"adam_w_mode\": false}}}", &t, &ds, &e) ==
        ZS_OK);
    CHECK(t.optimizer == OPT_ADAM);
    CHECK(ds_text("{\"optimizer\": {\"type\": \"Lamb\"}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.optimizer == OPT_ADAM && strstr(ds.optimizer_note, "FusedLamb"));
    CHECK_EQ_INT(training_bytes(&t).moments, 8);
    /* No type: DeepSpeed takes the client's optimizer; the default stays and is listed. */
    CHECK(ds_text("{\"optimizer\": {\"params\": {\"lr\": 1}}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.optimizer == OPT_ADAMW && !ds.optimizer_set && strstr(ds.defaulted, "optimizer.type"));
    CHECK(ds_text("{\"optimizer\": {\"type\": \"OneBitAdam\"}}", &t, &ds, &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "optimizer.type") && strstr(e.msg, "it knows Adam, AdamW"));
    CHECK(ds_text("{\"optimizer\": {\"type\": \"sgd\"}}", &t, &ds, &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "case-sensitive") != NULL);
    /* Flags still win, and the report line says which. */
    setup s;
    const char *args[] = {"--model", "llama-2-7b", "--gpus", "8", "--optimizer", "adam8bit", "--deepspeed",
        "tests/data/ds_config_hf_zero3.json", NULL};
    CHECK(setup_run(&s, args, &e) == ZS_OK);
    CHECK(s.t.optimizer == OPT_ADAM8BIT && strstr(s.ds_notes, "--optimizer adam8bit wins"));
}

/* Issue 22: fp16 and bf16 both enabled is refused (DeepSpeedConfig._initialize_params asserts
 * 'bfloat16 and fp16 modes cannot be simultaneously enabled', deepspeed/runtime/config.py);
 * get_bfloat16_enabled reads "bf16" before its old name "bfloat16"; neither enabled is fp32. */
static void deepspeed_precision(void)
{
    training t;
    ds_config ds;
    zs_error e = {0};
    CHECK(ds_text("{\"fp16\": {\"enabled\": true}, \"bf16\": {\"enabled\": true}}", &t, &ds, &e) ==
        ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "cannot be simultaneously enabled") != NULL);
    CHECK(ds_text("{\"fp16\": {\"enabled\": true}, \"bfloat16\": {\"enabled\": true}}", &t, &ds, &e) ==
        ZS_ERR_INPUT);
    CHECK(ds_text("{\"fp16\": {\"enabled\": true}}", &t, &ds, &e) == ZS_OK && t.precision == PREC_FP16);
    CHECK(ds_text("{\"zero_optimization\": {\"stage\": 1}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.precision == PREC_FP32 && strstr(ds.precision_note, "no fp16 or bf16 section: fp32"));
    CHECK(ds_text("{\"fp16\": {\"enabled\": false}}", &t, &ds, &e) == ZS_OK && t.precision == PREC_FP32);
    /* "bf16" decides before "bfloat16": false there is fp32 whatever the old name says. */
    CHECK(ds_text("{\"bf16\": {\"enabled\": false}, \"bfloat16\": {\"enabled\": true}}", &t, &ds, &e) ==
        ZS_OK);
    CHECK(t.precision == PREC_FP32);
    /* "auto" (the HF Trainer decides) keeps the default, with no fp32 note. */
    CHECK(ds_text("{\"bf16\": {\"enabled\": \"auto\"}}", &t, &ds, &e) == ZS_OK);
    CHECK(t.precision == PREC_BF16 && ds.precision_note[0] == '\0');
    /* A config that enables bf16 gets no fp32 note on the report line. */
    setup s;
    const char *args[] = {"--model", "llama-2-7b", "--gpus", "8", "--deepspeed", "tests/data/ds_config_zero2.json",
        NULL};
    CHECK(setup_run(&s, args, &e) == ZS_OK && strstr(s.ds_notes, "fp32") == NULL);
}

/* Issue 22: a HF config.json is no ds_config; groups larger than DP are refused by key. */
static void deepspeed_misuse(void)
{
    training t;
    ds_config ds;
    zs_error e = {0};
    CHECK(ds_text("{\"model_type\": \"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
                  "\"vocab_size\": 32000}", &t, &ds, &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "ds.json looks like a model config.json (model_type \"llama\"), not a DeepSpeed "
                        "config: give it as --model") != NULL);
    /* A ds_config that happens to carry a hidden_size among its own keys is still read. */
    CHECK(ds_text("{\"hidden_size\": 4096, \"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true}}",
        &t, &ds, &e) == ZS_OK);
    setup s;
    const char *args[] = {"--model", "llama-2-7b", "--gpus", "4", "--deepspeed", "tests/data/ds_config_mics64.json",
        NULL};
    CHECK(setup_run(&s, args, &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "zero_optimization.mics_shard_size 64 does not divide DP x CP = 4") != NULL);
    /* The flag wins over the key, and is checked by the core. */
    const char *flag[] = {"--model", "llama-2-7b", "--gpus", "4", "--shard-group", "2", "--deepspeed",
        "tests/data/ds_config_mics64.json", NULL};
    CHECK(setup_run(&s, flag, &e) == ZS_OK && s.t.shard_group == 2);
    CHECK_EQ_INT(training_check_group(16, 8, "--shard-group", ZS_ERR_USAGE, &e), ZS_ERR_USAGE);
    CHECK_EQ_INT(training_check_group(3, 8, "--shard-group", ZS_ERR_USAGE, &e), ZS_ERR_USAGE);
    CHECK_EQ_INT(training_check_group(8, 8, "--shard-group", ZS_ERR_USAGE, &e), ZS_OK);
}

/* Duplicate keys in any JSON input: the last value wins, as Python's json.load (and so HF and
 * DeepSpeed) reads them; cJSON alone returns the first. llama-2-7b's HF config.json has 32
 * layers; a file that says 16 then 32 has 32. */
static void json_duplicates(void)
{
    char path[] = "/tmp/zs-dupXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    FILE *src = fopen("models/llama-2-7b.json", "r");
    CHECK(f && src);
    if (!f || !src) { if (f) fclose(f); if (src) fclose(src); remove(path); return; }
    int c, injected = 0;
    while ((c = fgetc(src)) != EOF) {
        fputc(c, f);
        if (c == '{' && !injected++) fputs("\"num_hidden_layers\": 16,\n", f);
    }
    fclose(src);
    fclose(f);
    model m;
    zs_error e = {0};
    CHECK(model_load(path, &m, &e) == ZS_OK);
    CHECK_EQ_INT(m.num_layers, 32);
    remove(path);
    cJSON *j = cJSON_Parse("{\"a\": 1, \"b\": {\"x\": 1, \"x\": 2}, \"a\": 3}");
    CHECK(json_last_key_wins(j) == 0);
    CHECK_EQ_INT(cJSON_GetObjectItem(j, "a")->valuedouble, 3);
    CHECK_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "b"), "x")->valuedouble, 2);
    CHECK_EQ_INT(cJSON_GetArraySize(j), 2);
    cJSON_Delete(j);
}

void suite_training(void)
{
    RUN_TEST(byte_tables);
    RUN_TEST(pipeline_splits);
    RUN_TEST(validate);
    RUN_TEST(deepspeed_configs);
    RUN_TEST(deepspeed_legacy);
    RUN_TEST(deepspeed_hf_auto);
    RUN_TEST(deepspeed_optimizer);
    RUN_TEST(deepspeed_precision);
    RUN_TEST(deepspeed_misuse);
    RUN_TEST(json_duplicates);
}
