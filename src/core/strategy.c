/* strategy.c -- the strategy table, lookups, and what the harness derives from a descriptor. */
#include "core/strategy.h"

#include <stdio.h>
#include <string.h>

#include "core/descriptor.h"
#include "core/framework.h"

/* One line per strategy; a new one is its file, its id in strategy.h and a line here. */
const strategy *const strategies[STRAT_COUNT + 1] = {
    [STRAT_DDP] = &strat_ddp,
    [STRAT_ZERO1] = &strat_zero1,
    [STRAT_ZERO2] = &strat_zero2,
    [STRAT_ZERO3] = &strat_zero3,
    [STRAT_COUNT] = NULL,
};

_Static_assert(STRAT_COUNT <= STRATEGY_MAX, "raise STRATEGY_MAX");

const strategy *strategy_find(const char *name)
{
    for (int i = 0; strategies[i]; i++)
        if (strcmp(strategies[i]->name, name) == 0) return strategies[i];
    return NULL;
}

const strategy *strategy_find_shards(shard_set sh)
{
    for (int i = 0; strategies[i]; i++) {
        shard_set x = strategies[i]->shards;
        if (x.optimizer == sh.optimizer && x.gradients == sh.gradients && x.parameters == sh.parameters)
            return strategies[i];
    }
    return NULL;
}

int strategy_index(const strategy *s)
{
    return s && s->id < STRAT_COUNT && strategies[s->id] == s ? (int)s->id : -1;
}

static const char *name_of(int i)
{
    return strategies[i] ? strategies[i]->name : NULL;
}

const char *strategy_names(void)
{
    static char names[STRATEGY_MAX * 16];
    return names[0] ? names : descriptor_names(name_of, names, sizeof names);
}

bool strategy_overlap(const sim_input *in, const strategy *s)
{
    if (in->t->overlap_comm >= 0) return in->t->overlap_comm != 0;
    return in->fw->overlap_comm >= 0 ? in->fw->overlap_comm != 0 : s->overlap_default;
}

bool strategy_allows(const strategy *s, const training *t, char *why, int whylen)
{
    if (t->offload_optimizer != OFFLOAD_NONE && !s->offload_optimizer) {
        snprintf(why, (size_t)whylen, "offload needs ZeRO");
        return false;
    }
    if (t->offload_params != OFFLOAD_NONE && !s->offload_params) {
        /* DeepSpeed configuration docs, zero_optimization.offload_param: valid only with
         * stage 3. */
        snprintf(why, (size_t)whylen,
            "parameter offload needs ZeRO-3 (DeepSpeed offloads parameters only at stage 3)");
        return false;
    }
    return true;
}

double strategy_ideal_bytes(const strategy *s, const sim_input *in)
{
    double n = (double)in->dp, q = in->trainable, g = in->bt.reduce, w = in->bt.gather;
    /* All parameters as gathered (as stored; FSDP's 16-bit cast); gradients only of q. */
    double stored = in->flat_params ? w * in->local_params : in->param_bytes;
    double bytes = s->shards.parameters              ? 2 * stored + g * q
        : s->shards.optimizer || s->shards.gradients ? (w + g) * q
                                                     : 2 * g * q;
    return n > 1 ? bytes * (n - 1) / n : 0;
}
