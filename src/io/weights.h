/* weights.h -- a checkpoint's tensors counted: per dtype, logical parameters, scales, buffers. */
#ifndef ZS_WEIGHTS_H
#define ZS_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* The safetensors dtypes known, in the order the summary lists them. */
#define WT_DTYPES 20

/* One tensor as a header describes it: name, dtype (index into the dtype table), dimensions,
 * elements (the product of the shape) and stored bytes; file names the shard it came from. */
typedef struct wt_tensor {
    const char *name;
    const char *file;
    int dtype;
    int ndim;
    double elements;
    double bytes;
} wt_tensor;

/* Tensors, elements and stored bytes of one dtype. */
typedef struct wt_row {
    const char *dtype; /* "BF16" (static) */
    double tensors, elements, bytes;
} wt_row;

/* What a checkpoint holds. Parameters are logical: a packed 4-bit tensor (MXFP4 _blocks,
 * bitsandbytes NF4/FP4 weight) counts the values it represents, 2 per stored byte; scales
 * (FP8 weight_scale_inv and *_scale, MXFP4 _scales, bitsandbytes quant state) and buffers
 * (rotary inv_freq, e_score_correction_bias, GPT-2's attn.bias) are counted apart, not in
 * parameters. */
typedef struct wt_summary {
    wt_row by_dtype[WT_DTYPES]; /* the dtypes present, in the table's order */
    int n_dtypes;
    double tensors;        /* every tensor of every file */
    double parameters;     /* logical parameters, extra layers included */
    double stored_bytes;   /* the data of every tensor */
    double packed_tensors; /* 4-bit packed tensors among the parameters */
    double scale_tensors, scale_elements, scale_bytes;
    double buffer_tensors, buffer_elements;
    double extra_layer_params; /* in layers >= the model's num_layers, or names with "mtp" */
    int files;                 /* safetensors files read */
    double index_total_size;   /* the index's metadata.total_size; < 0 when none */
    /* Set by weights_compare: the config's count and how the checkpoint differs from it. */
    double config_parameters; /* the config's total */
    double config_mtp;        /* its multi-token-prediction parameters (not in the total) */
    double difference;        /* parameters - config_parameters */
    bool explained;           /* the difference is what buffers and extra layers account for */
} wt_summary;

/* The index in the dtype table of a safetensors dtype name ("BF16"), or -1 when unknown. */
int weights_dtype_find(const char *name);

/* The dtype table's name of index i (0 <= i < WT_DTYPES). */
const char *weights_dtype_name(int i);

/* Bits per stored element of dtype i: 4 for F4, 6 for the F6 types, else 8 x its size. */
int weights_dtype_bits(int i);

/* Count tensors t[0..n) (each header's tensors, every file) into out, layers at or past
 * num_layers (0: none) counted as extra; files 0 and index_total_size -1 (the loader's to
 * set). Sorts t by name. Fails with ZS_ERR_INPUT naming both
 * files when one tensor name appears twice. Pure: no I/O. */
int weights_count(wt_tensor *t, size_t n, int64_t num_layers, wt_summary *out, zs_error *err);

/* Set s's config fields from a config's total and MTP parameters: difference, and whether
 * |difference| is within buffers + extra layers, or the checkpoint holds total + mtp exactly.
 * Never fails. */
void weights_compare(wt_summary *s, double config_total, double config_mtp);

#endif
