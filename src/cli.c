/* cli.c -- long-option scanning shared by the subcommands. */
#include "cli.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Edit distance (insert, delete, substitute, swap of neighbours), capped at 9: only small
 * ones matter for a suggestion. */
static int distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > 40 || lb > 40) return 9;
    int d[41][41];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
                c = d[i - 2][j - 2] + 1;
            d[i][j] = c;
        }
    return d[la][lb] > 9 ? 9 : d[la][lb];
}

const char *cli_suggest(const char *word, size_t wlen, const char *const *names, int n, const char *prefix,
                        char *out, size_t len)
{
    out[0] = '\0';
    if (wlen == 0 || len == 0) return out;
    /* The nearest names by a small edit distance (--gpu: --gpus), else the names the word
     * begins (--offload: both offload flags). */
    int best = 9, found = 0;
    for (int k = 0; k < n; k++) {
        int d = distance(word, wlen, names[k], strlen(names[k]));
        if (d < best) best = d;
    }
    int limit = wlen <= 4 ? 1 : 2;
    bool prefix_mode = false;
    if (best > limit)
        for (int k = 0; k < n; k++)
            if (wlen >= 3 && strlen(names[k]) > wlen && strncmp(names[k], word, wlen) == 0) prefix_mode = true;
    if (!prefix_mode && best > limit) return out;
    size_t o = 0;
    for (int k = 0; k < n && found < 3; k++) {
        bool match = prefix_mode ? strlen(names[k]) > wlen && strncmp(names[k], word, wlen) == 0
                                 : distance(word, wlen, names[k], strlen(names[k])) == best;
        if (!match) continue;
        int w = snprintf(out + o, len - o, "%s%s%s", found ? " or " : "did you mean ", prefix, names[k]);
        if (w < 0 || (size_t)w >= len - o) break;
        o += (size_t)w;
        found++;
    }
    if (found && o + 1 < len) { out[o++] = '?'; out[o] = '\0'; }
    return out;
}

int cli_next(int argc, char **argv, int *i, const cli_opt *opts, const char **value,
             zs_error *err)
{
    *value = NULL;
    if (*i >= argc) return CLI_END;
    const char *a = argv[(*i)++];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return CLI_HELP;
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
        *value = a;
        return CLI_POSITIONAL;
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    /* A value (or option) with a line break would make the error message, or a CSV row,
     * span lines; no flag needs one. */
    for (const char *p = a; *p; p++)
        if ((unsigned char)*p < 0x20) {
            zs_fail(err, ZS_ERR_USAGE, "--%.*s: contains a control character (a line break?)",
                    (int)strcspn(name, "=\t\r\n"), name);
            return CLI_ERROR;
        }
    size_t nl = eq ? (size_t)(eq - name) : strlen(name);
    for (const cli_opt *o = opts; o->name; o++) {
        if (strlen(o->name) != nl || strncmp(o->name, name, nl) != 0) continue;
        if (!o->arg) {
            if (eq) {
                zs_fail(err, ZS_ERR_USAGE, "--%s takes no value", o->name);
                return CLI_ERROR;
            }
            return o->id;
        }
        if (eq) *value = eq + 1;
        else if (*i < argc) *value = argv[(*i)++];
        else {
            zs_fail(err, ZS_ERR_USAGE, "--%s needs a value (%s)", o->name, o->arg);
            return CLI_ERROR;
        }
        for (const char *p = *value; *p; p++)
            if ((unsigned char)*p < 0x20) {
                zs_fail(err, ZS_ERR_USAGE, "--%s: the value contains a control character (a line break?)", o->name);
                return CLI_ERROR;
            }
        return o->id;
    }
    const char *names[256];
    int n = 0;
    for (const cli_opt *o = opts; o->name && n < 256; o++) names[n++] = o->name;
    char hint[160];
    cli_suggest(name, nl, names, n, "--", hint, sizeof hint);
    zs_fail(err, ZS_ERR_USAGE, "unknown option --%.*s%s%s (see --help)", (int)(nl > 64 ? 64 : nl), name,
            hint[0] ? "; " : "", hint);
    return CLI_ERROR;
}

void cli_print_options(FILE *f, const cli_opt *opts)
{
    for (const cli_opt *o = opts; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-30s %s\n", left, o->help);
    }
}
