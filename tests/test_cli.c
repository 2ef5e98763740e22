/* test_cli.c -- cli_parse: options bound to variables, ids and arguments to take, --help, errors;
 * the shared flags' help and messages against the tables they come from. */
#include <cjson/cJSON.h>

#include "cmd/cli.h"
#include "cmd/setup.h"
#include "core/framework.h"
#include "io/dsconfig.h"
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
    return cli_parse(argc, test_argv(args), opts, take, sn, e);
}

/* GNU getopt_long's conventions (glibc manual, "Getopt Long Options"): --name value and
 * --name=value alike, a switch takes no value, "--" and bare words are arguments; units'
 * suffixes as the flags' help states them (--tokens 2e12; --seq-len 8k = 8Ki = 8192). */
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


/* The shared option named name; NULL when there is none. */
static const cli_opt *shared(const char *name)
{
    for (const cli_opt *o = setup_options; o->name; o++)
        if (strcmp(o->name, name) == 0) return o;
    return NULL;
}

/* Whether every name of a "|"-list is a word of text (between | , : space, quote, brackets or
 * the ends). */
static bool lists_all(const char *text, const char *list)
{
    const char *edge = "|, \"():";
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "|");
        bool found = false;
        for (const char *q = text; (q = strstr(q, "")) && *q && !found; q++)
            found = strncmp(q, p, len) == 0 && (q == text || strchr(edge, q[-1])) &&
                    (q[len] == '\0' || strchr(edge, q[len]));
        if (!found) return false;
        p += len + (p[len] == '|');
    }
    return true;
}

/* Each training flag once in the shared table, with its choice names first in its help and in
 * its error message: a list typed into either would drift from the table and fail here. */
static void flag_tables(void)
{
    int rows = 0, opts = 0;
    for (const cli_opt *o = setup_options; o->name; o++) {
        opts++;
        for (const cli_opt *p = o + 1; p->name; p++) CHECK(strcmp(o->name, p->name) != 0);
    }
    for (int id = TRAINING_FLAG_FIRST; id < TRAINING_FLAG_END; id++) {
        const flag_desc *d = training_flag(id);
        CHECK(d != NULL);
        if (!d) continue;
        rows++;
        const cli_opt *o = shared(d->name);
        CHECK(o && o->id == id);
        if (!o || d->kind != FLAG_CHOICE) continue;
        char names[256], msg[320];
        flag_choice_names(d->choices, d->listed, names, sizeof names);
        if (d->names_first) CHECK(strncmp(o->help, names, strlen(names)) == 0);
        if (!d->arg) CHECK_STREQ(o->arg, names);
        training t;
        training_init(&t);
        zs_error e = {0};
        CHECK_EQ_INT(setup_apply(&t, id, "zz", &e), ZS_ERR_USAGE);
        snprintf(msg, sizeof msg, "--%s: \"zz\" is not one of %s", d->name, names);
        CHECK_STREQ(e.msg, msg);
        /* every name is accepted, and the listed ones are shown */
        for (int k = 0; d->choices[k].name; k++) {
            bool listed = d->listed == 0 || k < d->listed;
            CHECK_EQ_INT(setup_apply(&t, id, d->choices[k].name, &e), ZS_OK);
            if (listed) CHECK(lists_all(msg, d->choices[k].name));
            if (listed && d->names_first) CHECK(lists_all(o->help, d->choices[k].name));
        }
    }
    CHECK_EQ_INT(opts, rows + 19); /* and setup's own nineteen (--weights, --strict, --config, the cluster
                                   * variants --network-bandwidth, --nics-per-node, --power-cap) */
    /* the bug this table fixed: fp8 was left out of --precision's message */
    training t;
    training_init(&t);
    zs_error e = {0};
    CHECK_EQ_INT(setup_apply(&t, OPT_PRECISION, "fp9", &e), ZS_ERR_USAGE);
    CHECK_STREQ(e.msg, "--precision: \"fp9\" is not one of fp32|fp16|bf16|bf16-pure|fp8");
    /* one range for a flag and for the check of a finished configuration */
    CHECK_EQ_INT(setup_apply(&t, OPT_GPN, "0", &e), ZS_ERR_USAGE);
    CHECK_EQ_INT(training_validate(&t, &e), ZS_OK);        /* 0: the profile's */
    t.gpus_per_node = 5000;
    CHECK_EQ_INT(training_validate(&t, &e), ZS_ERR_USAGE);
    CHECK_STREQ(e.msg, "--gpus-per-node: 5000 is out of range (expected 1 to 4096)");
}

/* The strategy, framework and format lists in help and messages are the descriptor tables'. */
static void descriptor_lists(void)
{
    const cli_opt *st = shared("strategy"), *fw = shared("framework"), *fmt = shared("format");
    CHECK(st && fw && fmt);
    if (!st || !fw || !fmt) return;
    for (int i = 0; strategies[i]; i++) CHECK(lists_all(st->help, strategies[i]->name));
    for (int i = 0; frameworks[i]; i++) CHECK(lists_all(fw->help, frameworks[i]->name));
    CHECK(strncmp(st->help, strategy_names(), strlen(strategy_names())) == 0);
    CHECK(strncmp(fw->help, framework_names(), strlen(framework_names())) == 0);
    for (int i = 0; strategies[i]; i++) CHECK(strategies[strategy_index(strategies[i])] == strategies[i]);
    setup s;
    setup_init(&s);
    zs_error e = {0};
    CHECK_EQ_INT(setup_take(&s, OPT_FORMAT, "xml", &e), ZS_ERR_USAGE);
    CHECK(strstr(e.msg, "table|json|csv") && strncmp(fmt->help, "table|json|csv", 14) == 0);
    CHECK_EQ_INT(setup_take(&s, OPT_FRAMEWORK, "jax", &e), ZS_ERR_USAGE);
    CHECK(lists_all(e.msg, framework_names()));
    /* "use ...": exactly the frameworks but generic that offer the degree */
    training t;
    training_init(&t);
    t.gpus = t.tp = 2;
    model m = {.params_only = true};
    CHECK_EQ_INT(framework_check(framework_find("fsdp"), &m, &t, &e), ZS_ERR_USAGE);
    const char *use = strstr(e.msg, "; use ");
    CHECK(use != NULL);
    for (int i = 0; use && frameworks[i]; i++)
        CHECK(lists_all(use, frameworks[i]->name) == (frameworks[i] != &fw_generic && frameworks[i]->tensor_parallel));
    /* a ds_config's offload device, with the offload names */
    cJSON *root = cJSON_Parse("{\"zero_optimization\": {\"offload_param\": {\"device\": \"gpu\"}}}");
    ds_config ds;
    CHECK_EQ_INT(dsconfig_from_json(root, "c.json", &t, &ds, &e), ZS_ERR_INPUT);
    CHECK(strstr(e.msg, "is not one of none|cpu|nvme") != NULL);
    cJSON_Delete(root);
    /* sweep's list: the rows marked sweepable, each once */
    char sw[1024];
    setup_sweepable(sw, sizeof sw, 11, 90);
    for (int k = 0; k < TRAINING_FLAG_COUNT; k++) {
        char word[64];
        snprintf(word, sizeof word, "--%s", training_flags[k].name);
        size_t n = strlen(word);
        bool in = false;
        for (const char *q = sw; (q = strstr(q, word)); q += n) in |= q[n] == '\0' || q[n] == ' ' || q[n] == '\n';
        CHECK(in == training_flags[k].sweep);
    }
    for (const char *line = sw; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        CHECK(strcspn(line, "\n") + (line == sw ? 11 : 0) <= 90);
}

/* training_validate's list of ranged rows is exactly the rows with a range: a flag added
 * with a range but left out of the list would go unchecked. */
static void ranged_rows(void)
{
    bool listed[TRAINING_FLAG_COUNT] = {false};
    for (int k = 0; k < training_ranged_count; k++) {
        CHECK(training_ranged_rows[k] < TRAINING_FLAG_COUNT);
        if (training_ranged_rows[k] < TRAINING_FLAG_COUNT) listed[training_ranged_rows[k]] = true;
    }
    for (int i = 0; i < TRAINING_FLAG_COUNT; i++) {
        const flag_desc *d = &training_flags[i];
        bool ranged = d->name && (d->kind == FLAG_WHOLE || d->kind == FLAG_ELEMS);
        if (ranged != listed[i]) CHECK_STREQ(d->name ? d->name : "(no row)", "a row listed iff it has a range");
    }
    /* and each listed row's range is checked: one past its maximum fails */
    for (int k = 0; k < training_ranged_count; k++) {
        const flag_desc *d = &training_flags[training_ranged_rows[k]];
        training t;
        training_init(&t);
        zs_error e = {0};
        if (d->kind == FLAG_WHOLE) {
            int64_t v = (int64_t)d->max + 1;
            memcpy((char *)&t + d->offset, &v, sizeof v);
        } else {
            double v = d->max * 2;
            memcpy((char *)&t + d->offset, &v, sizeof v);
        }
        CHECK_EQ_INT(training_validate(&t, &e), ZS_ERR_USAGE);
        CHECK(strstr(e.msg, d->name) != NULL);
    }
}

void suite_cli(void)
{
    RUN_TEST(bindings);
    RUN_TEST(take_and_help);
    RUN_TEST(choices);
    RUN_TEST(flag_tables);
    RUN_TEST(descriptor_lists);
    RUN_TEST(ranged_rows);
}
