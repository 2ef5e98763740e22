/* test_hardware.c -- hardware profiles load, carry their datasheet figures, and reject bad fields. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "io/catalog.h"
#include "io/hardware_json.h"
#include "io/jsonutil.h"
#include "test.h"

static void catalog_profiles(void)
{
    char **names;
    zs_error e = {0};
    CHECK(catalog_list("hardware", &names, &e) == 0);
    int n = 0;
    for (char **p = names; names && *p; p++, n++) {
        char path[4096];
        hardware hw;
        test_current = *p;
        CHECK(catalog_resolve("hardware", *p, path, sizeof path, &e) == 0);
        CHECK(hardware_load(path, &hw, &e) == 0);
    }
    catalog_free(names);
    CHECK(n >= 5);
}

static void datasheet_values(void)
{
    char path[4096];
    hardware hw;
    zs_error e = {0};
    /* NVIDIA A100 datasheet: 312 TFLOPS dense bf16, NVLink 600 GB/s (300 per direction);
     * nvidia-smi shows 81920 MiB on A100 80GB. DGX A100: 8 GPUs, HDR 200 Gb/s NICs. */
    CHECK(catalog_resolve("hardware", "a100-80gb", path, sizeof path, &e) == 0);
    CHECK(hardware_load(path, &hw, &e) == 0);
    CHECK_NEAR(hw.peak_bf16, 312e12, 1e-9);
    CHECK_NEAR(hw.intra.bandwidth, 300e9, 1e-9);
    CHECK_NEAR(hw.inter.bandwidth, 25e9, 1e-9);
    CHECK_NEAR(hw.hbm_bytes, 81920.0 * 1048576, 1e-12);
    CHECK_EQ_INT(hw.gpus_per_node, 8);
    /* DGX-2: 16 V100s on NVSwitch; V100 SXM3 datasheet: 125 TFLOPS fp16 tensor. */
    CHECK(catalog_resolve("hardware", "v100-32gb", path, sizeof path, &e) == 0);
    CHECK(hardware_load(path, &hw, &e) == 0);
    CHECK_EQ_INT(hw.gpus_per_node, 16);
    /* H100 SXM: 989.5 TFLOPS dense bf16 (1979 with sparsity), NDR 400 Gb/s = 50 GB/s. */
    CHECK(catalog_resolve("hardware", "h100-80gb", path, sizeof path, &e) == 0);
    CHECK(hardware_load(path, &hw, &e) == 0);
    CHECK_NEAR(hw.peak_bf16, 989.5e12, 1e-3);
    CHECK_NEAR(hw.inter.bandwidth, 50e9, 1e-9);
}

static void bad_profiles(void)
{
    static const struct { const char *json, *want; } cases[] = {
        {"{\"node\":{}}", "missing section \"gpu\""},
        {"{\"gpu\":{\"hbm_bytes\":-5},\"node\":{},\"intra_node\":{},\"inter_node\":{},\"host_link\":{}}", "hbm_bytes"},
        {"{\"gpu\":{\"hbm_bytes\":\"lots\"},\"node\":{},\"intra_node\":{},\"inter_node\":{},\"host_link\":{}}", "hbm_bytes"},
        {"{\"gpu\":{\"hbm_bytes\":8e10,\"hbm_bandwidth_bytes_per_second\":2e12},\"node\":{},\"intra_node\":{},\"inter_node\":{},\"host_link\":{}}", "gpus_per_node"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *j = cJSON_Parse(cases[i].json);
        hardware hw;
        zs_error e = {0};
        CHECK(j != NULL);
        CHECK(hardware_from_json(j, "x.json", &hw, &e) == ZS_ERR_INPUT);
        test_report(strstr(e.msg, cases[i].want) != NULL && strncmp(e.msg, "x.json", 6) == 0,
                    __FILE__, __LINE__, "message \"%s\" should start with x.json and name %s", e.msg, cases[i].want);
        cJSON_Delete(j);
    }
}

/* The one field table loads, bounds-checks and writes: a value written through it loads back,
 * one out of its bounds is refused with the field named, and 0 means "none" only where the
 * table says so (an absent fp8 peak) or "default" (attention_fraction). */
static void field_table(void)
{
    char path[4096];
    hardware hw, back;
    zs_error e = {0};
    cJSON *root;
    CHECK(catalog_resolve("hardware", "h100-80gb", path, sizeof path, &e) == 0);
    CHECK(hardware_load(path, &hw, &e) == 0);
    CHECK(json_load_object(path, &root, &e) == 0);
    hw.intra.latency = 2.5e-6;
    hw.allocator_fraction = 0.125;
    CHECK(hardware_json_set(root, &hw, offsetof(hardware, intra.latency), &e) == 0);
    CHECK(hardware_json_set(root, &hw, offsetof(hardware, allocator_fraction), &e) == 0);
    CHECK(hardware_from_json(root, "t", &back, &e) == 0);
    CHECK_NEAR(back.intra.latency, 2.5e-6, 0);
    CHECK_NEAR(back.allocator_fraction, 0.125, 0);
    hw.intra.latency = 71428; /* the fitted latency: seconds */
    CHECK(hardware_json_set(root, &hw, offsetof(hardware, intra.latency), &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "intra_node.latency_seconds") != NULL);
    hw.allocator_fraction = 4.9e7;
    CHECK(hardware_json_set(root, &hw, offsetof(hardware, allocator_fraction), &e) == ZS_ERR_INPUT);
    CHECK(hardware_json_set(root, &hw, 3, &e) == ZS_ERR_INPUT); /* no field there */
    cJSON_Delete(root);
    back.peak_fp8 = 0;
    back.attention_fraction = 0;
    CHECK(hardware_validate(&back, &e) == 0);
    back.peak_fp8 = 5;
    CHECK(hardware_validate(&back, &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "expected 0 or at least") != NULL);
    size_t n;
    const hw_field *f = hardware_fields(&n);
    CHECK(n >= 30);
    for (size_t i = 0; i < n; i++) CHECK(hardware_field_at(f[i].offset) == &f[i]);
}

void suite_hardware(void)
{
    RUN_TEST(catalog_profiles);
    RUN_TEST(datasheet_values);
    RUN_TEST(bad_profiles);
    RUN_TEST(field_table);
}
