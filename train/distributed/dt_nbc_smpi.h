/* dt_nbc_smpi: under SimGrid's SMPI (DT_SMPI, make smpi) the trainer's
 * non-blocking collectives become SMPI's blocking ones. SMPI 3.32 runs a
 * non-blocking collective as a linear point-to-point schedule, and its
 * waits test every request of it again and again: measured with 4 steps
 * of synthetic data, 32 ranks took 4.9 s of CPU, 64 ranks 40 s, and 256
 * ranks did not reach the first step in 90 minutes. The blocking ones run
 * SMPI's collective algorithms (log P steps). The request comes back as
 * MPI_REQUEST_NULL, which MPI_Wait and MPI_Test complete at once; the
 * watchdog is off under SMPI anyway (dt_watchdog_mpi.c). Internal:
 * included by *_mpi.c files after <mpi.h>; nothing changes outside SMPI.
 */
#ifndef DT_NBC_SMPI_H
#define DT_NBC_SMPI_H

#ifdef DT_SMPI
#include <mpi.h>

static inline int dt_smpi_ibarrier(MPI_Comm c, MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Barrier(c);
}

static inline int dt_smpi_ibcast(void *b, int n, MPI_Datatype t, int root,
                                 MPI_Comm c, MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Bcast(b, n, t, root, c);
}

static inline int dt_smpi_iallreduce(const void *s, void *d, int n,
                                     MPI_Datatype t, MPI_Op op, MPI_Comm c,
                                     MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Allreduce(s, d, n, t, op, c);
}

static inline int dt_smpi_ireduce(const void *s, void *d, int n,
                                  MPI_Datatype t, MPI_Op op, int root,
                                  MPI_Comm c, MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Reduce(s, d, n, t, op, root, c);
}

static inline int dt_smpi_igatherv(const void *s, int sn, MPI_Datatype st,
                                   void *d, const int *rn, const int *displ,
                                   MPI_Datatype rt, int root, MPI_Comm c,
                                   MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Gatherv(s, sn, st, d, rn, displ, rt, root, c);
}

static inline int dt_smpi_ialltoallv(const void *s, const int *sn,
                                     const int *sd, MPI_Datatype st, void *d,
                                     const int *rn, const int *rd,
                                     MPI_Datatype rt, MPI_Comm c,
                                     MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Alltoallv(s, sn, sd, st, d, rn, rd, rt, c);
}

static inline int dt_smpi_iallgatherv(const void *s, int sn, MPI_Datatype st,
                                      void *d, const int *rn, const int *rd,
                                      MPI_Datatype rt, MPI_Comm c,
                                      MPI_Request *r)
{
    *r = MPI_REQUEST_NULL;
    return MPI_Allgatherv(s, sn, st, d, rn, rd, rt, c);
}

#undef MPI_Ibarrier
#undef MPI_Ibcast
#undef MPI_Iallreduce
#undef MPI_Ireduce
#undef MPI_Igatherv
#define MPI_Ibarrier dt_smpi_ibarrier
#define MPI_Ibcast dt_smpi_ibcast
#define MPI_Iallreduce dt_smpi_iallreduce
#define MPI_Ireduce dt_smpi_ireduce
#define MPI_Igatherv dt_smpi_igatherv
#undef MPI_Ialltoallv
#undef MPI_Iallgatherv
#define MPI_Ialltoallv dt_smpi_ialltoallv
#define MPI_Iallgatherv dt_smpi_iallgatherv
#endif

#endif
