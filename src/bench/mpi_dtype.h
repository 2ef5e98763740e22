/* mpi_dtype.h -- zerobench types/ops as MPI datatypes/ops (user ops for half, bf16). */
#ifndef ZB_MPI_DTYPE_H
#define ZB_MPI_DTYPE_H

#include <mpi.h>

/* mpi_dtype: MPI datatype for an enum zb_dtype; 16-bit floats travel as
 * MPI_UINT16_T. Never fails for a valid type. */
MPI_Datatype mpi_dtype(int dtype);

/* mpi_op: MPI op for (dtype, op). Predefined ops for native types; for half
 * and bfloat16 a commutative user op (float arithmetic, rounded back) is
 * created on first use. Returns MPI_OP_NULL if MPI_Op_create fails. */
MPI_Op mpi_op(int dtype, int op);

/* mpi_ops_free: frees the user ops; call before MPI_Finalize. */
void mpi_ops_free(void);

#endif
