/* mem_fields.c -- the memory components every report shows: keys, labels, where they live. */
#include "report/mem_fields.h"

const mem_field mem_fields[] = {
    {"parameters", "parameters", offsetof(memory, parameters), false},
    {"gradients", "gradients", offsetof(memory, gradients), false},
    {"optimizer_states", "optimizer states", offsetof(memory, optimizer_states), false},
    {"model_states", "= model states", offsetof(memory, model_states), false},
    {"activations", "activations", offsetof(memory, activations), false},
    {"logits", "logits (fp32, loss)", offsetof(memory, logits), false},
    {"context_parallel_kv_buffers", "CP K/V receive buffers", offsetof(memory, cp_kv_buffers), true},
    {"communication_buffers", "communication buckets", offsetof(memory, comm_buffers), false},
    {"zero3_gathered_parameters", "ZeRO-3 gathered params", offsetof(memory, gathered_params), false},
    {"dequantized_weight", "QLoRA weight in flight", offsetof(memory, dequantized), true},
    {"cuda_context", "CUDA context", offsetof(memory, cuda_context), false},
    {"allocator_overhead", "allocator overhead", offsetof(memory, allocator), false},
    {"total", "= total per GPU", offsetof(memory, total), false},
    {NULL, NULL, 0, false},
};

double mem_field_value(const memory *m, const mem_field *f)
{
    return *(const double *)((const char *)m + f->offset);
}

bool mem_field_shown(const mem_field *f, const result *r, int n)
{
    if (!f->optional) return true;
    for (int i = 0; i < n; i++)
        if (r[i].applicable && mem_field_value(&r[i].mem, f) > 0) return true;
    return false;
}
