/* weights.c -- counting a checkpoint's tensors: quantized storage as the parameters it holds. */
#include "io/weights.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The safetensors dtypes (safetensors' Dtype enum) and their bits per stored element. */
static const struct {
    const char *name;
    int bits;
} dtypes[WT_DTYPES] = {
    {"BF16", 16},
    {"F16", 16},
    {"F32", 32},
    {"F64", 64},
    {"F8_E4M3", 8},
    {"F8_E5M2", 8},
    {"F8_E8M0", 8},
    {"F6_E2M3", 6},
    {"F6_E3M2", 6},
    {"F4", 4},
    {"U8", 8},
    {"I8", 8},
    {"I16", 16},
    {"U16", 16},
    {"I32", 32},
    {"U32", 32},
    {"I64", 64},
    {"U64", 64},
    {"BOOL", 8},
    {"C64", 64},
};

int weights_dtype_find(const char *name)
{
    for (int i = 0; i < WT_DTYPES; i++)
        if (strcmp(dtypes[i].name, name) == 0) return i;
    return -1;
}

const char *weights_dtype_name(int i)
{
    return i >= 0 && i < WT_DTYPES ? dtypes[i].name : "?";
}

int weights_dtype_bits(int i)
{
    return i >= 0 && i < WT_DTYPES ? dtypes[i].bits : 0;
}

/* What a tensor is to the count. */
typedef enum { K_PARAM, K_PACKED4, K_SCALE, K_BUFFER } kind;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The name's last dot-separated part. */
static const char *last_part(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

static bool sorted_has(const wt_tensor *t, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t[mid].name, name);
        if (c == 0) return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Whether a bitsandbytes 4-bit quant state sits beside weight `name` (t sorted by name). */
static bool has_bnb_state(const wt_tensor *t, size_t n, const char *name)
{
    static const char *const sfx[] = {
        ".quant_state.bitsandbytes__nf4", ".quant_state.bitsandbytes__fp4", ".absmax"};
    char buf[1024];
    for (size_t k = 0; k < sizeof sfx / sizeof sfx[0]; k++) {
        size_t len = strlen(name) + strlen(sfx[k]);
        if (len >= sizeof buf) return false;
        memcpy(buf, name, strlen(name));
        memcpy(buf + strlen(name), sfx[k], strlen(sfx[k]) + 1);
        if (sorted_has(t, n, buf)) return true;
    }
    return false;
}

/* Buffers some checkpoints store though the HF class does not count them as parameters. */
static bool is_buffer(const wt_tensor *x)
{
    const char *last = last_part(x->name);
    if (strcmp(last, "inv_freq") == 0 || strcmp(last, "position_ids") == 0) return true;
    if (strcmp(last, "e_score_correction_bias") == 0) return true;
    /* GPT-2's causal mask (1 x 1 x n x n) and masked_bias (a scalar) under attn. */
    return (ends_with(x->name, ".attn.bias") && x->ndim == 4) || ends_with(x->name, ".attn.masked_bias");
}

/* Quantization scales and state: FP8 block scales, MXFP4 scales, bitsandbytes' companions. */
static bool is_scale(const wt_tensor *x, bool fp8)
{
    static const char *const names[] = {"weight_scale_inv", "weight_scale", "input_scale", "input_scale_inv",
        "k_scale", "v_scale", "q_scale", "output_scale", "weight_scale_2", "absmax", "quant_map",
        "nested_absmax", "nested_quant_map", "SCB", "weight_format"};
    const char *last = last_part(x->name);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(last, names[k]) == 0) return true;
    if (strstr(x->name, ".quant_state.")) return true;
    if (x->dtype == weights_dtype_find("U8") && ends_with(x->name, "_scales")) return true;
    /* Any other *_scale only beside FP8 weights: a full-precision model's *_scale may be a weight. */
    return fp8 && (ends_with(last, "_scale") || ends_with(last, "_scale_inv"));
}

static kind classify(const wt_tensor *t, size_t n, size_t i, bool fp8)
{
    const wt_tensor *x = &t[i];
    if (is_buffer(x)) return K_BUFFER;
    if (is_scale(x, fp8)) return K_SCALE;
    bool u8 = x->dtype == weights_dtype_find("U8");
    if (u8 && ends_with(x->name, "_blocks")) return K_PACKED4; /* MXFP4: 32 values per 16 bytes */
    if (u8 && strcmp(last_part(x->name), "weight") == 0 && has_bnb_state(t, n, x->name)) return K_PACKED4;
    return K_PARAM;
}

/* Whether name is in a decoder layer at or past num_layers ("model.layers.61." with 61
 * layers: DeepSeek-V3's MTP module), or names an MTP module itself. */
static bool extra_layer(const char *name, int64_t num_layers)
{
    if (strstr(name, "mtp")) return true;
    if (num_layers <= 0) return false;
    for (const char *p = strstr(name, "layers."); p; p = strstr(p + 1, "layers.")) {
        /* only the language model's stack: at the start or under a "...model." prefix */
        if (p != name && !(p - name >= 6 && strncmp(p - 6, "model.", 6) == 0)) continue;
        const char *d = p + 7;
        if (!isdigit((unsigned char)*d)) continue;
        char *end;
        long long i = strtoll(d, &end, 10);
        if (*end == '.' && i >= num_layers) return true;
    }
    return false;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const wt_tensor *)a)->name, ((const wt_tensor *)b)->name);
}

int weights_count(wt_tensor *t, size_t n, int64_t num_layers, wt_summary *out, zs_error *err)
{
    memset(out, 0, sizeof *out);
    out->index_total_size = -1;
    if (n > 1) qsort(t, n, sizeof *t, by_name);
    for (size_t i = 1; i < n; i++)
        if (strcmp(t[i - 1].name, t[i].name) == 0)
            return zs_fail(err, ZS_ERR_INPUT, "tensor \"%.200s\" is in %s and again in %s", t[i].name,
                t[i - 1].file, t[i].file);
    wt_row rows[WT_DTYPES] = {{0}};
    bool fp8 = false;
    for (size_t i = 0; i < n; i++)
        fp8 |= t[i].dtype == weights_dtype_find("F8_E4M3") || t[i].dtype == weights_dtype_find("F8_E5M2");
    for (size_t i = 0; i < n; i++) {
        const wt_tensor *x = &t[i];
        wt_row *r = &rows[x->dtype];
        r->tensors++;
        r->elements += x->elements;
        r->bytes += x->bytes;
        out->tensors++;
        out->stored_bytes += x->bytes;
        kind k = classify(t, n, i, fp8);
        if (k == K_BUFFER) {
            out->buffer_tensors++;
            out->buffer_elements += x->elements;
            continue;
        }
        if (k == K_SCALE) {
            out->scale_tensors++;
            out->scale_elements += x->elements;
            out->scale_bytes += x->bytes;
            continue;
        }
        double logical = k == K_PACKED4 ? 2 * x->bytes : x->elements;
        out->packed_tensors += k == K_PACKED4;
        out->parameters += logical;
        if (extra_layer(x->name, num_layers)) out->extra_layer_params += logical;
    }
    for (int d = 0; d < WT_DTYPES; d++)
        if (rows[d].tensors > 0) {
            rows[d].dtype = dtypes[d].name;
            out->by_dtype[out->n_dtypes++] = rows[d];
        }
    return ZS_OK;
}

void weights_compare(wt_summary *s, double config_total, double config_mtp)
{
    s->config_parameters = config_total;
    s->config_mtp = config_mtp;
    s->difference = s->parameters - config_total;
    /* Buffers the config counts (e_score_correction_bias) are out of parameters here, and
     * extra layers (MTP) in: either way the gap is at most their sum. */
    s->explained = s->difference == 0 || (config_mtp > 0 && s->parameters == config_total + config_mtp) ||
        fabs(s->difference) <= s->buffer_elements + s->extra_layer_params;
}
