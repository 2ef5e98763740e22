/* coll_data.h -- exact, rank- and index-dependent test values for collectives. */
#ifndef ZB_COLL_DATA_H
#define ZB_COLL_DATA_H

#include <stddef.h>
#include <stdint.h>

/* Values are small positive integers (sum/min/max/no-op) or powers of two
 * (prod), sized from the type and rank count so that every partial result
 * of the reduction, in any order, is exactly representable: the expected
 * output is therefore exact and compared with ==. */
struct coll_vals {
    int dtype;        /* enum zb_dtype */
    int op;           /* enum zb_op, or -1 for data-movement collectives */
    int nranks;       /* ranks taking part */
    uint32_t rep;     /* repetition seed: changes the data between checks */
    uint32_t modulus; /* non-prod values are in [1, modulus] */
    uint32_t period;  /* prod: value is 2 when (idx + rank + rep) % period == 0, else 1 */
};

/* coll_vals_init: picks value ranges for (dtype, op, nranks). Never fails;
 * for very large nranks it degrades to all-ones, which stays exact. */
void coll_vals_init(struct coll_vals *v, int dtype, int op, int nranks, uint32_t rep);

/* coll_vals_typesize: bytes per element of v->dtype. */
size_t coll_vals_typesize(const struct coll_vals *v);

/* coll_vals_check_input: number of j < n with buf[j] != input(rank, idx0 + j). */
size_t coll_vals_check_input(const struct coll_vals *v, int rank, const void *buf, size_t idx0, size_t n);

/* coll_vals_check_reduced: number of j < n with buf[j] != reduced(idx0 + j). */
size_t coll_vals_check_reduced(const struct coll_vals *v, const void *buf, size_t idx0, size_t n);

#endif
