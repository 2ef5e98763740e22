/* test_launch.c -- the launch-script reader (launch_shell.c) and the launcher readers' rules on
 * small texts: variables, arrays, defaults, arithmetic and if blocks as bash expands them. */
#include <stdlib.h>
#include <string.h>

#include "io/launch_shell.h"
#include "io/launchcfg.h"
#include "test.h"

/* The words of text joined by single spaces into buf. */
static int words_of(const char *text, char *buf, size_t len, int *args_at)
{
    shell_words w;
    zs_error err = {0};
    buf[0] = '\0';
    if (shell_words_read(text, strlen(text), "t.sh", &w, &err)) return err.code;
    for (int i = 0; i < w.n; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s", i ? " " : "", w.word[i]);
    }
    *args_at = w.args_at;
    shell_words_free(&w);
    return 0;
}

/* Expected words written out as bash itself expands them (bash 5: echo of the same lines). */
static void test_expand(void)
{
    char buf[1024];
    int at = -1;
    const char *script = "#!/bin/bash\n"
                         "GPUS=8 # per node\n"
                         "NODES=${SLURM_NNODES:-2}\n"
                         "WORLD=$(($GPUS*$NODES))\n"
                         "A=(\n  --num-layers 4 # the depth\n  --hidden-size \"64\"\n)\n"
                         "A+=(\"--seq-length 128\")\n"
                         "if [[ \"$NODES\" == 1 ]]; then\n  A+=(--fp16)\nelif [ -z \"$UNSET\" ]; then\n"
                         "  A+=(--bf16)\nelse\n  A+=(--fp32)\nfi\n"
                         "torchrun --nproc_per_node $GPUS --nnodes=$NODES \\\n  pretrain_gpt.py ${A[@]} \\\n"
                         "  --world '$WORLD' --w2 $WORLD\n";
    CHECK_EQ_INT(words_of(script, buf, sizeof buf, &at), 0);
    CHECK_STREQ(buf, "torchrun --nproc_per_node 8 --nnodes=2 pretrain_gpt.py --num-layers 4 --hidden-size 64 "
                     "--seq-length 128 --bf16 --world $WORLD --w2 16");
    CHECK_EQ_INT(at, 5);
    /* A plain argument list: every line that starts with --. */
    CHECK_EQ_INT(words_of("--num-layers 2 \\\n--hidden-size 8\n# c\n--bf16\n", buf, sizeof buf, &at), 0);
    CHECK_STREQ(buf, "--num-layers 2 --hidden-size 8 --bf16");
    CHECK_EQ_INT(at, 0);
    /* ${X:+w}, ${X=d}, $(command) -> nothing, a division by zero: no value. */
    CHECK_EQ_INT(words_of("X=1\nY=${X:+on}\nz.py $Y ${Z=d} $Z $(date) $((1/0)) end\n", buf, sizeof buf, &at), 0);
    CHECK_STREQ(buf, "z.py on d d end");
    /* Products past 1e12 have no value, whatever the signs: -1e12 x 1e12 overflowed long long
     * (the bound tested only a positive left operand); 1e6 x -1e6 is within it. */
    CHECK_EQ_INT(words_of("z.py $((-1000000000000 * 1000000000000)) $((1000000 * -1000000)) end\n", buf,
                     sizeof buf, &at),
        0);
    CHECK_STREQ(buf, "z.py -1000000000000 end");
}

static void test_refused(void)
{
    char buf[256];
    int at;
    CHECK_EQ_INT(words_of("A=\"unterminated\n--num-layers 2\n", buf, sizeof buf, &at), ZS_ERR_INPUT);
    launch_config *lc = malloc(sizeof *lc);
    zs_error err = {0};
    const char *gb = "--num-layers 2 --hidden-size 8 --num-attention-heads 2 --seq-length 8 --fp16 --bf16\n";
    CHECK_EQ_INT(launchcfg_from_text(gb, strlen(gb), "a.txt", lc, &err), ZS_ERR_INPUT);
    CHECK(strstr(err.msg, "--fp16 and --bf16 both given") != NULL);
    const char *ok = "--num-layers 2 --hidden-size 8 --num-attention-heads 2 --seq-length 8 --global-batch-size 6\n";
    err = (zs_error){0};
    CHECK_EQ_INT(launchcfg_from_text(ok, strlen(ok), "a.txt", lc, &err), ZS_OK);
    CHECK_EQ_INT(lc->format, LAUNCH_MEGATRON);
    CHECK_EQ_INT(lc->global_batch, 6);
    CHECK(strstr(lc->model_json, "\"num_hidden_layers\":2") != NULL);
    CHECK(strstr(lc->model_json, "\"intermediate_size\":32") != NULL); /* 4h, validate_args */
    const char *toml = "[job]\ndump_folder = \"x\"\n";
    err = (zs_error){0};
    CHECK_EQ_INT(launchcfg_from_text(toml, strlen(toml), "a.toml", lc, &err), ZS_ERR_INPUT);
    CHECK(strstr(err.msg, "a TOML file") != NULL);
    free(lc);
}

void suite_launch(void)
{
    RUN_TEST(test_expand);
    RUN_TEST(test_refused);
}
