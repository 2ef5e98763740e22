/* report.c -- estimate output: a readable table, JSON with stable keys, CSV. */
#include "report/report.h"
#include "report/report_row.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/finetune.h"
#include "report/model_explain.h"
#include "core/framework.h"
#include "core/strategy.h"
#include "core/units.h"

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
    {"cuda_context", "CUDA context", offsetof(memory, cuda_context), false},
    {"allocator_overhead", "allocator overhead", offsetof(memory, allocator), false},
    {"total", "= total per GPU", offsetof(memory, total), false},
    {NULL, NULL, 0, false},
};

static double field_of(const memory *m, const mem_field *f)
{
    return *(const double *)((const char *)m + f->offset);
}

bool mem_field_shown(const mem_field *f, const result *r, int n)
{
    if (!f->optional) return true;
    for (int i = 0; i < n; i++)
        if (r[i].applicable && field_of(&r[i].mem, f) > 0) return true;
    return false;
}

static void describe(FILE *f, const scenario *s, const report_options *o)
{
    const training *t = s->t;
    char a[32], b[32];
    if (s->m->params_only)
        fprintf(f, "model      %s parameters (--params; model states only)\n",
                units_fmt_count(s->pc->total, a, sizeof a));
    else
        fprintf(f, "model      %s: %s parameters (%s active), %lld layers, hidden %lld\n", s->m->name,
                units_fmt_count(s->pc->total, a, sizeof a), units_fmt_short(s->pc->active, b, sizeof b),
                (long long)s->m->num_layers, (long long)s->m->hidden_size);
    int64_t gpn = scenario_gpus_per_node(s->hw, t), full = t->gpus / gpn, rest = t->gpus % gpn;
    /* Both units, so "--hbm 80GB" reads back as what it is; the real layout, partial node
     * included. */
    fprintf(f, "hardware   %s: %s, %s HBM (%.2f GB), %lld GPUs = %lld node%s x %lld", s->hw->name,
            s->hw->gpu_model, units_fmt_bytes(s->hw->hbm_bytes, a, sizeof a), s->hw->hbm_bytes / 1e9,
            (long long)t->gpus, (long long)full, full == 1 ? "" : "s", (long long)gpn);
    if (rest) fprintf(f, " + 1 node x %lld", (long long)rest);
    fputc('\n', f);
    char cp[64] = "", ep[32] = "";
    if (t->cp > 1) snprintf(cp, sizeof cp, ", CP %lld", (long long)t->cp);
    if (t->ep > 1) snprintf(ep, sizeof ep, ", EP %lld", (long long)t->ep);
    strncat(cp, ep, sizeof cp - strlen(cp) - 1);
    fprintf(f, "training   %s, %s; micro-batch %lld x seq %lld, grad-accum %lld; TP %lld, PP %lld%s, DP %lld\n",
            precision_name(t->precision), optimizer_name(t->optimizer), (long long)t->micro_batch,
            (long long)t->seq_len, (long long)t->grad_accum, (long long)t->tp, (long long)t->pp, cp,
            (long long)training_dp(t));
    fprintf(f, "           checkpointing %s%s, %s attention, offload optimizer %s, params %s\n",
            ckpt_name(t->checkpointing), t->sequence_parallel ? ", sequence parallel" : "",
            t->flash_attention ? "flash" : "eager", offload_name(t->offload_optimizer),
            offload_name(t->offload_params));
    const framework *fw = framework_of(t);
    if (t->framework) {
        /* Which of the framework's modes each column is. */
        fprintf(f, "framework  %s", fw->label);
        const char *sep = ": ";
        for (int i = 0; strategies[i]; i++) {
            if (fw->runs[i] && strcmp(fw->runs[i], strategies[i]->label) == 0) continue;
            fprintf(f, "%s%s %s %s", sep, strategies[i]->label, fw->runs[i] ? "=" : "is", fw->runs[i] ? fw->runs[i] : "not offered");
            sep = ", ";
        }
        fputc('\n', f);
    }
    if (t->finetune != FT_FULL)
        fprintf(f, "finetune   %s: rank %lld adapters on %s linear layers, frozen base in %s\n",
                finetune_name((finetune_kind)t->finetune), (long long)t->lora_rank,
                t->lora_targets == LORA_ATTN ? "attention" : t->lora_targets == LORA_MLP ? "MLP" : "all",
                t->finetune == FT_QLORA ? "NF4 (4-bit, double-quantized)" : "16 bits");
    if (t->shard_group > 0 || t->hpz_group > 0 || t->quant_weights || t->quant_grads)
        fprintf(f, "           shard group %lld%s, hpZ group %lld, qwZ %s, qgZ %s\n", (long long)t->shard_group,
                t->shard_group ? "" : " (all of DP)", (long long)t->hpz_group, t->quant_weights ? "on" : "off",
                t->quant_grads ? "on" : "off");
    if (o->ds_path && o->ds_notes && o->ds_notes[0])
        fprintf(f, "deepspeed  %s; %s\n", o->ds_path, o->ds_notes);
}

/* A table cell: the row's format, or scientific notation when that would not fit the column. */
__attribute__((format(printf, 3, 0))) static void cell(char *buf, size_t len, const char *fmt, double v)
{
    snprintf(buf, len, fmt, v);
    if (strlen(buf) > 10) snprintf(buf, len, "%.4g", v);
}

/* The parts of the table after memory; each but the cost under its title over the results'
 * names, the cost under a line naming the token count and the price. */
typedef enum { PART_STEP, PART_SENT, PART_COST } table_part;
static const char *const part_titles[] = {
    [PART_STEP] = "Step time (seconds)",
    [PART_SENT] = "Sent per GPU per step (GB=1e9 B)",
};

/* When a row of those parts is printed. */
typedef enum {
    SHOW_ALWAYS,
    SHOW_POSITIVE, /* when some applicable result has a positive value there: rows most
                      configurations lack (framework overhead, EP/CP parts, hybrid savings) */
    SHOW_INTERVAL, /* when some result has an uncertainty interval */
} row_show;

/* One row of those parts: a label and, per applicable result, the value get(r) / scale in
 * fmt. */
typedef struct table_row {
    table_part part;
    const char *label;
    double (*get)(const result *r);
    const char *fmt;
    double scale;                    /* divides the value (1e9: bytes to GB) */
    row_show show;
} table_row;

#define GETTER(name, expr) static double name(const result *r) { return expr; }
GETTER(g_compute, r->step.compute)
GETTER(g_comm, r->step.comm_exposed)
GETTER(g_opt, r->step.optimizer)
GETTER(g_bubble, r->step.bubble)
GETTER(g_offload, r->step.offload)
GETTER(g_overhead, r->step.overhead)
GETTER(g_total, r->step.total)
GETTER(g_lo, r->step_lo)
GETTER(g_hi, r->step_hi)
GETTER(g_tps, r->tokens_per_second)
GETTER(g_tflops, r->tflops_per_gpu)
GETTER(g_mfu, r->mfu * 100)
GETTER(g_hfu, r->hfu * 100)
GETTER(g_bytes, r->comm.bytes_total)
GETTER(g_intra, r->comm.bytes_level[LEVEL_INTRA])
GETTER(g_inter, r->comm.bytes_level[LEVEL_INTER])
GETTER(g_host, r->comm.bytes_level[LEVEL_HOST])
GETTER(g_ideal, r->comm.ideal_bytes)
GETTER(g_plain, r->comm.plain_inter_bytes)
GETTER(g_ep, r->comm.bytes_group[GROUP_EP])
GETTER(g_xep, r->step.exposed_ep)
GETTER(g_xcp, r->step.exposed_cp)
GETTER(g_cp, r->comm.bytes_group[GROUP_CP])
GETTER(g_days, r->cost.seconds / 86400)
GETTER(g_gpuh, r->cost.gpu_hours)
GETTER(g_dollars, r->cost.dollars)
GETTER(g_mwh, r->cost.kwh / 1000)

/* In order, the rows of each part together. */
static const table_row time_rows[] = {
    {PART_STEP, "compute (fwd+bwd+recompute)", g_compute, "%.3f", 1, SHOW_ALWAYS},
    {PART_STEP, "exposed communication", g_comm, "%.3f", 1, SHOW_ALWAYS},
    {PART_STEP, "  of which EP all-to-all", g_xep, "%.3f", 1, SHOW_POSITIVE},
    {PART_STEP, "  of which CP K/V ring", g_xcp, "%.3f", 1, SHOW_POSITIVE},
    {PART_STEP, "optimizer step", g_opt, "%.3f", 1, SHOW_ALWAYS},
    {PART_STEP, "pipeline bubble", g_bubble, "%.3f", 1, SHOW_ALWAYS},
    {PART_STEP, "exposed offload (PCIe)", g_offload, "%.3f", 1, SHOW_ALWAYS},
    {PART_STEP, "framework overhead (fitted)", g_overhead, "%.3f", 1, SHOW_POSITIVE},
    {PART_STEP, "= step", g_total, "%.3f", 1, SHOW_ALWAYS},
    {PART_STEP, "  90% interval: from", g_lo, "%.3f", 1, SHOW_INTERVAL},
    {PART_STEP, "                to", g_hi, "%.3f", 1, SHOW_INTERVAL},
    {PART_STEP, "tokens/s (cluster)", g_tps, "%.0f", 1, SHOW_ALWAYS},
    {PART_STEP, "model TFLOP/s per GPU", g_tflops, "%.1f", 1, SHOW_ALWAYS},
    {PART_STEP, "MFU %", g_mfu, "%.1f", 1, SHOW_ALWAYS},
    {PART_STEP, "HFU %", g_hfu, "%.1f", 1, SHOW_ALWAYS},
    {PART_SENT, "NVLink (intra-node)", g_intra, "%.2f", 1e9, SHOW_ALWAYS},
    {PART_SENT, "network (inter-node)", g_inter, "%.2f", 1e9, SHOW_ALWAYS},
    {PART_SENT, "PCIe (host offload)", g_host, "%.2f", 1e9, SHOW_ALWAYS},
    {PART_SENT, "= total", g_bytes, "%.2f", 1e9, SHOW_ALWAYS},
    {PART_SENT, "  of which EP all-to-all", g_ep, "%.2f", 1e9, SHOW_POSITIVE},
    {PART_SENT, "  of which CP K/V ring", g_cp, "%.2f", 1e9, SHOW_POSITIVE},
    {PART_SENT, "ZeRO paper ideal (DP only)", g_ideal, "%.2f", 1e9, SHOW_ALWAYS},
    {PART_SENT, "network without hybrid/ZeRO++", g_plain, "%.2f", 1e9, SHOW_POSITIVE},
    {PART_COST, "days", g_days, "%.1f", 1, SHOW_ALWAYS},
    {PART_COST, "GPU-hours", g_gpuh, "%.0f", 1, SHOW_ALWAYS},
    {PART_COST, "dollars", g_dollars, "%.0f", 1, SHOW_ALWAYS},
    {PART_COST, "GPU energy MWh (at TDP)", g_mwh, "%.1f", 1, SHOW_ALWAYS},
};

/* A part's title line: the title, then one column per result. */
static void title_row(FILE *f, const char *title, const result *r, int n)
{
    fprintf(f, "\n%-32s", title);
    for (int i = 0; i < n; i++) fprintf(f, "%12s", r[i].strategy->label);
    fputc('\n', f);
}

static bool row_shown(const table_row *t, const result *r, int n)
{
    if (t->show == SHOW_ALWAYS) return true;
    for (int i = 0; i < n; i++)
        if (t->show == SHOW_POSITIVE ? r[i].applicable && t->get(&r[i]) > 0 : r[i].has_interval) return true;
    return false;
}

static void time_part(FILE *f, table_part part, const result *r, int n)
{
    char buf[32];
    for (size_t k = 0; k < sizeof time_rows / sizeof time_rows[0]; k++) {
        const table_row *t = &time_rows[k];
        if (t->part != part || !row_shown(t, r, n)) continue;
        fprintf(f, "  %-30s", t->label);
        for (int i = 0; i < n; i++) {
            if (!r[i].applicable) { fprintf(f, "%12s", "-"); continue; }
            cell(buf, sizeof buf, t->fmt, t->get(&r[i]) / t->scale);
            fprintf(f, "%12s", buf);
        }
        fputc('\n', f);
    }
}

static void time_table(FILE *f, const scenario *s, const result *r, int n)
{
    for (table_part p = PART_STEP; p <= PART_SENT; p++) {
        title_row(f, part_titles[p], r, n);
        time_part(f, p, r, n);
    }
    if (s->tokens > 0) {
        char t[32];
        fprintf(f, "\n%-32s", "");
        fprintf(f, "Training on %s tokens at $%.2f per GPU-hour\n", units_fmt_short(s->tokens, t, sizeof t),
                s->hw->price_per_gpu_hour);
        time_part(f, PART_COST, r, n);
    }
}

static void table(FILE *f, const scenario *s, const report_options *o, const result *r, int n)
{
    char buf[32];
    describe(f, s, o);
    title_row(f, "Memory per GPU (GiB = 2^30 B)", r, n);
    for (const mem_field *mf = mem_fields; mf->key; mf++) {
        if (mf->optional && !mem_field_shown(mf, r, n)) continue;
        fprintf(f, "  %-30s", mf->label);
        for (int i = 0; i < n; i++) {
            if (!r[i].applicable) { fprintf(f, "%12s", "-"); continue; }
            cell(buf, sizeof buf, "%.2f", field_of(&r[i].mem, mf) / GiB);
            fprintf(f, "%12s", buf);
        }
        fputc('\n', f);
    }
    bool any_host = false;
    for (int i = 0; i < n; i++) any_host |= r[i].applicable && r[i].mem.host_per_node > 0;
    if (any_host) {
        fprintf(f, "  %-30s", "host RAM per node");
        for (int i = 0; i < n; i++) {
            snprintf(buf, sizeof buf, "%.2f", r[i].applicable ? r[i].mem.host_per_node / GiB : 0);
            fprintf(f, "%12s", r[i].applicable ? buf : "-");
        }
        fputc('\n', f);
    }
    char hbm[32];
    fprintf(f, "  %-30s", "fits?");
    for (int i = 0; i < n; i++) {
        const char *v = !r[i].applicable ? "n/a" : r[i].fits ? "yes" : !r[i].mem.fits_gpu ? "NO" : "NO (host)";
        fprintf(f, "%12s", v);
    }
    fputc('\n', f);
    fprintf(f, "GPU memory %s (%s); host RAM per node %s.", units_fmt_bytes(s->hw->hbm_bytes, hbm, sizeof hbm),
            s->hw->gpu_model, units_fmt_bytes(s->hw->host_memory_bytes, buf, sizeof buf));
    for (int i = 0; i < n; i++)
        if (!r[i].applicable) fprintf(f, " %s: %s.", r[i].strategy->label, r[i].why);
    fputc('\n', f);
    time_table(f, s, r, n);
}

static cJSON *memory_json(const memory *m)
{
    cJSON *o = cJSON_CreateObject();
    for (const mem_field *mf = mem_fields; mf->key; mf++)
        cJSON_AddNumberToObject(o, mf->key, field_of(m, mf));
    return o;
}

static cJSON *cost_json(const train_cost *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "tokens", c->tokens);
    cJSON_AddNumberToObject(o, "seconds", c->seconds);
    cJSON_AddNumberToObject(o, "gpu_hours", c->gpu_hours);
    cJSON_AddNumberToObject(o, "dollars", c->dollars);
    cJSON_AddNumberToObject(o, "energy_kwh", c->kwh);
    return o;
}

/* r's "step_time_seconds" (with parts, the EP and CP parts of the exposed communication too)
 * and, when it has one, its "step_time_interval_seconds", added to o. */
static void step_json(cJSON *o, const result *r, bool parts)
{
    cJSON *st = cJSON_AddObjectToObject(o, "step_time_seconds");
    cJSON_AddNumberToObject(st, "compute", r->step.compute);
    cJSON_AddNumberToObject(st, "communication_exposed", r->step.comm_exposed);
    if (parts) {
        cJSON_AddNumberToObject(st, "communication_exposed_expert_all_to_all", r->step.exposed_ep);
        cJSON_AddNumberToObject(st, "communication_exposed_context_parallel_kv", r->step.exposed_cp);
    }
    cJSON_AddNumberToObject(st, "optimizer", r->step.optimizer);
    cJSON_AddNumberToObject(st, "bubble", r->step.bubble);
    cJSON_AddNumberToObject(st, "offload", r->step.offload);
    cJSON_AddNumberToObject(st, "framework_overhead", r->step.overhead);
    cJSON_AddNumberToObject(st, "total", r->step.total);
    if (r->has_interval) {
        cJSON *iv = cJSON_AddArrayToObject(o, "step_time_interval_seconds");
        cJSON_AddItemToArray(iv, cJSON_CreateNumber(r->step_lo));
        cJSON_AddItemToArray(iv, cJSON_CreateNumber(r->step_hi));
    }
}

/* The parallel degrees, "tp" to "ep", added to o. */
static void parallel_json(cJSON *o, const training *t)
{
    cJSON_AddNumberToObject(o, "tp", (double)t->tp);
    cJSON_AddNumberToObject(o, "pp", (double)t->pp);
    cJSON_AddNumberToObject(o, "cp", (double)t->cp);
    cJSON_AddNumberToObject(o, "ep", (double)t->ep);
}

static cJSON *estimate_json(const scenario *s, const report_options *op, const result *r, int n)
{
    const training *t = s->t;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    cJSON *m = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(m, "name", s->m->name);
    cJSON_AddStringToObject(m, "model_type", s->m->model_type);
    cJSON_AddNumberToObject(m, "parameters", s->pc->total);
    cJSON_AddNumberToObject(m, "active_parameters", s->pc->active);
    cJSON_AddNumberToObject(m, "largest_layer_parameters", s->pc->largest_module);
    if (!s->m->params_only) {
        cJSON_AddNumberToObject(m, "parameters_per_layer", s->pc->per_layer);
        cJSON_AddNumberToObject(m, "embedding_parameters", s->pc->embedding);
        cJSON_AddNumberToObject(m, "layers", (double)s->m->num_layers);
        cJSON_AddNumberToObject(m, "hidden_size", (double)s->m->hidden_size);
    }
    cJSON_AddStringToObject(m, "source", s->m->source);
    cJSON *h = cJSON_AddObjectToObject(root, "hardware");
    cJSON_AddStringToObject(h, "name", s->hw->name);
    cJSON_AddStringToObject(h, "gpu", s->hw->gpu_model);
    cJSON_AddNumberToObject(h, "hbm_bytes", s->hw->hbm_bytes);
    cJSON_AddNumberToObject(h, "host_memory_bytes_per_node", s->hw->host_memory_bytes);
    cJSON *tr = cJSON_AddObjectToObject(root, "training");
    cJSON_AddNumberToObject(tr, "gpus", (double)t->gpus);
    cJSON_AddNumberToObject(tr, "gpus_per_node", (double)scenario_node_size(s->hw, t));
    parallel_json(tr, t);
    cJSON_AddNumberToObject(tr, "dp", (double)training_dp(t));
    cJSON_AddNumberToObject(tr, "micro_batch", (double)t->micro_batch);
    cJSON_AddNumberToObject(tr, "seq_len", (double)t->seq_len);
    cJSON_AddNumberToObject(tr, "grad_accum", (double)t->grad_accum);
    cJSON_AddStringToObject(tr, "precision", precision_name(t->precision));
    cJSON_AddStringToObject(tr, "optimizer", optimizer_name(t->optimizer));
    cJSON_AddStringToObject(tr, "checkpointing", ckpt_name(t->checkpointing));
    cJSON_AddBoolToObject(tr, "sequence_parallel", t->sequence_parallel);
    cJSON_AddBoolToObject(tr, "flash_attention", t->flash_attention);
    cJSON_AddStringToObject(tr, "offload_optimizer", offload_name(t->offload_optimizer));
    cJSON_AddStringToObject(tr, "offload_params", offload_name(t->offload_params));
    cJSON_AddStringToObject(tr, "framework", framework_of(t)->name);
    cJSON_AddStringToObject(tr, "finetune", finetune_name((finetune_kind)t->finetune));
    if (t->finetune != FT_FULL) cJSON_AddNumberToObject(tr, "lora_rank", (double)t->lora_rank);
    double adapters = finetune_adapters_per_layer(s->m, t->lora_rank, t->lora_targets) * (double)s->m->num_layers;
    cJSON_AddNumberToObject(tr, "trainable_parameters", t->finetune != FT_FULL ? adapters : s->pc->total);
    cJSON_AddNumberToObject(tr, "shard_group", (double)t->shard_group);
    if (op->ds_path) {
        cJSON_AddStringToObject(tr, "deepspeed_defaulted", op->ds_defaulted ? op->ds_defaulted : "");
        cJSON_AddStringToObject(tr, "deepspeed_auto_filled", op->ds_filled ? op->ds_filled : "");
        cJSON_AddStringToObject(tr, "deepspeed_ignored", op->ds_ignored ? op->ds_ignored : "");
    }
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "strategy", r[i].strategy->name);
        cJSON_AddStringToObject(o, "framework", framework_of(t)->name);
        char lab[96];
        cJSON_AddStringToObject(o, "label", framework_strategy_label(framework_of(t), r[i].strategy, lab, sizeof lab));
        cJSON_AddBoolToObject(o, "applicable", r[i].applicable);
        if (!r[i].applicable) {
            cJSON_AddStringToObject(o, "reason", r[i].why);
            cJSON_AddBoolToObject(o, "fits", false);
            cJSON_AddItemToArray(res, o);
            continue;
        }
        cJSON_AddItemToObject(o, "memory_bytes", memory_json(&r[i].mem));
        cJSON *hm = cJSON_AddObjectToObject(o, "host_memory_bytes");
        cJSON_AddNumberToObject(hm, "per_gpu", r[i].mem.host_per_gpu);
        cJSON_AddNumberToObject(hm, "per_node", r[i].mem.host_per_node);
        cJSON_AddNumberToObject(o, "nvme_bytes_per_gpu", r[i].mem.nvme_per_gpu);
        cJSON_AddBoolToObject(o, "fits_gpu", r[i].mem.fits_gpu);
        cJSON_AddBoolToObject(o, "fits_host", r[i].mem.fits_host);
        cJSON_AddBoolToObject(o, "fits", r[i].fits);
        cJSON *c = cJSON_AddObjectToObject(o, "communication_bytes_per_gpu");
        cJSON_AddNumberToObject(c, "total", r[i].comm.bytes_total);
        cJSON_AddNumberToObject(c, "intra_node", r[i].comm.bytes_level[LEVEL_INTRA]);
        cJSON_AddNumberToObject(c, "inter_node", r[i].comm.bytes_level[LEVEL_INTER]);
        cJSON_AddNumberToObject(c, "host_link", r[i].comm.bytes_level[LEVEL_HOST]);
        for (int k = 0; k < COLL_COUNT; k++)
            cJSON_AddNumberToObject(c, coll_table[k]->name, r[i].comm.bytes_kind[k]);
        cJSON_AddNumberToObject(c, "ideal_zero_paper", r[i].comm.ideal_bytes);
        cJSON_AddNumberToObject(c, "expert_all_to_all", r[i].comm.bytes_group[GROUP_EP]);
        cJSON_AddNumberToObject(c, "context_parallel_kv", r[i].comm.bytes_group[GROUP_CP]);
        if (r[i].comm.plain_inter_bytes > 0)
            cJSON_AddNumberToObject(c, "inter_node_without_hybrid", r[i].comm.plain_inter_bytes);
        cJSON *ops = cJSON_AddArrayToObject(o, "collectives");
        for (int k = 0; k < r[i].plan.n; k++) {
            const comm_op *op = &r[i].plan.op[k];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "what", op->what);
            cJSON_AddStringToObject(x, "collective", coll_table[op->kind]->name);
            cJSON_AddNumberToObject(x, "size_bytes", op->size);
            cJSON_AddNumberToObject(x, "calls_per_step", op->calls);
            /* How many times per step the whole set runs: each micro-batch or once. */
            cJSON_AddNumberToObject(x, "rounds_per_step", op->per_micro ? (double)t->grad_accum : 1);
            cJSON_AddItemToArray(ops, x);
        }
        step_json(o, &r[i], true);
        if (r[i].has_interval) cJSON_AddNumberToObject(o, "interval_level", 0.9);
        cJSON_AddNumberToObject(o, "tokens_per_second", r[i].tokens_per_second);
        cJSON_AddNumberToObject(o, "tflops_per_gpu", r[i].tflops_per_gpu);
        cJSON_AddNumberToObject(o, "mfu", r[i].mfu);
        cJSON_AddNumberToObject(o, "hfu", r[i].hfu);
        if (s->tokens > 0) cJSON_AddItemToObject(o, "cost", cost_json(&r[i].cost));
        cJSON_AddItemToArray(res, o);
    }
    return root;
}

/* The columns sweep writes too (report_row.h), one row per strategy. */
static void csv(FILE *f, const scenario *s, const result *r, int n)
{
    report_row_header(f);
    for (int i = 0; i < n; i++) report_row_write(f, s->m, s->hw, s->t, r[i].strategy, &r[i], NULL, false);
}

int report_estimate(FILE *f, const scenario *s, const report_options *o, const result *r, int n)
{
    if (o->explain) report_explain(f, s, o);
    switch (o->format) {
    case FMT_TABLE: table(f, s, o, r, n); break;
    case FMT_CSV: csv(f, s, r, n); break;
    case FMT_JSON: {
        cJSON *j = estimate_json(s, o, r, n);
        char *text = cJSON_Print(j);
        if (text) { fputs(text, f); fputc('\n', f); }
        free(text);
        cJSON_Delete(j);
        break;
    }
    }
    return ferror(f) ? ZS_ERR_IO : ZS_OK;
}

/* "(2 + 2) P" or "12 P / N": the listed byte counts, in parentheses when more than one. */
static void states_terms(FILE *o, const double *b, int n, const char *unit)
{
    if (n == 0) return;
    fprintf(o, n > 1 ? "(" : "");
    for (int i = 0; i < n; i++) fprintf(o, "%s%.0f", i ? " + " : "", b[i]);
    fprintf(o, "%s %s", n > 1 ? ")" : "", unit);
}

void report_explain(FILE *f, const scenario *s, const report_options *op)
{
    byte_table bt = training_bytes(s->t);
    /* With --format json the explanation would break the JSON: it goes to stderr then. */
    FILE *o = op->format == FMT_TABLE ? f : stderr;
    fprintf(o, "Byte table (%s): param %.0f B, grad %.0f B, fp32 master %.0f B, moments %.0f B; K = %.0f\n",
            bt.what, bt.param, bt.grad, bt.master, bt.moments, bt.master + bt.moments);
    fprintf(o, "Model states per GPU, P local params, N = DP (ZeRO paper, arXiv 1910.02054, section 5):\n");
    for (int i = 0; strategies[i]; i++) {
        /* Each strategy's bytes: parameters, gradients, optimizer states, whole or / N. */
        const strategy *st = strategies[i];
        const double bytes[3] = {bt.param, bt.grad, bt.master + bt.moments};
        const bool sharded[3] = {st->shards.parameters, st->shards.gradients, st->shards.optimizer};
        double whole[3], split[3];
        int nw = 0, ns = 0;
        for (int k = 0; k < 3; k++) {
            if (sharded[k]) split[ns++] = bytes[k];
            else whole[nw++] = bytes[k];
        }
        fprintf(o, "  %-6s ", st->label);
        states_terms(o, whole, nw, "P");
        fprintf(o, nw && ns ? " + " : "");
        states_terms(o, split, ns, "P / N");
        fprintf(o, "%s\n", st->shards.parameters ? "   (+ tensors < persistence threshold kept whole)" : "");
    }
    fprintf(o,
            "Activations per block per micro-batch (Korthikanti et al. 2022, arXiv 2205.05198, Table 2,\n"
            "generalised; e = bytes/element, q = a*head_dim, kv = kv_heads*head_dim, i = FFN width):\n"
            "  [s b h (4e + 2 dropout)] / (t if sequence parallel)\n"
            "  + [e s b (2q + 2kv) + k e s b i (4 gated | 2 plain) + scores] / t\n"
            "  scores: eager a s^2 b (2e+1 with dropout | e), selective recompute 0, flash 4 a s b\n"
            "  full recompute keeps e s b h per block (+ one block's full set while recomputing)\n"
            "  1F1B keeps min(p, m) micro-batches on stage 1; interleaving x (1 + (p-1)/(p v))\n"
            "Logits: 4 s b V / t (fp32 for the loss). Buckets: DDP copies grads unless\n"
            "gradient_as_bucket_view; ZeRO-1/2 reduce + all-gather buckets (x4.5 with overlap_comm, DeepSpeed\n"
            "docs); ZeRO-3 one reduce bucket + gathered min(max_live, largest layer + prefetch bucket).\n"
            "Overhead: CUDA context %.2f GiB + allocator %.0f%% of allocated (hardware profile).\n",
            s->hw->cuda_context_bytes / GiB, s->hw->allocator_fraction * 100);
    /* The links exactly as the simulation sees them: the run's GPUs per node share the NICs. */
    coll_link links[LEVEL_COUNT];
    coll_links(s->hw, scenario_gpus_per_node(s->hw, s->t), links);
    fprintf(o,
            "Collectives (Thakur et al. 2005; a = latency per step, B = achieved bandwidth per GPU):\n"
            "  all-reduce min(ring 2(n-1)a + 2(n-1)/n S/B, tree 2 log2(n) a + 2 S/B); reduce-scatter and\n"
            "  all-gather (n-1)a + (n-1)/n S/B; across nodes NVLink inside, the GPU's NIC share between.\n"
            "  NVLink a = %.2f us, B = %.1f GB/s; network a = %.2f us, B = %.1f GB/s per GPU.\n"
            "Step: FLOPs at peak %.0f TFLOP/s x %.3f x W/(W + %.3g) for GEMMs of W FLOPs, attention scores\n"
            "  at the FlashAttention-2 fraction, memory-bound traffic at %.0f GB/s; backward = 2 x forward;\n"
            "  overlapped collectives hide under each micro-batch's compute, the rest and the last bucket\n"
            "  are exposed; Adam moves 28 B per local parameter; bubble (p-1)/v micro-batch slots.\n",
            links[LEVEL_INTRA].alpha * 1e6, links[LEVEL_INTRA].bandwidth / 1e9,
            links[LEVEL_INTER].alpha * 1e6, links[LEVEL_INTER].bandwidth / 1e9,
            compute_peak(s->hw, s->t) / 1e12,
            s->hw->matmul_max_fraction, s->hw->matmul_half_flops, s->hw->hbm_bandwidth * s->hw->hbm_fraction / 1e9);
    const training *t = s->t;
    if (t->shard_group > 0 || t->hpz_group > 0 || t->quant_weights || t->quant_grads)
        fprintf(o,
                "Hybrid sharding and ZeRO++ (S = shard group %lld, R = DP / S replicas, H = hpZ group %lld):\n"
                "  states / S instead of / DP; gathers and reduce-scatters inside the shard group, then an\n"
                "  all-reduce of each rank's gradient shard (G / S bytes) across R replicas: 2 (R-1)/R G/S on the\n"
                "  network instead of (DP-1)/DP G (HSDP, MiCS: Zhang et al. 2022). ZeRO++ (Wang et al. 2023):\n"
                "  qwZ forward gathers int8 (x 0.5), hpZ backward gathers from a secondary partition over H ranks\n"
                "  (P / H more parameter memory), qgZ reduce-scatters int4 gradients (x 0.25).\n",
                (long long)t->shard_group, (long long)t->hpz_group);
    if (t->offload_optimizer == OFFLOAD_NVME) {
        int64_t gpn = scenario_gpus_per_node(s->hw, t);
        fprintf(o,
                "NVMe optimizer offload (ZeRO-Infinity, arXiv 2104.07857): per step each GPU reads (K + 4) P' B (fp32\n"
                "  master, moments, fp32 gradient) and writes K P' B at the node's NVMe %.1f GB/s / %lld GPUs, P' = local\n"
                "  optimizer shard; in k = ceil(P' / sub_group_size %.3g) sub-groups, pipelined I/O (pipeline_read %s,\n"
                "  pipeline_write %s) overlaps the CPU step: T = ov/k + cpu/k + (k-1)/k max(cpu, ov) + unpipelined I/O.\n",
                s->hw->nvme_bandwidth / 1e9, (long long)gpn, t->sub_group_size,
                t->nvme_pipeline_read ? "on" : "off", t->nvme_pipeline_write ? "on" : "off");
    }
    const framework *fw = framework_of(t);
    if (t->framework)
        fprintf(o,
                "Framework %s: GEMM efficiency x %.3f of the profile's; %.3f s of host work per step (fitted);\n"
                "  %.1f us per parameter gather; %.0f%% of TP communication hidden; gradients reduced in %s;\n"
                "  selective recompute = %s.\n",
                fw->label, fw->gemm_efficiency, fw->step_overhead, fw->gather_overhead * 1e6, fw->tp_overlap * 100,
                fw->fp32_grads ? "fp32" : "the training's gradient dtype",
                fw->selective == SELECTIVE_ATTENTION ? "attention core (Korthikanti)"
                : fw->selective == SELECTIVE_OPS ? "op-level (matmul outputs kept)" : "not offered");
    if (t->cp > 1)
        fprintf(o,
                "Context parallelism (CP = %lld): each rank holds s/CP tokens: activations, logits, FLOPs, TP and PP\n"
                "  traffic / CP; not split: two K/V receive buffers 2 x 2 e (s/CP) b kv / t. Ring attention sends\n"
                "  the K/V chunk 2 e (s/CP) b kv / t to the next CP rank CP-1 times per layer forward (2x backward),\n"
                "  hidden only under that layer's attention; gradients reduce over DP x CP.\n", (long long)t->cp);
    if (t->precision == PREC_FP8)
        fprintf(o,
                "FP8 (Transformer Engine): GEMMs at the FP8 peak x fp8_matmul_ratio %.3f (the best FP8 matmul's\n"
                "  fraction of its peak over the best 16-bit one's; half-efficiency size x peak_fp8/peak_bf16),\n"
                "  attention at bf16; per linear input 2+1+2 bytes of cast and amax traffic each way; linear inputs\n"
                "  saved in 1 byte; cached FP8 weights and transposes 2 bytes per linear weight.\n",
                s->hw->fp8_matmul_ratio > 0 ? s->hw->fp8_matmul_ratio : 1.0);
    if (t->finetune != FT_FULL)
        fprintf(o,
                "Fine-tuning (%s, r = %lld): adapters r (d_in + d_out) per adapted linear are the only trainable\n"
                "  parameters (gradients, optimizer, reductions); the frozen base is %s; backward skips the\n"
                "  frozen weights' gradient GEMMs (2 x instead of 3 x forward FLOPs for them).\n",
                finetune_name((finetune_kind)t->finetune), (long long)t->lora_rank,
                t->finetune == FT_QLORA ? "NF4, (4 + 8/64 + 32/(64 x 256)) bits per weight, dequantized per use" : "16-bit");
    model_explain(o, s);
    fputc('\n', o);
}

const char *report_offload_name(const training *t)
{
    if (t->offload_params != OFFLOAD_NONE) return t->offload_params == OFFLOAD_NVME ? "opt+param nvme" : "opt+param cpu";
    if (t->offload_optimizer != OFFLOAD_NONE) return t->offload_optimizer == OFFLOAD_NVME ? "opt nvme" : "opt cpu";
    return "none";
}

cJSON *report_entry_json(const training *t, const result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "strategy", r->strategy->name);
    cJSON_AddStringToObject(o, "framework", framework_of(t)->name);
    cJSON_AddNumberToObject(o, "gpus", (double)t->gpus);
    parallel_json(o, t);
    cJSON_AddNumberToObject(o, "virtual_stages", (double)t->virtual_stages);
    cJSON_AddNumberToObject(o, "dp", (double)training_dp(t));
    cJSON_AddNumberToObject(o, "micro_batch", (double)t->micro_batch);
    cJSON_AddNumberToObject(o, "grad_accum", (double)t->grad_accum);
    cJSON_AddStringToObject(o, "checkpointing", ckpt_name(t->checkpointing));
    cJSON_AddBoolToObject(o, "sequence_parallel", t->sequence_parallel);
    cJSON_AddStringToObject(o, "offload_optimizer", offload_name(t->offload_optimizer));
    cJSON_AddStringToObject(o, "offload_params", offload_name(t->offload_params));
    cJSON_AddItemToObject(o, "memory_bytes", memory_json(&r->mem));
    step_json(o, r, false);
    cJSON_AddNumberToObject(o, "tokens_per_second", r->tokens_per_second);
    cJSON_AddNumberToObject(o, "mfu", r->mfu);
    cJSON_AddNumberToObject(o, "communication_bytes_per_gpu", r->comm.bytes_total);
    if (r->cost.tokens > 0) {
        cJSON_AddNumberToObject(o, "time_to_train_seconds", r->cost.seconds);
        cJSON_AddNumberToObject(o, "gpu_hours", r->cost.gpu_hours);
        cJSON_AddNumberToObject(o, "cost_dollars", r->cost.dollars);
    } else {
        cJSON_AddNullToObject(o, "cost_dollars");
    }
    return o;
}

