/* hwvariant.c -- cluster variants: per-node network bandwidth, NICs per node, power-capped GPUs. */
#include "core/hwvariant.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/compute.h"
#include "core/units.h"

const char *const hwvariant_flags[] = {"network-bandwidth", "nics-per-node", "power-cap", NULL};

/* Copy v into buf without a trailing `unit` (either case). */
static void strip_unit(const char *v, const char *unit, char *buf, size_t len)
{
    snprintf(buf, len, "%s", v);
    size_t n = strlen(buf), u = strlen(unit), k = 0;
    if (n <= u) return;
    while (k < u && (buf[n - u + k] | 32) == (unit[k] | 32)) k++;
    if (k == u) buf[n - u] = '\0';
}

int hwvariant_set(hw_variant *hv, const char *flag, const char *v, zs_error *err)
{
    char num[64];
    int64_t n;
    if (strcmp(flag, "network-bandwidth") == 0) {
        /* Networks are quoted in bits: "800Gb/s", "3.2Tb/s", "400e9" (b/s); B/s is bytes. */
        size_t len = strlen(v);
        if (len > 3 && strcmp(v + len - 3, "B/s") == 0)
            return zs_fail(err, ZS_ERR_USAGE,
                "--network-bandwidth %s: give bits per second as networks are quoted (800Gb/s, 3.2Tb/s)", v);
        strip_unit(v, "b/s", num, sizeof num);
        if (units_parse_count(num, "--network-bandwidth", &hv->network_bits, err)) return err->code;
        if (hv->network_bits < 1e6)
            return zs_fail(
                err, ZS_ERR_USAGE, "--network-bandwidth: expected bits per second such as 800Gb/s");
        return ZS_OK;
    }
    if (strcmp(flag, "nics-per-node") == 0) {
        if (units_parse_int(v, "--nics-per-node", 1, 4096, &n, err)) return err->code;
        hv->nics_per_node = n;
        return ZS_OK;
    }
    if (strcmp(flag, "power-cap") == 0) {
        strip_unit(v, "W", num, sizeof num);
        if (units_parse_count(num, "--power-cap", &hv->power_cap, err)) return err->code;
        if (hv->power_cap < 1) return zs_fail(err, ZS_ERR_USAGE, "--power-cap: expected watts such as 500W");
        return ZS_OK;
    }
    return zs_fail(err, ZS_ERR_USAGE, "--%s: no cluster variant of that name", flag);
}

double hwvariant_clock_ratio(const hardware *hw, double power_cap)
{
    if (power_cap <= 0 || hw->tdp_watts <= 0 || power_cap >= hw->tdp_watts) return 1;
    /* CMOS dynamic power is alpha C V^2 f, and DVFS lowers the voltage with the clock, so in
     * the DVFS range power goes as f^3 and the clock a cap allows as its cube root (Kaxiras &
     * Martonosi, Computer Architecture Techniques for Power-Efficiency, 2008, section 2.2;
     * static power ignored, so this is the mildest slowdown the law gives). A tensor-core
     * GEMM draws the full board power uncapped (H100 SXM at 700 W), so the cap binds it. */
    return cbrt(power_cap / hw->tdp_watts);
}

int hwvariant_apply(hardware *hw, const hw_variant *v, zs_error *err)
{
    if (v->nics_per_node < 0 || v->network_bits < 0 || v->power_cap < 0)
        return zs_fail(err, ZS_ERR_USAGE, "cluster variant: values must be positive");
    if (v->nics_per_node > 0) hw->nics_per_node = v->nics_per_node;
    if (v->network_bits > 0) {
        if (hw->nics_per_node <= 0)
            return zs_fail(err, ZS_ERR_USAGE, "--network-bandwidth: %s has no inter-node NICs", hw->name);
        /* The profile keeps bytes/s per NIC, one direction: the node's line rate over its NICs. */
        hw->inter.bandwidth = v->network_bits / 8 / (double)hw->nics_per_node;
    }
    if (v->power_cap > 0) {
        if (hw->tdp_watts <= 0)
            return zs_fail(err, ZS_ERR_USAGE, "--power-cap: %s gives no tdp_watts to cap", hw->name);
        if (v->power_cap > hw->tdp_watts)
            return zs_fail(err, ZS_ERR_USAGE,
                "--power-cap %g W is above %s's %g W TDP (nvidia-smi -pl accepts at most the default "
                "limit)",
                v->power_cap, hw->name, hw->tdp_watts);
        /* The clock scales what the tensor cores achieve, not the nameplate peaks (MFU stays
         * against those): the GEMMs' and attention's achieved fractions. A GEMM's fixed cost is
         * time (launch, ramp, tail), so its FLOPs-equivalent, the half-efficiency size, scales
         * with the achieved rate too. HBM bandwidth has its own clock and stays. */
        double f = hwvariant_clock_ratio(hw, v->power_cap);
        hw->attention_fraction = compute_attention_fraction(hw) * f;
        hw->matmul_max_fraction *= f;
        hw->matmul_half_flops *= f;
        hw->tdp_watts = v->power_cap;
    }
    return ZS_OK;
}
