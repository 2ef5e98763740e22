/* cli.h -- declarative long options for subcommands: --name VALUE, --name=VALUE, --switch. */
#ifndef ZS_CLI_H
#define ZS_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef struct cli_opt {
    const char *name;  /* "gpus" for --gpus */
    const char *arg;   /* metavariable ("N") or NULL for a switch */
    const char *help;  /* one line for --help */
    int id;            /* what cli_next returns for it */
} cli_opt;

#define CLI_END 0      /* no more arguments */
#define CLI_HELP -1    /* --help / -h */
#define CLI_ERROR -2   /* unknown option, missing value, stray argument: err is set */
#define CLI_POSITIONAL -3 /* a non-option argument; *value points at it */

/* Read the next option from argv starting at *i (advancing it). Returns the option's id,
 * CLI_END, CLI_HELP, CLI_POSITIONAL, or CLI_ERROR with a ZS_ERR_USAGE message naming the
 * option. The option table ends with an entry whose name is NULL. */
int cli_next(int argc, char **argv, int *i, const cli_opt *opts, const char **value,
             zs_error *err);

/* "did you mean --gpus?" for a misspelled word (its first wlen bytes) among names: those at
 * the smallest edit distance if small (1 for words of up to 4 characters, else 2), else the
 * names it begins when at least 3 characters long (--offload: --offload-optimizer or
 * --offload-params). Each name is printed after prefix. Writes "" when nothing is close.
 * Returns out; never fails. */
const char *cli_suggest(const char *word, size_t wlen, const char *const *names, int n, const char *prefix,
                        char *out, size_t len);

/* Print the options table as help lines. */
void cli_print_options(FILE *f, const cli_opt *opts);

#endif
