/* fixture_hw.c -- the hand-built hardware profiles the unit suites share, as one table. */
#include "fixture_hw.h"

#include <stdio.h>
#include <string.h>

#include "io/catalog.h"
#include "io/hardware_json.h"
#include "test.h"

static const struct {
    const char *name;       /* "" leaves hw.name empty */
    double hbm_bytes;       /* bytes */
    int64_t gpus_per_node;
    double peak;            /* FLOP/s, bf16 = fp16 = fp32 */
    double hbm_bandwidth;   /* bytes/s */
    hw_link intra, inter, host;
    double host_memory_bandwidth; /* bytes/s per node */
} rows[] = {
    [FIXTURE_A100_NODE] = {"test", 80e9, 8, 312e12, 2e12, {"nvlink", 300e9, 3e-6, 1, 0, 0},
                           {"ib", 25e9, 14e-6, 1, 0, 0}, {"pcie", 32e9, 0, 1, 0, 0}, 400e9},
    [FIXTURE_V100_NODE] = {"", 32e9, 16, 125e12, 900e9, {"nvswitch", 150e9, 3e-6, 1, 0, 0},
                           {"ib", 12.5e9, 14e-6, 1, 0, 0}, {"pcie", 16e9, 0, 1, 0, 0}, 200e9},
    [FIXTURE_H100_NODE] = {"", 80e9, 8, 1e15, 3e12, {"nvlink", 450e9, 3e-6, 1, 0, 0},
                           {"ib", 50e9, 10e-6, 1, 0, 0}, {"pcie", 50e9, 0, 1, 0, 0}, 200e9},
};

hardware fixture_hw(fixture_hw_id id)
{
    if ((unsigned)id >= sizeof rows / sizeof rows[0]) id = FIXTURE_A100_NODE;
    hardware hw = {0};
    snprintf(hw.name, sizeof hw.name, "%s", rows[id].name);
    hw.hbm_bytes = rows[id].hbm_bytes;
    hw.gpus_per_node = rows[id].gpus_per_node;
    hw.peak_bf16 = hw.peak_fp16 = hw.peak_fp32 = rows[id].peak;
    hw.hbm_bandwidth = rows[id].hbm_bandwidth;
    hw.intra = rows[id].intra;
    hw.inter = rows[id].inter;
    hw.host = rows[id].host;
    hw.nics_per_node = 8;
    hw.host_memory_bandwidth = rows[id].host_memory_bandwidth;
    hw.matmul_max_fraction = hw.hbm_fraction = hw.host_memory_fraction = 1;
    return hw;
}

hardware fixture_catalog_hw(const char *name)
{
    char path[4096];
    hardware hw;
    zs_error e = {0};
    memset(&hw, 0, sizeof hw);
    CHECK(catalog_resolve("hardware", name, path, sizeof path, &e) == 0);
    CHECK(hardware_load(path, &hw, &e) == 0);
    return hw;
}
