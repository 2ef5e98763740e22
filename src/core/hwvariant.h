/* hwvariant.h -- cluster variants applied to a loaded hardware profile: network, NICs, power cap. */
#ifndef ZS_HWVARIANT_H
#define ZS_HWVARIANT_H

#include <stdint.h>

#include "core/error.h"
#include "core/hardware.h"

/* What a cluster changes from its profile's reference design; 0 = the profile's. */
typedef struct hw_variant {
    double network_bits;   /* bits/s per node over its compute NICs (--network-bandwidth) */
    int64_t nics_per_node; /* compute NICs per node (--nics-per-node) */
    double power_cap;      /* W per GPU (--power-cap, nvidia-smi -pl) */
} hw_variant;

/* The variant flags' names, as options and runs columns take them (NULL-terminated). */
extern const char *const hwvariant_flags[];

/* Set the variant flag named `flag` ("network-bandwidth": bits/s such as 800Gb/s or 3.2Tb/s;
 * "nics-per-node": a whole number; "power-cap": watts such as 500W) from its text v. Fails
 * with ZS_ERR_USAGE naming --flag and what was expected. */
int hwvariant_set(hw_variant *hv, const char *flag, const char *v, zs_error *err);

/* The sustained SM clock under a power cap over the uncapped one, for GEMM-bound work that
 * draws the full TDP uncapped: (cap / TDP)^(1/3), 1 without a cap or without a TDP. Pure. */
double hwvariant_clock_ratio(const hardware *hw, double power_cap);

/* Apply v to hw: the NIC count; the node's network bandwidth split over its NICs (per NIC, as
 * the profile keeps it); a power cap's clock ratio on the achieved GEMM and attention fractions
 * (nameplate peaks and HBM bandwidth unchanged) and the cap as the GPU's power. Fails with
 * ZS_ERR_USAGE naming the flag when a cap exceeds the profile's TDP or a value is negative. */
int hwvariant_apply(hardware *hw, const hw_variant *v, zs_error *err);

#endif
