/* test_jsonprint.c -- json_print against cJSON_Print itself: numbers, strings, layout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonprint.h"
#include "test.h"

static uint64_t state = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) { return test_xorshift(&state); }

/* One number as cJSON prints it (an array of one, unformatted) against json_print's. */
static bool same_number(double d)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(d));
    char *want = cJSON_PrintUnformatted(a), *got = json_print(a, false);
    bool ok = want && got && strcmp(want, got) == 0;
    if (!ok) fprintf(stderr, "  %.17g: cJSON %s, json_print %s\n", d, want ? want : "NULL", got ? got : "NULL");
    cJSON_free(want);
    free(got);
    cJSON_Delete(a);
    return ok;
}

/* Every kind of double a report holds: raw bit patterns, products of the simulator's units
 * (bytes, seconds, FLOP/s), short decimals, whole numbers past INT_MAX, ties near 15 digits. */
static void numbers_match_cjson(void)
{
    int bad = 0, n = 0;
    static const double fixed[] = {0, -0.0, 1, -1, 0.1, 0.5, 1e15, 1e16, 1e17, 123456789012345678.0, 1e-5,
        1e-4, 0.0001234, 9.999999999999999e14, 999999999999999.5, 2147483647.0, 2147483648.0, -2147483649.0,
        6738415616.0, 85899345920.0, 1e21, 1e22, 1e300, 1e-300, 4.9e-324, 1.7976931348623157e308, NAN, INFINITY,
        -INFINITY, 0.30000000000000004, 2.5e-7, 1.0 / 3, 2.0 / 3, 100, 1e100, 1.5e-10};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++, n++) bad += !same_number(fixed[i]);
    for (int i = 0; i < 200000; i++, n++) {
        uint64_t r = next();
        double d;
        switch (i % 5) {
        case 0: memcpy(&d, &r, sizeof d); break; /* any bit pattern */
        case 1: d = (double)(r >> 11) * 0x1p-53 * pow(10, (double)(int)(r % 40) - 20); break;
        case 2: d = (double)(r % 100000) / pow(10, (double)(r >> 60)); break; /* short decimals */
        case 3: d = (double)(r >> 20) * ((r & 1) ? 1 : -1); break; /* whole, past INT_MAX */
        default: d = (double)(r % 1000000000000000ull) + 0.5 + ((double)((r >> 50) % 3) - 1) * 1e-3; break;
        }
        bad += !same_number(d);
        if (bad > 10) break;
    }
    CHECK(n > 200000 && bad == 0);
}

static void layout_matches_cjson(void)
{
    cJSON *o = cJSON_CreateObject(), *inner = cJSON_AddObjectToObject(o, "inner");
    cJSON_AddObjectToObject(o, "empty");
    cJSON_AddArrayToObject(o, "none");
    cJSON_AddStringToObject(o, "esc", "quote \" back \\ slash / tab \t nl \n cr \r bs \b ff \f ctl \x01\x1f é");
    cJSON_AddNullToObject(inner, "n");
    cJSON_AddTrueToObject(inner, "t");
    cJSON_AddFalseToObject(inner, "f");
    cJSON_AddRawToObject(inner, "raw", "[1,2]");
    cJSON *arr = cJSON_AddArrayToObject(inner, "rows");
    for (int k = 0; k < 3; k++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "k", k * 1.25);
        cJSON_AddItemToArray(row, cJSON_CreateArray());
        cJSON_AddItemToArray(arr, row);
        cJSON_AddItemToArray(arr, cJSON_CreateString("s"));
    }
    for (int fmt = 0; fmt < 2; fmt++) {
        char *want = fmt ? cJSON_Print(o) : cJSON_PrintUnformatted(o), *got = json_print(o, fmt);
        CHECK(want && got && strcmp(want, got) == 0);
        cJSON_free(want);
        free(got);
    }
    /* A raw item without text: cJSON gives up, so does json_print. */
    cJSON *bad = cJSON_CreateRaw("x");
    cJSON_free(bad->valuestring);
    bad->valuestring = NULL;
    CHECK(cJSON_Print(bad) == NULL && json_print(bad, true) == NULL);
    cJSON_Delete(bad);
    cJSON_Delete(o);
}

void suite_jsonprint(void)
{
    RUN_TEST(numbers_match_cjson);
    RUN_TEST(layout_matches_cjson);
}
