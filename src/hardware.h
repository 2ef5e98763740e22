/* hardware.h -- a GPU system: memory, compute peaks, links, host, price and efficiencies. */
#ifndef ZS_HARDWARE_H
#define ZS_HARDWARE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/* A network level: NVLink/NVSwitch inside a node, InfiniBand/RoCE between nodes, PCIe to host. */
typedef struct hw_link {
    char kind[48];              /* e.g. "nvlink3-nvswitch", "infiniband-hdr", "pcie4-x16" */
    double bandwidth;           /* bytes/s per GPU, one direction, line rate */
    double latency;             /* seconds, per message step (alpha) */
    double efficiency;          /* achieved / line rate at large sizes (calibrated) */
    double latency_stderr;      /* seconds; 0 when not fitted */
    double bandwidth_stderr;    /* bytes/s of the effective bandwidth; 0 when not fitted */
} hw_link;

typedef struct hardware {
    char name[64];
    char description[160];
    char gpu_model[64];
    double hbm_bytes;           /* bytes of device memory as the driver reports it */
    double hbm_bandwidth;       /* bytes/s, datasheet */
    double peak_fp32;           /* FLOP/s dense, non-tensor-core */
    double peak_tf32;           /* FLOP/s dense */
    double peak_bf16;           /* FLOP/s dense */
    double peak_fp16;           /* FLOP/s dense */
    double peak_fp8;            /* FLOP/s dense; 0 when the chip has none */
    double tdp_watts;           /* W per GPU */
    int64_t gpus_per_node;
    double host_memory_bytes;   /* bytes per node */
    double host_memory_bandwidth; /* bytes/s per node */
    int64_t cpu_cores;          /* per node */
    double nvme_bandwidth;      /* bytes/s per node */
    double nvme_bytes;          /* bytes of local NVMe per node; 0 when unknown */
    hw_link intra;                 /* inside a node */
    hw_link inter;                 /* between nodes: bandwidth is per NIC */
    int64_t nics_per_node;
    hw_link host;                  /* GPU <-> host (PCIe), per GPU */
    double cuda_context_bytes;  /* CUDA context + library workspaces per GPU */
    double allocator_fraction;  /* allocator fragmentation/reserve as a fraction of allocated */
    double price_per_gpu_hour;  /* dollars */
    double matmul_max_fraction; /* best fraction of dense peak a large GEMM reaches */
    double matmul_half_flops;   /* FLOPs of one GEMM at which it reaches half of that */
    double hbm_fraction;        /* achieved fraction of hbm_bandwidth for streaming kernels */
    double host_memory_fraction;/* achieved fraction of host_memory_bandwidth (STREAM-like) */
    double attention_fraction;  /* achieved fraction of peak for attention scores; 0 = default */
    double matmul_max_stderr;   /* fitted standard error of matmul_max_fraction; 0 when not fitted */
    double hbm_fraction_stderr; /* likewise */
} hardware;

/* Check ranges and relations (positive sizes, fractions in (0, 1], GPUs per node >= 1).
 * Fails with ZS_ERR_INPUT naming the field. */
int hardware_validate(const hardware *hw, zs_error *err);

/* Dense peak FLOP/s for a compute dtype name ("bf16", "fp16", "fp32", "tf32", "fp8");
 * 0 when unknown or absent. */
double hardware_peak(const hardware *hw, const char *dtype);

#endif
