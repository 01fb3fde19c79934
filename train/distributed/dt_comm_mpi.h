/* dt_comm_mpi: the inside of a dt_comm handle, for the *_mpi.c files of
 * train/distributed that issue their own MPI calls on it (dt_gossip_mpi.c
 * makes the handles; dt_allreduce_mpi.c runs all-reduces on them).
 * Internal: it speaks MPI types; the rest of the trainer sees dt_comm.h.
 */
#ifndef DT_COMM_MPI_H
#define DT_COMM_MPI_H

#include <mpi.h>

struct dt_comm {
    MPI_Comm comm; /* the communicator; MPI_ERRORS_RETURN */
    int rank;      /* this rank in comm */
    int size;      /* ranks in comm */
    int owned;     /* 1 when made by dt_comm_split and freed by us */
};

#endif
