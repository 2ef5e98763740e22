/* launch_shell.h -- the words a launch shell script runs (Megatron-LM examples/ scripts): variables,
 * arrays, ${X:-default}, $((arithmetic)), line continuations and if/elif/else on [[ ]] tests. */
#ifndef ZS_LAUNCH_SHELL_H
#define ZS_LAUNCH_SHELL_H

#include <stddef.h>

#include "core/error.h"

typedef struct shell_words {
    char **word; /* the launch command's words, expanded and split (heap; shell_words_free) */
    int n;
    int args_at; /* index of the first word after the Python script (its arguments); 0 when the text
                    is a plain argument list with no script named */
    char script[256]; /* the script run ("pretrain_gpt.py"), "" for an argument list */
} shell_words;

/* Interpret len bytes of shell text (origin names it in messages) as far as a launch script
 * needs: assignments (NAME=v, NAME=( ... ), NAME+=( ... ), export), parameter expansion
 * ($X, ${X}, ${X[@]}, ${X:-d}, ${X:=d}, ${X:+d}; positional parameters and the environment are
 * unset, so defaults apply), $((integer arithmetic)), quoting, comments, backslash-newline and
 * if/elif/else/fi on [[ a == b ]], !=, -z, -n joined by || and &&. $(commands) expand to
 * nothing. The command naming a *.py script is the launch; without one, every command that
 * starts with "--" is taken as arguments. Fails with ZS_ERR_INPUT naming origin and line
 * (unbalanced quotes or brackets, arithmetic it cannot evaluate) or when out of memory. */
int shell_words_read(const char *text, size_t len, const char *origin, shell_words *out, zs_error *err);

/* Free what shell_words_read allocated (safe on a zeroed struct). Never fails. */
void shell_words_free(shell_words *w);

#endif
