/* report_compat.c -- what `estimate --compat deepspeed|megatron` prints: those tools' own
 * estimates, in their own words. */
#include "report/report_compat.h"
#include "report/report_json.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core/units.h"

static const char *dev(int on)
{
    return on ? "cpu" : "none";
}

/* One stage's table: DeepSpeed's header, then a line per row. */
static void ds_table(FILE *f, const compat_ds_report *r, int stage)
{
    const ds_row *rows = r->rows[stage - 2];
    int nodes = r->nodes, gpn = r->gpus_per_node;
    fprintf(f,
        "Estimated memory needed for params, optim states and gradients for a:\n"
        "HW: Setup with %d node%s, %d GPU%s per node.\n",
        nodes, nodes == 1 ? "" : "s", gpn, gpn == 1 ? "" : "s");
    if (stage == 2)
        fprintf(f, "SW: Model with %dM total params.\n", (int)(r->params / 1e6));
    else
        fprintf(f, "SW: Model with %dM total params, %dM largest layer params.\n", (int)(r->params / 1e6),
            (int)(r->largest / 1e6));
    fprintf(f, "  per CPU  |  per GPU |   Options\n");
    for (int i = 0; i < r->n[stage - 2]; i++) {
        fprintf(f, " %7.2fGB | %6.2fGB | ", rows[i].per_cpu_bytes / GiB, rows[i].per_gpu_bytes / GiB);
        if (stage == 3)
            fprintf(f, "offload_param=%-4s, offload_optimizer=%-4s, zero_init=%d\n",
                dev(rows[i].offload_param), dev(rows[i].offload_optimizer), rows[i].zero_init);
        else
            fprintf(f, "offload_optimizer=%-4s\n", dev(rows[i].offload_optimizer));
    }
    fprintf(f, "\n");
}

void report_compat_deepspeed(FILE *f, out_format format, const compat_ds_report *r)
{
    if (format == FMT_TABLE) {
        for (int stage = 2; stage <= 3; stage++)
            if (r->want[stage - 2]) ds_table(f, r, stage);
        fprintf(f,
            "(DeepSpeed prints GiB = 2^30 bytes and labels them \"GB\". Model states only: no activations,\n"
            " buckets, CUDA context or fragmentation; 'zerosim estimate' without --compat adds them.)\n");
        return;
    }
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "rows");
    for (int stage = 2; stage <= 3; stage++) {
        if (!r->want[stage - 2]) continue;
        const ds_row *rows = r->rows[stage - 2];
        for (int i = 0; i < r->n[stage - 2]; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "strategy", stage == 2 ? "zero2" : "zero3");
            cJSON_AddStringToObject(o, "offload_param", dev(rows[i].offload_param));
            cJSON_AddStringToObject(o, "offload_optimizer", dev(rows[i].offload_optimizer));
            if (stage == 3) cJSON_AddBoolToObject(o, "zero_init", rows[i].zero_init);
            cJSON_AddNumberToObject(o, "per_gpu_bytes", rows[i].per_gpu_bytes);
            cJSON_AddNumberToObject(o, "per_cpu_bytes", rows[i].per_cpu_bytes);
            cJSON_AddItemToArray(arr, o);
        }
    }
    report_json_print(f, root);
}

void report_compat_megatron(FILE *f, out_format format, const megatron_memory *r, int64_t padded_vocab)
{
    if (format == FMT_TABLE) {
        fprintf(f, "Number of parameters in transformer block in billions: %6.2f\n",
            r->num_parameters_in_transformer_block / 1e9);
        fprintf(f, "Number of parameters in embedding layers in billions: %.2f\n",
            r->num_parameters_in_embedding_layers / 1e9);
        fprintf(f, "Total number of parameters in billions: %.2f\n", r->num_total_parameters / 1e9);
        fprintf(f, "Number of parameters in most loaded shard in billions: %.4f\n",
            r->num_parameters_on_most_loaded_shard / 1e9);
        fprintf(f,
            "Theoretical memory footprints: weight and optimizer=%.2f MB, activation=%.2f MB, total=%.2f "
            "MB\n",
            r->weight_and_optimizer_mb, r->activation_mb, r->total_mb);
        fprintf(f,
            "(Megatron's MB are MiB = 2^20 bytes; padded vocabulary %lld. Megatron's formula omits\n"
            " buffers, the CUDA context and fragmentation: 'zerosim estimate' without --compat adds them.)\n",
            (long long)padded_vocab);
        return;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "weight_and_optimizer_bytes", r->weight_and_optimizer_bytes);
    cJSON_AddNumberToObject(o, "activation_bytes", r->activation_bytes);
    cJSON_AddNumberToObject(o, "total_bytes", r->total_bytes);
    cJSON_AddNumberToObject(o, "parameters_on_most_loaded_shard", r->num_parameters_on_most_loaded_shard);
    cJSON_AddNumberToObject(o, "total_parameters", r->num_total_parameters);
    cJSON_AddNumberToObject(o, "padded_vocab_size", (double)padded_vocab);
    report_json_print(f, o);
}
