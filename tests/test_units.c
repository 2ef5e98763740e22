/* test_units.c -- number, size and integer parsing; formatting. */
#include "test.h"
#include "core/units.h"

static void parse_counts(void)
{
    double v;
    zs_error e = {0};
    CHECK(units_parse_count("7e9", "x", &v, &e) == 0 && v == 7e9);
    CHECK(units_parse_count("6738415616", "x", &v, &e) == 0 && v == 6738415616.0);
    CHECK(units_parse_count("7B", "x", &v, &e) == 0 && v == 7e9);
    CHECK(units_parse_count("1.5T", "x", &v, &e) == 0 && v == 1.5e12);
    CHECK(units_parse_count("25M", "x", &v, &e) == 0 && v == 25e6);
    CHECK(units_parse_count("500k", "x", &v, &e) == 0 && v == 5e5);
    /* Binary with an i (IEC 80000-13): Llama's "4M tokens" batch is 2048 x 2048 = 4Mi
     * (Touvron et al. 2023, arXiv 2302.13971, section 2.2). */
    CHECK(units_parse_count("4Mi", "x", &v, &e) == 0 && v == 2048.0 * 2048.0);
    CHECK(units_parse_count("1Ti", "x", &v, &e) == 0 && v == 1099511627776.0);
    CHECK(units_parse_count("-1", "--params", &v, &e) == ZS_ERR_USAGE);
    CHECK(strstr(e.msg, "--params") != NULL);
    CHECK(units_parse_count("abc", "x", &v, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_count("7Q", "x", &v, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_count("1e300", "x", &v, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_count("nan", "x", &v, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_count("inf", "x", &v, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_count("", "x", &v, &e) == ZS_ERR_USAGE);
}

static void parse_bytes(void)
{
    double v;
    zs_error e = {0};
    CHECK(units_parse_bytes("80GiB", "x", &v, &e) == 0 && v == 80.0 * 1073741824.0);
    CHECK(units_parse_bytes("80GB", "x", &v, &e) == 0 && v == 80e9);
    CHECK(units_parse_bytes("512MiB", "x", &v, &e) == 0 && v == 512.0 * 1048576.0);
    CHECK(units_parse_bytes("5e8B", "x", &v, &e) == 0 && v == 5e8);
    /* One rule for sizes (IEC 80000-13 prefixes): the unit is written. A bare number (once
     * 80 bytes of HBM) and a bare G (2^30 to nccl-tests, 10^9 to a drive vendor) are refused
     * with the two readings offered. */
    CHECK(units_parse_bytes("80", "--hbm", &v, &e) == ZS_ERR_USAGE && strstr(e.msg, "did you mean 80GiB?"));
    CHECK(units_parse_bytes("80G", "--hbm", &v, &e) == ZS_ERR_USAGE && strstr(e.msg, "80GiB") && strstr(e.msg, "80GB"));
    CHECK(units_parse_bytes("5e8", "x", &v, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_bytes("12Q", "--hbm", &v, &e) == ZS_ERR_USAGE && strstr(e.msg, "--hbm"));
}

static void parse_ints(void)
{
    int64_t n;
    zs_error e = {0};
    CHECK(units_parse_int("64", "--gpus", 1, 100, &n, &e) == 0 && n == 64);
    CHECK(units_parse_int("1e3", "--gpus", 1, 10000, &n, &e) == 0 && n == 1000);
    CHECK(units_parse_int("0", "--gpus", 1, 100, &n, &e) == ZS_ERR_USAGE && strstr(e.msg, "--gpus"));
    CHECK(units_parse_int("2.5", "--gpus", 1, 100, &n, &e) == ZS_ERR_USAGE);
    CHECK(units_parse_int("8x", "--gpus", 1, 100, &n, &e) == ZS_ERR_USAGE);
    /* Counts: decimal without i, binary with it (--tokens 1T, --gpus 8k). */
    CHECK(units_parse_int("8k", "--gpus", 1, 100000000, &n, &e) == 0 && n == 8000);
    CHECK(units_parse_int("8Ki", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 8192);
    CHECK(units_parse_int("1.5Ki", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 1536);
    CHECK(units_parse_int("1.0001k", "--seq-len", 1, 100000000, &n, &e) == ZS_ERR_USAGE);
    /* Sequence lengths: "4k context" is 4,096 tokens and "1M" 1,048,576 (Llama 3.1's 128k
     * context is max_position_embeddings 131072 in its config.json), Ki and Mi alike. */
    CHECK(units_parse_seq("4k", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 4096);
    CHECK(units_parse_seq("128K", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 131072);
    CHECK(units_parse_seq("1M", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 1048576);
    CHECK(units_parse_seq("8Ki", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 8192);
    CHECK(units_parse_seq("4000", "--seq-len", 1, 100000000, &n, &e) == 0 && n == 4000);
    CHECK(units_parse_seq("4G", "--seq-len", 1, 100000000, &n, &e) == ZS_ERR_USAGE && strstr(e.msg, "1M"));
    CHECK(units_parse_seq("0.3k", "--seq-len", 1, 100000000, &n, &e) == ZS_ERR_USAGE); /* 307.2 tokens */
}

static void format(void)
{
    char b[32];
    CHECK_STREQ(units_fmt_count(6738415616.0, b, sizeof b), "6,738,415,616");
    CHECK_STREQ(units_fmt_count(999, b, sizeof b), "999");
    CHECK_STREQ(units_fmt_bytes(80.0 * 1073741824.0, b, sizeof b), "80.00 GiB");
    CHECK_STREQ(units_fmt_short(6.74e9, b, sizeof b), "6.74B");
}

void suite_units(void)
{
    RUN_TEST(parse_counts);
    RUN_TEST(parse_bytes);
    RUN_TEST(parse_ints);
    RUN_TEST(format);
}
