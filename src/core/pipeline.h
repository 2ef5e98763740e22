/* pipeline.h -- how a model's layers split over pipeline stages, and the pace the split sets. */
#ifndef ZS_PIPELINE_H
#define ZS_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"
#include "core/training.h"

/* One pipeline stage as memory sees it: its blocks, its index (under 1F1B stage i holds
 * min(p - i, m) micro-batches in flight) and whether it holds the embedding or the head. */
typedef struct pipe_stage {
    int64_t layers;
    int64_t index;
    bool embedding, head;
} pipe_stage;

#define PIPE_VIEWS 3

/* A split: layers on the first stage, on the most loaded middle stage and on the last, and
 * the distinct stages whose memory can be the peak (first, stage 1, last; one when pp is 1). */
typedef struct pipe_split {
    int64_t first, mid, last;
    int nviews;
    pipe_stage views[PIPE_VIEWS];
} pipe_split;

/* Split `layers` blocks over t->pp stages. With --pp-first-layers / --pp-last-layers, as
 * Megatron-Core does (the rest evenly over the middle stages, each stage's count a multiple of
 * the virtual stages); without them, evenly when `exact` (Megatron: the layers must divide),
 * else as DeepSpeed's partition_uniform (the first L mod p stages get one layer more). Fails
 * with ZS_ERR_USAGE naming the flag and the rule a split breaks. */
int pipeline_split(int64_t layers, const training *t, bool exact, pipe_split *out, zs_error *err);

/* The most blocks any stage holds. Never fails. */
int64_t pipeline_max_layers(const pipe_split *ps);

/* The slowest stage's time per micro-batch over the mean stage's (>= 1 up to rounding), for
 * blocks of equal cost and a head (LM head + loss) whose seconds are head_share of the whole
 * model's; the embedding's lookup is not counted. 1 when pp is 1. Never fails. */
double pipeline_pace(const pipe_split *ps, int64_t layers, int64_t pp, double head_share);

/* First- and last-stage layer counts that let `layers` split over pp stages of v chunks when an
 * even split does not (Llama 3's 126 layers on 16 stages: 7 + 14 x 8 + 7): the middle stages
 * get the smallest multiple of v at or above layers / pp that leaves the two ends between v and
 * the middle's count, as multiples of v. Returns false (first = last = 0) when the layers
 * divide already or no such split exists. Never fails. */
bool pipeline_balance(int64_t layers, int64_t pp, int64_t v, int64_t *first, int64_t *last);

#endif
