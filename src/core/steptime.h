/* steptime.h -- a step's time from its compute, its collectives and what overlaps what. */
#ifndef ZS_STEPTIME_H
#define ZS_STEPTIME_H

#include "core/result.h"
#include "core/scenario.h"

/* Time of one step for a plan (after comm_summarise filled each op's seconds): compute of all
 * micro-batches at the slowest pipeline stage's pace, the pipeline bubble, the part of each
 * collective not hidden under the compute it overlaps (plus its last bucket), the optimizer step
 * on GPU or host over local_params / opt_div parameters, and exposed PCIe traffic. Pure. */
void steptime_compute(
    const sim_input *in, const comm_plan *plan, double opt_div, double expert_div, step_time *out);

/* A lower bound of steptime_compute's total for any plan on in (same divisors): compute,
 * bubble, optimizer and overhead summed as it sums them, without the terms that are never
 * negative. A search skips the plan of a configuration this already rules out. Pure. */
double steptime_bound(const sim_input *in, double opt_div, double expert_div);

/* steptime_bound less its optimizer term, from the micro-batch times, the pipeline's pace and
 * the step overhead alone (what a search keeps of a configuration): never above steptime_bound
 * of an input with those values and t, for any divisors. Pure. */
double steptime_batch_bound(const training *t, mb_time mb, double pipe_pace, double overhead);

#endif
