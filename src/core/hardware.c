/* hardware.c -- the hardware profile's field table (loading, bounds, writing) and lookups. */
#include "core/hardware.h"
#include "core/minmax.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define D(sec, key, member, mn, mx, fl)                         \
    {                                                           \
        sec, key, offsetof(hardware, member), false, mn, mx, fl \
    }
#define I(sec, key, member, mn, mx, fl)                        \
    {                                                          \
        sec, key, offsetof(hardware, member), true, mn, mx, fl \
    }
#define REQ HW_REQUIRED
#define NONE HW_ZERO_NONE
#define UNSET HW_ZERO_UNSET

/* Every numeric field of a profile, in file order (hardware/README.md documents each). The
 * bounds are sanity limits that reject typos and unit slips (GB for bytes, percent for
 * fractions), not physics; fractions are of a datasheet figure, so at most 1. */
static const hw_field fields[] = {
    D("gpu", "hbm_bytes", hbm_bytes, 1 << 20, 1e15, REQ),
    D("gpu", "hbm_bandwidth_bytes_per_second", hbm_bandwidth, 1e6, 1e15, REQ),
    D("gpu", "tdp_watts", tdp_watts, 0, 1e5, 0),
    /* optional peaks: 0 says the chip has none; a positive one divides work, so a tiny one
     * (1e-312 FLOP/s) made step times infinite */
    D("gpu.peak_flops", "fp32", peak_fp32, 1e6, 1e18, NONE),
    D("gpu.peak_flops", "tf32", peak_tf32, 1e6, 1e18, NONE),
    D("gpu.peak_flops", "bf16", peak_bf16, 1e6, 1e18, NONE),
    D("gpu.peak_flops", "fp16", peak_fp16, 1e6, 1e18, NONE),
    D("gpu.peak_flops", "fp8", peak_fp8, 1e6, 1e18, NONE),
    D("gpu.peak_flops", "fp6", peak_fp6, 1e6, 1e18, NONE),
    D("gpu.peak_flops", "fp4", peak_fp4, 1e6, 1e18, NONE),
    I("node", "gpus_per_node", gpus_per_node, 1, 4096, REQ),
    D("node", "host_memory_bytes", host_memory_bytes, 0, 1e16, 0),
    D("node", "host_memory_bandwidth_bytes_per_second", host_memory_bandwidth, 1e3, 1e15, NONE),
    I("node", "cpu_cores", cpu_cores, 0, 1e6, 0),
    D("node", "nvme_bandwidth_bytes_per_second", nvme_bandwidth, 1e3, 1e15, NONE),
    D("node", "nvme_bytes", nvme_bytes, 0, 1e17, 0),
    D("intra_node", "bandwidth_bytes_per_second", intra.bandwidth, 1e3, 1e15, REQ),
    D("intra_node", "latency_seconds", intra.latency, 0, 1, REQ),
    D("intra_node", "latency_seconds_stderr", intra.latency_stderr, 0, 1, 0),
    D("intra_node", "bandwidth_stderr", intra.bandwidth_stderr, 0, 1e15, 0),
    I("intra_node", "domain_gpus", domain_gpus, 1, 1e6, UNSET),
    I("inter_node", "nics_per_node", nics_per_node, 1, 4096, REQ),
    D("inter_node", "nic_bandwidth_bytes_per_second", inter.bandwidth, 1e3, 1e15, REQ),
    D("inter_node", "latency_seconds", inter.latency, 0, 1, REQ),
    D("inter_node", "latency_seconds_stderr", inter.latency_stderr, 0, 1, 0),
    D("inter_node", "bandwidth_stderr", inter.bandwidth_stderr, 0, 1e15, 0),
    D("host_link", "bandwidth_bytes_per_second", host.bandwidth, 1e3, 1e15, REQ),
    D("host_link", "latency_seconds", host.latency, 0, 1, 0),
    I("nccl", "version", nccl_version, 20000, 100000, UNSET),
    I("nccl", "channels", nccl_channels, 1, 64, UNSET),
    D("nccl", "nvls_busbw_fraction", nccl_nvls_fraction, 1e-3, 2, UNSET),
    I("gpu", "sm_count", sm_count, 1, 1000, UNSET),
    D("gpu", "compute_capability", compute_capability, 1, 20, UNSET),
    D("memory_overhead", "cuda_context_bytes", cuda_context_bytes, 0, 1e12, 0),
    D("memory_overhead", "allocator_fraction", allocator_fraction, 0, 1, 0),
    D("price", "dollars_per_gpu_hour", price_per_gpu_hour, 0, 1e6, 0),
    D("efficiency", "matmul_max_fraction", matmul_max_fraction, 1e-3, 1, 0),
    D("efficiency", "matmul_max_fraction_stderr", matmul_max_stderr, 0, 1, 0),
    D("efficiency", "matmul_half_flops", matmul_half_flops, 0, 1e18, 0),
    D("efficiency", "hbm_fraction", hbm_fraction, 1e-3, 1, 0),
    D("efficiency", "hbm_fraction_stderr", hbm_fraction_stderr, 0, 1, 0),
    D("efficiency", "host_memory_fraction", host_memory_fraction, 1e-3, 1, 0),
    D("efficiency", "attention_fraction", attention_fraction, 1e-3, 1, UNSET),
    D("efficiency", "fp8_matmul_ratio", fp8_matmul_ratio, 1e-3, 2, UNSET),
    D("efficiency", "intra_node_fraction", intra.efficiency, 1e-3, 1, 0),
    D("efficiency", "inter_node_fraction", inter.efficiency, 1e-3, 1, 0),
    D("efficiency", "host_link_fraction", host.efficiency, 1e-3, 1, 0),
};

const hw_field *hardware_fields(size_t *n)
{
    *n = sizeof fields / sizeof fields[0];
    return fields;
}

const hw_field *hardware_field_at(size_t offset)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].offset == offset) return &fields[i];
    return NULL;
}

double hardware_field_get(const hardware *hw, const hw_field *f)
{
    const char *p = (const char *)hw + f->offset;
    return f->is_int ? (double)*(const int64_t *)p : *(const double *)p;
}

void hardware_field_set(hardware *hw, const hw_field *f, double v)
{
    char *p = (char *)hw + f->offset;
    if (f->is_int)
        *(int64_t *)p = (int64_t)v;
    else
        *(double *)p = v;
}

int hardware_field_check(const hw_field *f, double v, zs_error *err)
{
    if (v == 0 && (f->flags & (HW_ZERO_NONE | HW_ZERO_UNSET))) return ZS_OK;
    if (isfinite(v) && v >= f->min && v <= f->max) return ZS_OK;
    if (f->flags & HW_ZERO_NONE)
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s.%s\": %g is out of range (expected 0 or at least %g)",
            f->section, f->key, v, f->min);
    return zs_fail(err, ZS_ERR_INPUT, "field \"%s.%s\": %g is out of range (expected %g to %g)", f->section,
        f->key, v, f->min, f->max);
}

int hardware_validate(const hardware *hw, zs_error *err)
{
    /* The one relation the table cannot say: some dense peak must be given. */
    double peak = zs_fmax(hw->peak_bf16, zs_fmax(hw->peak_fp16, hw->peak_fp32));
    if (!isfinite(peak) || peak < 1e6 || peak > 1e18)
        return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %g is out of range (expected %g to %g)",
            "gpu.peak_flops.bf16 (or fp16/fp32)", peak, 1e6, 1e18);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (hardware_field_check(&fields[i], hardware_field_get(hw, &fields[i]), err)) return err->code;
    /* An NVLink domain holds whole nodes: one smaller than a node (bridged pairs) is not a
     * level the model has; such a profile gives the node-wide link (PCIe) instead. */
    if (hw->domain_gpus > 0 && hw->domain_gpus < hw->gpus_per_node)
        return zs_fail(err, ZS_ERR_INPUT,
            "field \"intra_node.domain_gpus\": %lld is below node.gpus_per_node %lld (expected 0 or at "
            "least that)",
            (long long)hw->domain_gpus, (long long)hw->gpus_per_node);
    return ZS_OK;
}

const hw_framework_fit *hardware_framework_fit(const hardware *hw, const char *name)
{
    for (int i = 0; i < hw->n_fw_fits; i++)
        if (strcmp(hw->fw_fits[i].name, name) == 0) return &hw->fw_fits[i];
    return NULL;
}
