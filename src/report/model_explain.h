/* model_explain.h -- --explain text for the model: its blocks, exact counts, FLOPs and activation terms. */
#ifndef ZS_MODEL_EXPLAIN_H
#define ZS_MODEL_EXPLAIN_H

#include <stdio.h>

struct scenario;

/* Print to `o` how the model is counted and modelled for this run: the kinds of block and how
 * many of each (dense, MoE, encoder; local and global attention), their exact parameters
 * (total and active), the family's features (MLA ranks, experts, sliding window, soft-caps,
 * encoder-decoder), the FLOPs per token, and each block kind's activation terms with their
 * formula and bytes at the run's s, b, t (Korthikanti et al. 2022 Table 2, generalised).
 * Prints nothing for a --params model, or when the run does not suit the model (the
 * estimate reports that error itself). Never fails. */
void model_explain(FILE *o, const struct scenario *s);

#endif
