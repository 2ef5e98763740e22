/* report_compare.c -- what `compare` prints: one column per strategy (and framework) as a
 * table, JSON or CSV. */
#include "report/report_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/units.h"
#include "io/jsonprint.h"
#include "report/report_json.h"

/* "TP2 PP4x2 cpu": a configuration in one short cell. */
static const char *layout(const training *t, char *buf, size_t len)
{
    char v[24] = "";
    if (t->virtual_stages > 1) snprintf(v, sizeof v, "x%lld", (long long)t->virtual_stages);
    const char *off = t->offload_params != OFFLOAD_NONE
        ? (t->offload_params == OFFLOAD_NVME ? " nvme+" : " cpu+")
        : t->offload_optimizer != OFFLOAD_NONE ? (t->offload_optimizer == OFFLOAD_NVME ? " nvme" : " cpu")
                                               : "";
    snprintf(buf, len, "T%lldP%lld%s%s", (long long)t->tp, (long long)t->pp, v, off);
    return buf;
}

typedef double (*getter)(const compare_row *r);

/* One table row: a label and a cell per column ("-" where the getter gives NAN). */
static void row(
    FILE *f, const char *label, const compare_row *r, int n, getter get, const char *fmt, double scale)
{
    fprintf(f, "  %-34s", label);
    for (int i = 0; i < n; i++) {
        double v = get(&r[i]);
        char buf[32];
        if (isnan(v))
            snprintf(buf, sizeof buf, "-");
        else
            snprintf(buf, sizeof buf, fmt, v / scale);
        if (strlen(buf) > 13) snprintf(buf, sizeof buf, "%.4g", v / scale);
        fprintf(f, "%14s", buf);
    }
    fputc('\n', f);
}

#define G(name, expr)                        \
    static double name(const compare_row *r) \
    {                                        \
        return expr;                         \
    }
G(g_mem, r->given.applicable ? r->given.mem.total : NAN)
G(g_mb, r->max_micro_batch > 0 ? (double)r->max_micro_batch : NAN)
G(g_mbr, r->max_micro_batch_recompute > 0 ? (double)r->max_micro_batch_recompute : NAN)
G(g_seq, r->max_seq_len > 0 ? (double)r->max_seq_len : NAN)
G(g_mb_step, r->max_micro_batch > 0 ? r->at_max.step.total : NAN)
G(g_mb_tps, r->max_micro_batch > 0 ? r->at_max.tokens_per_second : NAN)
G(g_mb_mfu, r->max_micro_batch > 0 ? 100 * r->at_max.mfu : NAN)
G(g_mb_comm, r->max_micro_batch > 0 ? 100 * r->at_max.step.comm_exposed / r->at_max.step.total : NAN)
G(g_min, r->min_gpus > 0 ? (double)r->min_gpus : NAN)
G(g_best_gpus, r->has_best ? (double)r->best.t.gpus : NAN)
G(g_best_step, r->has_best ? r->best.r.step.total : NAN)
G(g_best_tps, r->has_best ? r->best.r.tokens_per_second : NAN)
G(g_best_mfu, r->has_best ? 100 * r->best.r.mfu : NAN)
G(g_days, r->has_best && r->best.r.cost.tokens > 0 ? r->best.r.cost.seconds / 86400 : NAN)
G(g_gpuh, r->has_best && r->best.r.cost.tokens > 0 ? r->best.r.cost.gpu_hours : NAN)
G(g_usd, r->has_best && r->best.r.cost.tokens > 0 ? r->best.r.cost.dollars : NAN)
G(g_s_gpus, r->saved_gpus)
G(g_s_mem, r->saved_memory_bytes)
G(g_s_step, r->saved_step_seconds)
G(g_s_usd, r->saved_dollars)

static void text_row(FILE *f, const char *label, const compare_row *r, int n, int which)
{
    fprintf(f, "  %-34s", label);
    for (int i = 0; i < n; i++) {
        char buf[40] = "-";
        if (which == 0)
            snprintf(buf, sizeof buf, "%s", !r[i].given.applicable ? "n/a" : r[i].given.fits ? "yes" : "NO");
        else if (which == 1 && r[i].min_gpus > 0)
            layout(&r[i].min_entry.t, buf, sizeof buf);
        else if (which == 2 && r[i].has_best)
            layout(&r[i].best.t, buf, sizeof buf);
        fprintf(f, "%14.13s", buf);
    }
    fputc('\n', f);
}

static void table(FILE *f, const scenario *s, const plan_space *sp, const compare_row *r, int n, bool show_fw)
{
    char a[32], b[32];
    fprintf(f,
        "compare: %s on %s, %lld GPUs (%lld per node), micro-batch %lld x seq %lld, grad-accum %lld, "
        "checkpointing %s\n",
        s->m->params_only ? units_fmt_short(s->pc->total, a, sizeof a) : s->m->name, s->hw->name,
        (long long)s->t->gpus, (long long)scenario_gpus_per_node(s->hw, s->t), (long long)s->t->micro_batch,
        (long long)s->t->seq_len, (long long)s->t->grad_accum, ckpt_name(s->t->checkpointing));
    char note[64];
    report_hbm_note(s->hw, note, sizeof note);
    fprintf(f, "searches: up to %lld GPUs, global batch %lld sequences; HBM %s per GPU%s%s%s\n\n",
        (long long)sp->max_gpus, (long long)sp->global_batch, units_fmt_bytes(s->hw->hbm_bytes, b, sizeof b),
        note[0] ? " (" : "", note[0] ? note + 2 : "", note[0] ? ")" : "");
    fprintf(f, "  %-34s", "");
    for (int i = 0; i < n; i++) fprintf(f, "%14.13s", r[i].s->label);
    fputc('\n', f);
    if (show_fw) {
        /* The framework and its own name for each strategy ("FULL_SHARD"). */
        fprintf(f, "  %-34s", "framework");
        for (int i = 0; i < n; i++) fprintf(f, "%14.13s", r[i].fw->name);
        fprintf(f, "\n  %-34s", "");
        for (int i = 0; i < n; i++) fprintf(f, "%14.13s", r[i].fw->runs[strategy_index(r[i].s)]);
        fputc('\n', f);
    }
    fprintf(f, "At the given settings\n");
    row(f, "memory per GPU (GiB = 2^30 B)", r, n, g_mem, "%.2f", GiB);
    text_row(f, "fits?", r, n, 0);
    row(f, "largest micro-batch", r, n, g_mb, "%.0f", 1);
    row(f, "  with full recomputation", r, n, g_mbr, "%.0f", 1);
    row(f, "  step at the largest (s)", r, n, g_mb_step, "%.3f", 1);
    row(f, "  tokens/s (cluster)", r, n, g_mb_tps, "%.0f", 1);
    row(f, "  MFU %", r, n, g_mb_mfu, "%.1f", 1);
    row(f, "  exposed communication %", r, n, g_mb_comm, "%.1f", 1);
    row(f, "longest sequence (tokens)", r, n, g_seq, "%.0f", 1);
    fprintf(f, "Searched (plan)\n");
    row(f, "fewest GPUs that fit", r, n, g_min, "%.0f", 1);
    text_row(f, "  with (TP, PP, offload)", r, n, 1);
    row(f, "fastest: GPUs", r, n, g_best_gpus, "%.0f", 1);
    text_row(f, "  with (TP, PP, offload)", r, n, 2);
    row(f, "  step (s)", r, n, g_best_step, "%.3f", 1);
    row(f, "  tokens/s (cluster)", r, n, g_best_tps, "%.0f", 1);
    row(f, "  MFU %", r, n, g_best_mfu, "%.1f", 1);
    if (s->tokens > 0) {
        fprintf(f, "Training on %s tokens (fastest configuration, $%.2f per GPU-hour)\n",
            units_fmt_short(s->tokens, a, sizeof a), s->hw->price_per_gpu_hour);
        row(f, "days", r, n, g_days, "%.1f", 1);
        row(f, "GPU-hours", r, n, g_gpuh, "%.0f", 1);
        row(f, "dollars", r, n, g_usd, "%.0f", 1);
    }
    fprintf(f, "Saved against the baseline: DDP, or the weakest strategy that fits (positive = less)\n");
    fprintf(f, "  %-34s", "baseline");
    for (int i = 0; i < n; i++) fprintf(f, "%14.13s", r[i].baseline ? r[i].baseline->s->label : "-");
    fputc('\n', f);
    row(f, "GPUs (fewest that fit)", r, n, g_s_gpus, "%.0f", 1);
    row(f, "memory per GPU (GiB)", r, n, g_s_mem, "%.2f", GiB);
    row(f, "step time, fastest (s)", r, n, g_s_step, "%.3f", 1);
    if (s->tokens > 0) row(f, "dollars, fastest", r, n, g_s_usd, "%.0f", 1);
    for (int i = 0; i < n; i++)
        if (!r[i].given.applicable && r[i].given.why[0])
            fprintf(f, "%s: %s\n", r[i].s->label, r[i].given.why);
}

static void num_or_null(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static cJSON *to_json(const compare_report *cr)
{
    const compare_row *r = cr->rows;
    int n = cr->n;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", 1);
    /* What was asked, with estimate's keys: model, hardware, training (the given settings). */
    report_json_context(root, cr->sc, cr->ro);
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (int i = 0; i < n; i++) {
        const compare_row *x = &r[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "strategy", x->s->name);
        cJSON_AddStringToObject(o, "framework", x->fw->name);
        cJSON_AddBoolToObject(o, "applicable", x->given.applicable);
        cJSON_AddBoolToObject(o, "fits", x->given.fits);
        cJSON *mem = cJSON_AddObjectToObject(o, "memory_bytes");
        for (const mem_field *mf = mem_fields; mf->key; mf++)
            cJSON_AddNumberToObject(
                mem, mf->key, x->given.applicable ? mem_field_value(&x->given.mem, mf) : 0);
        cJSON_AddNumberToObject(o, "max_micro_batch", (double)x->max_micro_batch);
        cJSON_AddNumberToObject(o, "max_micro_batch_with_recompute", (double)x->max_micro_batch_recompute);
        cJSON_AddNumberToObject(o, "max_seq_len", (double)x->max_seq_len);
        if (x->max_micro_batch > 0)
            cJSON_AddItemToObject(o, "at_max_micro_batch", report_entry_json(&x->at_max_t, &x->at_max));
        else
            cJSON_AddNullToObject(o, "at_max_micro_batch");
        num_or_null(o, "min_gpus", x->min_gpus > 0 ? (double)x->min_gpus : NAN);
        if (x->min_gpus > 0)
            cJSON_AddItemToObject(o, "min_gpus_config", report_entry_json(&x->min_entry.t, &x->min_entry.r));
        else
            cJSON_AddNullToObject(o, "min_gpus_config");
        if (x->has_best)
            cJSON_AddItemToObject(o, "best", report_entry_json(&x->best.t, &x->best.r));
        else
            cJSON_AddNullToObject(o, "best");
        cJSON *c = cJSON_AddObjectToObject(o, "cost");
        bool cost = x->has_best && x->best.r.cost.tokens > 0;
        num_or_null(c, "tokens", cost ? x->best.r.cost.tokens : NAN);
        num_or_null(c, "seconds", cost ? x->best.r.cost.seconds : NAN);
        num_or_null(c, "gpu_hours", cost ? x->best.r.cost.gpu_hours : NAN);
        num_or_null(c, "dollars", cost ? x->best.r.cost.dollars : NAN);
        cJSON *sv = cJSON_AddObjectToObject(o, "savings");
        if (x->baseline)
            cJSON_AddStringToObject(sv, "against", x->baseline->s->name);
        else
            cJSON_AddNullToObject(sv, "against");
        num_or_null(sv, "gpus", x->saved_gpus);
        num_or_null(sv, "memory_bytes", x->saved_memory_bytes);
        num_or_null(sv, "step_seconds", x->saved_step_seconds);
        num_or_null(sv, "dollars", x->saved_dollars);
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

/* Every field of a searched configuration (the fewest-GPU one, the fastest), one CSV column
 * each, named as report_entry_json's keys after the prefix: what the table's short cell
 * ("T4P8x4 cpu+") packs. */
static const char *const config_keys[] = {"gpus", "tp", "pp", "cp", "ep", "virtual_stages", "dp",
    "micro_batch", "grad_accum", "checkpointing", "sequence_parallel", "offload_optimizer", "offload_params",
    NULL};

static void config_header(FILE *f, const char *prefix)
{
    for (int k = 0; config_keys[k]; k++) fprintf(f, ",%s.%s", prefix, config_keys[k]);
}

/* t's cells in config_keys' order, or empty cells when there is no such configuration. */
static void config_cells(FILE *f, const training *t, bool have)
{
    if (!have) {
        for (int k = 0; config_keys[k]; k++) fputc(',', f);
        return;
    }
    const long long w[] = {(long long)t->gpus, (long long)t->tp, (long long)t->pp, (long long)t->cp,
        (long long)t->ep, (long long)t->virtual_stages, (long long)training_dp(t), (long long)t->micro_batch,
        (long long)t->grad_accum};
    for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) fprintf(f, ",%lld", w[k]);
    fprintf(f, ",%s,%s,%s,%s", ckpt_name(t->checkpointing), t->sequence_parallel ? "true" : "false",
        offload_name(t->offload_optimizer), offload_name(t->offload_params));
}

/* v, or an empty cell where it has no value (NAN: does not fit, not asked). */
static void num_cell(FILE *f, const char *fmt, double v)
{
    fputc(',', f);
    if (!isnan(v)) fprintf(f, fmt, v);
}

static void csv(FILE *f, const compare_row *r, int n)
{
    fputs("strategy,framework,applicable,fits,memory_bytes.total,max_micro_batch,max_micro_batch_with_"
          "recompute,max_seq_len,"
          "at_max.step_time_seconds,at_max.tokens_per_second,at_max.mfu,min_gpus",
        f);
    config_header(f, "min_gpus_config");
    config_header(f, "best");
    fputs(",best.step_time_seconds,best.tokens_per_second,best.mfu,cost.tokens,cost.seconds,cost.gpu_hours,"
          "cost.dollars,savings.against,savings.gpus,savings.memory_bytes,savings.step_seconds,savings."
          "dollars\n",
        f);
    for (int i = 0; i < n; i++) {
        const compare_row *x = &r[i];
        fprintf(f, "%s,%s,%s,%s,%.0f,%lld,%lld,%lld", x->s->name, x->fw->name,
            x->given.applicable ? "true" : "false", x->given.fits ? "true" : "false",
            x->given.applicable ? x->given.mem.total : 0, (long long)x->max_micro_batch,
            (long long)x->max_micro_batch_recompute, (long long)x->max_seq_len);
        bool at = x->max_micro_batch > 0;
        num_cell(f, "%.6g", at ? x->at_max.step.total : NAN);
        num_cell(f, "%.6g", at ? x->at_max.tokens_per_second : NAN);
        num_cell(f, "%.6g", at ? x->at_max.mfu : NAN);
        num_cell(f, "%.0f", x->min_gpus > 0 ? (double)x->min_gpus : NAN);
        config_cells(f, &x->min_entry.t, x->min_gpus > 0);
        config_cells(f, &x->best.t, x->has_best);
        num_cell(f, "%.6g", x->has_best ? x->best.r.step.total : NAN);
        num_cell(f, "%.6g", x->has_best ? x->best.r.tokens_per_second : NAN);
        num_cell(f, "%.6g", x->has_best ? x->best.r.mfu : NAN);
        /* The cost of --tokens: empty when not asked, as JSON's null. */
        bool cost = x->has_best && x->best.r.cost.tokens > 0;
        num_cell(f, "%.0f", cost ? x->best.r.cost.tokens : NAN);
        num_cell(f, "%.6g", cost ? x->best.r.cost.seconds : NAN);
        num_cell(f, "%.6g", cost ? x->best.r.cost.gpu_hours : NAN);
        num_cell(f, "%.0f", cost ? x->best.r.cost.dollars : NAN);
        fprintf(f, ",%s", x->baseline ? x->baseline->s->name : "");
        num_cell(f, "%.6g", x->saved_gpus);
        num_cell(f, "%.6g", x->saved_memory_bytes);
        num_cell(f, "%.6g", x->saved_step_seconds);
        num_cell(f, "%.6g", x->saved_dollars);
        fputc('\n', f);
    }
}

void report_compare(FILE *f, out_format format, const compare_report *c)
{
    if (format == FMT_JSON) {
        cJSON *j = to_json(c);
        char *text = j ? json_print(j, true) : NULL;
        if (text) {
            fputs(text, f);
            fputc('\n', f);
        }
        free(text);
        cJSON_Delete(j);
    } else if (format == FMT_CSV) {
        csv(f, c->rows, c->n);
    } else {
        table(f, c->sc, c->sp, c->rows, c->n, c->show_framework);
    }
}
