/* fuzz_nccl.c -- libFuzzer target: nccl-tests logs (text and -J JSON), with and without a collective hint. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/busbw.h"
#include "io/nccltests.h"

/* Canonical, squashed, binary-path and unknown spellings; the input's length picks one, so
 * every input is read once without a hint and once with one (deterministically). */
static const char *const HINTS[] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all",
    "send_recv", "gather", "scatter", "hypercube", "AllGather", "sendrecv",
    "./build/all_reduce_perf_mpi", "alltoallv", "",
};

static void check_samples(const coll_samples *s, const char *hint)
{
    FUZZ_CHECK(s->n > 0 && s->v != NULL);
    FUZZ_CHECK(busbw_canonical(s->collective) != NULL &&
               strcmp(busbw_canonical(s->collective), s->collective) == 0);
    if (hint && *hint) FUZZ_CHECK(strcmp(busbw_canonical(hint), s->collective) == 0);
    FUZZ_CHECK(s->ranks >= 0 && s->iters >= 0 && s->truncated_line >= 0);
    FUZZ_CHECK(!isnan(s->avg_busbw)); /* -1 when absent; read by nothing yet */
    for (int i = 0; i < s->n; i++) {
        const coll_sample *c = &s->v[i];
        fuzz_check_num(c->bytes);
        fuzz_check_num(c->seconds);
        FUZZ_CHECK(c->seconds > 0);
        fuzz_check_num(c->seconds_ip);
        fuzz_check_num(c->algbw);
        fuzz_check_num(c->busbw);
        FUZZ_CHECK(c->wrong >= -1);
        FUZZ_CHECK(strcmp(c->collective, s->collective) == 0);
        FUZZ_CHECK(memchr(c->type, '\0', sizeof c->type) && memchr(c->redop, '\0', sizeof c->redop));
        FUZZ_CHECK(c->line >= 1);
    }
}

static void parse(const char *text, const char *hint)
{
    coll_samples s;
    zs_error err = {0};
    if (nccltests_parse_text(text, "fuzz", hint, &s, &err) == ZS_OK) {
        check_samples(&s, hint);
        coll_samples_free(&s);
    } else {
        fuzz_check_error(&err);
        FUZZ_CHECK(s.v == NULL && s.n == 0); /* documented: nothing to free on failure */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    parse(text, NULL);
    parse(text, HINTS[size % (sizeof HINTS / sizeof HINTS[0])]);
    free(text);
    return 0;
}
