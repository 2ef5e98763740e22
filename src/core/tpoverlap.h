/* tpoverlap.h -- how much TP communication Transformer Engine's userbuffers hide under GEMMs. */
#ifndef ZS_TPOVERLAP_H
#define ZS_TPOVERLAP_H

#include <stdbool.h>

struct sim_input;

/* The fractions of a step's TP all-gather and reduce-scatter seconds hidden under the GEMMs
 * they are paired with, and the splits each pairing uses. */
typedef struct tp_hidden {
    double ag, rs;   /* fraction hidden, 0..1 */
    int ring_splits; /* ring-exchange chunks (the TP degree) */
    int pipe_splits; /* pipelined GEMM + reduce-scatter chunks */
} tp_hidden;

/* Whether the run overlaps TP communication with GEMMs: --tp-comm-overlap, else the
 * framework's default; only with sequence parallelism and TP > 1. Pure. */
bool tpoverlap_on(const struct sim_input *in);

/* The hidden fractions for one all-gather of `ag` seconds and one reduce-scatter of `rs`
 * seconds (a block's s b h activations over the TP group), from the GEMMs each pairs with in a
 * block (QKV, output projection, MLP up and down), forward, backward and a full recompute's
 * forward again. Zero when tpoverlap_on is false. Pure; never fails. */
tp_hidden tpoverlap_hidden(const struct sim_input *in, double ag, double rs);

#endif
