/* commands.h -- the subcommands main() dispatches to. Each returns a process exit status. */
#ifndef ZS_COMMANDS_H
#define ZS_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/cli.h"

/* The release `zerosim --version` prints; raised with each tagged release. */
#define ZS_VERSION "0.14.0"

int cmd_estimate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);

struct setup;

/* `estimate --compat deepspeed|megatron` (cmd_compat.c): reproduce that tool's estimate for a
 * finished setup. Returns an exit status. */
int cmd_compat(struct setup *s, const char *tool, bool distributed_optimizer);

/* With --weights, print setup_weights_warning's line (if any) to stderr as
 * "zerosim CMD: warning: ...". Never fails. */
void cmd_weights_warn(const char *cmd, const struct setup *s);

/* Print an error value as "zerosim CMD: message" to cmd_errs() and return its code; the
 * message (control characters as '?') and code are kept for cmd_last_error. */
int cmd_error(const char *cmd, int code, const char *msg);

/* The streams this thread's commands write their data (cmd_out) and messages (cmd_errs) to:
 * stdout and stderr unless cmd_set_streams named others (the library's memory streams, NULL
 * for the standard ones; it also clears the last error). Progress lines on a terminal stay on
 * stderr (cmd_err_tty: whether cmd_errs() is one). Never fail. */
FILE *cmd_out(void);
FILE *cmd_errs(void);
void cmd_set_streams(FILE *out, FILE *err);
bool cmd_err_tty(void);

/* The message and code (*code; 0: none) of this thread's last cmd_error since
 * cmd_set_streams. Never fails. */
const char *cmd_last_error(int *code);

/* What a command's command line is (cmd_args.c): its own options, bound to its variables or
 * with ids for take, and for a planning command the shared ones setup reads. */
typedef struct cmd_spec {
    const char *name;                           /* "plan": errors read "zerosim plan: ..." */
    const cli_opt *own;                         /* the command's options */
    void (*usage)(FILE *f, const cli_opt *own); /* --help, printed to stdout */
    void *ctx;                                  /* take's; a planning command's setup */
    cli_take_fn take;                           /* id options and arguments; NULL: cmd_take_setup */
    bool shared;                                /* also setup's options (less drop), own after them */
    bool own_first;                             /* with shared: own before them instead */
    const char *const *drop;                    /* shared options the command does not take */
} cmd_spec;

/* cmd_parse's status for "arguments read, go on". */
#define CMD_GO (-1)

/* Read argv as spec says (cli_parse). Returns CMD_GO, or the exit status to return at once:
 * 0 after printing the usage for --help, the error's code after printing it. */
int cmd_parse(const cmd_spec *spec, int argc, char **argv);

/* A planning command's take: setup_take on ctx, a struct setup; a positional argument is a
 * usage error. */
int cmd_take_setup(void *ctx, int id, const char *value, zs_error *err);

#endif
