/* units.h -- parsing and printing counts, byte sizes and durations with explicit units. */
#ifndef ZS_UNITS_H
#define ZS_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * 1024.0 * 1024.0)
#define TiB (GiB * 1024.0)

/* Parse a count such as "7e9", "6738415616", "7B", "1.5T", "25M", "500k", "4Mi". The one rule
 * for counts: k/K 1e3, M 1e6, B/G 1e9, T 1e12 (decimal); Ki 2^10, Mi 2^20, Gi 2^30, Ti 2^40
 * (binary). Fails with ZS_ERR_USAGE (message names `what`) on anything else, on a negative,
 * NaN or infinite value, or on a value above 1e18. */
int units_parse_count(const char *s, const char *what, double *out, zs_error *err);

/* Parse a byte size such as "80GiB", "80GB", "512MiB", "5e8B". The one rule for sizes: the
 * unit is always written; KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB binary. A bare number and a
 * bare K/M/G/T fail with ZS_ERR_USAGE and a hint ("did you mean 80GiB?"); otherwise fails
 * like units_parse_count. */
int units_parse_bytes(const char *s, const char *what, double *out, zs_error *err);

/* Parse a whole number in [min, max], with units_parse_count's suffixes ("1e3", "8k",
 * "8Ki"); fails with ZS_ERR_USAGE naming `what`. */
int units_parse_int(const char *s, const char *what, int64_t min, int64_t max, int64_t *out, zs_error *err);

/* A sequence length: as units_parse_int, but k and M are 2^10 and 2^20 ("4k context" is 4,096
 * tokens, "1M" 1,048,576), as Ki and Mi are; other suffixes are refused. Fails like
 * units_parse_int. */
int units_parse_seq(const char *s, const char *what, int64_t min, int64_t max, int64_t *out, zs_error *err);

/* Format bytes as GiB with two decimals ("12.34 GiB"), or MiB below 1 GiB. Returns buf. */
const char *units_fmt_bytes(double bytes, char *buf, size_t len);

/* Format a count with thousands separators ("6,738,415,616"). Returns buf. */
const char *units_fmt_count(double n, char *buf, size_t len);

/* Format a count compactly ("6.74B", "175M"). Returns buf. */
const char *units_fmt_short(double n, char *buf, size_t len);

/* Format a duration in seconds as "812 ms", "12.4 s", "3.2 h", "41.7 d". Returns buf. */
const char *units_fmt_seconds(double s, char *buf, size_t len);

#endif
