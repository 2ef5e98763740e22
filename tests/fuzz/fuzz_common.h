/* fuzz_common.h -- helpers the libFuzzer targets share: input copy, invariants, one simulator pass. */
#ifndef ZS_FUZZ_COMMON_H
#define ZS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/hardware.h"
#include "core/model.h"
#include "core/strategy.h"
#include "core/training.h"

/* A violated invariant is a crash libFuzzer records, whatever the build's NDEBUG. */
#define FUZZ_CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* The input as a NUL-terminated heap string (the parsers take C strings; an embedded NUL
 * ends the text there, as it would for a caller). Never NULL: traps when out of memory. */
char *fuzz_text(const uint8_t *data, size_t size);

/* A memory, time or count that came out of a parse or the simulator: finite and >= 0. */
void fuzz_check_num(double x);

/* A failed parse must say why: a non-zero code and a message. */
struct zs_error;
void fuzz_check_error(const struct zs_error *err);

/* Small valid inputs for the half of a simulation the fuzzed file does not supply: a
 * 12-layer GPT-2-like model and an A100-like node (parsed once from built-in JSON). */
const model *fuzz_ref_model(const param_counts **pc);
const hardware *fuzz_ref_hardware(void);

/* An applicable result's memory, step-time, throughput, cost and communication numbers:
 * finite and >= 0, the totals > 0; MFU and HFU at most 1 (HFU >= MFU), the step at least
 * its compute, the memory total at least the model states. */
struct result;
void fuzz_check_result(const struct result *r);

/* sim_prepare + sim_run of every strategy (or just `only`) on a configuration; every memory,
 * step-time, throughput and cost number of an applicable result must be finite and >= 0.
 * A configuration sim_prepare refuses is fine (it must say why). */
void fuzz_simulate(const model *m, const param_counts *pc, const hardware *hw, const training *t,
                   const strategy *only);

#endif
