/* commands.h -- the subcommands main() dispatches to. Each returns a process exit status. */
#ifndef ZS_COMMANDS_H
#define ZS_COMMANDS_H

#include <stdbool.h>

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

struct setup;

/* `estimate --compat deepspeed|megatron` (cmd_compat.c): reproduce that tool's estimate for a
 * finished setup. Returns an exit status. */
int cmd_compat(struct setup *s, const char *tool, bool distributed_optimizer);

/* Print an error value as "zerosim: message" to stderr and return its code. */
int cmd_error(const char *cmd, int code, const char *msg);

#endif
