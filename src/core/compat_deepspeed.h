/* compat_deepspeed.h -- DeepSpeed compatibility mode: reproduces estimate_zero2/zero3_model_states_mem_needs
 * rows exactly. */
#ifndef ZS_COMPAT_DEEPSPEED_H
#define ZS_COMPAT_DEEPSPEED_H

/*
 * What this reproduces
 * --------------------
 * DeepSpeed's model-states memory estimators, as on DeepSpeed master (formula
 * unchanged from PR #5099, merged 2024-06-04, through the newest snapshot read,
 * deepspeedai/DeepSpeed edaa722, 2026-08-22):
 *   deepspeed/runtime/zero/stage_1_and_2.py  estimate_zero2_model_states_mem_needs
 *   deepspeed/runtime/zero/stage3.py         estimate_zero3_model_states_mem_needs
 * and the table their *_all_cold / *_all_live wrappers print:
 *   "  per CPU  |  per GPU |   Options"
 *   " {cpu/2**30:7.2f}GB | {gpu/2**30:6.2f}GB | {options}"
 * i.e. the "GB" DeepSpeed prints are GiB (2^30 bytes) with two decimals.
 *
 * Let P = total params, L = largest layer params, n = GPUs per node,
 * N = nodes, G = n * N, f = additional_buffer_factor (DeepSpeed default 1.5),
 * and int() = truncation toward zero, as Python's int() does.
 *
 * ZeRO-2 (rows in DeepSpeed's order):
 *   offload_optimizer=cpu : gpu = 2*P
 *                           cpu = P * max(4*G, 16) * f
 *   offload_optimizer=none: gpu = 2*P + int(18*P / G)       (PR #5099; before it
 *                                                            was 4*P + int(16*P/G))
 *                           cpu = P * 4 * n * f
 * ZeRO-3, with g = 1/N and M = 4*L (largest layer memory), rows in order
 *   (param cpu, opt cpu, zero_init 1), (cpu, cpu, 0), (none, cpu, 1),
 *   (none, cpu, 0), (none, none, 1), (none, none, 0):
 *   param cpu,  opt cpu : gpu = M
 *                         cpu = P*18*g*f                 (zero_init=1)
 *                             = P*max(4*n, 18*g)*f       (zero_init=0)
 *   param none, opt cpu : gpu = M + int(2*P / G)
 *                         cpu = P*16*g*f                 (zero_init=1)
 *                             = P*max(4*n, 16*g)*f       (zero_init=0)
 *   param none, opt none: gpu = M + int(18*P / G)
 *                         cpu = L*4*n*f                  (zero_init=1)
 *                             = P*4*n*f                  (zero_init=0)
 * Both returned values are int()-truncated, as DeepSpeed returns
 * int(cpu_mem), int(gpu_mem). The CPU figure is per node.
 */

#define COMPAT_DS_ZERO2_ROWS 2 /* rows estimate_zero2_model_states_mem_needs_all_cold prints */
#define COMPAT_DS_ZERO3_ROWS 6 /* rows estimate_zero3_model_states_mem_needs_all_cold prints */

typedef struct ds_row {
    int offload_param;     /* 1 = "cpu", 0 = "none" */
    int offload_optimizer; /* 1 = "cpu", 0 = "none" */
    int zero_init;         /* 1/0; always 0 for stage 2 rows */
    double per_gpu_bytes;  /* bytes */
    double per_cpu_bytes;  /* bytes, per node as DeepSpeed computes it */
} ds_row;

/* Fills rows[0..1] with DeepSpeed's ZeRO-2 rows (offload_optimizer cpu, then none)
 * for `params` total parameters on `nodes` nodes of `gpus_per_node` GPUs.
 * Returns the row count (2), or -1 when an argument is out of range: params <= 0
 * or not finite, gpus_per_node < 1, nodes < 1, additional_buffer_factor < 0 or
 * not finite, rows == NULL, or max_rows < 2; rows is left untouched on failure.
 * Pure: no I/O. */
int compat_deepspeed_zero2(
    double params, int gpus_per_node, int nodes, double additional_buffer_factor, ds_row *rows, int max_rows);

/* Fills rows[0..5] with DeepSpeed's ZeRO-3 rows, in the order DeepSpeed prints them
 * (see above), for `params` total parameters whose largest layer (module) holds
 * `largest_layer_params` parameters. Returns the row count (6), or -1 when an
 * argument is out of range: params <= 0 or not finite, largest_layer_params < 0
 * or not finite, gpus_per_node < 1, nodes < 1, additional_buffer_factor < 0 or
 * not finite, rows == NULL, or max_rows < 6; rows is left untouched on failure.
 * Pure: no I/O. */
int compat_deepspeed_zero3(double params, double largest_layer_params, int gpus_per_node, int nodes,
    double additional_buffer_factor, ds_row *rows, int max_rows);

#endif
