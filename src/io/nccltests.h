/* nccltests.h -- reading collective timings from nccl-tests logs (text or -J JSON) into samples;
 * zerobench's own JSON files are read by harness.h. */
#ifndef ZS_NCCLTESTS_H
#define ZS_NCCLTESTS_H

#include "core/error.h"
#include "io/ncclrows.h"

/* The samples (coll_sample, coll_samples, coll_samples_free) are declared in ncclrows.h. */

/* Parse one nccl-tests log: text output of any nccl-tests version (2017 "bytes N type op"
 * tables in ms, the 12-column "error" tables, the current 13-column "#wrong" tables, -I
 * per-iteration and -S timestamp columns, -C cputime, -c 0 "N/A"), zerobench's text output,
 * or an nccl-tests -J JSON file. Tolerates mpirun/srun/SkyPilot line prefixes, CRLF, and
 * NCCL INFO/WARN lines interleaved with (even splitting) rows. A zerobench document holding
 * one collective is read too (harness.h reads whole zerobench files). collective_hint (may be NULL)
 * names the collective when the log does not say it. Fails with ZS_ERR_INPUT naming the path
 * and line for: an unreadable, empty or binary file; no complete data rows; a truncated row
 * that is not the last one; a non-numeric field; a zero, negative or non-finite time; a log
 * holding more than one run; a collective neither in the log nor hinted, or one that
 * contradicts the hint; busbw/algbw inconsistent with the collective and rank count; with
 * ZS_ERR_NOMEM when out of memory. On failure *out is left empty (nothing to free). */
int nccltests_parse(const char *path, const char *collective_hint, coll_samples *out, zs_error *err);

/* Like nccltests_parse on text already in memory; origin names it in messages. */
int nccltests_parse_text(
    const char *text, const char *origin, const char *collective_hint, coll_samples *out, zs_error *err);

#endif
