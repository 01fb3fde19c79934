/* dt_watchdog_mpi.c: the watchdog behind --timeout SEC (see dt_comm.h and
 * dt_watchdog.h).
 *
 * Every wait of the run (the gossip exchange, and the all-reduce,
 * broadcast, barrier and failure agreement, issued in their non-blocking
 * forms by dt_gossip_mpi.c) goes through dt_wd_wait: a test loop with a
 * deadline instead of a blocking MPI call. While waiting, a rank answers
 * "are you alive" pings on a private duplicate of MPI_COMM_WORLD. A rank
 * that has waited SEC seconds pings every rank, gives them a grace period
 * (SEC/4, within 2..30 s) to answer, and names the ranks that did not: the
 * stopped, hung or unreachable ones. From then on every call fails at once
 * (dt_wd_fired), so the error reaches main(), which ends the whole job
 * (dt_comm_abort_job); of the ranks that timed out, only the lowest rank
 * that answered prints. Trade-off: a rank busy computing for longer than
 * the grace period is named too; the message says "stopped, hung or
 * unreachable" and --timeout is the knob.
 */
#include "dt_comm.h"
#include "dt_watchdog.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "cm_time.h"

#define WD_PING 7101 /* tags on wd_comm */
#define WD_PONG 7102

static double wd_timeout;              /* seconds; 0 = off */
static MPI_Comm wd_comm = MPI_COMM_NULL; /* private dup of MPI_COMM_WORLD */
static int wd_fired;                   /* a wait timed out: fail fast */
static int wd_printer;                 /* this rank reports the timeout */
static int wd_token = 1;               /* payload of pings and pongs: a
                                          static buffer, since their sends
                                          are freed without waiting */

/* Answers pending pings (non-blocking; a pong is 4 bytes, sent eagerly). */
static void wd_serve(void)
{
    int flag = 1;
    while (flag) {
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, WD_PING, wd_comm, &flag, &st) !=
                MPI_SUCCESS || !flag)
            return;
        int v;
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, WD_PING, wd_comm,
                 MPI_STATUS_IGNORE);
        MPI_Request r;
        if (MPI_Isend(&wd_token, 1, MPI_INT, st.MPI_SOURCE, WD_PONG, wd_comm,
                      &r) ==
            MPI_SUCCESS)
            MPI_Request_free(&r);
    }
}

/* After a timeout in `what`: pings every rank, waits a grace period
 * (answering others' pings meanwhile) and names the ranks that stay
 * silent. Sets wd_fired; the lowest answering rank becomes the printer. */
static cm_status wd_fire(const char *what)
{
    int me, size;
    MPI_Comm_rank(wd_comm, &me);
    MPI_Comm_size(wd_comm, &size);
    wd_fired = 1;
    int *got = calloc((size_t)size, sizeof *got), *in = calloc((size_t)size,
                                                              sizeof *in);
    MPI_Request *rq = calloc((size_t)size, sizeof *rq);
    char silent[512] = "";
    size_t len = 0, n_silent = 0;
    if (!got || !in || !rq) {
        free(got), free(in), free(rq);
        return cm_error(CM_EMPI, "no progress for %g s in %s (--timeout)",
                        wd_timeout, what);
    }
    for (int r = 0; r < size; r++) {
        rq[r] = MPI_REQUEST_NULL;
        if (r == me) {
            got[r] = 1;
            continue;
        }
        MPI_Request sr;
        if (MPI_Isend(&wd_token, 1, MPI_INT, r, WD_PING, wd_comm, &sr) ==
            MPI_SUCCESS)
            MPI_Request_free(&sr);
        MPI_Irecv(&in[r], 1, MPI_INT, r, WD_PONG, wd_comm, &rq[r]);
    }
    double grace = wd_timeout / 4 < 2 ? 2 : wd_timeout / 4 > 30
                                                ? 30 : wd_timeout / 4;
    double t0 = cm_time_now();
    int missing = size - 1;
    while (missing > 0 && cm_time_now() - t0 < grace) {
        wd_serve();
        for (int r = 0; r < size; r++) {
            int done = 0;
            if (!got[r] && rq[r] != MPI_REQUEST_NULL &&
                MPI_Test(&rq[r], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                done) {
                got[r] = 1;
                missing--;
            }
        }
        sched_yield();
    }
    int lowest = size;
    for (int r = 0; r < size; r++) {
        if (got[r]) {
            if (r < lowest)
                lowest = r;
            continue;
        }
        n_silent++;
        int k = snprintf(silent + len, sizeof silent - len, "%s%d",
                         len ? ", " : "", r);
        if (k > 0 && (size_t)k < sizeof silent - len)
            len += (size_t)k;
        if (rq[r] != MPI_REQUEST_NULL) {
            MPI_Cancel(&rq[r]);
            MPI_Request_free(&rq[r]);
        }
    }
    wd_printer = lowest == me;
    free(got), free(in), free(rq);
    if (n_silent)
        return cm_error(CM_EMPI, "no progress for %g s (waiting in %s): "
                        "rank%s %s do%s not answer (stopped, hung or "
                        "unreachable); the job is ended (--timeout %g)",
                        wd_timeout, what, n_silent > 1 ? "s" : "", silent,
                        n_silent > 1 ? "" : "es", wd_timeout);
    return cm_error(CM_EMPI, "no progress for %g s (waiting in %s), though "
                    "every rank answers: a rank may be much slower than the "
                    "others; the job is ended (raise --timeout %g)",
                    wd_timeout, what, wd_timeout);
}

cm_status dt_wd_wait(MPI_Request *req, const char *what)
{
    if (wd_fired)
        return cm_error(CM_EMPI, "the job is ending (--timeout)");
    if (wd_timeout <= 0 || wd_comm == MPI_COMM_NULL) {
        int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int l = 0;
            MPI_Error_string(rc, s, &l);
            return cm_error(CM_EMPI, "%s failed: %s", what, s);
        }
        return CM_OK;
    }
    double t0 = cm_time_now();
    for (unsigned spin = 0;; spin++) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int l = 0;
            MPI_Error_string(rc, s, &l);
            return cm_error(CM_EMPI, "%s failed: %s", what, s);
        }
        if (done)
            return CM_OK;
        if ((spin & 63) == 63) {
            wd_serve();
            if (cm_time_now() - t0 > wd_timeout)
                return wd_fire(what);
            sched_yield();
        }
    }
}

cm_status dt_comm_set_timeout(double seconds)
{
    if (!dt_comm_world())
        return cm_error(CM_EMPI, "MPI is not initialized");
    if (wd_comm == MPI_COMM_NULL) {
        int rc = MPI_Comm_dup(MPI_COMM_WORLD, &wd_comm);
        if (rc != MPI_SUCCESS) {
            wd_comm = MPI_COMM_NULL;
            return cm_error(CM_EMPI, "MPI_Comm_dup failed (watchdog)");
        }
        MPI_Comm_set_errhandler(wd_comm, MPI_ERRORS_RETURN);
    }
    wd_timeout = seconds > 0 ? seconds : 0;
    return CM_OK;
}

int dt_comm_timed_out(int *report)
{
    if (report)
        *report = wd_printer;
    return wd_fired;
}

void dt_comm_abort_job(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
}


int dt_wd_fired(void) { return wd_fired; }
