/* mixer.h -- the token-mixer ops table: what each kind of mixer holds, computes and saves. */
#ifndef ZS_MIXER_H
#define ZS_MIXER_H

#include <stdbool.h>

#include "core/memory.h"
#include "core/model.h"
#include "core/model_tensor.h"
#include "core/training.h"

/* The shape of one block's activations: what a mixer's terms scale with. */
typedef struct mix_dims {
    double s, b, h;   /* tokens on this rank (s / cp, x the decoder ratio), micro-batch, width */
    double e, e8;     /* bytes per activation; per saved linear input (1 under FP8) */
    double tp, sp;    /* tensor-parallel degree; sequence-parallel divisor (tp or 1) */
    double drop;      /* 1 when dropout masks are stored */
    double s_enc;     /* an encoder-decoder's encoder tokens (cross-attention) */
    bool local;       /* a sliding-window or chunked attention layer */
    bool keep_scores; /* eager attention keeps its score matrix (no selective recompute) */
    bool flash;       /* flash attention: log-sum-exp only */
    bool cross;       /* the block also cross-attends (T5 decoder) */
    bool encoder;     /* bidirectional (encoder) block */
} mix_dims;

/* A token mixer. Each kind is one file (mix_attention.c, mix_deltanet.c, mix_mamba.c) that
 * fills one row; model.c, compute.c, memory.c and --explain walk the table and never switch
 * on the kind. */
typedef struct mixer_ops {
    const char *name; /* as --explain names it: "attention", "gated DeltaNet", ... */
    /* Append the mixer's parameter tensors to l, module ids from `base` on. Never fails. */
    void (*tensors)(const model *m, tensor_list *l, int base);
    /* FLOPs per token of the mixing itself, beyond its linear layers (scores, scans): in the
     * model convention (non-causal, as MFU counts) and as executed. s: the sequence length on
     * this rank's view (the whole sequence). Pure. */
    void (*flops)(const model *m, const training *t, const mix_dims *d, double *model_fl, double *exec_fl);
    /* Append what the mixer saves for backward to out[n..] (ACT_TERMS_MAX); returns the new
     * count. Pure. */
    int (*act_terms)(const model *m, const mix_dims *d, act_term *out, int n);
    /* Bytes per token of forward memory-bound traffic split by TP (rotary, gates, scans'
     * elementwise work), at e bytes per element. Pure. */
    double (*traffic)(const model *m, double e);
    const char *formula; /* one --explain line: state kept and FLOPs, with the source */
    bool softmax;        /* softmax attention: its backward is the attention kernel's work (2.5x
                            the forward's under flash, kernels.c); a scan's backward is 2x */
} mixer_ops;

/* The row of each mixer_kind; NULL for MIX_NONE. */
extern const mixer_ops *const mixer_table[MIX_KINDS];

extern const mixer_ops mix_attention, mix_swa, mix_cross, mix_deltanet, mix_mamba2, mix_mamba1;

/* Append one term when it is not zero (inline: the mixer files and memory.c both use it).
 * Returns the new count. */
static inline int mix_term(act_term *out, int n, const char *what, double bytes)
{
    if (bytes != 0 && n < ACT_TERMS_MAX) out[n++] = (act_term){what, bytes};
    return n;
}

#endif
