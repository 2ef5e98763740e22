/* fixture_hw.h -- the hand-built hardware profiles the unit suites share. */
#ifndef ZS_FIXTURE_HW_H
#define ZS_FIXTURE_HW_H

#include "core/hardware.h"

/* Round-number systems with every efficiency 1, so closed forms stay exact; only the fields the
 * step model reads are set (no price, no NVMe, no calibration). */
typedef enum {
    FIXTURE_A100_NODE, /* 8 x 80 GB, 312 TFLOP/s, 300 GB/s NVLink, 25 GB/s NICs (comm tests) */
    FIXTURE_V100_NODE, /* 16 x 32 GB, 125 TFLOP/s, 150 GB/s NVSwitch (memory tests) */
    FIXTURE_H100_NODE, /* 8 x 80 GB, 1 PFLOP/s, 450 GB/s NVLink (activation and FLOP tests) */
} fixture_hw_id;

/* The profile `id`, zeroed but for the table's fields. Never fails: an id outside the enum
 * gives FIXTURE_A100_NODE. */
hardware fixture_hw(fixture_hw_id id);

/* The catalog profile `name` (hardware/NAME.json; the tests run from the repository root),
 * zeroed and counted as a failed check when it does not load. */
hardware fixture_catalog_hw(const char *name);

#endif
