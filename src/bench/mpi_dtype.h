/* mpi_dtype.h -- zerobench types/ops as MPI datatypes/ops (user ops for half, bf16). */
#ifndef ZB_MPI_DTYPE_H
#define ZB_MPI_DTYPE_H

#include <mpi.h>
#include <stddef.h>

/* mpi_dtype: MPI datatype for an enum zb_dtype; 16-bit floats travel as
 * MPI_UINT16_T. Never fails for a valid type. */
MPI_Datatype mpi_dtype(int dtype);

/* mpi_op: MPI op for (dtype, op). Predefined ops for native types; for half
 * and bfloat16 a commutative user op (float arithmetic, rounded back) is
 * created on first use. Returns MPI_OP_NULL if MPI_Op_create fails. */
MPI_Op mpi_op(int dtype, int op);

/* mpi_ops_free: frees the user ops; call before MPI_Finalize. */
void mpi_ops_free(void);

/* MPI has no avg or premulsum: the reduction runs with sum, and these wrap it.
 * mpi_reduce_pre: for premulsum, scales the n input elements at in by
 * ZB_PREMUL_SCALAR: in place (in_place 1: in is the writable receive buffer)
 * it scales them where they are, else into a private scratch buffer. Returns
 * the buffer to reduce from (in itself for other ops); NULL when scratch
 * cannot be allocated. The local pass is timed with the call, as NCCL fuses
 * the multiply into its kernel. */
const void *mpi_reduce_pre(int dtype, int op, const void *in, size_t n, int in_place);

/* mpi_reduce_post: for avg, divides the count reduced elements at recv by
 * nranks (truncating integers, as NCCL); nothing for other ops or recv NULL. */
void mpi_reduce_post(int dtype, int op, int nranks, void *recv, size_t count);

/* mpi_scratch_free: releases mpi_reduce_pre's buffer. */
void mpi_scratch_free(void);

#endif
