/* test_api.c -- the library's request API (src/api): answers, errors, and four threads calling
 * zs_call at once, each answer the same as the one-thread answer; `make test-tsan` runs this
 * suite under ThreadSanitizer (ZS_API_ROUNDS sets the rounds, 20 by default). Run from the
 * repository root (the catalogs). */
#include <pthread.h>
#include <stdlib.h>

#include "api/zerosim.h"
#include "test.h"

/* Requests the threads repeat: a mix of commands, an error and a refused file. */
static const char *const requests[] = {
    "{\"command\": \"estimate\", \"model\": \"llama-2-7b\", \"gpus\": 8, \"seq-len\": 4096, "
    "\"checkpointing\": \"full\"}",
    "{\"command\": \"estimate\", \"model\": \"llama-2-70b\", \"hardware\": \"h100-80gb\", \"gpus\": 64, "
    "\"strategy\": \"zero3\", \"explain\": true}",
    "{\"command\": \"sweep\", \"model\": \"llama-2-7b\", \"gpus\": [8, 16], \"seq_len\": \"2048,4096\"}",
    "{\"command\": \"plan\", \"model\": \"llama-2-7b\", \"max-gpus\": 16, \"top\": 3}",
    "{\"command\": \"estimate\", \"model\": \"llama-2-7b\", \"gpu\": 8}",
    "{\"command\": \"estimate\", \"model\": \"no-such-model\"}",
    "{\"command\": \"list\", \"what\": \"models\"}",
    "{\"command\": \"compare\", \"model\": \"llama-2-7b\", \"gpus\": 8, \"max-gpus\": 8}",
    "{\"command\": \"validate\", \"args\": [\"tests/validation/published_runs.csv\"], \"filter\": \"t5\"}",
    "{\"command\": \"report\", \"model\": \"llama-2-7b\", \"gpus\": 8, \"max-gpus\": 8, \"tokens\": 1e9, "
    "\"runs\": \"tests/validation/published_runs.csv\"}",
};
#define NREQ (int)(sizeof requests / sizeof requests[0])
#define NTHREADS 4
#define ROUNDS 20

static int rounds(void)
{
    const char *e = getenv("ZS_API_ROUNDS");
    int n = e ? atoi(e) : ROUNDS;
    return n > 0 ? n : ROUNDS;
}

static char *want[NREQ];
static int want_rc[NREQ];

static char *call(const char *req, int *rc)
{
    char *out = NULL;
    *rc = zs_call(req, &out);
    return out;
}

static void test_answers(void)
{
    int rc;
    char *out = call(requests[0], &rc);
    CHECK_EQ_INT(rc, 0);
    CHECK(out && strncmp(out, "{", 1) == 0 && strstr(out, "\"memory_bytes\""));
    zs_free(out);
    out = call(requests[4], &rc);
    CHECK_EQ_INT(rc, 2);
    CHECK_STREQ(out, "{\"error\":{\"code\":2,\"message\":\"unknown option --gpu; did you mean --gpus? (see --help)\"}}");
    zs_free(out);
    out = call(requests[5], &rc);
    CHECK_EQ_INT(rc, 3);
    CHECK(out && strstr(out, "\"code\":3") && strstr(out, "unknown model \\\"no-such-model\\\""));
    zs_free(out);
    const char *bad[] = {"not json", "[1]", "{\"model\": \"llama-2-7b\"}", "{\"command\": \"plot\"}",
        "{\"command\": \"estimate\", \"format\": \"csv\"}", "{\"command\": \"estimate\", \"help\": true}",
        "{\"command\": \"estimate\", \"gpus\": {\"a\": 1}}", "{\"command\": \"list\", \"what\": \"gpus\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        out = call(bad[i], &rc);
        CHECK_EQ_INT(rc, 2);
        CHECK(out && strncmp(out, "{\"error\":{\"code\":2,\"message\":", 29) == 0);
        zs_free(out);
    }
    out = call(NULL, &rc);
    CHECK_EQ_INT(rc, 2);
    zs_free(out);
    CHECK(strlen(zs_version()) > 0);
    CHECK_EQ_INT(zs_api_version(), ZS_API_VERSION);
}

static void *worker(void *arg)
{
    int *mismatches = arg;
    for (int r = 0, n = rounds(); r < n; r++)
        for (int k = 0; k < NREQ; k++) {
            int rc;
            char *out = call(requests[(k + r) % NREQ], &rc);
            int j = (k + r) % NREQ;
            if (rc != want_rc[j] || !out || strcmp(out, want[j]) != 0) {
                (*mismatches)++;
                if (*mismatches == 1) fprintf(stderr, "request %d: %s\n", j, out ? out : "(null)");
            }
            zs_free(out);
        }
    return NULL;
}

static void test_threads(void)
{
    for (int k = 0; k < NREQ; k++) want[k] = call(requests[k], &want_rc[k]);
    CHECK_EQ_INT(want_rc[2], 0);
    CHECK_EQ_INT(want_rc[3], 0);
    CHECK_EQ_INT(want_rc[7], 0);
    CHECK_EQ_INT(want_rc[8], 0);
    CHECK(want[8] && strstr(want[8], "\"mape\":"));
    CHECK_EQ_INT(want_rc[9], 0);
    CHECK(want[9] && strncmp(want[9], "<!DOCTYPE html>", 15) == 0 && strstr(want[9], "id=\"validation\""));
    pthread_t th[NTHREADS];
    int mismatches[NTHREADS] = {0};
    int started = 0;
    for (int t = 0; t < NTHREADS; t++) started += pthread_create(&th[t], NULL, worker, &mismatches[t]) == 0;
    CHECK_EQ_INT(started, NTHREADS);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < NTHREADS; t++) CHECK_EQ_INT(mismatches[t], 0);
    for (int k = 0; k < NREQ; k++) zs_free(want[k]);
}

void suite_api(void)
{
    RUN_TEST(test_answers);
    RUN_TEST(test_threads);
}
