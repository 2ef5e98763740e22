/* fuzz_harness.c -- libFuzzer target: zerobench harness JSON (one document or an array of them). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/busbw.h"
#include "io/harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    harness_file h;
    zs_error err = {0};
    if (harness_read_text(text, "fuzz", &h, &err) == ZS_OK) {
        FUZZ_CHECK(h.n_sets + h.n_points > 0);
        for (int k = 0; k < h.n_sets; k++) {
            const coll_samples *s = &h.sets[k];
            FUZZ_CHECK(s->n > 0 && busbw_canonical(s->collective) != NULL);
            FUZZ_CHECK(s->ranks >= 0 && s->iters >= 0);
            for (int i = 0; i < s->n; i++) {
                const coll_sample *c = &s->v[i];
                fuzz_check_num(c->bytes);
                fuzz_check_num(c->seconds);
                FUZZ_CHECK(c->seconds > 0);
                fuzz_check_num(c->seconds_ip);
                fuzz_check_num(c->algbw);
                fuzz_check_num(c->busbw);
                FUZZ_CHECK(c->wrong >= -1);
            }
        }
        for (int i = 0; i < h.n_points; i++) {
            const bench_point *b = &h.points[i];
            fuzz_check_num(b->x);
            FUZZ_CHECK(b->x > 0);
            fuzz_check_num(b->seconds);
            FUZZ_CHECK(b->seconds > 0);
            fuzz_check_num(b->value);
            FUZZ_CHECK(b->wrong >= -1);
            FUZZ_CHECK(memchr(b->label, '\0', sizeof b->label) != NULL);
        }
        harness_file_free(&h);
    } else {
        fuzz_check_error(&err);
        FUZZ_CHECK(h.sets == NULL && h.points == NULL); /* documented: left empty */
    }
    free(text);
    return 0;
}
