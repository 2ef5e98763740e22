/* test_safetensors.c -- --weights: safetensors headers read, counted per dtype and logically. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "io/safetensors.h"
#include "io/weights.h"

/* Every file written here, removed at the end of the suite. */
static char dir[64];
static char written[64][256];
static int nwritten;

static const char *path_of(const char *name)
{
    static char p[8][256];
    static int k;
    k = (k + 1) % 8;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static void remember(const char *path)
{
    for (int i = 0; i < nwritten; i++)
        if (strcmp(written[i], path) == 0) return;
    if (nwritten < 64) snprintf(written[nwritten++], sizeof written[0], "%s", path);
}

/* Bytes per element, the test's own table (safetensors' Dtype sizes). */
static int64_t elem_bytes(const char *dtype)
{
    if (!strcmp(dtype, "BF16") || !strcmp(dtype, "F16")) return 2;
    if (!strcmp(dtype, "F32") || !strcmp(dtype, "I32")) return 4;
    if (!strcmp(dtype, "F64") || !strcmp(dtype, "I64")) return 8;
    return 1; /* F8_E4M3, U8, I8, BOOL */
}

/* One tensor to write: name, dtype and shape (ndim entries). */
typedef struct spec {
    const char *name, *dtype;
    int ndim;
    int64_t shape[4];
} spec;

/* The raw bytes of a file: an 8-byte little-endian length, the header, then data_bytes of zeros
 * (a sparse tail). */
static void write_raw(const char *path, uint64_t len_field, const char *hdr, size_t hdr_len, int64_t data_bytes)
{
    remember(path);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    CHECK(fd >= 0);
    if (fd < 0) return;
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(len_field >> (8 * i));
    CHECK(write(fd, b, 8) == 8);
    CHECK(write(fd, hdr, hdr_len) == (ssize_t)hdr_len);
    CHECK(ftruncate(fd, (off_t)(8 + hdr_len) + data_bytes) == 0);
    close(fd);
}

/* A well-formed safetensors file of tensors s[0..n), laid out one after another. */
static void write_st(const char *path, const spec *s, int n)
{
    char hdr[8192];
    size_t k = (size_t)snprintf(hdr, sizeof hdr, "{\"__metadata__\":{\"format\":\"pt\"}");
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        int64_t size = elem_bytes(s[i].dtype);
        k += (size_t)snprintf(hdr + k, sizeof hdr - k, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", s[i].name,
            s[i].dtype);
        for (int d = 0; d < s[i].ndim; d++) {
            size *= s[i].shape[d];
            k += (size_t)snprintf(hdr + k, sizeof hdr - k, "%s%lld", d ? "," : "", (long long)s[i].shape[d]);
        }
        k += (size_t)snprintf(hdr + k, sizeof hdr - k, "],\"data_offsets\":[%lld,%lld]}", (long long)off,
            (long long)(off + size));
        off += size;
    }
    k += (size_t)snprintf(hdr + k, sizeof hdr - k, "}");
    while (k % 8) hdr[k++] = ' '; /* the format's padding */
    write_raw(path, k, hdr, k, off);
}

/* The row of dtype in s, or NULL. */
static const wt_row *row(const wt_summary *s, const char *dtype)
{
    for (int i = 0; i < s->n_dtypes; i++)
        if (strcmp(s->by_dtype[i].dtype, dtype) == 0) return &s->by_dtype[i];
    return NULL;
}

static void check_row(const wt_summary *s, const char *dtype, double tensors, double elements, double bytes)
{
    const wt_row *r = row(s, dtype);
    CHECK(r != NULL);
    if (!r) return;
    CHECK_EQ_INT(r->tensors, tensors);
    CHECK_EQ_INT(r->elements, elements);
    CHECK_EQ_INT(r->bytes, bytes);
}

/* BF16, F32, FP8 with its block scale and an input scale, and two buffers. */
static void fp8_and_buffers(void)
{
    const spec s[] = {
        {"model.embed_tokens.weight", "BF16", 2, {100, 8}},
        {"model.norm.weight", "F32", 1, {8}},
        {"model.layers.0.self_attn.q_proj.weight", "F8_E4M3", 2, {256, 128}},
        {"model.layers.0.self_attn.q_proj.weight_scale_inv", "F32", 2, {2, 1}},
        {"model.layers.0.self_attn.k_proj.input_scale", "F32", 0, {0}},
        {"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", 1, {4}},
        {"model.layers.0.mlp.gate.e_score_correction_bias", "F32", 1, {4}},
    };
    const char *p = path_of("fp8.safetensors");
    write_st(p, s, 7);
    wt_summary w;
    zs_error err = {0};
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_OK);
    CHECK_EQ_INT(w.files, 1);
    CHECK_EQ_INT(w.tensors, 7);
    CHECK_EQ_INT(w.n_dtypes, 3);
    CHECK_STREQ(w.by_dtype[0].dtype, "BF16"); /* the table's order */
    check_row(&w, "BF16", 1, 800, 1600);
    check_row(&w, "F32", 5, 8 + 2 + 1 + 4 + 4, 4 * (8 + 2 + 1 + 4 + 4));
    check_row(&w, "F8_E4M3", 1, 256 * 128, 256 * 128);
    CHECK_EQ_INT(w.parameters, 800 + 8 + 256 * 128);
    CHECK_EQ_INT(w.scale_tensors, 2);
    CHECK_EQ_INT(w.scale_elements, 3);
    CHECK_EQ_INT(w.scale_bytes, 12);
    CHECK_EQ_INT(w.buffer_tensors, 2);
    CHECK_EQ_INT(w.buffer_elements, 8);
    CHECK_EQ_INT(w.stored_bytes, 1600 + 76 + 256 * 128);
    CHECK_EQ_INT(w.index_total_size, -1);
}

/* gpt-oss MXFP4: 2 experts x 16 rows x 4 groups of 32 values in 16 bytes, one scale a group. */
static void mxfp4(void)
{
    const spec s[] = {
        {"model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", 4, {2, 16, 4, 16}},
        {"model.layers.0.mlp.experts.gate_up_proj_scales", "U8", 3, {2, 16, 4}},
        {"model.layers.0.mlp.experts.gate_up_proj_bias", "BF16", 2, {2, 16}},
    };
    const char *p = path_of("mxfp4.safetensors");
    write_st(p, s, 3);
    wt_summary w;
    zs_error err = {0};
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_OK);
    CHECK_EQ_INT(w.parameters, 2 * 16 * 4 * 32 + 2 * 16);
    CHECK_EQ_INT(w.packed_tensors, 1);
    CHECK_EQ_INT(w.scale_elements, 2 * 16 * 4);
    CHECK_EQ_INT(w.scale_bytes, 2 * 16 * 4);
    check_row(&w, "U8", 2, 2 * 16 * 4 * 16 + 2 * 16 * 4, 2 * 16 * 4 * 16 + 2 * 16 * 4);
}

/* bitsandbytes NF4: a 64 x 64 weight packed 2 a byte, its quant state beside it. */
static void nf4(void)
{
    const spec s[] = {
        {"model.layers.0.mlp.down_proj.weight", "U8", 2, {2048, 1}},
        {"model.layers.0.mlp.down_proj.weight.absmax", "U8", 1, {64}},
        {"model.layers.0.mlp.down_proj.weight.quant_map", "F32", 1, {16}},
        {"model.layers.0.mlp.down_proj.weight.nested_absmax", "F32", 1, {1}},
        {"model.layers.0.mlp.down_proj.weight.nested_quant_map", "F32", 1, {256}},
        {"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", "U8", 1, {100}},
        {"model.norm.weight", "BF16", 1, {64}},
        {"lm_head.weight", "U8", 2, {4, 4}}, /* U8 with no quant state: its elements */
    };
    const char *p = path_of("nf4.safetensors");
    write_st(p, s, 8);
    wt_summary w;
    zs_error err = {0};
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_OK);
    CHECK_EQ_INT(w.parameters, 64 * 64 + 64 + 16);
    CHECK_EQ_INT(w.packed_tensors, 1);
    CHECK_EQ_INT(w.scale_tensors, 5);
    CHECK_EQ_INT(w.scale_elements, 64 + 16 + 1 + 256 + 100);
    CHECK_EQ_INT(w.scale_bytes, 64 + 4 * (16 + 1 + 256) + 100);
}

/* GPT-2's attention mask and masked_bias are buffers; c_attn.bias is a parameter. Layers past
 * num_layers and MTP modules are extra; a vision tower's layers are not. */
static void gpt2_buffers_and_extra_layers(void)
{
    const spec s[] = {
        {"h.0.attn.bias", "F32", 4, {1, 1, 4, 4}},
        {"h.0.attn.masked_bias", "F32", 0, {0}},
        {"h.0.attn.c_attn.bias", "F32", 1, {24}},
        {"model.layers.0.mlp.weight", "BF16", 2, {4, 4}},
        {"model.layers.2.eh_proj.weight", "BF16", 2, {4, 8}},
        {"mtp.fc.weight", "BF16", 2, {2, 2}},
        {"model.visual.layers.5.w", "BF16", 1, {2}},
    };
    const char *p = path_of("gpt2.safetensors");
    write_st(p, s, 7);
    wt_summary w;
    zs_error err = {0};
    CHECK_EQ_INT(safetensors_load(p, 2, &w, &err), ZS_OK);
    CHECK_EQ_INT(w.buffer_elements, 16 + 1);
    CHECK_EQ_INT(w.parameters, 24 + 16 + 32 + 4 + 2);
    CHECK_EQ_INT(w.extra_layer_params, 32 + 4);
    /* explained up to buffers + extra layers = 17 + 36 */
    weights_compare(&w, 78 - 53, 0);
    CHECK_EQ_INT(w.difference, 53);
    CHECK(w.explained);
    weights_compare(&w, 78 - 54, 0);
    CHECK(!w.explained);
    weights_compare(&w, 78 + 53, 0);
    CHECK(w.explained);
    /* exactly the config's total + MTP is explained whatever the buffers */
    w.buffer_elements = w.extra_layer_params = 0;
    weights_compare(&w, 70, 8);
    CHECK(w.explained);
    weights_compare(&w, 70, 7);
    CHECK(!w.explained);
}

/* A folder: every *.safetensors, other files ignored; a tensor in two files is refused. */
static void folder(void)
{
    char sub[128];
    snprintf(sub, sizeof sub, "%s/ckpt", dir);
    CHECK(mkdir(sub, 0755) == 0);
    const spec a[] = {{"a.weight", "BF16", 1, {10}}}, b[] = {{"b.weight", "F32", 1, {3}}};
    write_st(path_of("ckpt/b.safetensors"), b, 1);
    write_st(path_of("ckpt/a.safetensors"), a, 1);
    write_raw(path_of("ckpt/notes.txt"), 2, "{}", 2, 0);
    wt_summary w;
    zs_error err = {0};
    CHECK_EQ_INT(safetensors_load(sub, 0, &w, &err), ZS_OK);
    CHECK_EQ_INT(w.files, 2);
    CHECK_EQ_INT(w.parameters, 13);
    CHECK_EQ_INT(w.stored_bytes, 20 + 12);
    write_st(path_of("ckpt/c.safetensors"), a, 1);
    CHECK_EQ_INT(safetensors_load(sub, 0, &w, &err), ZS_ERR_INPUT);
    CHECK(strstr(err.msg, "a.weight") && strstr(err.msg, "c.safetensors"));
    unlink(path_of("ckpt/c.safetensors"));
}

/* model.safetensors.index.json: its shards read once each, its total_size kept. */
static void index_json(void)
{
    const spec s1[] = {{"t1", "BF16", 1, {5}}, {"t3", "BF16", 1, {2}}}, s2[] = {{"t2", "F32", 1, {3}}};
    write_st(path_of("m-1.safetensors"), s1, 2);
    write_st(path_of("m-2.safetensors"), s2, 1);
    const char *idx = "{\"metadata\": {\"total_size\": 26}, \"weight_map\": {\"t1\": \"m-1.safetensors\", "
                      "\"t2\": \"m-2.safetensors\", \"t3\": \"m-1.safetensors\"}}";
    const char *p = path_of("model.safetensors.index.json");
    FILE *f = fopen(p, "w");
    remember(p);
    fputs(idx, f);
    fclose(f);
    wt_summary w;
    zs_error err = {0};
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_OK);
    CHECK_EQ_INT(w.files, 2);
    CHECK_EQ_INT(w.tensors, 3);
    CHECK_EQ_INT(w.parameters, 10);
    CHECK_EQ_INT(w.index_total_size, 26);
    CHECK_EQ_INT(w.stored_bytes, 26);
    /* a weight_map naming the wrong shard, or a shard that is missing */
    p = path_of("bad.index.json");
    f = fopen(p, "w");
    remember(p);
    fputs("{\"weight_map\": {\"t1\": \"m-2.safetensors\", \"t2\": \"m-2.safetensors\"}}", f);
    fclose(f);
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_ERR_INPUT);
    CHECK(strstr(err.msg, "bad.index.json") && strstr(err.msg, "\"t1\""));
    p = path_of("missing.index.json");
    f = fopen(p, "w");
    remember(p);
    fputs("{\"weight_map\": {\"t1\": \"m-9.safetensors\"}}", f);
    fclose(f);
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_ERR_INPUT);
    CHECK(strstr(err.msg, "m-9.safetensors") != NULL);
}

/* A malformed file: exit 3's code, a message naming the file and the phrase. */
static void expect_bad(const char *name, const char *phrase)
{
    wt_summary w;
    zs_error err = {0};
    const char *p = path_of(name);
    CHECK_EQ_INT(safetensors_load(p, 0, &w, &err), ZS_ERR_INPUT);
    if (!strstr(err.msg, p) || !strstr(err.msg, phrase))
        test_report(0, __FILE__, __LINE__, "%s: \"%s\" lacks the path or \"%s\"", name, err.msg, phrase);
}

/* A one-tensor header as written (len its length), with data_bytes of data after it. */
static void bad_header(const char *name, const char *hdr, int64_t data_bytes)
{
    write_raw(path_of(name), strlen(hdr), hdr, strlen(hdr), data_bytes);
}

static void malformed(void)
{
    write_raw(path_of("short.safetensors"), 0, "", 0, 0);
    CHECK(truncate(path_of("short.safetensors"), 5) == 0);
    expect_bad("short.safetensors", "truncated");
    write_raw(path_of("long.safetensors"), 1000, "{}", 2, 10);
    expect_bad("long.safetensors", "truncated");
    write_raw(path_of("huge.safetensors"), 1ull << 40, "{}", 2, 0);
    expect_bad("huge.safetensors", "header length");
    bad_header("json.safetensors", "{\"a\": ", 0);
    expect_bad("json.safetensors", "not valid JSON");
    bad_header("dtype.safetensors", "{\"a\":{\"dtype\":\"Q4\",\"shape\":[4],\"data_offsets\":[0,4]}}", 4);
    expect_bad("dtype.safetensors", "dtype \"Q4\"");
    bad_header("size.safetensors", "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,6]}}", 6);
    expect_bad("size.safetensors", "hold 6 bytes");
    bad_header("neg.safetensors", "{\"a\":{\"dtype\":\"BF16\",\"shape\":[-1,4],\"data_offsets\":[0,8]}}", 8);
    expect_bad("neg.safetensors", "negative");
    bad_header("over.safetensors",
        "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8);
    expect_bad("over.safetensors", "overflows");
    bad_header("past.safetensors", "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,8]}}", 0);
    expect_bad("past.safetensors", "past the 0 bytes");
    bad_header("notobj.safetensors", "[1, 2]", 0);
    expect_bad("notobj.safetensors", "JSON object");
    expect_bad("absent.safetensors", "cannot open");
}

void suite_safetensors(void)
{
    snprintf(dir, sizeof dir, "/tmp/zs-safetensors-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    RUN_TEST(fp8_and_buffers);
    RUN_TEST(mxfp4);
    RUN_TEST(nf4);
    RUN_TEST(gpt2_buffers_and_extra_layers);
    RUN_TEST(folder);
    RUN_TEST(index_json);
    RUN_TEST(malformed);
    for (int i = nwritten - 1; i >= 0; i--) unlink(written[i]);
    rmdir(path_of("ckpt"));
    rmdir(dir);
}
