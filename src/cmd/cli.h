/* cli.h -- declarative long options for subcommands: --name VALUE, --name=VALUE, --switch. */
#ifndef ZS_CLI_H
#define ZS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"

/* One option. Either it has an id, which cli_next returns and cli_parse hands to the command's
 * take function, or a binding (one of text .. choice), which cli_parse stores itself: a
 * command's table says what each flag sets instead of a switch over ids. */
typedef struct cli_opt {
    const char *name;  /* "gpus" for --gpus */
    const char *arg;   /* metavariable ("N") or NULL for a switch */
    const char *help;  /* one line for --help */
    int id;            /* what cli_next returns for it (0 for a bound option) */
    const char *alias; /* a short spelling such as "-o", its value the next argument; or NULL */
    const char **text; /* the value as given */
    bool *on, *off;    /* a switch sets *on to true, or *off to false */
    int64_t *whole;    /* a whole number in [min, max] (units_parse_int: 8k, 1e3) */
    int64_t min, max;
    double *count; /* a count such as 7e9 or 4M (units_parse_count) */
    int *choice;   /* the value's index among choices ("time|cost|throughput") */
    const char *choices;
} cli_opt;

#define CLI_END 0         /* no more arguments */
#define CLI_HELP -1       /* --help / -h */
#define CLI_ERROR -2      /* unknown option, missing value, stray argument: err is set */
#define CLI_POSITIONAL -3 /* a non-option argument; *value points at it */

/* Read the next option from argv starting at *i (advancing it), for a table of ids (a bound
 * option's is 0: use cli_parse). Returns the option's id, CLI_END, CLI_HELP, CLI_POSITIONAL,
 * or CLI_ERROR with a ZS_ERR_USAGE message naming the option. The option table ends with an
 * entry whose name is NULL. */
int cli_next(int argc, char **argv, int *i, const cli_opt *opts, const char **value, zs_error *err);

/* What a command does with an option that has an id (not a binding), or with a positional
 * argument (id CLI_POSITIONAL, value the argument). Returns ZS_OK, or an error code with err
 * set. */
typedef int (*cli_take_fn)(void *ctx, int id, const char *value, zs_error *err);

/* Read all of argv after argv[0] against opts, in order: bound options are stored, the others
 * and positional arguments handed to take(ctx, ...). Returns ZS_OK; CLI_HELP at --help or -h
 * (what follows it unread); or, at the first bad argument, the code of the error in err (from
 * cli_next, a binding's parser, or take). */
int cli_parse(int argc, char **argv, const cli_opt *opts, cli_take_fn take, void *ctx, zs_error *err);

/* The index of v among choices ("table|json|csv"). Returns it, or -1 after a ZS_ERR_USAGE
 * error "--NAME: expected table, json or csv". */
int cli_choice(const char *name, const char *v, const char *choices, zs_error *err);

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
