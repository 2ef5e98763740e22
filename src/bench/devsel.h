/* devsel.h -- which GPU(s) a process drives: launcher local rank, explicit override, visibility. */
#ifndef ZB_DEVSEL_H
#define ZB_DEVSEL_H

#include <stddef.h>

/* devsel_local_rank: this process's index on its node as the launcher
 * states it: OMPI_COMM_WORLD_LOCAL_RANK (Open MPI), SLURM_LOCALID (srun),
 * MPI_LOCALRANKID (MPICH/Hydra), PMI_LOCAL_RANK / PALS_LOCAL_RANKID (other
 * PMI launchers), first found; fallback (the MPI shared-memory split) when
 * none is set or one is not a non-negative integer. Never fails. */
int devsel_local_rank(int fallback);

/* devsel_first: first device ordinal of the gpus consecutive devices this
 * process drives, given ndev visible devices:
 *  - explicit (ZEROBENCH_DEVICE, NULL when unset) wins: devices explicit..+gpus-1;
 *  - else local_rank * gpus when the node's devices are all visible;
 *  - else 0 when exactly gpus devices are visible (srun --gpus-per-task,
 *    per-rank CUDA_VISIBLE_DEVICES: each process sees only its own).
 * Returns the ordinal, or -1 with one line in err naming the counts. */
int devsel_first(int local_rank, int gpus, int ndev, const char *explicit, char *err, size_t len);

#endif
