/* mixer.c -- the table of token mixers, one row per mixer_kind (the rows live in mix_*.c). */
#include "core/mixer.h"

const mixer_ops *const mixer_table[MIX_KINDS] = {
    [MIX_ATTENTION] = &mix_attention,
    [MIX_SWA] = &mix_swa,
    [MIX_DELTANET] = &mix_deltanet,
    [MIX_MAMBA2] = &mix_mamba2,
    [MIX_MAMBA1] = &mix_mamba1,
    [MIX_CROSS] = &mix_cross,
    [MIX_NONE] = NULL,
};
