/* cmd_args.c -- every command's argument loop: options into their variables, --help, errors. */
#include "cmd/commands.h"
#include "cmd/setup.h"

#include <string.h>
#include <unistd.h>

/* Where this thread's command writes (the library captures both in memory streams); NULL:
 * stdout and stderr. The last error cmd_error printed, for the library's error object. */
static _Thread_local FILE *out_stream, *err_stream;
static _Thread_local int last_code;
static _Thread_local char last_msg[1024];

FILE *cmd_out(void)
{
    return out_stream ? out_stream : stdout;
}

FILE *cmd_errs(void)
{
    return err_stream ? err_stream : stderr;
}

void cmd_set_streams(FILE *out, FILE *err)
{
    out_stream = out;
    err_stream = err;
    last_code = 0;
    last_msg[0] = '\0';
}

bool cmd_err_tty(void)
{
    int fd = fileno(cmd_errs());
    return fd >= 0 && isatty(fd);
}

const char *cmd_last_error(int *code)
{
    *code = last_code;
    return last_msg;
}

int cmd_error(const char *cmd, int code, const char *msg)
{
    /* One line, whatever the message quotes: control characters print as '?'. */
    FILE *f = cmd_errs();
    size_t n = 0;
    fprintf(f, "zerosim %s: ", cmd);
    for (const char *p = msg ? msg : ""; *p; p++) {
        char c = (unsigned char)*p < 0x20 ? '?' : *p;
        fputc(c, f);
        if (n + 1 < sizeof last_msg) last_msg[n++] = c;
    }
    fputc('\n', f);
    last_msg[n] = '\0';
    last_code = code;
    return code;
}

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
        fprintf(cmd_errs(), "zerosim %s: note: --model %s: using the catalog's %s\n", cmd, s->model_arg,
            s->model_used);
    if (s->hw_used[0])
        fprintf(cmd_errs(), "zerosim %s: note: --hardware %s: using the catalog's %s\n", cmd, s->hw_arg,
            s->hw_used);
    /* The model loader's notes, a line each: a warning when the counts are approximate (an
     * unknown model_type read as a generic decoder), else a note (defaults, vision towers). */
    const char *p = s->notes.text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(cmd_errs(), "zerosim %s: %s: %s: %.*s\n", cmd, s->notes.approximate ? "warning" : "note",
            s->model_path, len, p);
        p += len + (nl ? 1 : 0);
    }
    /* --config: one block, the format recognised, then every key by what became of it. */
    if (s->cfg_arg) {
        const launch_config *c = &s->cfg;
        FILE *e = cmd_errs();
        fprintf(e, "zerosim %s: config %s: recognised as %s\n", cmd, s->cfg_arg,
            launch_format_name(c->format));
        if (c->used[0]) fprintf(e, "  used: %s\n", c->used);
        if (c->defaulted[0]) fprintf(e, "  defaulted: %s\n", c->defaulted);
        if (c->ignored[0]) fprintf(e, "  ignored: %s\n", c->ignored);
        if (s->cfg_over[0]) fprintf(e, "  overridden: %s\n", s->cfg_over);
    }
    if (setup_weights_warning(s, line, sizeof line))
        fprintf(cmd_errs(), "zerosim %s: warning: %s\n", cmd, line);
}

int cmd_parse(const cmd_spec *spec, int argc, char **argv)
{
    cli_opt merged[128];
    const cli_opt *opts = spec->own;
    if (spec->shared) opts = setup_merge_options(spec->own, spec->own_first, spec->drop, merged, 128);
    zs_error err = {0};
    int rc = cli_parse(argc, argv, opts, spec->take ? spec->take : cmd_take_setup, spec->ctx, &err);
    if (rc == CLI_HELP) {
        spec->usage(cmd_out(), spec->own);
        return 0;
    }
    return rc ? cmd_error(spec->name, err.code, err.msg) : CMD_GO;
}
