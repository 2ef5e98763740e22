/* report_row.c -- one configuration per line, for estimate --format csv and sweep. */
#include "report/report_row.h"

#include <string.h>

#include "core/framework.h"
#include "report/report.h"
#include "core/scenario.h"

/* The numeric tail after the memory columns: key and value. */
#define TAIL_COUNT 17
static const char *const tail_keys[TAIL_COUNT] = {"step_time_seconds.compute",
    "step_time_seconds.communication_exposed", "step_time_seconds.optimizer", "step_time_seconds.bubble",
    "step_time_seconds.offload", "step_time_seconds.framework_overhead", "step_time_seconds.total",
    "tokens_per_second", "tflops_per_gpu", "mfu", "hfu", "communication_bytes_per_gpu.total",
    "communication_bytes_per_gpu.intra_node", "communication_bytes_per_gpu.inter_node",
    "communication_bytes_per_gpu.host_link", "host_memory_bytes.per_node", "cost.dollars"};

void report_row_header(FILE *f)
{
    fputs("model,hardware,framework,strategy,gpus,gpus_per_node,tp,pp,cp,ep,virtual_stages,dp,micro_batch,"
          "seq_len,"
          "grad_accum,precision,optimizer,checkpointing,sequence_parallel,offload_optimizer,offload_params,"
          "valid,error,fits",
        f);
    for (const mem_field *mf = mem_fields; mf->key; mf++) fprintf(f, ",memory_bytes.%s", mf->key);
    for (int j = 0; j < TAIL_COUNT; j++) fprintf(f, ",%s", tail_keys[j]);
    fputc('\n', f);
}

/* A text field: CSV quotes it when it holds a comma, quote or line break (doubling quotes);
 * JSON escapes it. */
static void text(FILE *f, const char *s, bool json)
{
    if (json) {
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            if (*p == '"' || *p == '\\')
                fprintf(f, "\\%c", *p);
            else if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
        fputc('"', f);
        return;
    }
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

void report_row_write(FILE *f, const model *m, const hardware *hw, const training *t, const strategy *st,
    const result *r, const char *error, bool json)
{
    bool valid = error == NULL && r->applicable;
    const char *why = error ? error : !r->applicable ? r->why : "";
    const char *names[] = {"model", "hardware", "framework", "strategy"};
    const char *svals[] = {m->name, hw->name, framework_of(t)->name, st->name};
    const char *inames[] = {"gpus", "gpus_per_node", "tp", "pp", "cp", "ep", "virtual_stages", "dp",
        "micro_batch", "seq_len", "grad_accum"};
    const long long ivals[] = {(long long)t->gpus, (long long)scenario_gpus_per_node(hw, t), (long long)t->tp,
        (long long)t->pp, (long long)t->cp, (long long)t->ep, (long long)t->virtual_stages,
        (long long)training_dp(t), (long long)t->micro_batch, (long long)t->seq_len,
        (long long)t->grad_accum};
    const char *enames[] = {"precision", "optimizer", "checkpointing", "sequence_parallel",
        "offload_optimizer", "offload_params", "valid", "error", "fits"};
    const char *evals[] = {precision_name(t->precision), optimizer_name(t->optimizer),
        ckpt_name(t->checkpointing), t->sequence_parallel ? "true" : "false",
        offload_name(t->offload_optimizer), offload_name(t->offload_params), valid ? "true" : "false", why,
        valid && r->fits ? "true" : "false"};
    const double tail[TAIL_COUNT] = {r->step.compute, r->step.comm_exposed, r->step.optimizer, r->step.bubble,
        r->step.offload, r->step.overhead, r->step.total, r->tokens_per_second, r->tflops_per_gpu, r->mfu,
        r->hfu, r->comm.bytes_total, r->comm.bytes_level[LEVEL_INTRA], r->comm.bytes_level[LEVEL_INTER],
        r->comm.bytes_level[LEVEL_HOST], r->mem.host_per_node, r->cost.dollars};
    const char *sep = json ? "{" : "";
    for (int k = 0; k < 4; k++) {
        fputs(sep, f);
        if (json) fprintf(f, "\"%s\":", names[k]);
        text(f, svals[k], json);
        sep = ",";
    }
    for (int k = 0; k < 11; k++) {
        if (json)
            fprintf(f, ",\"%s\":%lld", inames[k], ivals[k]);
        else
            fprintf(f, ",%lld", ivals[k]);
    }
    for (int k = 0; k < 9; k++) {
        /* booleans bare in JSON; names and the error as strings */
        bool boolean = k == 3 || k == 6 || k == 8;
        fputc(',', f);
        if (json) fprintf(f, "\"%s\":", enames[k]);
        if (json && boolean)
            fputs(evals[k], f);
        else
            text(f, evals[k], json);
    }
    for (const mem_field *mf = mem_fields; mf->key; mf++) {
        double v = valid ? *(const double *)((const char *)&r->mem + mf->offset) : 0;
        if (json)
            fprintf(f, ",\"memory_bytes.%s\":%.0f", mf->key, v);
        else
            fprintf(f, ",%.0f", v);
    }
    for (int j = 0; j < TAIL_COUNT; j++) {
        /* The cost (the last column) is empty in CSV, null in JSON, when it was not asked for
         * (no --tokens) or the configuration does not fit (it never runs). */
        bool none = j == TAIL_COUNT - 1 && !(valid && r->fits && r->cost.tokens > 0);
        if (json) fprintf(f, ",\"%s\":", tail_keys[j]);
        if (none)
            fputs(json ? "null" : ",", f);
        else
            fprintf(f, json ? "%.9g" : ",%.9g", valid ? tail[j] : 0);
    }
    fputs(json ? "}\n" : "\n", f);
}
