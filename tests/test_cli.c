/* test_cli.c -- cli_parse: options bound to variables, ids and arguments to take, --help, errors. */
#include "cmd/cli.h"
#include "test.h"

/* What take saw: the ids and arguments, in order. */
typedef struct seen {
    int ids[8];
    const char *values[8];
    int n;
    int fail_at;        /* take fails on this call (1-based); 0 never */
} seen;

static int take(void *ctx, int id, const char *value, zs_error *err)
{
    seen *s = ctx;
    if (s->n < 8) {
        s->ids[s->n] = id;
        s->values[s->n] = value;
    }
    if (++s->n == s->fail_at) return zs_fail(err, ZS_ERR_INPUT, "take refused %s", value ? value : "(switch)");
    return ZS_OK;
}

/* A command's state and its table, as a command declares them. */
typedef struct state {
    const char *out;
    bool verbose, search;
    int64_t top;
    double tokens;
    int rank;
} state;

enum { T_ITEM = 7, T_FLAG };

static int run(state *st, seen *sn, const char *const *args, zs_error *e)
{
    *st = (state){NULL, false, true, 10, 0, 0};
    *sn = (seen){{0}, {NULL}, 0, sn->fail_at};
    const cli_opt opts[] = {
        {"output", "DIR", "", .alias = "-o", .text = &st->out},
        {"verbose", NULL, "", .on = &st->verbose},
        {"no-search", NULL, "", .off = &st->search},
        {"top", "N", "", .whole = &st->top, .min = 1, .max = 1000},
        {"tokens", "COUNT", "", .count = &st->tokens},
        {"rank", "BY", "", .choice = &st->rank, .choices = "time|cost|throughput"},
        {"item", "X", "", .id = T_ITEM},
        {"flag", NULL, "", .id = T_FLAG},
        {NULL},
    };
    int argc = 0;
    while (args[argc]) argc++;
    *e = (zs_error){0};
    return cli_parse(argc, (char **)args, opts, take, sn, e);
}

/* GNU getopt_long's conventions (glibc manual, "Getopt Long Options"): --name value and
 * --name=value alike, a switch takes no value, "--" and bare words are arguments; units'
 * suffixes as --seq-len's help states them (8k = 8000, 8Ki = 8192). */
static void bindings(void)
{
    state st;
    seen sn = {.fail_at = 0};
    zs_error e;
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--top", "8", "--tokens=2e12", "--verbose", "--no-search",
                                                     "--rank", "cost", "-o", "dir", NULL}, &e), ZS_OK);
    CHECK_EQ_INT(st.top, 8);
    CHECK_NEAR(st.tokens, 2e12, 0);
    CHECK(st.verbose && !st.search);
    CHECK_EQ_INT(st.rank, 1);
    CHECK_STREQ(st.out, "dir");
    CHECK_EQ_INT(sn.n, 0);
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--top=8k", "--output=x", NULL}, &e), ZS_ERR_USAGE);
    CHECK(strstr(e.msg, "--top") != NULL);                       /* 8000 is past 1000 */
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--top", "1Ki", NULL}, &e), ZS_ERR_USAGE);
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--top", "999", "--top", "3", NULL}, &e), ZS_OK);
    CHECK_EQ_INT(st.top, 3);                                     /* the last one given wins */
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--rank", "speed", NULL}, &e), ZS_ERR_USAGE);
    CHECK_STREQ(e.msg, "--rank: expected time, cost or throughput");
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--verbose=yes", NULL}, &e), ZS_ERR_USAGE);
    CHECK_STREQ(e.msg, "--verbose takes no value");
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "-o", NULL}, &e), ZS_ERR_USAGE);
    CHECK_STREQ(e.msg, "-o needs a value (DIR)");
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--output", NULL}, &e), ZS_ERR_USAGE);
    CHECK_STREQ(e.msg, "--output needs a value (DIR)");
    /* no value spans lines, however it is spelled */
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "-o", "a\nb", NULL}, &e), ZS_ERR_USAGE);
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--output", "a\nb", NULL}, &e), ZS_ERR_USAGE);
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--tokes", "1", NULL}, &e), ZS_ERR_USAGE);
    CHECK(strstr(e.msg, "did you mean --tokens?") != NULL);
}

static void take_and_help(void)
{
    state st;
    seen sn = {.fail_at = 0};
    zs_error e;
    /* ids and arguments reach take in order; "--" is an argument like any bare word */
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "a", "--item", "x", "--flag", "--", "--top", "2", NULL}, &e), ZS_OK);
    CHECK_EQ_INT(sn.n, 4);
    CHECK(sn.ids[0] == CLI_POSITIONAL && strcmp(sn.values[0], "a") == 0);
    CHECK(sn.ids[1] == T_ITEM && strcmp(sn.values[1], "x") == 0);
    CHECK(sn.ids[2] == T_FLAG && sn.values[2] == NULL);
    CHECK(sn.ids[3] == CLI_POSITIONAL && strcmp(sn.values[3], "--") == 0);
    CHECK_EQ_INT(st.top, 2);
    /* --help stops the reading: nothing after it is looked at, not even a bad option */
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "b", "-h", "--bogus", "c", NULL}, &e), CLI_HELP);
    CHECK_EQ_INT(sn.n, 1);
    /* the first error wins: a bad option before --help, or take's refusal */
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "--bogus", "--help", NULL}, &e), ZS_ERR_USAGE);
    sn.fail_at = 2;
    CHECK_EQ_INT(run(&st, &sn, (const char *const[]){"cmd", "a", "b", "--top", "0", NULL}, &e), ZS_ERR_INPUT);
    CHECK_STREQ(e.msg, "take refused b");
    CHECK_EQ_INT(st.top, 10);
}

static void choices(void)
{
    zs_error e = {0};
    CHECK_EQ_INT(cli_choice("format", "csv", "table|json|csv", &e), 2);
    CHECK_EQ_INT(cli_choice("format", "table", "table|json", &e), 0);
    CHECK_EQ_INT(cli_choice("format", "tab", "table|json", &e), -1);
    CHECK_STREQ(e.msg, "--format: expected table or json");
    CHECK_EQ_INT(cli_choice("format", "", "png|svg|both", &e), -1);
    CHECK_STREQ(e.msg, "--format: expected png, svg or both");
}

void suite_cli(void)
{
    RUN_TEST(bindings);
    RUN_TEST(take_and_help);
    RUN_TEST(choices);
}
