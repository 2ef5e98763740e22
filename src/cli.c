/* cli.c -- long-option scanning shared by the subcommands. */
#include "cli.h"

#include <string.h>

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
        return o->id;
    }
    zs_fail(err, ZS_ERR_USAGE, "unknown option --%.*s (see --help)", (int)nl, name);
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
