/* hardware.c -- hardware profile checks and lookups. */
#include "hardware.h"

#include <math.h>
#include <string.h>

int hardware_validate(const hardware *hw, zs_error *err)
{
    const struct { const char *field; double value, min, max; } f[] = {
        {"gpu.hbm_bytes", hw->hbm_bytes, 1 << 20, 1e15},
        {"gpu.hbm_bandwidth_bytes_per_second", hw->hbm_bandwidth, 1e6, 1e15},
        {"gpu.peak_flops.bf16 (or fp16/fp32)", fmax(hw->peak_bf16, fmax(hw->peak_fp16, hw->peak_fp32)), 1e6, 1e18},
        {"node.gpus_per_node", (double)hw->gpus_per_node, 1, 4096},
        {"intra_node.bandwidth_bytes_per_second", hw->intra.bandwidth, 1e3, 1e15},
        {"intra_node.latency_seconds", hw->intra.latency, 0, 1},
        {"inter_node.nic_bandwidth_bytes_per_second", hw->inter.bandwidth, 1e3, 1e15},
        {"inter_node.latency_seconds", hw->inter.latency, 0, 1},
        {"inter_node.nics_per_node", (double)hw->nics_per_node, 1, 4096},
        {"host_link.bandwidth_bytes_per_second", hw->host.bandwidth, 1e3, 1e15},
        {"memory_overhead.cuda_context_bytes", hw->cuda_context_bytes, 0, 1e12},
        {"memory_overhead.allocator_fraction", hw->allocator_fraction, 0, 1},
        {"price.dollars_per_gpu_hour", hw->price_per_gpu_hour, 0, 1e6},
        {"efficiency.matmul_max_fraction", hw->matmul_max_fraction, 1e-3, 1},
        {"efficiency.matmul_half_flops", hw->matmul_half_flops, 0, 1e18},
        {"efficiency.hbm_fraction", hw->hbm_fraction, 1e-3, 1},
        {"efficiency.intra_node_fraction", hw->intra.efficiency, 1e-3, 1},
        {"efficiency.inter_node_fraction", hw->inter.efficiency, 1e-3, 1},
        {"efficiency.host_link_fraction", hw->host.efficiency, 1e-3, 1},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!isfinite(f[i].value) || f[i].value < f[i].min || f[i].value > f[i].max)
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %g is out of range (expected %g to %g)",
                           f[i].field, f[i].value, f[i].min, f[i].max);
    /* Optional rates: 0 says the profile has none; a positive one divides work, so a tiny one
     * (1e-312 B/s) made step times infinite. */
    const struct { const char *field; double value, min; } opt[] = {
        {"gpu.peak_flops.fp32", hw->peak_fp32, 1e6},
        {"gpu.peak_flops.tf32", hw->peak_tf32, 1e6},
        {"gpu.peak_flops.bf16", hw->peak_bf16, 1e6},
        {"gpu.peak_flops.fp16", hw->peak_fp16, 1e6},
        {"gpu.peak_flops.fp8", hw->peak_fp8, 1e6},
        {"node.host_memory_bandwidth_bytes_per_second", hw->host_memory_bandwidth, 1e3},
        {"node.nvme_bandwidth_bytes_per_second", hw->nvme_bandwidth, 1e3},
    };
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (opt[i].value != 0 && !(opt[i].value >= opt[i].min))
            return zs_fail(err, ZS_ERR_INPUT, "field \"%s\": %g is out of range (expected 0 or at least %g)",
                           opt[i].field, opt[i].value, opt[i].min);
    return ZS_OK;
}

double hardware_peak(const hardware *hw, const char *dtype)
{
    const struct { const char *name; double v; } t[] = {
        {"bf16", hw->peak_bf16}, {"fp16", hw->peak_fp16}, {"fp32", hw->peak_fp32},
        {"tf32", hw->peak_tf32}, {"fp8", hw->peak_fp8}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(dtype, t[i].name) == 0) return t[i].v;
    return 0;
}
