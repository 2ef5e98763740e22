/* main.c -- zerosim's entry point: the subcommand table and exit statuses. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "core/error.h"

/* The serve layer's command (src/serve/serve.h; that layer comes after cmd, so it is named
 * here rather than included). */
int cmd_serve(int argc, char **argv);

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"estimate", cmd_estimate, "memory, communication, step time and cost for DDP and ZeRO-1/2/3"},
    {"compare", cmd_compare,
        "the strategy decision in one screen: memory, largest batch, fewest GPUs, speed, cost"},
    {"report", cmd_report, "compare's answer as one self-contained HTML page: tables, SVG charts, cost"},
    {"plan", cmd_plan, "search every configuration: fastest/cheapest that fits, min GPUs, max model"},
    {"sweep", cmd_sweep, "evaluate a grid of configurations, one CSV/JSON row each"},
    {"plot", cmd_plot, "charts of memory, step time, communication, scaling and validation (gnuplot)"},
    {"calibrate", cmd_calibrate, "fit a hardware profile to nccl-tests logs, zerobench results and runs"},
    {"validate", cmd_validate, "compare predicted step times with measured runs"},
    {"list", cmd_list, "list the model catalog or the hardware profiles"},
    {"serve", cmd_serve, "a local web page over the request API: compare live as you type (loopback)"},
};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: zerosim COMMAND [options]   (zerosim COMMAND --help for its options)\n\n"
        "Memory planning and cost simulation for large-model training: DDP, ZeRO-1/2/3,\n"
        "offload, tensor and pipeline parallelism, activation checkpointing.\n\nCommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "  --version  print the version\n");
    fprintf(f,
        "\nExit status: 0 done, 1 nothing fits, 2 usage error, 3 bad input file, 4 output error.\n"
        "Catalogs: models/ and hardware/ beside the binary, or $ZEROSIM_DATA.\n");
}

/* Data goes to stdout through stdio's buffer, so a write error (a full disk, /dev/full) shows
 * up when the buffer is flushed: during the command for output larger than the buffer (a big
 * sweep saw ferror and returned 4 without a word), at exit for smaller output (which exited 0).
 * Flush before exiting and fail with one line and exit 4 either way. */
static int check_stdout(const char *cmd, int rc)
{
    errno = 0;
    int e = fflush(stdout) != 0 ? errno : 0;
    if (!e && !ferror(stdout)) return rc;
    fprintf(stderr, "zerosim%s%s: cannot write standard output%s%s\n", cmd ? " " : "", cmd ? cmd : "",
        e ? ": " : "", e ? strerror(e) : "");
    return rc == ZS_OK || rc == ZS_ERR_NOFIT || rc == ZS_ERR_IO ? ZS_ERR_IO : rc;
}

int main(int argc, char **argv)
{
    /* `zerosim ... | head`: a closed pipe ends us quietly instead of raising an error. */
    signal(SIGPIPE, SIG_DFL);
    if (argc < 2) {
        usage(stderr);
        return ZS_ERR_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return check_stdout(NULL, 0);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("zerosim %s\n", ZS_VERSION);
        return check_stdout(NULL, 0);
    }
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0)
            return check_stdout(commands[i].name, commands[i].fn(argc - 1, argv + 1));
        names[i] = commands[i].name;
    }
    char hint[128], msg[256];
    cli_suggest(
        argv[1], strlen(argv[1]), names, (int)(sizeof names / sizeof names[0]), "", hint, sizeof hint);
    snprintf(msg, sizeof msg, "unknown command \"%.64s\"%s%s (see 'zerosim --help')", argv[1],
        hint[0] ? "; " : "", hint);
    fprintf(stderr, "zerosim: ");
    for (const char *p = msg; *p; p++) fputc((unsigned char)*p < 0x20 ? '?' : *p, stderr);
    fputc('\n', stderr);
    return ZS_ERR_USAGE;
}
