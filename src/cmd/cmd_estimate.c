/* cmd_estimate.c -- `zerosim estimate`: memory per GPU for each strategy on one configuration. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "report/report.h"
#include "analysis/plan.h"
#include "cmd/setup.h"
#include "core/sim.h"
#include "analysis/uncertainty.h"

static void usage(FILE *f, const cli_opt *estimate_only)
{
    fprintf(f,
        "usage: zerosim estimate ([--model] NAME|FILE | --params COUNT) [options]\n\n"
        "Memory per GPU, component by component, for DDP and ZeRO stages 1-3, and whether\n"
        "it fits on the hardware. Exit status: 0 computed, 1 nothing fits, 2 usage, 3 bad input.\n\n"
        "Options:\n");
    cli_print_options(f, setup_options);
    cli_print_options(f, estimate_only);
    fprintf(f,
        "\nExamples:\n"
        "  zerosim estimate --model llama-2-70b --hardware a100-80gb --gpus 64 --checkpointing full\n"
        "  zerosim estimate --params 7.5e9 --gpus 64 --strategy zero3 --format json\n"
        "  zerosim estimate --model llama-3-8b --deepspeed ds_config.json --gpus 8\n");
}

int cmd_estimate(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    zs_error err = {0};
    const char *compat = NULL;
    bool distopt = false;
    const cli_opt estimate_only[] = {
        {"compat", "TOOL", "deepspeed|megatron: reproduce that tool's own estimate", .text = &compat},
        {"distributed-optimizer", NULL, "with --compat megatron: use_distributed_optimizer", .on = &distopt},
        {NULL},
    };
    int rc = cmd_parse(&(cmd_spec){"estimate", estimate_only, usage, &s, .shared = true}, argc, argv);
    if (rc != CMD_GO) return rc;
    if (setup_finish(&s, &err)) return cmd_error("estimate", err.code, err.msg);
    cmd_weights_warn("estimate", &s);
    if (s.all_frameworks)
        return cmd_error("estimate", ZS_ERR_USAGE,
            "--framework all: name one framework (plan --framework all ranks across them)");
    if (compat) return cmd_compat(&s, compat, distopt);

    scenario sc = setup_scenario(&s);
    result r[STRATEGY_MAX];
    int n = 0, fits = 0;
    if (sim_run_scenario(&sc, r, &n, &err)) return cmd_error("estimate", err.code, err.msg);
    /* Hybrid sharding and ZeRO++ are judged by what they save: the same run without them. */
    if (s.t.shard_group > 0 || s.t.hpz_group > 1 || s.t.quant_weights || s.t.quant_grads) {
        training plain = s.t;
        plain.shard_group = plain.hpz_group = 0;
        plain.quant_weights = plain.quant_grads = false;
        scenario ps = sc;
        ps.t = &plain;
        result pr[STRATEGY_MAX];
        int pn = 0;
        zs_error ignore = {.quiet = true};
        if (sim_run_scenario(&ps, pr, &pn, &ignore) == ZS_OK)
            for (int k = 0; k < n && k < pn; k++)
                if (r[k].applicable && pr[k].applicable)
                    r[k].comm.plain_inter_bytes = pr[k].comm.bytes_level[LEVEL_INTER];
    }
    int applicable = 0;
    for (int k = 0; k < n; k++) {
        uncertainty_add(&sc, &r[k]);
        fits += r[k].fits;
        applicable += r[k].applicable;
    }
    /* Nothing chosen can run this configuration: a usage error naming the rule. */
    if (applicable == 0 && n > 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "--strategy %s: %s", r[0].strategy->name, r[0].why);
        return cmd_error("estimate", ZS_ERR_USAGE, msg);
    }
    report_options ro = setup_report_options(&s);
    ro.notes = cmd_errs();
    if (report_estimate(cmd_out(), &sc, &ro, r, n))
        return cmd_error("estimate", ZS_ERR_IO, "cannot write output");
    if (!fits) {
        /* Say what would fit, as the planner finds it; on stderr when stdout is data. */
        char hint[256];
        plan_suggest(&sc, hint, sizeof hint);
        FILE *o = s.format == FMT_TABLE ? cmd_out() : cmd_errs();
        if (hint[0])
            fprintf(o, "Nothing fits as given; %s.\n", hint);
        else
            fprintf(o,
                "Nothing fits as given, nor with one change the planner tries (full recompute, CPU offload, "
                "a smaller\n"
                "micro-batch, TP, PP, up to 2^20 GPUs); 'zerosim plan' searches them together.\n");
    }
    return fits ? 0 : ZS_ERR_NOFIT;
}
