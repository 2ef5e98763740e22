/* be_common.c -- back-end helpers shared by the CPU and CUDA back ends. */
#include "be.h"

#include <mpi.h>

int be_geometry(struct be_info *bi, int nlocal)
{
    MPI_Comm node;
    int one;
    MPI_Comm_size(MPI_COMM_WORLD, &bi->nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &bi->proc);
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return -1;
    MPI_Comm_size(node, &bi->procs_per_node);
    MPI_Comm_rank(node, &bi->local_proc);
    MPI_Comm_free(&node);
    one = bi->local_proc == 0;
    MPI_Allreduce(&one, &bi->nnodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bi->nlocal = nlocal;
    bi->nranks = bi->nprocs * nlocal;
    bi->rank0 = bi->proc * nlocal;
    return 0;
}
