/* cli.c -- long-option scanning shared by the subcommands. */
#include "cmd/cli.h"

#include <string.h>

#include "core/units.h"

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

const char *cli_suggest(
    const char *word, size_t wlen, const char *const *names, int n, const char *prefix, char *out, size_t len)
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
            if (wlen >= 3 && strlen(names[k]) > wlen && strncmp(names[k], word, wlen) == 0)
                prefix_mode = true;
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
    if (found && o + 1 < len) {
        out[o++] = '?';
        out[o] = '\0';
    }
    return out;
}

/* The value of option o: after its '=' (eq), else the next argument. spelled is how it was
 * written ("--gpus", "-o"). Fails with ZS_ERR_USAGE naming it. */
static int option_value(const cli_opt *o, const char *spelled, const char *eq, int argc, char **argv, int *i,
    const char **value, zs_error *err)
{
    if (eq)
        *value = eq + 1;
    else if (*i < argc)
        *value = argv[(*i)++];
    else
        return zs_fail(err, ZS_ERR_USAGE, "%s needs a value (%s)", spelled, o->arg);
    for (const char *p = *value; *p; p++)
        if ((unsigned char)*p < 0x20)
            return zs_fail(
                err, ZS_ERR_USAGE, "--%s: the value contains a control character (a line break?)", o->name);
    return ZS_OK;
}

enum { MATCHED = 1 }; /* scan's status for an option found */

/* Read argv[*i] (and its value, advancing *i past both). Returns the option it names, *status
 * MATCHED; or NULL, *status CLI_END, CLI_HELP, CLI_POSITIONAL (*value the argument) or
 * CLI_ERROR (err set). */
static const cli_opt *scan(
    int argc, char **argv, int *i, const cli_opt *opts, const char **value, int *status, zs_error *err)
{
    *value = NULL;
    *status = CLI_ERROR;
    if (*i >= argc) {
        *status = CLI_END;
        return NULL;
    }
    const char *a = argv[(*i)++];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        *status = CLI_HELP;
        return NULL;
    }
    for (const cli_opt *o = opts; o->name; o++)
        if (o->alias && strcmp(a, o->alias) == 0) {
            if (option_value(o, o->alias, NULL, argc, argv, i, value, err)) return NULL;
            *status = MATCHED;
            return o;
        }
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
        *value = a;
        *status = CLI_POSITIONAL;
        return NULL;
    }
    const char *name = a + 2, *eq = strchr(name, '=');
    /* A value (or option) with a line break would make the error message, or a CSV row,
     * span lines; no flag needs one. */
    for (const char *p = a; *p; p++)
        if ((unsigned char)*p < 0x20) {
            zs_fail(err, ZS_ERR_USAGE, "--%.*s: contains a control character (a line break?)",
                (int)strcspn(name, "=\t\r\n"), name);
            return NULL;
        }
    size_t nl = eq ? (size_t)(eq - name) : strlen(name);
    for (const cli_opt *o = opts; o->name; o++) {
        if (strlen(o->name) != nl || strncmp(o->name, name, nl) != 0) continue;
        if (!o->arg && eq) {
            zs_fail(err, ZS_ERR_USAGE, "--%s takes no value", o->name);
            return NULL;
        }
        char spelled[80];
        snprintf(spelled, sizeof spelled, "--%s", o->name);
        if (o->arg && option_value(o, spelled, eq, argc, argv, i, value, err)) return NULL;
        *status = MATCHED;
        return o;
    }
    const char *names[256];
    int n = 0;
    for (const cli_opt *o = opts; o->name && n < 256; o++) names[n++] = o->name;
    char hint[160];
    cli_suggest(name, nl, names, n, "--", hint, sizeof hint);
    zs_fail(err, ZS_ERR_USAGE, "unknown option --%.*s%s%s (see --help)", (int)(nl > 64 ? 64 : nl), name,
        hint[0] ? "; " : "", hint);
    return NULL;
}

int cli_next(int argc, char **argv, int *i, const cli_opt *opts, const char **value, zs_error *err)
{
    int status;
    const cli_opt *o = scan(argc, argv, i, opts, value, &status, err);
    return o ? o->id : status;
}

int cli_choice(const char *name, const char *v, const char *choices, zs_error *err)
{
    /* "a|b|c": the index of v, else the list as "a, b or c" */
    char list[160] = "";
    size_t o = 0;
    int k = 0;
    for (const char *p = choices; *p; k++) {
        size_t len = strcspn(p, "|");
        if (strlen(v) == len && strncmp(v, p, len) == 0) return k;
        const char *sep = k == 0 ? "" : p[len] ? ", " : " or ";
        int w = snprintf(list + o, sizeof list - o, "%s%.*s", sep, (int)len, p);
        if (w > 0 && (size_t)w < sizeof list - o) o += (size_t)w;
        p += len + (p[len] == '|');
    }
    zs_fail(err, ZS_ERR_USAGE, "--%s: expected %s", name, list);
    return -1;
}

/* Store v through o's binding. Fails with ZS_ERR_USAGE naming the option. */
static int store(const cli_opt *o, const char *v, zs_error *err)
{
    char flag[80];
    snprintf(flag, sizeof flag, "--%s", o->name);
    int k;
    if (o->text)
        *o->text = v;
    else if (o->on)
        *o->on = true;
    else if (o->off)
        *o->off = false;
    else if (o->whole)
        return units_parse_int(v, flag, o->min, o->max, o->whole, err);
    else if (o->count)
        return units_parse_count(v, flag, o->count, err);
    else if (o->choice) {
        if ((k = cli_choice(o->name, v, o->choices, err)) < 0) return err->code;
        *o->choice = k;
    }
    return ZS_OK;
}

static bool bound(const cli_opt *o)
{
    return o->text || o->on || o->off || o->whole || o->count || o->choice;
}

int cli_parse(int argc, char **argv, const cli_opt *opts, cli_take_fn take, void *ctx, zs_error *err)
{
    int i = 1, status, rc = ZS_OK;
    const char *v;
    while (!rc) {
        const cli_opt *o = scan(argc, argv, &i, opts, &v, &status, err);
        if (status == CLI_END || status == CLI_HELP) return status;
        if (status == CLI_ERROR) return err->code;
        rc = o && bound(o) ? store(o, v, err) : take(ctx, o ? o->id : CLI_POSITIONAL, v, err);
    }
    return rc;
}

void cli_print_options(FILE *f, const cli_opt *opts)
{
    for (const cli_opt *o = opts; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-30s %s\n", left, o->help);
    }
}
