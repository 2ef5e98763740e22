/* test_training.c -- byte tables, training checks and DeepSpeed config reading. */
#include "dsconfig.h"
#include "test.h"
#include "training.h"

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
    CHECK_EQ_INT(t.reduce_bucket, 5e8);          /* "auto": DeepSpeed's default stays */
    CHECK(t.overlap_comm == 1);
    CHECK(strstr(ds.defaulted, "reduce_bucket_size") != NULL);
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

void suite_training(void)
{
    RUN_TEST(byte_tables);
    RUN_TEST(validate);
    RUN_TEST(deepspeed_configs);
}
