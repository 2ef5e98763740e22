/* cmd_sweep.c -- `zerosim sweep`: evaluate a grid of configurations, one row each (CSV or JSON lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "grid.h"
#include "report.h"
#include "setup.h"
#include "sim.h"
#include "strategy.h"

#define MAX_DIMS 16

/* Flags that take lists and ranges: every training flag, plus --strategy. */
static bool sweepable(int id)
{
    return (id >= OPT_GPUS && id <= OPT_PERSIST && id != OPT_SP && id != OPT_EAGER && id != OPT_DEEPSPEED) ||
           id == OPT_OVERLAP;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: zerosim sweep (--model M | --params P) [--hardware H] [FLAG LIST|RANGE ...] [--format csv|json]\n\n"
               "Evaluate every combination of the listed values and write one row per configuration and\n"
               "strategy (CSV, or JSON lines with --format json), columns named like estimate's JSON keys.\n"
               "Rows that do not fit, or whose combination is invalid, stay in the output, marked.\n\n"
               "Values: a list 1,2,4; a range a:b (step 1), a:b:+STEP, a:b:xFACTOR (e.g. --gpus 8:4096:x2).\n"
               "Sweepable: --gpus --gpus-per-node --micro-batch --seq-len --grad-accum --tp --pp\n"
               "--virtual-stages --precision --optimizer --grad-dtype --checkpointing --offload-optimizer\n"
               "--offload-params --reduce-bucket --allgather-bucket --prefetch-bucket --max-live-params\n"
               "--persistence-threshold --overlap-comm, and --strategy (a list, or all).\n\nOptions:\n");
    cli_print_options(f, setup_options);
    fprintf(f, "\nExample:\n  zerosim sweep --model llama-2-13b --gpus 8:512:x2 --strategy all --micro-batch 1,2,4 > grid.csv\n");
}

typedef struct dim {
    int id;
    const char *flag;
    int n;
    char (*vals)[32];
} dim;

static void csv_header(void)
{
    printf("model,hardware,strategy,gpus,gpus_per_node,tp,pp,virtual_stages,dp,micro_batch,seq_len,grad_accum,"
           "precision,optimizer,checkpointing,sequence_parallel,offload_optimizer,offload_params,valid,error,fits");
    for (const mem_field *mf = mem_fields; mf->key; mf++) printf(",memory_bytes.%s", mf->key);
    printf(",step_time_seconds.compute,step_time_seconds.communication_exposed,step_time_seconds.optimizer,"
           "step_time_seconds.bubble,step_time_seconds.offload,step_time_seconds.total,tokens_per_second,"
           "tflops_per_gpu,mfu,hfu,communication_bytes_per_gpu.total,communication_bytes_per_gpu.intra_node,"
           "communication_bytes_per_gpu.inter_node,communication_bytes_per_gpu.host_link\n");
}

static void row(const setup *s, const training *t, const strategy *st, const result *r, const char *error, bool json)
{
    bool valid = error == NULL && r->applicable;
    const char *why = error ? error : !r->applicable ? r->why : "";
    long long gpn = scenario_node_size(&s->hw, t);
    double vals[32];
    int nv = 0;
    for (const mem_field *mf = mem_fields; mf->key; mf++)
        vals[nv++] = valid ? *(const double *)((const char *)&r->mem + mf->offset) : 0;
    const double tail[] = {r->step.compute, r->step.comm_exposed, r->step.optimizer, r->step.bubble,
                           r->step.offload, r->step.total, r->tokens_per_second, r->tflops_per_gpu,
                           r->mfu, r->hfu, r->comm.bytes_total, r->comm.bytes_level[LEVEL_INTRA],
                           r->comm.bytes_level[LEVEL_INTER], r->comm.bytes_level[LEVEL_HOST]};
    static const char *const tail_keys[] = {
        "step_time_seconds.compute", "step_time_seconds.communication_exposed", "step_time_seconds.optimizer",
        "step_time_seconds.bubble", "step_time_seconds.offload", "step_time_seconds.total", "tokens_per_second",
        "tflops_per_gpu", "mfu", "hfu", "communication_bytes_per_gpu.total", "communication_bytes_per_gpu.intra_node",
        "communication_bytes_per_gpu.inter_node", "communication_bytes_per_gpu.host_link"};
    if (json) {
        printf("{\"model\":\"%s\",\"hardware\":\"%s\",\"strategy\":\"%s\",\"gpus\":%lld,\"gpus_per_node\":%lld,"
               "\"tp\":%lld,\"pp\":%lld,\"virtual_stages\":%lld,\"dp\":%lld,\"micro_batch\":%lld,\"seq_len\":%lld,"
               "\"grad_accum\":%lld,\"precision\":\"%s\",\"optimizer\":\"%s\",\"checkpointing\":\"%s\","
               "\"sequence_parallel\":%s,\"offload_optimizer\":\"%s\",\"offload_params\":\"%s\",\"valid\":%s,"
               "\"error\":\"%s\",\"fits\":%s,\"memory_bytes\":{",
               s->m.name, s->hw.name, st->name, (long long)t->gpus, gpn, (long long)t->tp, (long long)t->pp,
               (long long)t->virtual_stages, (long long)training_dp(t), (long long)t->micro_batch,
               (long long)t->seq_len, (long long)t->grad_accum, precision_name(t->precision),
               optimizer_name(t->optimizer), ckpt_name(t->checkpointing), t->sequence_parallel ? "true" : "false",
               offload_name(t->offload_optimizer), offload_name(t->offload_params), valid ? "true" : "false",
               why, valid && r->fits ? "true" : "false");
        int k = 0;
        for (const mem_field *mf = mem_fields; mf->key; mf++, k++) printf("%s\"%s\":%.0f", k ? "," : "", mf->key, vals[k]);
        printf("}");
        /* Dotted names, as in the CSV header, keep JSON lines flat and their keys stable. */
        for (size_t j = 0; j < sizeof tail / sizeof tail[0]; j++)
            printf(",\"%s\":%.9g", tail_keys[j], valid ? tail[j] : 0);
        printf("}\n");
        return;
    }
    printf("%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%s,%s,%s,%s,%s,\"%s\",%s", s->m.name,
           s->hw.name, st->name, (long long)t->gpus, gpn, (long long)t->tp, (long long)t->pp,
           (long long)t->virtual_stages, (long long)training_dp(t), (long long)t->micro_batch, (long long)t->seq_len,
           (long long)t->grad_accum, precision_name(t->precision), optimizer_name(t->optimizer),
           ckpt_name(t->checkpointing), t->sequence_parallel ? "true" : "false", offload_name(t->offload_optimizer),
           offload_name(t->offload_params), valid ? "true" : "false", why, valid && r->fits ? "true" : "false");
    for (int k = 0; k < nv; k++) printf(",%.0f", vals[k]);
    for (size_t j = 0; j < sizeof tail / sizeof tail[0]; j++) printf(",%.9g", valid ? tail[j] : 0);
    printf("\n");
}

int cmd_sweep(int argc, char **argv)
{
    setup s;
    setup_init(&s);
    zs_error err = {0};
    dim dims[MAX_DIMS];
    int nd = 0, i = 1, id;
    const char *v;
    const char *strategy_list = "all";
    while ((id = cli_next(argc, argv, &i, setup_options, &v, &err)) != CLI_END) {
        if (id == CLI_HELP) { usage(stdout); return 0; }
        if (id == CLI_ERROR) return cmd_error("sweep", err.code, err.msg);
        if (id == CLI_POSITIONAL) return cmd_error("sweep", ZS_ERR_USAGE, "unexpected argument (see --help)");
        if (id == OPT_STRATEGY) { strategy_list = v; continue; }
        if (!sweepable(id) || !v) {
            if (setup_take(&s, id, v, &err)) return cmd_error("sweep", err.code, err.msg);
            continue;
        }
        if (nd == MAX_DIMS) return cmd_error("sweep", ZS_ERR_USAGE, "too many swept flags");
        const char *flag = "?";
        for (const cli_opt *o = setup_options; o->name; o++)
            if (o->id == id) flag = o->name;
        dims[nd].id = id;
        dims[nd].flag = flag;
        dims[nd].vals = malloc(sizeof(char[32]) * GRID_MAX_VALUES);
        dims[nd].n = dims[nd].vals ? grid_expand(flag, v, dims[nd].vals, GRID_MAX_VALUES, &err) : -1;
        if (dims[nd].n < 0) {
            for (int k = 0; k <= nd; k++) free(dims[k].vals);
            return cmd_error("sweep", err.msg[0] ? ZS_ERR_USAGE : ZS_ERR_NOMEM, err.msg[0] ? err.msg : "out of memory");
        }
        /* the first value stands in while the files load */
        if (setup_take(&s, id, dims[nd].vals[0], &err)) {
            for (int k = 0; k <= nd; k++) free(dims[k].vals);
            return cmd_error("sweep", err.code, err.msg);
        }
        nd++;
    }
    s.strategy_arg = strategy_list;
    int rc = setup_finish(&s, &err);
    if (rc) {
        for (int k = 0; k < nd; k++) free(dims[k].vals);
        return cmd_error("sweep", rc, err.msg);
    }
    /* Check every value parses before writing a row. */
    for (int d = 0; d < nd; d++)
        for (int k = 0; k < dims[d].n; k++) {
            training t = s.t;
            if (setup_apply(&t, dims[d].id, dims[d].vals[k], &err)) {
                for (int j = 0; j < nd; j++) free(dims[j].vals);
                return cmd_error("sweep", err.code, err.msg);
            }
        }
    bool json = s.format == FMT_JSON;
    if (!json) csv_header();
    int idx[MAX_DIMS] = {0};
    unsigned long long total = 1, done = 0;
    for (int d = 0; d < nd; d++) total *= (unsigned long long)dims[d].n;
    bool tty = isatty(2) && total > 10000;
    for (;;) {
        training t = s.t;
        for (int d = 0; d < nd; d++) setup_apply(&t, dims[d].id, dims[d].vals[idx[d]], &err);
        sim_input in;
        zs_error e = {0};
        bool ok = sim_prepare(&in, &s.m, &s.pc, &s.hw, &t, &e) == ZS_OK;
        for (int k = 0; s.chosen[k]; k++) {
            result r;
            memset(&r, 0, sizeof r);
            if (ok) sim_run(&in, s.chosen[k], s.tokens, &r);
            row(&s, &t, s.chosen[k], &r, ok ? NULL : e.msg, json);
        }
        if (tty && ++done % 4096 == 0) fprintf(stderr, "\rsweep: %llu/%llu", done, total);
        int d = nd - 1;
        while (d >= 0 && ++idx[d] == dims[d].n) idx[d--] = 0;
        if (d < 0) break;
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");
    for (int d = 0; d < nd; d++) free(dims[d].vals);
    return ferror(stdout) ? ZS_ERR_IO : 0;
}
