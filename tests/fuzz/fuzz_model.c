/* fuzz_model.c -- libFuzzer target: model files (HF config.json and ours) through count and simulation. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "io/model_json.h"

/* A few shapes of run, so tensor and pipeline parallelism and offload see the parsed model. */
static void simulate(const model *m, const param_counts *pc)
{
    const hardware *hw = fuzz_ref_hardware();
    training t;
    training_init(&t);
    t.gpus = 8;
    t.seq_len = 1024;
    fuzz_simulate(m, pc, hw, &t, NULL);

    t.gpus = 64;
    t.tp = 2;
    t.pp = 2;
    t.virtual_stages = 2;
    t.micro_batch = 2;
    t.grad_accum = 8;
    t.seq_len = 4096;
    t.checkpointing = CKPT_SELECTIVE;
    t.sequence_parallel = true;
    fuzz_simulate(m, pc, hw, &t, NULL);

    training_init(&t);
    t.gpus = 16;
    t.checkpointing = CKPT_FULL;
    t.flash_attention = false;
    t.offload_optimizer = OFFLOAD_CPU;
    t.offload_params = OFFLOAD_NVME;
    fuzz_simulate(m, pc, hw, &t, &strat_zero3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    /* As json_load_object parses a file: the whole text must be one JSON object. */
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    if (cJSON_IsObject(root)) {
        model m;
        zs_error err = {0};
        if (model_from_json(root, "fuzz", &m, &err) == ZS_OK) {
            param_counts pc;
            /* a model that loaded validated, so it must count */
            FUZZ_CHECK(model_count(&m, 1e5, &pc, &err) == ZS_OK);
            const double v[] = {pc.total, pc.active, pc.embedding, pc.lm_head, pc.final_norm,
                                pc.per_layer, pc.per_layer_active, pc.attention_per_layer,
                                pc.mlp_per_layer, pc.norm_per_layer, pc.largest_module,
                                pc.largest_tensor, pc.layer_small_params, pc.global_small_params,
                                pc.modules_per_layer};
            for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) fuzz_check_num(v[i]);
            FUZZ_CHECK(pc.total > 0 && pc.active <= pc.total);
            simulate(&m, &pc);
        } else {
            fuzz_check_error(&err);
        }
    }
    cJSON_Delete(root);
    free(text);
    return 0;
}
