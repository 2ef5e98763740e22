/* compat_deepspeed.c -- our own C rendering of DeepSpeed's ZeRO-2/ZeRO-3 model-states memory estimator rows.
 */
#include "core/compat_deepspeed.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Python's int() on a float: truncation toward zero. Every double of magnitude
 * >= 2^53 is already an integer, so only smaller values need the cast. */
static double py_int(double x)
{
    if (fabs(x) >= 9007199254740992.0) /* 2^53 */
        return x;
    return (double)(int64_t)x;
}

/* Python's max(a, b): the first argument unless the second is strictly larger. */
static double py_max(double a, double b)
{
    return b > a ? b : a;
}

static int args_ok(double params, int gpus_per_node, int nodes, double factor, const ds_row *rows,
    int max_rows, int need_rows)
{
    if (!isfinite(params) || params <= 0) return 0;
    if (gpus_per_node < 1 || nodes < 1) return 0;
    if (!isfinite(factor) || factor < 0) return 0;
    if (rows == NULL || max_rows < need_rows) return 0;
    return 1;
}

static ds_row make_row(
    int offload_param, int offload_optimizer, int zero_init, double gpu_mem, double cpu_mem)
{
    ds_row r;
    r.offload_param = offload_param;
    r.offload_optimizer = offload_optimizer;
    r.zero_init = zero_init;
    r.per_gpu_bytes = py_int(gpu_mem);
    r.per_cpu_bytes = py_int(cpu_mem);
    return r;
}

int compat_deepspeed_zero2(
    double params, int gpus_per_node, int nodes, double additional_buffer_factor, ds_row *rows, int max_rows)
{
    if (!args_ok(
            params, gpus_per_node, nodes, additional_buffer_factor, rows, max_rows, COMPAT_DS_ZERO2_ROWS))
        return -1;

    const double p = params, f = additional_buffer_factor;
    const double n = (double)gpus_per_node;
    const double total_gpus = (double)nodes * n;

    /* Row 1: offload_optimizer=cpu. Only the 16-bit params stay on the GPU. */
    double gpu = 2.0 * p;
    double cpu = p * py_max(4.0 * total_gpus, 16.0) * f;
    rows[0] = make_row(0, 1, 0, gpu, cpu);

    /* Row 2: offload_optimizer=none (formula since DeepSpeed PR #5099):
     * 2 B/param of 16-bit params replicated, plus 18 B/param partitioned
     * (2 B 16-bit grads + 4 B fp32 grads + 4 B fp32 params + 8 B Adam states). */
    gpu = 2.0 * p + py_int(18.0 * p / total_gpus);
    cpu = p * 4.0 * n * f;
    rows[1] = make_row(0, 0, 0, gpu, cpu);

    return COMPAT_DS_ZERO2_ROWS;
}

int compat_deepspeed_zero3(double params, double largest_layer_params, int gpus_per_node, int nodes,
    double additional_buffer_factor, ds_row *rows, int max_rows)
{
    if (!args_ok(
            params, gpus_per_node, nodes, additional_buffer_factor, rows, max_rows, COMPAT_DS_ZERO3_ROWS))
        return -1;
    if (!isfinite(largest_layer_params) || largest_layer_params < 0) return -1;

    const double p = params, big = largest_layer_params, f = additional_buffer_factor;
    const double n = (double)gpus_per_node;
    const double total_gpus = (double)nodes * n;
    const double gpus_factor = 1.0 / (double)nodes;
    const double largest_layer_memory = 4.0 * big; /* 16-bit params + grads of one layer */
    int k = 0;

    /* offload_param=cpu, offload_optimizer=cpu */
    rows[k++] = make_row(1, 1, 1, largest_layer_memory, p * 18.0 * gpus_factor * f);
    rows[k++] = make_row(1, 1, 0, largest_layer_memory, p * py_max(4.0 * n, 18.0 * gpus_factor) * f);

    /* offload_param=none, offload_optimizer=cpu */
    double gpu = largest_layer_memory + py_int(2.0 * p / total_gpus);
    rows[k++] = make_row(0, 1, 1, gpu, p * 16.0 * gpus_factor * f);
    rows[k++] = make_row(0, 1, 0, gpu, p * py_max(4.0 * n, 16.0 * gpus_factor) * f);

    /* offload_param=none, offload_optimizer=none */
    gpu = largest_layer_memory + py_int(18.0 * p / total_gpus);
    rows[k++] = make_row(0, 0, 1, gpu, big * 4.0 * n * f);
    rows[k++] = make_row(0, 0, 0, gpu, p * 4.0 * n * f);

    return k;
}
