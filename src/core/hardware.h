/* hardware.h -- a GPU system: memory, compute peaks, links, host, price and efficiencies. */
#ifndef ZS_HARDWARE_H
#define ZS_HARDWARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* A network level: NVLink/NVSwitch inside a node, InfiniBand/RoCE between nodes, PCIe to host. */
typedef struct hw_link {
    char kind[48];           /* e.g. "nvlink3-nvswitch", "infiniband-hdr", "pcie4-x16" */
    double bandwidth;        /* bytes/s per GPU, one direction, line rate */
    double latency;          /* seconds, per message step (alpha) */
    double efficiency;       /* achieved / line rate at large sizes (calibrated) */
    double latency_stderr;   /* seconds; 0 when not fitted */
    double bandwidth_stderr; /* bytes/s of the effective bandwidth; 0 when not fitted */
} hw_link;

#define HW_MAX_FRAMEWORK_FITS 8

typedef struct hardware {
    char name[64];
    char description[160];
    char gpu_model[64];
    double hbm_bytes;         /* bytes of device memory as the driver reports it (or --hbm's) */
    double profile_hbm_bytes; /* the profile's hbm_bytes when --hbm overrode it; 0 = not overridden */
    double hbm_bandwidth;     /* bytes/s, datasheet */
    double peak_fp32;         /* FLOP/s dense, non-tensor-core */
    double peak_tf32;         /* FLOP/s dense */
    double peak_bf16;         /* FLOP/s dense */
    double peak_fp16;         /* FLOP/s dense */
    double peak_fp8;          /* FLOP/s dense; 0 when the chip has none */
    double peak_fp6;          /* FLOP/s dense; 0 when the chip has none (recorded, not yet a precision) */
    double peak_fp4;          /* FLOP/s dense; 0 when the chip has none (recorded, not yet a precision) */
    double tdp_watts;         /* W per GPU */
    int64_t gpus_per_node;
    double host_memory_bytes;     /* bytes per node */
    double host_memory_bandwidth; /* bytes/s per node */
    int64_t cpu_cores;            /* per node */
    double nvme_bandwidth;        /* bytes/s per node */
    double nvme_bytes;            /* bytes of local NVMe per node; 0 when unknown */
    hw_link intra;                /* inside a node (inside an NVLink domain) */
    int64_t domain_gpus;          /* GPUs that share the intra link (one NVLink domain), which
                                   * may span nodes (GB200 NVL72: 72 GPUs, nodes of 4); 0 = the
                                   * node (scenario_domain_gpus) */
    hw_link inter;                /* between nodes: bandwidth is per NIC */
    int64_t nics_per_node;
    hw_link host;                /* GPU <-> host (PCIe), per GPU */
    int64_t nccl_version;        /* NCCL_VERSION_CODE of the release the system's runs used
                                  * (20804 = 2.8.4); 0 = plain alpha-beta rings (collective.c) */
    int64_t nccl_channels;       /* channels (one CTA, one SM each) a collective runs on; 0 =
                                  * unknown: no per-channel caps and no SM contention */
    int64_t sm_count;            /* streaming multiprocessors per GPU; 0 = unknown */
    double nccl_nvls_fraction;   /* NVLS all-reduce bus bandwidth / intra-node line rate; 0 = no
                                  * NVLink SHARP */
    double cuda_context_bytes;   /* CUDA context + library workspaces per GPU */
    double allocator_fraction;   /* allocator fragmentation/reserve as a fraction of allocated */
    double price_per_gpu_hour;   /* dollars */
    double matmul_max_fraction;  /* best fraction of dense peak a large GEMM reaches */
    double matmul_half_flops;    /* FLOPs of one GEMM at which it reaches half of that */
    double hbm_fraction;         /* achieved fraction of hbm_bandwidth for streaming kernels */
    double host_memory_fraction; /* achieved fraction of host_memory_bandwidth (STREAM-like) */
    double attention_fraction;   /* achieved fraction of peak for attention scores; 0 = default */
    double compute_capability;   /* CUDA compute capability (9.0: Hopper); 0 = unknown */
    double fp8_matmul_ratio;     /* best FP8 GEMM's fraction of the FP8 peak over the best 16-bit
                                  * GEMM's fraction of the 16-bit peak; 0 = 1 (as efficient) */
    double matmul_max_stderr;    /* fitted standard error of matmul_max_fraction; 0 when not fitted */
    double hbm_fraction_stderr;  /* likewise */
    /* Framework efficiencies calibrated on this system (`calibrate --runs --framework`):
     * they replace the framework's shipped values when it runs here. */
    struct hw_framework_fit {
        char name[16];          /* the framework ("deepspeed") */
        double gemm_efficiency; /* x matmul_max_fraction */
        double gemm_stderr;
        double step_overhead; /* seconds per step */
        double overhead_stderr;
        int runs; /* runs it was fitted on */
    } fw_fits[HW_MAX_FRAMEWORK_FITS];
    int n_fw_fits;
} hardware;

typedef struct hw_framework_fit hw_framework_fit;

/* The calibrated values of framework `name` on hw; NULL when the profile has none. */
const hw_framework_fit *hardware_framework_fit(const hardware *hw, const char *name);

/* One numeric field of a profile: where it lives in the JSON and in the struct, and its bounds.
 * The one table of these (hardware.c) drives loading (hardware_json.c), bounds checking
 * (hardware_validate) and writing a calibrated profile (hardware_json_set). */
enum {
    HW_REQUIRED = 1,   /* the file must give it */
    HW_ZERO_NONE = 2,  /* 0 is allowed, in the file too, and means "none" (an absent peak) */
    HW_ZERO_UNSET = 4, /* absent leaves 0 ("use the default"); a value in the file is in bounds */
};

typedef struct hw_field {
    const char *section; /* JSON object path: "gpu", "gpu.peak_flops", "efficiency", ... */
    const char *key;     /* member in that object */
    size_t offset;       /* of the member in struct hardware */
    bool is_int;         /* int64_t rather than double */
    double min, max;     /* bounds of a value, in the field's unit */
    unsigned flags;      /* HW_* */
} hw_field;

/* The table, in file order; *n gets its length. Never fails. */
const hw_field *hardware_fields(size_t *n);

/* The field stored at offsetof(hardware, member), or NULL. Never fails. */
const hw_field *hardware_field_at(size_t offset);

/* Read or write a field of hw as a double (int64 fields truncate). Never fail. */
double hardware_field_get(const hardware *hw, const hw_field *f);
void hardware_field_set(hardware *hw, const hw_field *f, double v);

/* Check v against f's bounds. Fails with ZS_ERR_INPUT: field "section.key": V is out of
 * range (expected MIN to MAX, or 0 or at least MIN). */
int hardware_field_check(const hw_field *f, double v, zs_error *err);

/* Check every field of the table and that some dense peak (bf16, fp16 or fp32) is given.
 * Fails with ZS_ERR_INPUT naming the field. */
int hardware_validate(const hardware *hw, zs_error *err);

#endif
