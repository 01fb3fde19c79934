/* dt_comm: the trainer's view of MPI, without MPI types.
 *
 * An opaque dt_comm handle wraps one MPI communicator (its error handler
 * set to MPI_ERRORS_RETURN, so MPI failures come back as CM_EMPI instead of
 * aborting). dt_comm_world() is the whole job; dt_comm_split() makes
 * sub-communicators so tests can run the same code on 1, 2 and 4 ranks
 * inside one `mpirun -np 4`. The collectives are the few the trainer needs:
 * barrier, in-place sum allreduce of double and float arrays, broadcast of
 * bytes, and dt_comm_agree(), the failure agreement that keeps every rank
 * in step when one of them fails (no hang, one message from rank 0).
 * Implemented in dt_gossip_mpi.c, the only file that includes <mpi.h>.
 * Every function here except dt_comm_rank/size is collective over
 * its communicator: all ranks call it, in the same order.
 */
#ifndef DT_COMM_H
#define DT_COMM_H

#include <stddef.h>

#include "cm_status.h"

typedef struct dt_comm dt_comm; /* one MPI communicator; opaque */

/* Initializes MPI (MPI_Init) unless it already is (a test runner may have
 * done it); works under mpirun and as a singleton started without it.
 * Sets MPI_ERRORS_RETURN on MPI_COMM_WORLD. CM_EMPI on failure. */
cm_status dt_comm_init(int *argc, char ***argv);

/* Finalizes MPI if dt_comm_init initialized it; a no-op otherwise. */
void dt_comm_finalize(void);

/* The handle for MPI_COMM_WORLD. Borrowed: valid from MPI_Init to
 * MPI_Finalize, never freed by the caller. NULL before MPI_Init. */
dt_comm *dt_comm_world(void);

/* This rank's number in c, 0 <= rank < size. */
size_t dt_comm_rank(const dt_comm *c);

/* Number of ranks in c. */
size_t dt_comm_size(const dt_comm *c);

/* Number of ranks of c on this host (MPI_COMM_TYPE_SHARED), e.g. to give
 * BLAS cores/local_size threads. Collective. Returns 1 on failure. */
size_t dt_comm_local_size(const dt_comm *c);

/* Waits for every rank of c. CM_EMPI on failure. */
cm_status dt_comm_barrier(const dt_comm *c);

/* x[k] <- sum over ranks of x[k], k < n, in place, on every rank
 * (MPI_Allreduce, MPI_SUM; counts above INT_MAX go in chunks). The order
 * of the sum is MPI's, identical on all ranks. CM_EMPI on failure. */
cm_status dt_comm_allreduce_sum_double(const dt_comm *c, double *x, size_t n);

/* As dt_comm_allreduce_sum_double for float arrays. */
cm_status dt_comm_allreduce_sum_float(const dt_comm *c, float *x, size_t n);

/* Copies bytes from buf on rank root to buf on every other rank of c
 * (MPI_Bcast; chunks above INT_MAX). CM_EINVAL when root >= size. */
cm_status dt_comm_bcast(const dt_comm *c, void *buf, size_t bytes,
                        size_t root);

/* Failure agreement: every rank passes its local status; every rank gets
 * back the status of the lowest-numbered failing rank (CM_OK when none
 * failed), and on failure that rank's last-error message becomes the
 * last-error message on every rank, so rank 0 can print it and every rank
 * exits non-zero. When all ranks pass CM_OK no message changes. Costs one
 * int allreduce, plus a broadcast of the message (1 KiB) on failure. If
 * MPI itself fails here, returns CM_EMPI locally. */
cm_status dt_comm_agree(const dt_comm *c, cm_status local);

/* dt_comm_agree for a wait behind one rank's long computation (e.g. rank
 * 0 validating a big topology): an MPI_Ibarrier first, which every rank
 * polls with sleeps of 50 us doubling up to 10 ms, so the waiting ranks
 * give their cores away instead of spinning in MPI's busy poll; then
 * dt_comm_agree. Same results and messages as dt_comm_agree, plus up to
 * ~10 ms of latency. The barrier has no --timeout deadline: the rank
 * behind it is computing, not silent (a rank 0 that dies there ends the
 * job through mpirun). CM_EMPI if MPI fails. */
cm_status dt_comm_agree_idle(const dt_comm *c, cm_status local);

/* Splits parent by color (MPI_Comm_split, ranks ordered as in parent):
 * ranks passing the same color >= 0 form a new communicator, returned in
 * *out (free with dt_comm_free); a rank passing color < 0 gets *out = NULL.
 * Collective over parent. CM_EMPI / CM_ENOMEM on failure. */
cm_status dt_comm_split(const dt_comm *parent, int color, dt_comm **out);

/* Frees a communicator made by dt_comm_split (MPI_Comm_free; collective
 * over c). Accepts NULL and ignores the world handle. */
void dt_comm_free(dt_comm *c);

/* ---- watchdog (--timeout) ---------------------------------------------
 * Collective over MPI_COMM_WORLD at the first call: sets how long any wait
 * of the run may last (seconds; 0 = forever). See dt_watchdog_mpi.c. */
cm_status dt_comm_set_timeout(double seconds);

/* Without --timeout: once 8 rounds are known, every wait's deadline
 * adapts to the run's round times (median + 8 MAD of the last 64
 * intervals between gossip exchanges, between 3 and 5 median rounds,
 * never below floor_s seconds, grace period included); before that,
 * dt_comm_set_timeout's. 0 turns it off. Local to the rank; call after
 * dt_comm_set_timeout. */
void dt_comm_set_adaptive(double floor_s);

/* 1 when a wait timed out on this rank; *report (if not NULL) is 1 on the
 * one rank that should print the message (cm_last_error()). */
int dt_comm_timed_out(int *report);

/* After a timeout: the ranks the watchdog found silent (ascending) into
 * ranks[0..cap), their count returned (0 when none, or no timeout). */
size_t dt_comm_silent_ranks(size_t *ranks, size_t cap);

/* Ends every rank of the job with exit code `code` (MPI_Abort on
 * MPI_COMM_WORLD). Only main() calls it, after a timeout. */
void dt_comm_abort_job(int code);

#endif
