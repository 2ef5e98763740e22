/* hardware_json.c -- hardware profile JSON to a hardware struct. */
#include "hardware_json.h"

#include <stdio.h>
#include <string.h>

#include "jsonutil.h"

/* One numeric field: section, key, where it goes, bounds, and whether it must be present. */
typedef struct field {
    const char *section, *key;
    size_t offset;   /* into hardware */
    bool is_int;     /* int64_t rather than double */
    double min, max;
    bool required;
} field;

#define D(sec, key, member, mn, mx, req) {sec, key, offsetof(hardware, member), false, mn, mx, req}
#define I(sec, key, member, mn, mx, req) {sec, key, offsetof(hardware, member), true, mn, mx, req}

static const field fields[] = {
    D("gpu", "hbm_bytes", hbm_bytes, 1 << 20, 1e15, true),
    D("gpu", "hbm_bandwidth_bytes_per_second", hbm_bandwidth, 1e6, 1e15, true),
    D("gpu", "tdp_watts", tdp_watts, 0, 1e5, false),
    D("gpu.peak_flops", "fp32", peak_fp32, 0, 1e18, false),
    D("gpu.peak_flops", "tf32", peak_tf32, 0, 1e18, false),
    D("gpu.peak_flops", "bf16", peak_bf16, 0, 1e18, false),
    D("gpu.peak_flops", "fp16", peak_fp16, 0, 1e18, false),
    D("gpu.peak_flops", "fp8", peak_fp8, 0, 1e18, false),
    I("node", "gpus_per_node", gpus_per_node, 1, 4096, true),
    D("node", "host_memory_bytes", host_memory_bytes, 0, 1e16, false),
    D("node", "host_memory_bandwidth_bytes_per_second", host_memory_bandwidth, 0, 1e15, false),
    I("node", "cpu_cores", cpu_cores, 0, 1e6, false),
    D("node", "nvme_bandwidth_bytes_per_second", nvme_bandwidth, 0, 1e15, false),
    D("node", "nvme_bytes", nvme_bytes, 0, 1e17, false),
    D("intra_node", "bandwidth_bytes_per_second", intra.bandwidth, 1e3, 1e15, true),
    D("intra_node", "latency_seconds", intra.latency, 0, 1, true),
    D("intra_node", "latency_seconds_stderr", intra.latency_stderr, 0, 1, false),
    D("intra_node", "bandwidth_stderr", intra.bandwidth_stderr, 0, 1e15, false),
    I("inter_node", "nics_per_node", nics_per_node, 1, 4096, true),
    D("inter_node", "nic_bandwidth_bytes_per_second", inter.bandwidth, 1e3, 1e15, true),
    D("inter_node", "latency_seconds", inter.latency, 0, 1, true),
    D("inter_node", "latency_seconds_stderr", inter.latency_stderr, 0, 1, false),
    D("inter_node", "bandwidth_stderr", inter.bandwidth_stderr, 0, 1e15, false),
    D("host_link", "bandwidth_bytes_per_second", host.bandwidth, 1e3, 1e15, true),
    D("host_link", "latency_seconds", host.latency, 0, 1, false),
    D("memory_overhead", "cuda_context_bytes", cuda_context_bytes, 0, 1e12, false),
    D("memory_overhead", "allocator_fraction", allocator_fraction, 0, 1, false),
    D("price", "dollars_per_gpu_hour", price_per_gpu_hour, 0, 1e6, false),
    D("efficiency", "matmul_max_fraction", matmul_max_fraction, 1e-3, 1, false),
    D("efficiency", "matmul_max_fraction_stderr", matmul_max_stderr, 0, 1, false),
    D("efficiency", "matmul_half_flops", matmul_half_flops, 0, 1e18, false),
    D("efficiency", "hbm_fraction", hbm_fraction, 1e-3, 1, false),
    D("efficiency", "hbm_fraction_stderr", hbm_fraction_stderr, 0, 1, false),
    D("efficiency", "host_memory_fraction", host_memory_fraction, 1e-3, 1, false),
    D("efficiency", "attention_fraction", attention_fraction, 1e-3, 1, false),
    D("efficiency", "intra_node_fraction", intra.efficiency, 1e-3, 1, false),
    D("efficiency", "inter_node_fraction", inter.efficiency, 1e-3, 1, false),
    D("efficiency", "host_link_fraction", host.efficiency, 1e-3, 1, false),
};

/* "gpu.peak_flops" -> root["gpu"]["peak_flops"]; NULL when absent. */
static const cJSON *section(const cJSON *root, const char *path)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *o = root;
    for (char *tok = strtok(buf, "."); tok && o; tok = strtok(NULL, "."))
        o = cJSON_GetObjectItemCaseSensitive(o, tok);
    return o && cJSON_IsObject(o) ? o : NULL;
}

static int from_json(const cJSON *root, hardware *hw, zs_error *err)
{
    memset(hw, 0, sizeof *hw);
    /* Absent efficiencies mean line rate: the profile claims nothing it has not measured. */
    hw->matmul_max_fraction = hw->hbm_fraction = 1;
    hw->intra.efficiency = hw->inter.efficiency = hw->host.efficiency = 1;
    bool have;
    if (json_get_string(root, "name", hw->name, sizeof hw->name, &have, err)) return err->code;
    if (json_get_string(root, "description", hw->description, sizeof hw->description, &have, err)) return err->code;
    static const char *const required[] = {"gpu", "node", "intra_node", "inter_node", "host_link"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!section(root, required[i]))
            return zs_fail(err, ZS_ERR_INPUT, "missing section \"%s\" (an object)", required[i]);
    const cJSON *gpu = section(root, "gpu");
    if (json_get_string(gpu, "model", hw->gpu_model, sizeof hw->gpu_model, &have, err)) return err->code;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const field *f = &fields[i];
        const cJSON *sec = section(root, f->section);
        have = false;
        double v = 0;
        if (sec && json_get_number(sec, f->key, f->min, f->max, &v, &have, err)) {
            zs_error_prefix(err, f->section); /* "gpu: field "hbm_bytes": ..." */
            return err->code;
        }
        if (!have) {
            if (f->required)
                return zs_fail(err, ZS_ERR_INPUT, "missing field \"%s.%s\" (a number from %g to %g)",
                               f->section, f->key, f->min, f->max);
            continue;
        }
        if (f->is_int) *(int64_t *)((char *)hw + f->offset) = (int64_t)v;
        else *(double *)((char *)hw + f->offset) = v;
    }
    const cJSON *intra = section(root, "intra_node"), *inter = section(root, "inter_node"),
                *host = section(root, "host_link");
    if (json_get_string(intra, "kind", hw->intra.kind, sizeof hw->intra.kind, &have, err)) return err->code;
    if (json_get_string(inter, "kind", hw->inter.kind, sizeof hw->inter.kind, &have, err)) return err->code;
    if (json_get_string(host, "kind", hw->host.kind, sizeof hw->host.kind, &have, err)) return err->code;
    /* Until a profile measures its host memory (zerobench membw), assume it streams as well
     * as the GPU's HBM does. */
    if (hw->host_memory_fraction <= 0) hw->host_memory_fraction = hw->hbm_fraction;
    return hardware_validate(hw, err);
}

int hardware_from_json(const cJSON *root, const char *origin, hardware *hw, zs_error *err)
{
    int rc = from_json(root, hw, err);
    if (rc) zs_error_prefix(err, origin);
    return rc;
}

int hardware_load(const char *path, hardware *hw, zs_error *err)
{
    cJSON *root;
    if (json_load_object(path, &root, err)) return err->code;
    int rc = hardware_from_json(root, path, hw, err);
    cJSON_Delete(root);
    if (rc == ZS_OK && hw->name[0] == '\0') {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        snprintf(hw->name, sizeof hw->name, "%.*s", (int)strcspn(base, "."), base);
    }
    return rc;
}
