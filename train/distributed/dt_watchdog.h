/* dt_watchdog: the --timeout wait shared by the MPI files of train/distributed
 * (dt_watchdog_mpi.c). Internal: included only by *_mpi.c files, since it
 * speaks MPI types; the rest of the trainer sees dt_comm_set_timeout,
 * dt_comm_timed_out and dt_comm_abort_job in dt_comm.h.
 */
#ifndef DT_WATCHDOG_H
#define DT_WATCHDOG_H

#include <mpi.h>

#include "cm_status.h"

/* MPI_Wait(req) with the watchdog: returns CM_OK when the request is done;
 * after --timeout seconds without completion, CM_EMPI naming the ranks
 * that do not answer (see dt_watchdog_mpi.c); at once CM_EMPI when the
 * watchdog has already fired. what names the wait in the message ("the
 * gossip exchange"). A plain MPI_Wait when no timeout is set. */
cm_status dt_wd_wait(MPI_Request *req, const char *what);

/* 1 once a wait of this rank has timed out: every later call must fail
 * without entering MPI collectives that can no longer complete. */
int dt_wd_fired(void);

#endif
