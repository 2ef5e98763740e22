/* fuzz_hardware.c -- libFuzzer target: hardware profiles through validation and simulation. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "io/hardware_json.h"

/* The reference model on the parsed hardware: plain, model-parallel, offloaded. */
static void simulate(const hardware *hw)
{
    const param_counts *pc;
    const model *m = fuzz_ref_model(&pc);
    training t;
    training_init(&t);
    t.gpus = 8;
    /* the first precision the profile has a peak for (V100: no bf16) */
    if (hw->peak_bf16 <= 0) t.precision = hw->peak_fp16 > 0 ? PREC_FP16 : PREC_FP32;
    fuzz_simulate(m, pc, hw, &t, NULL);

    t.gpus = 96;
    t.tp = 4;
    t.pp = 3;
    t.micro_batch = 4;
    t.grad_accum = 4;
    t.seq_len = 8192;
    t.checkpointing = CKPT_FULL;
    fuzz_simulate(m, pc, hw, &t, NULL);

    t.gpus = 24;
    t.tp = t.pp = 1;
    t.gpus_per_node = 3;
    t.offload_optimizer = OFFLOAD_CPU;
    fuzz_simulate(m, pc, hw, &t, NULL);
    t.offload_optimizer = OFFLOAD_NVME;
    t.offload_params = OFFLOAD_NVME;
    fuzz_simulate(m, pc, hw, &t, &strat_zero3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    if (cJSON_IsObject(root)) {
        hardware hw;
        zs_error err = {0};
        if (hardware_from_json(root, "fuzz", &hw, &err) == ZS_OK) {
            /* what loaded must pass the check the CLI repeats after --hbm */
            FUZZ_CHECK(hardware_validate(&hw, &err) == ZS_OK);
            FUZZ_CHECK(memchr(hw.name, '\0', sizeof hw.name) && memchr(hw.intra.kind, '\0', sizeof hw.intra.kind));
            simulate(&hw);
        } else {
            fuzz_check_error(&err);
        }
    }
    cJSON_Delete(root);
    free(text);
    return 0;
}
