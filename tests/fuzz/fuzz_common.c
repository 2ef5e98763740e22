/* fuzz_common.c -- input copy, finiteness checks, reference model/hardware, one simulator pass. */
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/error.h"
#include "io/hardware_json.h"
#include "io/model_json.h"
#include "core/sim.h"

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    FUZZ_CHECK(s != NULL);
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

void fuzz_check_num(double x)
{
    FUZZ_CHECK(isfinite(x) && x >= 0);
}

void fuzz_check_error(const zs_error *err)
{
    FUZZ_CHECK(err->code != ZS_OK && err->msg[0] != '\0');
}

/* Kept small so one simulation costs microseconds and the fuzzer stays fast. */
static const char REF_MODEL[] =
    "{\"model_type\": \"gpt2\", \"name\": \"ref\", \"n_embd\": 768, \"n_head\": 12,"
    " \"n_layer\": 12, \"n_positions\": 1024, \"vocab_size\": 50257}";

/* The A100-80GB profile's numbers without its prose. */
static const char REF_HARDWARE[] =
    "{\"name\": \"ref\","
    " \"gpu\": {\"hbm_bytes\": 85899345920, \"hbm_bandwidth_bytes_per_second\": 2.039e12,"
    "   \"peak_flops\": {\"fp32\": 1.95e13, \"tf32\": 1.56e14, \"bf16\": 3.12e14, \"fp16\": 3.12e14},"
    "   \"tdp_watts\": 400},"
    " \"node\": {\"gpus_per_node\": 8, \"host_memory_bytes\": 2199023255552,"
    "   \"host_memory_bandwidth_bytes_per_second\": 4.096e11, \"cpu_cores\": 128,"
    "   \"nvme_bandwidth_bytes_per_second\": 5.52e10, \"nvme_bytes\": 3.072e13},"
    " \"intra_node\": {\"bandwidth_bytes_per_second\": 3e11, \"latency_seconds\": 3.4e-6},"
    " \"inter_node\": {\"nics_per_node\": 8, \"nic_bandwidth_bytes_per_second\": 2.5e10,"
    "   \"latency_seconds\": 1.4e-5},"
    " \"host_link\": {\"bandwidth_bytes_per_second\": 3.15e10},"
    " \"memory_overhead\": {\"cuda_context_bytes\": 1150418944, \"allocator_fraction\": 0.1},"
    " \"price\": {\"dollars_per_gpu_hour\": 3.4309},"
    " \"efficiency\": {\"matmul_max_fraction\": 0.65, \"matmul_half_flops\": 2.5e9,"
    "   \"hbm_fraction\": 0.834, \"intra_node_fraction\": 0.78, \"inter_node_fraction\": 0.96,"
    "   \"host_link_fraction\": 0.83}}";

const model *fuzz_ref_model(const param_counts **pc)
{
    static model m;
    static param_counts counts;
    static int ready;
    if (!ready) {
        zs_error err = {0};
        cJSON *j = cJSON_Parse(REF_MODEL);
        FUZZ_CHECK(j && model_from_json(j, "ref", &m, &err) == ZS_OK);
        FUZZ_CHECK(model_count(&m, 1e5, &counts, &err) == ZS_OK);
        cJSON_Delete(j);
        ready = 1;
    }
    *pc = &counts;
    return &m;
}

const hardware *fuzz_ref_hardware(void)
{
    static hardware hw;
    static int ready;
    if (!ready) {
        zs_error err = {0};
        cJSON *j = cJSON_Parse(REF_HARDWARE);
        FUZZ_CHECK(j && hardware_from_json(j, "ref", &hw, &err) == ZS_OK);
        cJSON_Delete(j);
        ready = 1;
    }
    return &hw;
}

void fuzz_check_result(const result *r)
{
    const memory *mm = &r->mem;
    const double mem[] = {mm->parameters, mm->gradients, mm->optimizer_states, mm->model_states,
                          mm->activations, mm->logits, mm->comm_buffers, mm->gathered_params,
                          mm->cuda_context, mm->allocator, mm->total, mm->host_per_gpu,
                          mm->host_per_node, mm->nvme_per_gpu};
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) fuzz_check_num(mem[i]);
    FUZZ_CHECK(mm->total > 0);
    const step_time *st = &r->step;
    const double step[] = {st->compute, st->comm_exposed, st->optimizer, st->bubble, st->offload,
                           st->total, r->tokens_per_second, r->tflops_per_gpu, r->mfu, r->hfu,
                           r->cost.tokens, r->cost.seconds, r->cost.gpu_hours, r->cost.dollars,
                           r->cost.kwh, r->comm.bytes_total, r->comm.ideal_bytes,
                           r->comm.seconds_total};
    for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) fuzz_check_num(step[i]);
    FUZZ_CHECK(st->total > 0);
    /* What physics allows: no more FLOP/s than the peak (model FLOPs, nor hardware FLOPs with
     * the recomputation), a step no shorter than its compute, a total no less than its states. */
    FUZZ_CHECK(r->mfu <= 1 + 1e-9 && r->hfu <= 1 + 1e-9 && r->hfu >= r->mfu * (1 - 1e-9));
    FUZZ_CHECK(st->total >= st->compute * (1 - 1e-12));
    FUZZ_CHECK(mm->total >= mm->model_states * (1 - 1e-12) - 1);
    for (int l = 0; l < LEVEL_COUNT; l++) fuzz_check_num(r->comm.bytes_level[l]);
    for (int k = 0; k < COLL_COUNT; k++) fuzz_check_num(r->comm.bytes_kind[k]);
    FUZZ_CHECK(r->plan.n >= 0 && r->plan.n <= COMM_MAX_OPS);
    for (int i = 0; i < r->plan.n; i++) {
        fuzz_check_num(r->plan.op[i].size);
        fuzz_check_num(r->plan.op[i].calls);
        fuzz_check_num(r->plan.op[i].seconds);
    }
}

void fuzz_simulate(const model *m, const param_counts *pc, const hardware *hw, const training *t,
                   const strategy *only)
{
    sim_input in;
    zs_error err = {0};
    if (sim_prepare(&in, m, pc, hw, t, &err) != ZS_OK) {
        fuzz_check_error(&err);
        return;
    }
    for (int k = 0; strategies[k]; k++) {
        if (only && strategies[k] != only) continue;
        result r;
        memset(&r, 0, sizeof r);
        sim_run(&in, strategies[k], 1e9, &r);
        if (r.applicable) fuzz_check_result(&r);
        else FUZZ_CHECK(r.why[0] != '\0');
    }
}
