/* report.c -- estimate output: a readable table, JSON (report_json.c), CSV (report_row.c). */
#include "report/report.h"
#include "report/report_json.h"
#include "report/report_row.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/finetune.h"
#include "core/framework.h"
#include "core/strategy.h"
#include "core/units.h"
#include "io/jsonprint.h"

static void describe(FILE *f, const scenario *s, const report_options *o)
{
    const training *t = s->t;
    char a[32], b[32];
    if (s->m->params_only)
        fprintf(f, "model      %s parameters (--params; model states only)\n",
            units_fmt_count(s->pc->total, a, sizeof a));
    else
        fprintf(f, "model      %s: %s parameters (%s active), %lld layers, hidden %lld%s\n", s->m->name,
            units_fmt_count(s->pc->total, a, sizeof a), units_fmt_short(s->pc->active, b, sizeof b),
            (long long)s->m->num_layers, (long long)s->m->hidden_size,
            s->m->vision_tower ? "; text model (vision tower not counted)" : "");
    if (o->weights_path && o->weights) report_weights(f, o->weights_path, o->weights);
    int64_t gpn = scenario_gpus_per_node(s->hw, t), full = t->gpus / gpn, rest = t->gpus % gpn;
    /* Both units, so "--hbm 80GB" reads back as what it is; the real layout, partial node
     * included. */
    char note[64];
    fprintf(f, "hardware   %s: %s, %s HBM (%.2f GB%s), %lld GPUs = %lld node%s x %lld", s->hw->name,
        s->hw->gpu_model, units_fmt_bytes(s->hw->hbm_bytes, a, sizeof a), s->hw->hbm_bytes / 1e9,
        report_hbm_note(s->hw, note, sizeof note), (long long)t->gpus, (long long)full, full == 1 ? "" : "s",
        (long long)gpn);
    if (rest) fprintf(f, " + 1 node x %lld", (long long)rest);
    fputc('\n', f);
    char cp[64] = "", ep[32] = "";
    if (t->cp > 1) snprintf(cp, sizeof cp, ", CP %lld", (long long)t->cp);
    if (t->ep > 1) snprintf(ep, sizeof ep, ", EP %lld", (long long)t->ep);
    strncat(cp, ep, sizeof cp - strlen(cp) - 1);
    fprintf(f,
        "training   %s, %s; micro-batch %lld x seq %lld, grad-accum %lld; TP %lld, PP %lld%s, DP %lld\n",
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
        char range[64];
        if (fw->version && fw->versions) /* the default of a framework with versions */
            fprintf(f, " %s (%s, the default)", fw->version, framework_release_text(fw, range, sizeof range));
        else if (fw->version)
            fprintf(f, " %s (for %s)", fw->version, framework_release_text(fw, range, sizeof range));
        const char *sep = ": ";
        for (int i = 0; strategies[i]; i++) {
            if (fw->runs[i] && strcmp(fw->runs[i], strategies[i]->label) == 0) continue;
            fprintf(f, "%s%s %s %s", sep, strategies[i]->label, fw->runs[i] ? "=" : "is",
                fw->runs[i] ? fw->runs[i] : "not offered");
            sep = ", ";
        }
        fputc('\n', f);
    }
    if (t->finetune != FT_FULL)
        fprintf(f, "finetune   %s: rank %lld adapters on %s linear layers, frozen base in %s; %s adapters\n",
            finetune_name((finetune_kind)t->finetune), (long long)t->lora_rank,
            t->lora_targets == LORA_ATTN      ? "attention"
                : t->lora_targets == LORA_MLP ? "MLP"
                : t->lora_targets == LORA_QV  ? "q and v"
                                              : "all",
            t->finetune != FT_QLORA             ? "16 bits"
                : t->qlora_stack == QLORA_LITGPT ? "NF4 (4-bit, lm_head too, LitGPT bnb.nf4)"
                                                 : "NF4 (4-bit, double-quantized)",
            finetune_adapter_bytes(t, &(byte_table){0}).param > 2 ? "fp32" : "16-bit");
    if (t->shard_group > 0 || t->hpz_group > 1 || t->quant_weights || t->quant_grads)
        fprintf(f, "           shard group %lld%s, hpZ group %lld, qwZ %s, qgZ %s\n",
            (long long)t->shard_group, t->shard_group ? "" : " (all of DP)", (long long)t->hpz_group,
            t->quant_weights ? "on" : "off", t->quant_grads ? "on" : "off");
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
    double scale; /* divides the value (1e9: bytes to GB) */
    row_show show;
} table_row;

#define GETTER(name, expr)              \
    static double name(const result *r) \
    {                                   \
        return expr;                    \
    }
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
            /* A strategy that does not fit never runs: it has no cost (the line below says why). */
            if (!r[i].applicable || (part == PART_COST && !r[i].fits)) {
                fprintf(f, "%12s", "-");
                continue;
            }
            cell(buf, sizeof buf, t->fmt, t->get(&r[i]) / t->scale);
            fprintf(f, "%12s", buf);
        }
        fputc('\n', f);
    }
}

/* The line under the cost that names the strategies without one because they do not fit: in
 * GPU memory (gpu) or, fitting there, in the host's. Nothing when there is none. */
static void no_cost_line(FILE *f, const result *r, int n, bool gpu)
{
    const char *sep = gpu ? "  - : does not fit in GPU memory (" : "  - : does not fit in host memory (";
    for (int i = 0; i < n; i++) {
        if (!r[i].applicable || r[i].fits || r[i].mem.fits_gpu != !gpu) continue;
        fprintf(f, "%s%s", sep, r[i].strategy->label);
        sep = ", ";
    }
    if (sep[0] == ',') fputs("): no run, no cost\n", f);
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
        no_cost_line(f, r, n, true);
        no_cost_line(f, r, n, false);
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
            if (!r[i].applicable) {
                fprintf(f, "%12s", "-");
                continue;
            }
            cell(buf, sizeof buf, "%.2f", mem_field_value(&r[i].mem, mf) / GiB);
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
    char hbm[32], note[64];
    fprintf(f, "  %-30s", "fits?");
    for (int i = 0; i < n; i++) {
        const char *v = !r[i].applicable ? "n/a"
            : r[i].fits                  ? "yes"
            : !r[i].mem.fits_gpu         ? "NO"
                                         : "NO (host)";
        fprintf(f, "%12s", v);
    }
    fputc('\n', f);
    fprintf(f, "GPU memory %s (%s%s); host RAM per node %s.",
        units_fmt_bytes(s->hw->hbm_bytes, hbm, sizeof hbm), s->hw->gpu_model,
        report_hbm_note(s->hw, note, sizeof note),
        units_fmt_bytes(s->hw->host_memory_bytes, buf, sizeof buf));
    for (int i = 0; i < n; i++)
        if (!r[i].applicable) fprintf(f, " %s: %s.", r[i].strategy->label, r[i].why);
    fputc('\n', f);
    time_table(f, s, r, n);
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
        cJSON *j = report_estimate_json(s, o, r, n);
        char *text = json_print(j, true);
        if (text) {
            fputs(text, f);
            fputc('\n', f);
        }
        free(text);
        cJSON_Delete(j);
        break;
    }
    }
    return ferror(f) ? ZS_ERR_IO : ZS_OK;
}

void report_weights(FILE *f, const char *path, const wt_summary *w)
{
    char a[32], b[32], c[32], d[32];
    fprintf(f, "checkpoint %s: %d file%s, %s tensors, %s parameters (config %s, difference %+.0f%s)\n", path,
        w->files, w->files == 1 ? "" : "s", units_fmt_count(w->tensors, a, sizeof a),
        units_fmt_count(w->parameters, b, sizeof b), units_fmt_count(w->config_parameters, c, sizeof c),
        w->difference, w->explained ? "" : ": unexplained");
    for (int i = 0; i < w->n_dtypes; i++) {
        const wt_row *r = &w->by_dtype[i];
        fprintf(f, "           %-8s %8.0f tensors %20s elements %20s bytes\n", r->dtype, r->tensors,
            units_fmt_count(r->elements, a, sizeof a), units_fmt_count(r->bytes, b, sizeof b));
    }
    fprintf(f, "           stored %s (%s B)", units_fmt_bytes(w->stored_bytes, a, sizeof a),
        units_fmt_count(w->stored_bytes, b, sizeof b));
    if (w->index_total_size >= 0)
        fprintf(f, ", index total_size %s", units_fmt_count(w->index_total_size, c, sizeof c));
    if (w->packed_tensors > 0)
        fprintf(f, ", %.0f 4-bit packed tensors (2 parameters a byte)", w->packed_tensors);
    fprintf(f, "\n           scales %s elements (%s B), buffers %s elements, extra layers (e.g. MTP) %s\n",
        units_fmt_count(w->scale_elements, a, sizeof a), units_fmt_count(w->scale_bytes, b, sizeof b),
        units_fmt_count(w->buffer_elements, c, sizeof c),
        units_fmt_count(w->extra_layer_params, d, sizeof d));
}

const char *report_hbm_note(const hardware *hw, char *buf, size_t len)
{
    char a[32];
    buf[0] = '\0';
    if (hw->profile_hbm_bytes > 0)
        snprintf(buf, len, "; --hbm, profile %s", units_fmt_bytes(hw->profile_hbm_bytes, a, sizeof a));
    return buf;
}

const char *report_offload_name(const training *t)
{
    if (t->offload_params != OFFLOAD_NONE)
        return t->offload_params == OFFLOAD_NVME ? "opt+param nvme" : "opt+param cpu";
    if (t->offload_optimizer != OFFLOAD_NONE)
        return t->offload_optimizer == OFFLOAD_NVME ? "opt nvme" : "opt cpu";
    return "none";
}
