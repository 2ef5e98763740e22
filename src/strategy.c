/* strategy.c -- the strategy table and lookups. */
#include "strategy.h"

#include <string.h>

const strategy *const strategies[] = {&strat_ddp, &strat_zero1, &strat_zero2, &strat_zero3, NULL};

const strategy *strategy_find(const char *name)
{
    for (int i = 0; strategies[i]; i++)
        if (strcmp(strategies[i]->name, name) == 0) return strategies[i];
    return NULL;
}

bool strategy_overlap(const sim_input *in, const strategy *s)
{
    return in->t->overlap_comm < 0 ? s->overlap_default : in->t->overlap_comm != 0;
}
