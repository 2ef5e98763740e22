/* cmd_args.c -- every command's argument loop: options into their variables, --help, errors. */
#include "cmd/commands.h"
#include "cmd/setup.h"

#include <string.h>

int cmd_take_setup(void *ctx, int id, const char *value, zs_error *err)
{
    setup *s = ctx;
    /* One positional argument is the model (zerosim estimate llama-3-8b); --model then is one
     * too many, as is a second positional. */
    if (id == CLI_POSITIONAL && (s->model_arg || s->params > 0))
        return zs_fail(
            err, ZS_ERR_USAGE, "unexpected argument \"%.120s\" (the model is given; see --help)", value);
    if (id == CLI_POSITIONAL) {
        s->model_arg = value;
        s->model_positional = true;
        return ZS_OK;
    }
    return setup_take(s, id, value, err);
}

void cmd_weights_warn(const char *cmd, const setup *s)
{
    char line[1024];
    /* A name matched loosely (Llama-3-8B, h100-80GB): which catalog entry was used. */
    if (s->model_used[0])
        fprintf(stderr, "zerosim %s: note: --model %s: using the catalog's %s\n", cmd, s->model_arg,
            s->model_used);
    if (s->hw_used[0])
        fprintf(
            stderr, "zerosim %s: note: --hardware %s: using the catalog's %s\n", cmd, s->hw_arg, s->hw_used);
    /* The model loader's notes, a line each: a warning when the counts are approximate (an
     * unknown model_type read as a generic decoder), else a note (defaults, vision towers). */
    const char *p = s->notes.text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "zerosim %s: %s: %s: %.*s\n", cmd, s->notes.approximate ? "warning" : "note",
            s->model_path, len, p);
        p += len + (nl ? 1 : 0);
    }
    if (setup_weights_warning(s, line, sizeof line)) fprintf(stderr, "zerosim %s: warning: %s\n", cmd, line);
}

int cmd_parse(const cmd_spec *spec, int argc, char **argv)
{
    cli_opt merged[128];
    const cli_opt *opts = spec->own;
    if (spec->shared) opts = setup_merge_options(spec->own, spec->own_first, spec->drop, merged, 128);
    zs_error err = {0};
    int rc = cli_parse(argc, argv, opts, spec->take ? spec->take : cmd_take_setup, spec->ctx, &err);
    if (rc == CLI_HELP) {
        spec->usage(stdout, spec->own);
        return 0;
    }
    return rc ? cmd_error(spec->name, err.code, err.msg) : CMD_GO;
}
