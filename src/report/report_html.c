/* report_html.c -- `zerosim report`'s page: the comparison as one self-contained HTML file. */
#include "report/report_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/units.h"
#include "report/report_html_val.h"
#include "report/svg.h"

/* Light and dark through prefers-color-scheme, print without the dark background. */
static const char style[] =
    ":root{color-scheme:light dark;--fg:#1b1f24;--bg:#ffffff;--mute:#59636e;--line:#d0d7de;"
    "--head:#f3f5f7;--good:#1a7f37;--bad:#cf222e}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--mute:#9198a1;--line:#3d444d;"
    "--head:#161b22;--good:#3fb950;--bad:#f85149}}\n"
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);background:var(--bg);"
    "max-width:1100px;margin:0 auto;padding:1.5em}\n"
    "h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid "
    "var(--line)}\n"
    ".sub{color:var(--mute)}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}\n"
    "pre{background:var(--head);padding:1em;overflow-x:auto;border:1px solid "
    "var(--line);white-space:pre-wrap}\n"
    ".wrap{overflow-x:auto}table{border-collapse:collapse;margin:.5em 0}\n"
    "th,td{border:1px solid var(--line);padding:.25em .6em;text-align:right;white-space:nowrap}\n"
    "th{background:var(--head)}th:first-child,td:first-child{text-align:left}caption{text-align:left;"
    "font-weight:600;padding:.3em 0}\n"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dt{color:var(--mute)}dd{margin:0}\n"
    ".yes{color:var(--good)}.no{color:var(--bad);font-weight:600}\n"
    "figure{margin:1em 0}svg.chart{max-width:100%;height:auto;font-size:12px}\n"
    "svg text{fill:var(--fg)}svg .tick,svg .note{fill:var(--mute)}svg .note{font-style:italic}svg "
    ".lab{font-size:11px}\n"
    "svg .grid{stroke:var(--line);stroke-width:1}svg .axis{stroke:var(--fg)}\n"
    "svg .limit{stroke:var(--bad);stroke-width:2;stroke-dasharray:6 4}svg .limit-label{fill:var(--bad)}\n"
    "svg .band{fill:var(--mute);fill-opacity:.15}svg .diag{stroke:var(--fg);stroke-width:1.2}"
    "svg .frame{fill:none;stroke:var(--line)}svg .pt{stroke:var(--bg);stroke-width:1}\n"
    ".band-key{background:var(--mute);opacity:.3}ul.keys{margin:0;padding-left:1.2em}\n"
    "td.src{white-space:normal;min-width:26em;text-align:left;font-size:.85em;color:var(--mute)}\n"
    ".legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3em 1.2em;font-size:.9em}\n"
    ".swatch{display:inline-block;width:12px;height:12px;vertical-align:-1px}\n"
    ".limit-key{display:inline-block;width:18px;border-top:2px dashed var(--bad);vertical-align:3px}\n"
    ".p0{fill:#4e79a7;background:#4e79a7}.p1{fill:#f28e2b;background:#f28e2b}"
    ".p2{fill:#e15759;background:#e15759}.p3{fill:#76b7b2;background:#76b7b2}"
    ".p4{fill:#59a14f;background:#59a14f}.p5{fill:#edc948;background:#edc948}"
    ".p6{fill:#b07aa1;background:#b07aa1}.p7{fill:#ff9da7;background:#ff9da7}"
    ".p8{fill:#9c755f;background:#9c755f}.p9{fill:#bab0ac;background:#bab0ac}\n"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
    "@media print{:root{--fg:#000;--bg:#fff;--mute:#444;--line:#999;--head:#eee}body{max-width:none;"
    "padding:0;font-size:11pt}h2{break-after:avoid}figure,table{break-inside:avoid}"
    "pre{white-space:pre-wrap}.wrap{overflow:visible}}\n";

static const char *row_label(const compare_report *c, const compare_row *r, char *buf, int len)
{
    if (c->show_framework) return framework_strategy_label(r->fw, r->s, buf, len);
    return r->s->label;
}

static const char *row_key(const compare_report *c, const compare_row *r, char *buf, size_t len)
{
    if (c->show_framework)
        snprintf(buf, len, "%s:%s", r->fw->name, r->s->name);
    else
        snprintf(buf, len, "%s", r->s->name);
    return buf;
}

/* "TP2 PP4x2, DP 8, micro-batch 4 x 16, checkpointing full, offload opt cpu". */
static void config_text(FILE *f, const training *t)
{
    char buf[256], v[24] = "";
    if (t->virtual_stages > 1) snprintf(v, sizeof v, "x%lld", (long long)t->virtual_stages);
    snprintf(buf, sizeof buf,
        "%lld GPU%s: TP %lld, PP %lld%s, DP %lld, micro-batch %lld x grad-accum %lld, "
        "checkpointing %s, offload %s",
        (long long)t->gpus, t->gpus == 1 ? "" : "s", (long long)t->tp, (long long)t->pp, v,
        (long long)training_dp(t), (long long)t->micro_batch, (long long)t->grad_accum,
        ckpt_name(t->checkpointing), report_offload_name(t));
    html_esc(f, buf);
}

static void dl_item(FILE *f, const char *term, const char *text)
{
    fputs("<dt>", f);
    html_esc(f, term);
    fputs("</dt><dd>", f);
    html_esc(f, text);
    fputs("</dd>\n", f);
}

static void dl_file(FILE *f, const char *term, const char *name, const char *path)
{
    fputs("<dt>", f);
    html_esc(f, term);
    fputs("</dt><dd>", f);
    html_esc(f, name);
    if (path && path[0]) {
        fputs(" <span class=\"sub\">(from <code>", f);
        html_esc(f, path);
        fputs("</code>)</span>", f);
    }
    fputs("</dd>\n", f);
}

/* A "; "-separated report part ("key value -> what; ...") as a list, under term. */
static void dl_list(FILE *f, const char *term, const char *parts)
{
    if (!parts || !parts[0]) return;
    fputs("<dt>", f);
    html_esc(f, term);
    fputs("</dt><dd><ul class=\"keys\">", f);
    for (const char *p = parts; *p;) {
        size_t k = strcspn(p, ";");
        char item[512];
        snprintf(item, sizeof item, "%.*s", (int)k, p);
        fputs("<li><code>", f);
        html_esc(f, item);
        fputs("</code></li>", f);
        p += k;
        while (*p == ';' || *p == ' ') p++;
    }
    fputs("</ul></dd>\n", f);
}

/* The keys the launcher config (--config) and the ds_config set, defaulted or ignored. */
static void config_items(FILE *f, const report_options *o)
{
    if (!o) return;
    if (o->config_path) {
        dl_file(f, "launcher config", o->config_format, o->config_path);
        dl_list(f, "its keys used", o->config_used);
        dl_list(f, "defaulted", o->config_defaulted);
        dl_list(f, "ignored", o->config_ignored);
        dl_list(f, "overridden by flags", o->config_overridden);
    }
    if (o->ds_path) dl_list(f, "ds_config keys", o->ds_notes);
}

static void inputs(FILE *f, const html_report *h)
{
    const scenario *s = h->c->sc;
    const training *t = s->t;
    char a[64], b[64], line[512];
    fputs("<h2>Inputs</h2>\n<dl>\n", f);
    snprintf(line, sizeof line, "%s (%s parameters, %lld layers, hidden %lld)",
        s->m->params_only ? "bare parameter count" : s->m->name, units_fmt_short(s->pc->total, a, sizeof a),
        (long long)s->m->num_layers, (long long)s->m->hidden_size);
    dl_file(f, "model", line, h->model_path);
    snprintf(line, sizeof line, "%s: %s HBM per GPU, %lld GPUs per node, $%.2f per GPU-hour", s->hw->name,
        units_fmt_bytes(s->hw->hbm_bytes, b, sizeof b), (long long)scenario_gpus_per_node(s->hw, t),
        s->hw->price_per_gpu_hour);
    dl_file(f, "hardware", line, h->hw_path);
    snprintf(line, sizeof line,
        "%lld GPUs, TP %lld, PP %lld, micro-batch %lld x seq %lld, grad-accum %lld, "
        "%s %s, checkpointing %s, offload %s",
        (long long)t->gpus, (long long)t->tp, (long long)t->pp, (long long)t->micro_batch,
        (long long)t->seq_len, (long long)t->grad_accum, precision_name(t->precision),
        optimizer_name(t->optimizer), ckpt_name(t->checkpointing), report_offload_name(t));
    dl_item(f, "training", line);
    dl_file(f, "framework",
        h->framework_arg   ? h->framework_arg
            : t->framework ? t->framework->name
                           : "generic",
        h->ds_path);
    snprintf(line, sizeof line, "up to %lld GPUs, global batch %lld sequences%s%s%s",
        (long long)h->c->sp->max_gpus, (long long)h->c->sp->global_batch,
        h->c->sp->allow_offload ? "" : ", no offload", h->c->sp->allow_tp ? "" : ", no TP",
        h->c->sp->allow_pp ? "" : ", no PP");
    dl_item(f, "searches", line);
    if (s->tokens > 0) dl_item(f, "token budget", units_fmt_short(s->tokens, a, sizeof a));
    config_items(f, h->c->ro);
    if (h->runs_path) dl_file(f, "measured runs", "validated below", h->runs_path);
    fputs("</dl>\n", f);
}

/* One column of a strategy table: a number (get: NAN for "-") or a text cell. */
typedef struct column {
    const char *head;
    double (*get)(const compare_row *r);
    const char *fmt;
    double scale;
    void (*text)(FILE *f, const compare_row *r);
} column;

#define G(name, expr)                        \
    static double name(const compare_row *r) \
    {                                        \
        return expr;                         \
    }
G(g_mem, r->given.applicable ? r->given.mem.total : NAN)
G(g_mb, r->max_micro_batch > 0 ? (double)r->max_micro_batch : NAN)
G(g_mbr, r->max_micro_batch_recompute > 0 ? (double)r->max_micro_batch_recompute : NAN)
G(g_mb_step, r->max_micro_batch > 0 ? r->at_max.step.total : NAN)
G(g_seq, r->max_seq_len > 0 ? (double)r->max_seq_len : NAN)
G(g_mb_tps, r->max_micro_batch > 0 ? r->at_max.tokens_per_second : NAN)
G(g_mb_mfu, r->max_micro_batch > 0 ? 100 * r->at_max.mfu : NAN)
G(g_step, r->given.applicable ? r->given.step.total : NAN)
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

static void t_fits(FILE *f, const compare_row *r)
{
    fputs(!r->given.applicable ? "n/a"
            : r->given.fits    ? "<span class=\"yes\">yes</span>"
                               : "<span class=\"no\">no</span>",
        f);
}

static void t_layout(FILE *f, const training *t)
{
    char v[24] = "";
    if (t->virtual_stages > 1) snprintf(v, sizeof v, "x%lld", (long long)t->virtual_stages);
    fprintf(f, "TP%lld PP%lld%s, ", (long long)t->tp, (long long)t->pp, v);
    html_esc(f, report_offload_name(t));
}

static void t_min_cfg(FILE *f, const compare_row *r)
{
    if (r->min_gpus > 0)
        t_layout(f, &r->min_entry.t);
    else
        fputs("-", f);
}

static void t_best_cfg(FILE *f, const compare_row *r)
{
    if (r->has_best)
        t_layout(f, &r->best.t);
    else
        fputs("-", f);
}

static void t_base(FILE *f, const compare_row *r)
{
    html_esc(f, r->baseline ? r->baseline->s->label : "-");
}

/* A table with one row (<tr data-key=...>) per strategy; numeric cells carry their value
 * unrounded in data-v (in the column's unit) beside the rounded text. */
static void strategy_table(FILE *f, const html_report *h, const char *caption, const column *cols, int nc)
{
    const compare_report *c = h->c;
    fputs("<div class=\"wrap\"><table>\n<caption>", f);
    html_esc(f, caption);
    fputs("</caption>\n<thead><tr><th>strategy</th>", f);
    for (int j = 0; j < nc; j++) {
        fputs("<th>", f);
        html_esc(f, cols[j].head);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (int i = 0; i < c->n; i++) {
        const compare_row *r = &c->rows[i];
        char lab[96], key[96];
        fputs("<tr data-key=\"", f);
        html_esc(f, row_key(c, r, key, sizeof key));
        fputs("\"><th>", f);
        html_esc(f, row_label(c, r, lab, sizeof lab));
        fputs("</th>", f);
        for (int j = 0; j < nc; j++) {
            if (cols[j].text) {
                fputs("<td>", f);
                cols[j].text(f, r);
                fputs("</td>", f);
                continue;
            }
            double v = cols[j].get(r);
            if (isnan(v)) {
                fputs("<td>-</td>", f);
                continue;
            }
            fprintf(f, "<td data-v=\"%.17g\">", v / cols[j].scale);
            fprintf(f, cols[j].fmt, v / cols[j].scale);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void tables(FILE *f, const html_report *h)
{
    const column given[] = {{"memory per GPU (GiB)", g_mem, "%.2f", GiB, NULL}, {"fits?", .text = t_fits},
        {"step (s)", g_step, "%.3f", 1, NULL}, {"largest micro-batch", g_mb, "%.0f", 1, NULL},
        {"with full recomputation", g_mbr, "%.0f", 1, NULL},
        {"step at the largest (s)", g_mb_step, "%.3f", 1, NULL},
        {"tokens/s (cluster)", g_mb_tps, "%.0f", 1, NULL}, {"MFU %", g_mb_mfu, "%.1f", 1, NULL},
        {"longest sequence (tokens)", g_seq, "%.0f", 1, NULL}};
    const column searched[] = {{"fewest GPUs", g_min, "%.0f", 1, NULL}, {"with", .text = t_min_cfg},
        {"fastest: GPUs", g_best_gpus, "%.0f", 1, NULL}, {"with", .text = t_best_cfg},
        {"step (s)", g_best_step, "%.3f", 1, NULL}, {"tokens/s (cluster)", g_best_tps, "%.0f", 1, NULL},
        {"MFU %", g_best_mfu, "%.1f", 1, NULL}};
    const column saved[] = {{"baseline", .text = t_base}, {"GPUs (fewest)", g_s_gpus, "%.0f", 1, NULL},
        {"memory per GPU (GiB)", g_s_mem, "%.2f", GiB, NULL},
        {"step, fastest (s)", g_s_step, "%.3f", 1, NULL}, {"dollars, fastest", g_s_usd, "%.0f", 1, NULL}};
    const column cost[] = {{"days", g_days, "%.1f", 1, NULL}, {"GPU-hours", g_gpuh, "%.0f", 1, NULL},
        {"dollars", g_usd, "%.0f", 1, NULL}};
    const compare_report *c = h->c;
    fputs("<h2>Comparison</h2>\n", f);
    strategy_table(f, h, "At the given settings", given, (int)(sizeof given / sizeof given[0]));
    strategy_table(f, h, "Searched (plan): the fewest GPUs that fit and the fastest configuration", searched,
        (int)(sizeof searched / sizeof searched[0]));
    if (c->sc->tokens > 0) {
        char a[32], cap[160];
        snprintf(cap, sizeof cap, "Cost of training on %s tokens (fastest configuration, $%.2f per GPU-hour)",
            units_fmt_short(c->sc->tokens, a, sizeof a), c->sc->hw->price_per_gpu_hour);
        fputs("<h2 id=\"cost\">Cost</h2>\n", f);
        strategy_table(f, h, cap, cost, 3);
    }
    strategy_table(f, h,
        "Saved against the baseline: DDP, or the weakest strategy that fits (positive = less)", saved,
        c->sc->tokens > 0 ? 5 : 4);
    for (int i = 0; i < c->n; i++)
        if (!c->rows[i].given.applicable && c->rows[i].given.why[0]) {
            fputs("<p class=\"sub\">", f);
            html_esc(f, c->rows[i].s->label);
            fputs(": ", f);
            html_esc(f, c->rows[i].given.why);
            fputs("</p>\n", f);
        }
}

/* The answer first: the fewest GPUs, and the fastest configuration, over every strategy. */
static void answer(FILE *f, const html_report *h)
{
    const compare_report *c = h->c;
    const compare_row *few = NULL, *fast = NULL;
    for (int i = 0; i < c->n; i++) {
        const compare_row *r = &c->rows[i];
        if (r->min_gpus > 0 && (!few || r->min_gpus < few->min_gpus)) few = r;
        if (r->has_best && (!fast || r->best.r.step.total < fast->best.r.step.total)) fast = r;
    }
    char lab[96], a[32];
    fputs("<h2>Answer</h2>\n<ul>\n", f);
    if (few) {
        fputs("<li id=\"fewest\"><b>Fewest GPUs:</b> ", f);
        html_esc(f, row_label(c, few, lab, sizeof lab));
        fputs(" with ", f);
        config_text(f, &few->min_entry.t);
        fprintf(f, "; step %.3f s</li>\n", few->min_entry.r.step.total);
    }
    if (fast) {
        fputs("<li id=\"fastest\"><b>Fastest</b> (up to ", f);
        fprintf(f, "%lld GPUs): ", (long long)c->sp->max_gpus);
        html_esc(f, row_label(c, fast, lab, sizeof lab));
        fputs(" with ", f);
        config_text(f, &fast->best.t);
        fprintf(f, "; step %.3f s, %.0f tokens/s, MFU %.1f%%", fast->best.r.step.total,
            fast->best.r.tokens_per_second, 100 * fast->best.r.mfu);
        if (fast->best.r.cost.tokens > 0)
            fprintf(f, "; %s tokens in %.1f days, %.0f GPU-hours, $%.0f",
                units_fmt_short(fast->best.r.cost.tokens, a, sizeof a), fast->best.r.cost.seconds / 86400,
                fast->best.r.cost.gpu_hours, fast->best.r.cost.dollars);
        fputs("</li>\n", f);
    }
    if (!few && !fast) fputs("<li class=\"no\">No strategy fits within the searched space.</li>\n", f);
    fputs("</ul>\n", f);
}

enum { STEP_PARTS = 6, MAX_MEM_PARTS = 16 };

/* What every chart's bars share: one per row of the comparison, labelled and keyed as the
 * tables' rows, with a note under those that do not apply or do not fit. */
typedef struct bar_names {
    int n;
    const char *labels[COMPARE_MAX_ROWS], *keys[COMPARE_MAX_ROWS], *notes[COMPARE_MAX_ROWS];
    char lab[COMPARE_MAX_ROWS][96], key[COMPARE_MAX_ROWS][96];
} bar_names;

static void bar_names_fill(const compare_report *c, bar_names *b)
{
    b->n = c->n;
    for (int i = 0; i < c->n; i++) {
        const compare_row *r = &c->rows[i];
        b->labels[i] = row_label(c, r, b->lab[i], (int)sizeof b->lab[i]);
        b->keys[i] = row_key(c, r, b->key[i], sizeof b->key[i]);
        b->notes[i] = !r->given.applicable ? "not applicable" : r->given.fits ? "" : "does not fit";
    }
}

/* Memory per GPU at the given settings: the components, HBM as the limit. */
static void memory_chart(FILE *f, const compare_report *c, const bar_names *b, double *v)
{
    int nm = 0;
    const char *mem_labels[MAX_MEM_PARTS];
    const mem_field *mf[MAX_MEM_PARTS];
    for (const mem_field *m = mem_fields; m->key && nm < MAX_MEM_PARTS; m++)
        if (m->label[0] != '=') mem_labels[nm] = m->label, mf[nm++] = m;
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < nm; k++)
            v[i * nm + k] =
                c->rows[i].given.applicable ? mem_field_value(&c->rows[i].given.mem, mf[k]) / GiB : NAN;
    char hbm[64], buf[32];
    snprintf(hbm, sizeof hbm, "HBM %s", units_fmt_bytes(c->sc->hw->hbm_bytes, buf, sizeof buf));
    fputs("<h2>Memory per GPU</h2>\n<p class=\"sub\">At the given settings; the dashed line is the "
          "GPU's memory.</p>\n",
        f);
    svg_stacked_bars(f,
        &(svg_stack_chart){"memory", "Memory per GPU by component (GiB)", "GiB", b->n, b->labels, b->keys,
            b->notes, nm, mem_labels, v, c->sc->hw->hbm_bytes / GiB, hbm});
}

static void step_chart(FILE *f, const compare_report *c, const bar_names *b, double *v)
{
    for (int i = 0; i < c->n; i++) {
        const step_time *st = &c->rows[i].given.step;
        double parts[STEP_PARTS] = {
            st->compute, st->comm_exposed, st->optimizer, st->bubble, st->offload, st->overhead};
        for (int k = 0; k < STEP_PARTS; k++)
            v[i * STEP_PARTS + k] = c->rows[i].given.applicable ? parts[k] : NAN;
    }
    static const char *const step_labels[STEP_PARTS] = {"compute", "exposed communication", "optimizer",
        "pipeline bubble", "offload transfers", "framework overhead"};
    fputs("<h2>Step time</h2>\n<p class=\"sub\">At the given settings (a strategy that does not fit "
          "is drawn as if it ran).</p>\n",
        f);
    svg_stacked_bars(f,
        &(svg_stack_chart){"steptime", "Step time by part (s)", "s", b->n, b->labels, b->keys, b->notes,
            STEP_PARTS, step_labels, v, NAN, NULL});
}

/* What each GPU sends per step, by link (communication_bytes_per_gpu in the JSON), in GB. */
static void comm_chart(FILE *f, const compare_report *c, const bar_names *b, double *v)
{
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < LEVEL_COUNT; k++)
            v[i * LEVEL_COUNT + k] =
                c->rows[i].given.applicable ? c->rows[i].given.comm.bytes_level[k] / 1e9 : NAN;
    static const char *const level_labels[LEVEL_COUNT] = {
        "within a node (NVLink)", "across nodes (network)", "host link (PCIe, offload)"};
    fputs("<h2>Communication</h2>\n<p class=\"sub\">Bytes each GPU sends per step at the given settings "
          "(GB = 10<sup>9</sup> bytes), by link; the exposed part of their time is in the step-time "
          "chart.</p>\n",
        f);
    svg_stacked_bars(f,
        &(svg_stack_chart){"communication", "Communication per GPU per step (GB)", "GB", b->n, b->labels,
            b->keys, b->notes, LEVEL_COUNT, level_labels, v, NAN, NULL});
}

/* The searches side by side: the fewest GPUs that fit, and the fastest configuration's step
 * time (or, with --tokens, its dollars). */
static void compare_charts(FILE *f, const compare_report *c, const bar_names *b, double *v)
{
    bool cost = c->sc->tokens > 0;
    double top = 0;
    for (int i = 0; i < c->n; i++) {
        const compare_row *r = &c->rows[i];
        v[i] = r->min_gpus > 0 ? (double)r->min_gpus : NAN;
        v[c->n + i] = !r->has_best      ? NAN
            : !cost                     ? r->best.r.step.total
            : r->best.r.cost.tokens > 0 ? r->best.r.cost.dollars
                                        : NAN;
        if (v[c->n + i] > top) top = v[c->n + i];
    }
    /* Dollars in millions or thousands, so the axis reads 4.1, not 4.1e+06. */
    double usd = !cost ? 1 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
    for (int i = 0; i < c->n; i++) v[c->n + i] /= usd;
    const char *usd_unit = usd == 1e6 ? "million $" : usd == 1e3 ? "thousand $" : "$";
    char usd_title[96];
    snprintf(usd_title, sizeof usd_title, "Cost of the tokens, fastest configuration (%s)", usd_unit);
    static const char *const gpus_label[1] = {"fewest GPUs that fit"};
    static const char *const step_label[1] = {"step time of the fastest configuration"};
    static const char *const usd_label[1] = {"dollars for the tokens, fastest configuration"};
    fprintf(f,
        "<h2>Compared</h2>\n<p class=\"sub\">The searches of the tables above (up to %lld GPUs): "
        "the fewest GPUs each strategy needs, and its fastest configuration's %s.</p>\n",
        (long long)c->sp->max_gpus, cost ? "cost" : "step time");
    svg_stacked_bars(f,
        &(svg_stack_chart){"compare-gpus", "Fewest GPUs that fit", "GPUs", b->n, b->labels, b->keys, NULL, 1,
            gpus_label, v, NAN, NULL});
    svg_stacked_bars(f,
        &(svg_stack_chart){cost ? "compare-cost" : "compare-step",
            cost ? usd_title : "Step time, fastest configuration (s)", cost ? usd_unit : "s", b->n, b->labels,
            b->keys, NULL, 1, cost ? usd_label : step_label, v + c->n, NAN, NULL});
}

/* The charts at the given settings (memory against HBM, the step's parts, communication by
 * link) and the searches' (fewest GPUs, fastest). */
static void charts(FILE *f, const html_report *h)
{
    const compare_report *c = h->c;
    bar_names *b = calloc(1, sizeof *b);
    double *v = calloc((size_t)(c->n * MAX_MEM_PARTS + 2), sizeof *v);
    if (b && v) {
        bar_names_fill(c, b);
        memory_chart(f, c, b, v);
        step_chart(f, c, b, v);
        comm_chart(f, c, b, v);
        compare_charts(f, c, b, v);
    }
    free(b);
    free(v);
}

/* --explain's text, captured through a memory stream and escaped into a <pre>. */
static void assumptions(FILE *f, const html_report *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    fputs("<h2>Assumptions</h2>\n<p class=\"sub\">The formulas, byte counts and options the numbers "
          "use (<code>zerosim estimate --explain</code>).</p>\n<pre>",
        f);
    if (m) {
        report_options o = h->c->ro ? *h->c->ro : (report_options){0};
        o.format = FMT_TABLE;
        report_explain(m, h->c->sc, &o);
        if (fclose(m) == 0) html_esc(f, buf);
    }
    free(buf);
    fputs("</pre>\n", f);
}

void report_html(FILE *f, const html_report *h)
{
    const scenario *s = h->c->sc;
    char title[256], a[32];
    snprintf(title, sizeof title, "Which strategy for %s on %lld x %s?",
        s->m->params_only ? units_fmt_short(s->pc->total, a, sizeof a) : s->m->name, (long long)s->t->gpus,
        s->hw->name);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"zerosim ",
        f);
    html_esc(f, h->version);
    fputs("\">\n<title>zerosim report: ", f);
    html_esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>", style);
    html_esc(f, title);
    fputs("</h1>\n<p class=\"sub\">DDP or ZeRO-1/2/3: memory per GPU, the largest micro-batch, the fewest "
          "GPUs, the fastest configuration",
        f);
    fputs(s->tokens > 0 ? " and the cost of the token budget" : "", f);
    fputs(", as <code>zerosim compare</code> computes them.</p>\n</header>\n<main>\n", f);
    inputs(f, h);
    answer(f, h);
    tables(f, h);
    charts(f, h);
    if (h->val) report_html_validation(f, h->val, h->runs_path ? h->runs_path : "");
    assumptions(f, h);
    fputs("</main>\n<footer class=\"sub\"><p>Written by zerosim ", f);
    html_esc(f, h->version);
    fputs(" (<code>zerosim report</code>): estimates from an analytic model, not measurements.</p>"
          "</footer>\n</body>\n</html>\n",
        f);
}
