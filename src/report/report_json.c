/* report_json.c -- the JSON documents: estimate's, and the entries plan and compare write. */
#include "report/report_json.h"

#include <stddef.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "core/finetune.h"
#include "core/framework.h"
#include "core/gemm.h"
#include "core/kernels.h"
#include "core/strategy.h"
#include "io/jsonprint.h"

static cJSON *memory_json(const memory *m)
{
    cJSON *o = cJSON_CreateObject();
    for (const mem_field *mf = mem_fields; mf->key; mf++)
        cJSON_AddNumberToObject(o, mf->key, mem_field_value(m, mf));
    return o;
}

/* v under key, or null when it was not asked for (no --tokens) or has no meaning (the
 * strategy does not fit: it never runs). */
static void num_or_null(cJSON *o, const char *key, bool known, double v)
{
    if (known)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

/* The "cost" of the token budget: always its keys; tokens null without --tokens, and every
 * figure null then or when the strategy does not fit. */
static cJSON *cost_json(const scenario *s, const result *r)
{
    const train_cost *c = &r->cost;
    bool asked = s->tokens > 0, known = asked && r->fits;
    cJSON *o = cJSON_CreateObject();
    num_or_null(o, "tokens", asked, s->tokens);
    num_or_null(o, "seconds", known, c->seconds);
    num_or_null(o, "gpu_hours", known, c->gpu_hours);
    num_or_null(o, "dollars", known, c->dollars);
    num_or_null(o, "energy_kwh", known, c->kwh);
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
        /* of compute: its slowdown beside collectives (NCCL's SMs, steptime_contention) */
        cJSON_AddNumberToObject(st, "compute_contention", r->step.contention);
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
    /* Uneven pipeline stages (--pp-first-layers / --pp-last-layers); 0 = the even split. */
    cJSON_AddNumberToObject(o, "pp_first_layers", (double)t->pp_first_layers);
    cJSON_AddNumberToObject(o, "pp_last_layers", (double)t->pp_last_layers);
}

/* The "model" object: name, type and the parameter counts (per layer ones for a real model). */
static void model_json(cJSON *root, const scenario *s)
{
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
        /* What the count leaves out: a multi-token-prediction module the checkpoint adds, a
         * vision tower (the count is the text model's). */
        cJSON_AddNumberToObject(m, "mtp_parameters", s->pc->mtp);
        cJSON_AddBoolToObject(m, "vision_tower_counted", false);
        if (!s->m->vision_tower) cJSON_ReplaceItemInObject(m, "vision_tower_counted", cJSON_CreateNull());
    }
    cJSON_AddStringToObject(m, "source", s->m->source);
}

/* The "checkpoint" object (--weights): what the safetensors headers hold, against the config. */
static void checkpoint_json(cJSON *root, const report_options *op)
{
    const wt_summary *w = op->weights;
    cJSON *c = cJSON_AddObjectToObject(root, "checkpoint");
    cJSON_AddStringToObject(c, "path", op->weights_path);
    cJSON_AddNumberToObject(c, "files", w->files);
    cJSON_AddNumberToObject(c, "tensors", w->tensors);
    cJSON_AddNumberToObject(c, "parameters", w->parameters);
    cJSON_AddNumberToObject(c, "stored_bytes", w->stored_bytes);
    cJSON *rows = cJSON_AddArrayToObject(c, "by_dtype");
    for (int i = 0; i < w->n_dtypes; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "dtype", w->by_dtype[i].dtype);
        cJSON_AddNumberToObject(r, "tensors", w->by_dtype[i].tensors);
        cJSON_AddNumberToObject(r, "elements", w->by_dtype[i].elements);
        cJSON_AddNumberToObject(r, "bytes", w->by_dtype[i].bytes);
        cJSON_AddItemToArray(rows, r);
    }
    cJSON_AddNumberToObject(c, "packed_4bit_tensors", w->packed_tensors);
    cJSON *sc = cJSON_AddObjectToObject(c, "scales");
    cJSON_AddNumberToObject(sc, "tensors", w->scale_tensors);
    cJSON_AddNumberToObject(sc, "elements", w->scale_elements);
    cJSON_AddNumberToObject(sc, "bytes", w->scale_bytes);
    cJSON *bf = cJSON_AddObjectToObject(c, "buffers");
    cJSON_AddNumberToObject(bf, "tensors", w->buffer_tensors);
    cJSON_AddNumberToObject(bf, "elements", w->buffer_elements);
    cJSON_AddNumberToObject(c, "extra_layer_params", w->extra_layer_params);
    if (w->index_total_size >= 0)
        cJSON_AddNumberToObject(c, "index_total_size", w->index_total_size);
    else
        cJSON_AddNullToObject(c, "index_total_size");
    cJSON_AddNumberToObject(c, "config_parameters", w->config_parameters);
    cJSON_AddNumberToObject(c, "config_mtp_parameters", w->config_mtp);
    cJSON_AddNumberToObject(c, "difference", w->difference);
    cJSON_AddBoolToObject(c, "difference_explained", w->explained);
}

static void hardware_json(cJSON *root, const scenario *s)
{
    cJSON *h = cJSON_AddObjectToObject(root, "hardware");
    cJSON_AddStringToObject(h, "name", s->hw->name);
    cJSON_AddStringToObject(h, "gpu", s->hw->gpu_model);
    cJSON_AddNumberToObject(h, "hbm_bytes", s->hw->hbm_bytes);
    /* What the profile says, and whether --hbm replaced it (then hbm_bytes is --hbm's). */
    bool over = s->hw->profile_hbm_bytes > 0;
    cJSON_AddNumberToObject(h, "profile_hbm_bytes", over ? s->hw->profile_hbm_bytes : s->hw->hbm_bytes);
    cJSON_AddBoolToObject(h, "hbm_overridden", over);
    cJSON_AddNumberToObject(h, "host_memory_bytes_per_node", s->hw->host_memory_bytes);
}

/* Virtual stages and their micro-batch group (0: --pp), expert TP (0: the framework's),
 * recompute of N layers, activation offload and packed documents' length (0: unpacked). */
static void layout_json(cJSON *tr, const training *t)
{
    cJSON_AddNumberToObject(tr, "virtual_stages", (double)t->virtual_stages);
    cJSON_AddNumberToObject(tr, "microbatch_group", (double)t->microbatch_group);
    cJSON_AddNumberToObject(tr, "expert_tp", (double)t->etp);
    cJSON_AddNumberToObject(tr, "recompute_layers", (double)t->recompute_layers);
    cJSON_AddStringToObject(
        tr, "recompute_method", t->recompute_method == RECOMPUTE_BLOCK ? "block" : "uniform");
    cJSON_AddBoolToObject(tr, "offload_activations", t->offload_activations);
    cJSON_AddNumberToObject(tr, "doc_len", (double)t->doc_len);
    /* Where full recompute's checkpoint sits against the sharding unit, in force (the flag,
     * else the framework's). */
    cJSON_AddStringToObject(tr, "param_dtype", t->param_bytes == 4 ? "fp32" : "16-bit");
    cJSON_AddBoolToObject(tr, "bf16_optimizer", t->bf16_optimizer);
    cJSON_AddStringToObject(tr, "checkpoint_placement",
        framework_recompute_in_unit(framework_of(t), t) ? "inside" : "outside");
}

/* The "training" object: the layout, precision and options, and the ds_config's notes. */
static void training_json(cJSON *root, const scenario *s, const report_options *op)
{
    const training *t = s->t;
    static const report_options none = {0};
    if (!op) op = &none;
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
    /* TP comm / GEMM overlap in force: the flag, else the framework's default (tpoverlap.c). */
    bool tpo = t->tp_comm_overlap >= 0 ? t->tp_comm_overlap != 0 : framework_of(t)->tp_comm_overlap;
    cJSON_AddBoolToObject(tr, "tp_comm_overlap", tpo && t->tp > 1 && t->sequence_parallel);
    cJSON_AddBoolToObject(tr, "flash_attention", t->flash_attention);
    cJSON_AddStringToObject(tr, "attention_kernel", kernel_name(kernel_of(t, s->hw)));
    cJSON_AddBoolToObject(tr, "gemm_shapes", gemm_measured(s->hw, t));
    cJSON_AddStringToObject(tr, "offload_optimizer", offload_name(t->offload_optimizer));
    cJSON_AddStringToObject(tr, "offload_params", offload_name(t->offload_params));
    cJSON_AddStringToObject(tr, "framework", framework_of(t)->name);
    if (framework_of(t)->version) { /* the version whose code the run is costed as */
        char range[64];
        cJSON_AddStringToObject(tr, "framework_version", framework_of(t)->version);
        cJSON_AddStringToObject(
            tr, "framework_releases", framework_release_text(framework_of(t), range, sizeof range));
    }
    cJSON_AddStringToObject(tr, "finetune", finetune_name((finetune_kind)t->finetune));
    cJSON_AddStringToObject(tr, "loss", loss_name((loss_kind)(t->loss ? t->loss : framework_of(t)->loss)));
    if (t->finetune != FT_FULL) cJSON_AddNumberToObject(tr, "lora_rank", (double)t->lora_rank);
    if (t->finetune != FT_FULL)
        cJSON_AddStringToObject(tr, "lora_targets", finetune_targets_name(t->lora_targets));
    double adapters =
        finetune_adapters_per_layer(s->m, s->pc, t->lora_rank, t->lora_targets) * (double)s->m->num_layers;
    cJSON_AddNumberToObject(tr, "trainable_parameters", t->finetune != FT_FULL ? adapters : s->pc->total);
    cJSON_AddNumberToObject(tr, "shard_group", (double)t->shard_group);
    layout_json(tr, t);
    if (op->ds_path) {
        cJSON_AddStringToObject(tr, "deepspeed_defaulted", op->ds_defaulted ? op->ds_defaulted : "");
        cJSON_AddStringToObject(tr, "deepspeed_auto_filled", op->ds_filled ? op->ds_filled : "");
        cJSON_AddStringToObject(tr, "deepspeed_ignored", op->ds_ignored ? op->ds_ignored : "");
        cJSON_AddStringToObject(tr, "deepspeed_notes", op->ds_notes ? op->ds_notes : "");
    }
    if (op->config_path) {
        cJSON *c = cJSON_AddObjectToObject(tr, "config");
        const char *const keys[] = {"path", "format", "used", "defaulted", "ignored", "overridden"};
        const char *const vals[] = {op->config_path, op->config_format, op->config_used, op->config_defaulted,
            op->config_ignored, op->config_overridden};
        for (int i = 0; i < 6; i++) cJSON_AddStringToObject(c, keys[i], vals[i] ? vals[i] : "");
    }
}

/* The communication per GPU of r: by level, by collective, against the ZeRO paper, and each
 * collective of its plan (rounds per step from t). */
static void comm_json(cJSON *o, const result *r, const training *t)
{
    cJSON *c = cJSON_AddObjectToObject(o, "communication_bytes_per_gpu");
    cJSON_AddNumberToObject(c, "total", r->comm.bytes_total);
    cJSON_AddNumberToObject(c, "intra_node", r->comm.bytes_level[LEVEL_INTRA]);
    cJSON_AddNumberToObject(c, "inter_node", r->comm.bytes_level[LEVEL_INTER]);
    cJSON_AddNumberToObject(c, "host_link", r->comm.bytes_level[LEVEL_HOST]);
    for (int k = 0; k < COLL_COUNT; k++)
        cJSON_AddNumberToObject(c, coll_table[k]->name, r->comm.bytes_kind[k]);
    cJSON_AddNumberToObject(c, "ideal_zero_paper", r->comm.ideal_bytes);
    cJSON_AddNumberToObject(c, "expert_all_to_all", r->comm.bytes_group[GROUP_EP]);
    cJSON_AddNumberToObject(c, "context_parallel_kv", r->comm.bytes_group[GROUP_CP]);
    if (r->comm.plain_inter_bytes > 0)
        cJSON_AddNumberToObject(c, "inter_node_without_hybrid", r->comm.plain_inter_bytes);
    cJSON *ops = cJSON_AddArrayToObject(o, "collectives");
    for (int k = 0; k < r->plan.n; k++) {
        const comm_op *op = &r->plan.op[k];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "what", op->what);
        cJSON_AddStringToObject(x, "collective", coll_table[op->kind]->name);
        cJSON_AddNumberToObject(x, "size_bytes", op->size);
        cJSON_AddNumberToObject(x, "calls_per_step", op->calls);
        /* How many times per step the whole set runs: each micro-batch or once. */
        cJSON_AddNumberToObject(x, "rounds_per_step", op->per_micro ? (double)t->grad_accum : 1);
        cJSON_AddItemToArray(ops, x);
    }
}

/* One entry of "results": a strategy's result, or why it does not apply. */
static cJSON *result_json(const scenario *s, const result *r)
{
    const training *t = s->t;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "strategy", r->strategy->name);
    cJSON_AddStringToObject(o, "framework", framework_of(t)->name);
    char lab[96];
    cJSON_AddStringToObject(
        o, "label", framework_strategy_label(framework_of(t), r->strategy, lab, sizeof lab));
    cJSON_AddBoolToObject(o, "applicable", r->applicable);
    if (!r->applicable) {
        cJSON_AddStringToObject(o, "reason", r->why);
        cJSON_AddBoolToObject(o, "fits", false);
        return o;
    }
    cJSON_AddItemToObject(o, "memory_bytes", memory_json(&r->mem));
    cJSON *hm = cJSON_AddObjectToObject(o, "host_memory_bytes");
    cJSON_AddNumberToObject(hm, "per_gpu", r->mem.host_per_gpu);
    cJSON_AddNumberToObject(hm, "per_node", r->mem.host_per_node);
    cJSON_AddNumberToObject(hm, "paged_optimizer_per_gpu", r->mem.paged_to_host);
    cJSON_AddNumberToObject(o, "nvme_bytes_per_gpu", r->mem.nvme_per_gpu);
    cJSON_AddBoolToObject(o, "fits_gpu", r->mem.fits_gpu);
    cJSON_AddBoolToObject(o, "fits_host", r->mem.fits_host);
    cJSON_AddBoolToObject(o, "fits", r->fits);
    comm_json(o, r, t);
    step_json(o, r, true);
    if (r->has_interval) cJSON_AddNumberToObject(o, "interval_level", 0.9);
    cJSON_AddNumberToObject(o, "tokens_per_second", r->tokens_per_second);
    cJSON_AddNumberToObject(o, "tflops_per_gpu", r->tflops_per_gpu);
    cJSON_AddNumberToObject(o, "mfu", r->mfu);
    cJSON_AddNumberToObject(o, "hfu", r->hfu);
    cJSON_AddItemToObject(o, "cost", cost_json(s, r));
    return o;
}

void report_json_context(cJSON *root, const scenario *s, const report_options *op)
{
    model_json(root, s);
    if (op && op->weights_path && op->weights) checkpoint_json(root, op);
    hardware_json(root, s);
    training_json(root, s, op);
}

cJSON *report_estimate_json(const scenario *s, const report_options *op, const result *r, int n)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    report_json_context(root, s, op);
    cJSON *res = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(res, result_json(s, &r[i]));
    return root;
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
    /* Null when not asked (no --tokens): the same keys either way. */
    bool asked = r->cost.tokens > 0;
    num_or_null(o, "time_to_train_seconds", asked, r->cost.seconds);
    num_or_null(o, "gpu_hours", asked, r->cost.gpu_hours);
    num_or_null(o, "cost_dollars", asked, r->cost.dollars);
    return o;
}

void report_json_print(FILE *f, cJSON *root)
{
    char *text = json_print(root, true);
    if (text) {
        fputs(text, f);
        fputc('\n', f);
    }
    free(text);
    cJSON_Delete(root);
}
