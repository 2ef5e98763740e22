/* cmd_list.c -- `zerosim list models|hardware|families|frameworks`: the catalogs, a line each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/catalog.h"
#include "cmd/commands.h"
#include "io/hardware_json.h"
#include "io/model_arch.h"
#include "io/model_json.h"
#include "core/framework.h"
#include "core/units.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: zerosim list [models|hardware|families|frameworks]\n\n"
        "The model catalog (family, total and active parameters, layers, hidden size and the layer\n"
        "pattern: each class of block as its count, token mixer and MLP), the hardware profiles,\n"
        "the model_type families a config.json may name, or the frameworks (--framework: what each\n"
        "calls the strategies, and the releases its versions stand for); without an argument, the\n"
        "models and then the hardware profiles.\n");
}

/* The layer pattern from the counted block classes (never from the family): "36 DeltaNet+MoE,
 * 12 attention+MoE", "24 attention (12 sliding)+MoE", "23 Mamba-2, 6 attention, 23 MoE". */
static void layer_pattern(const model *m, const param_counts *pc, char *buf, size_t n)
{
    static const char *const mixers[MIX_KINDS] = {[MIX_ATTENTION] = "attention",
        [MIX_DELTANET] = "DeltaNet",
        [MIX_MAMBA2] = "Mamba-2",
        [MIX_MAMBA1] = "Mamba-1",
        [MIX_SWA] = "sliding-attention",
        [MIX_CROSS] = "cross-attention",
        [MIX_NONE] = ""};
    size_t at = 0;
    buf[0] = '\0';
    for (int c = 0; c < pc->nclass && at < n; c++) {
        long long blocks = llround(pc->nblocks[c]), local = llround(pc->nlocal[c]);
        if (blocks <= 0) continue;
        char win[48] = "";
        if (local > 0)
            snprintf(win, sizeof win, " (%lld %s%s)", local, m->window_chunked ? "chunked" : "sliding",
                pc->kv_shared[c] ? ", KV-shared" : "");
        else if (pc->kv_shared[c])
            snprintf(win, sizeof win, " (KV-shared)");
        const char *mix = mixers[pc->mixer[c]], *mix2 = mixers[pc->mixer2[c]];
        const char *ffn = pc->kind[c] == BLOCK_MOE ? "MoE" : pc->kind[c] == BLOCK_NOFFN ? "" : "MLP";
        const char *sep1 = *mix && *mix2 ? "+" : "", *sep2 = (*mix || *mix2) && *ffn ? "+" : "";
        at += (size_t)snprintf(buf + at, n - at, "%s%lld %s%s%s%s%s%s%s", at ? ", " : "", blocks,
            pc->kind[c] == BLOCK_ENCODER ? "encoder " : "", mix, sep1, mix2, win, sep2, ffn);
    }
}

/* The hardware catalog, a line each: the name and GPU columns are as wide as their longest
 * entry, so every row's columns start at the same offset. Frees names. */
static int list_hardware(char **names)
{
    size_t n = 0;
    while (names[n]) n++;
    hardware *hws = calloc(n ? n : 1, sizeof *hws);
    bool *ok = calloc(n ? n : 1, sizeof *ok);
    if (!hws || !ok) {
        free(hws);
        free(ok);
        catalog_free(names);
        return cmd_error("list", ZS_ERR_NOMEM, "out of memory");
    }
    int bad = 0, wname = (int)strlen("name"), wgpu = (int)strlen("gpu");
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        zs_error err = {0};
        if (catalog_resolve("hardware", names[i], path, sizeof path, &err) ||
            hardware_load(path, &hws[i], &err)) {
            fprintf(cmd_errs(), "zerosim list: %s\n", err.msg);
            bad++;
            continue;
        }
        ok[i] = true;
        if ((int)strlen(names[i]) > wname) wname = (int)strlen(names[i]);
        if ((int)strlen(hws[i].gpu_model) > wgpu) wgpu = (int)strlen(hws[i].gpu_model);
    }
    fprintf(cmd_out(), "%-*s %-*s %10s %6s %7s %12s %10s\n", wname, "name", wgpu, "gpu", "HBM", "/node",
        "/domain", "intra", "$/GPU-h");
    for (size_t i = 0; i < n; i++) {
        if (!ok[i]) continue;
        const hardware *hw = &hws[i];
        char a[32], bw[32];
        snprintf(bw, sizeof bw, "%.0f GB/s", hw->intra.bandwidth / 1e9);
        int64_t dom = hw->domain_gpus > hw->gpus_per_node ? hw->domain_gpus : hw->gpus_per_node;
        fprintf(cmd_out(), "%-*s %-*s %10s %6lld %7lld %12s %10.2f\n", wname, names[i], wgpu, hw->gpu_model,
            units_fmt_bytes(hw->hbm_bytes, a, sizeof a), (long long)hw->gpus_per_node, (long long)dom, bw,
            hw->price_per_gpu_hour);
    }
    free(hws);
    free(ok);
    catalog_free(names);
    return bad ? ZS_ERR_INPUT : 0;
}

static int list(const char *kind)
{
    zs_error err = {0};
    char **names;
    if (catalog_list(kind, &names, &err)) return cmd_error("list", err.code, err.msg);
    if (strcmp(kind, "models") != 0) return list_hardware(names);
    fprintf(cmd_out(), "%-24s %-16s %18s %18s %6s %6s  %s\n", "name", "family", "parameters", "active",
        "layers", "hidden", "pattern");
    int bad = 0;
    for (char **p = names; *p; p++) {
        char path[4096], a[32], b[32];
        if (catalog_resolve(kind, *p, path, sizeof path, &err)) {
            bad++;
            continue;
        }
        model m;
        param_counts pc;
        if (model_load(path, &m, &err) || model_count(&m, 0, &pc, &err)) {
            fprintf(cmd_errs(), "zerosim list: %s\n", err.msg);
            bad++;
            continue;
        }
        char pat[256];
        layer_pattern(&m, &pc, pat, sizeof pat);
        fprintf(cmd_out(), "%-24s %-16s %18s %18s %6lld %6lld  %s\n", *p, m.model_type,
            units_fmt_count(pc.total, a, sizeof a), units_fmt_count(pc.active, b, sizeof b),
            (long long)m.num_layers, (long long)m.hidden_size, pat);
    }
    catalog_free(names);
    return bad ? ZS_ERR_INPUT : 0;
}

/* The model_type values the loader reads, a line each: the family's own keys (its hook) and,
 * for a wrapper, the row its text_config is read with. */
static int list_families(void)
{
    fprintf(cmd_out(), "%-20s %s\n", "model_type", "reads");
    for (size_t i = 0;; i++) {
        const arch *a = model_arch_at(i);
        if (!a) break;
        if (a->text)
            fprintf(
                cmd_out(), "%-20s text_config as %s (vision tower stated, not counted)\n", a->type, a->text);
        else
            fprintf(cmd_out(), "%-20s %s%s%s\n", a->type, a->moe ? "experts; " : "",
                a->family ? "its own keys" : "the common keys", a->defaults ? " and its class defaults" : "");
    }
    fprintf(cmd_out(), "%-20s %s\n", "(any other)",
        "a generic decoder from the standard keys, with a warning (--strict refuses)");
    return 0;
}

/* The frameworks, a line each: the name --framework takes, what it calls each strategy it
 * runs, and the releases its versions stand for (NAME@RELEASE). */
static int list_frameworks(void)
{
    char runs[FRAMEWORK_MAX][160];
    int nf = 0, width = (int)strlen("runs (zerosim: the framework's name)");
    for (; frameworks[nf] && nf < FRAMEWORK_MAX; nf++) {
        size_t o = 0;
        runs[nf][0] = '\0';
        for (int k = 0; strategies[k] && k < STRATEGY_MAX; k++) {
            if (!frameworks[nf]->runs[k] || o >= sizeof runs[nf]) continue;
            int w = snprintf(runs[nf] + o, sizeof runs[nf] - o, "%s%s: %s", o ? ", " : "",
                strategies[k]->name, frameworks[nf]->runs[k]);
            if (w > 0) o += (size_t)w;
        }
        if ((int)strlen(runs[nf]) > width) width = (int)strlen(runs[nf]);
    }
    fprintf(cmd_out(), "%-10s %-*s  %s\n", "framework", width, "runs (zerosim: the framework's name)",
        "versions (--framework NAME@RELEASE)");
    for (int i = 0; i < nf; i++) {
        char versions[256];
        framework_versions_text(frameworks[i], versions, sizeof versions);
        fprintf(cmd_out(), "%-10s %-*s  %s\n", frameworks[i]->name, width, runs[i],
            versions[0] ? versions : "-");
    }
    return 0;
}

int cmd_list(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "families") == 0) return list_families();
    if (argc == 2 && strcmp(argv[1], "frameworks") == 0) return list_frameworks();
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(cmd_out());
        return 0;
    }
    if (argc == 1) {
        /* Both catalogs, models first: what a name given to --model or --hardware may be. */
        int rm = list("models");
        fprintf(cmd_out(), "\n");
        int rh = list("hardware");
        return rm ? rm : rh;
    }
    if (argc != 2 || (strcmp(argv[1], "models") != 0 && strcmp(argv[1], "hardware") != 0))
        return cmd_error(
            "list", ZS_ERR_USAGE,
            "expected 'models', 'hardware', 'families' or 'frameworks' (see 'zerosim list --help')");
    return list(argv[1]);
}
