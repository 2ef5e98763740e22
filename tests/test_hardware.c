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
    CHECK(n >= 20);
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

/* The new profiles against their datasheets, typed here (dense FLOP/s: sparsity figures
 * halved), so that a typo in a profile fails. bf16, fp8, fp4, HBM bytes, HBM bytes/s, intra
 * link bytes/s per direction, GPUs per node, NVLink domain (0: the node). */
static void datasheet_values_2026(void)
{
    static const struct {
        const char *name;
        double bf16, fp8, fp4, hbm, hbm_bw, intra;
        int gpn, domain;
    } want[] = {
        /* DGX B200 datasheet: 2.25 PF dense BF16 (4.5 sparse), FP8 4.5, FP4 9 PF; 180 GB (nvidia-smi
         * 183359 MiB), 8 TB/s; NVLink 5 1.8 TB/s bidirectional. */
        {"b200-180gb", 2250e12, 4500e12, 9000e12, 183359.0 * 1048576, 8e12, 900e9, 8, 0},
        /* GB200 NVL72 spec / 72 GPUs, halved: BF16 2.5, FP8 5, FP4 10 PF; 186 GB (189471 MiB); rack
         * of 72 on NVLink, trays of 4. */
        {"gb200-nvl72", 2500e12, 5000e12, 10000e12, 189471.0 * 1048576, 8e12, 900e9, 4, 72},
        /* HGX B300: BF16 2.25, FP8 4.5, FP4 13.125 PF dense; 288 GB, 8 TB/s. */
        {"b300-288gb", 2250e12, 4500e12, 13125e12, 288e9, 8e12, 900e9, 8, 0},
        /* GB300 (verda per-GPU dense table): BF16 2.5, FP8 5, FP4 15 PF; 279 GB. */
        {"gb300-nvl72", 2500e12, 5000e12, 15000e12, 279e9, 8e12, 900e9, 4, 72},
        /* H100 datasheet, NVL column: BF16 1,671 and FP8 3,341 TFLOPS with sparsity; 3.9 TB/s. */
        {"h100-nvl-94gb", 835.5e12, 1670.5e12, 0, 95830.0 * 1048576, 3.9e12, 63e9, 8, 0},
        /* H100 datasheet, PCIe column: BF16 1,513 and FP8 3,026 sparse; HBM2e 2.0 TB/s. */
        {"h100-pcie-80gb", 756.5e12, 1513e12, 0, 81559.0 * 1048576, 2.0e12, 63e9, 8, 0},
        /* H200 NVL: BF16 1,671 and FP8 3,341 sparse; 141 GB (143771 MiB), 4.8 TB/s. */
        {"h200-nvl-141gb", 835.5e12, 1670.5e12, 0, 143771.0 * 1048576, 4.8e12, 63e9, 8, 0},
        /* L40S datasheet: BF16 362.05 | 733*, FP8 733 | 1,466*; 864 GB/s; PCIe Gen4. */
        {"l40s-48gb", 362.05e12, 733e12, 0, 46068.0 * 1048576, 864e9, 31.5e9, 8, 0},
        /* L4 datasheet: BF16 242 and FP8 485 sparse; 300 GB/s. */
        {"l4-24gb", 121e12, 242.5e12, 0, 23034.0 * 1048576, 300e9, 31.5e9, 8, 0},
        /* A10G (Baseten's spec table): BF16 70 dense, no FP8; 600 GB/s. */
        {"a10g-24gb", 70e12, 0, 0, 23028.0 * 1048576, 600e9, 31.5e9, 8, 0},
        /* Ada whitepaper: RTX 6000 Ada FP16/BF16 (FP32 acc.) 364.25 dense, FP8 728.5; 960 GB/s. */
        {"rtx6000ada-48gb", 364.25e12, 728.5e12, 0, 49140.0 * 1048576, 960e9, 31.5e9, 8, 0},
        /* RTX A6000: 309.7 TFLOPS FP16 sparse = 154.8 dense (rounded as NVIDIA prints it); 768 GB/s. */
        {"rtxa6000-48gb", 154.8e12, 0, 0, 49140.0 * 1048576, 768e9, 31.5e9, 8, 0},
        /* Ada whitepaper: RTX 4090 FP16/BF16 with FP32 accumulate 165.2 dense, FP8 330.3; 1,008 GB/s. */
        {"rtx4090-24gb", 165.2e12, 330.3e12, 0, 24564.0 * 1048576, 1008e9, 31.5e9, 8, 0},
        /* AMD MI300X datasheet: BF16 1,307.4, FP8 2,614.9 dense; 5.3 TB/s; 7 x 64 GB/s xGMI. */
        {"mi300x-192gb", 1307.4e12, 2614.9e12, 0, 205822885888.0, 5.3e12, 448e9, 8, 0},
        /* AMD MI325X: same compute; 256 GB HBM3E, 6 TB/s. */
        {"mi325x-256gb", 1307.4e12, 2614.9e12, 0, 274877906944.0, 6e12, 448e9, 8, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char path[4096];
        hardware hw;
        zs_error e = {0};
        test_current = want[i].name;
        CHECK(catalog_resolve("hardware", want[i].name, path, sizeof path, &e) == 0);
        CHECK(hardware_load(path, &hw, &e) == 0);
        CHECK_NEAR(hw.peak_bf16, want[i].bf16, 1e-9);
        CHECK_NEAR(hw.peak_fp8, want[i].fp8, 1e-9);
        CHECK_NEAR(hw.peak_fp4, want[i].fp4, 1e-9);
        CHECK_NEAR(hw.hbm_bytes, want[i].hbm, 1e-12);
        CHECK_NEAR(hw.hbm_bandwidth, want[i].hbm_bw, 1e-12);
        CHECK_NEAR(hw.intra.bandwidth, want[i].intra, 1e-12);
        CHECK_EQ_INT(hw.gpus_per_node, want[i].gpn);
        CHECK_EQ_INT(hw.domain_gpus, want[i].domain);
    }
    /* An NVLink domain smaller than a node is refused; a profile without the key keeps 0. */
    static const char *small = "{\"gpu\":{\"hbm_bytes\":8e10,\"hbm_bandwidth_bytes_per_second\":2e12,"
        "\"peak_flops\":{\"bf16\":1e15,\"fp4\":4e15}},\"node\":{\"gpus_per_node\":8},"
        "\"intra_node\":{\"bandwidth_bytes_per_second\":1e11,\"latency_seconds\":3e-6,\"domain_gpus\":4},"
        "\"inter_node\":{\"nics_per_node\":8,\"nic_bandwidth_bytes_per_second\":5e10,"
        "\"latency_seconds\":1e-5},"
        "\"host_link\":{\"bandwidth_bytes_per_second\":6e10}}";
    cJSON *root = cJSON_Parse(small);
    hardware hw;
    zs_error e = {0};
    CHECK(root != NULL);
    CHECK(hardware_from_json(root, "t", &hw, &e) == ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "domain_gpus") != NULL);
    cJSON *intra = cJSON_GetObjectItemCaseSensitive(root, "intra_node");
    cJSON_ReplaceItemInObjectCaseSensitive(intra, "domain_gpus", cJSON_CreateNumber(16));
    CHECK(hardware_from_json(root, "t", &hw, &e) == 0);
    CHECK_EQ_INT(hw.domain_gpus, 16);
    CHECK_NEAR(hw.peak_fp4, 4e15, 0);
    CHECK_NEAR(hw.peak_fp6, 0, 0);
    cJSON_Delete(root);
}

void suite_hardware(void)
{
    RUN_TEST(catalog_profiles);
    RUN_TEST(datasheet_values);
    RUN_TEST(bad_profiles);
    RUN_TEST(field_table);
    RUN_TEST(datasheet_values_2026);
}
