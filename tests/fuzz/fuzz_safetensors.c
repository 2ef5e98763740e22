/* fuzz_safetensors.c -- libFuzzer target: a safetensors header's JSON, checked and counted. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/error.h"
#include "io/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The header as read from a file: any bytes, not NUL-terminated, with 1 MiB of data after. */
    char *json = malloc(size ? size : 1);
    FUZZ_CHECK(json != NULL);
    if (size) memcpy(json, data, size);
    const uint64_t data_size = 1 << 20;
    wt_summary w;
    zs_error err = {0};
    if (safetensors_parse("fuzz.safetensors", json, size, data_size, &w, &err) == ZS_OK) {
        double nums[] = {w.tensors, w.parameters, w.stored_bytes, w.scale_elements, w.scale_bytes,
            w.buffer_elements, w.extra_layer_params, w.packed_tensors};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) fuzz_check_num(nums[k]);
        FUZZ_CHECK(w.stored_bytes <= w.tensors * (double)data_size);
        FUZZ_CHECK(w.n_dtypes >= 0 && w.n_dtypes <= WT_DTYPES);
        double rows = 0;
        for (int i = 0; i < w.n_dtypes; i++) rows += w.by_dtype[i].tensors;
        FUZZ_CHECK(rows == w.tensors);
        weights_compare(&w, 1000, 0);
        fuzz_check_num(w.config_parameters);
    } else {
        fuzz_check_error(&err);
        FUZZ_CHECK(err.code == ZS_ERR_INPUT && strstr(err.msg, "fuzz.safetensors"));
    }
    free(json);
    return 0;
}
