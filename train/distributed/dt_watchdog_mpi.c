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
 *
 * Without --timeout the deadline adapts to the run (dt_comm_set_adaptive):
 * from the intervals between the last WD_HIST
 * completions of the exchange (a step: compute and exchange), median m
 * and median absolute deviation MAD, the whole time to naming a silent
 * rank is T = max(floor, min(5 m, max(3 m, m + 8 MAD))) (dt_deadline.c:
 * a robust upper bound of a round, capped at five rounds, never below the
 * floor that covers evaluation and checkpoint pauses); the wait's part
 * is T minus the grace period max(2, T/5). It applies to every wait once
 * WD_MIN_ROUNDS intervals are known (a stopped rank may leave its
 * neighbours' exchange complete, its messages sent, and hold them in the
 * next agreement); before, the fixed deadline. Long one-rank phases wait
 * in dt_comm_agree_idle, outside the watchdog. Trade-off: a rank that
 * becomes five times slower than its median for one round, or an
 * epoch-end pause (evaluation, a save) longer than the floor on one rank
 * only, is named as stopped: --timeout-floor and --timeout are the
 * knobs.
 */
#include "dt_comm.h"
#include "dt_watchdog.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <math.h>
#include <mpi.h>

#include "cm_time.h"
#include "dt_deadline.h"

#define WD_PING 7101 /* tags on wd_comm */
#define DT_WD_LAUNCHER_GRACE 10 /* s after an abort before the launcher
                                   (mpirun, orted) is ended by force */
#define WD_PONG 7102
#define WD_FIRED 7103 /* "I timed out too": the sender is alive and may be
                         the one that reports */

static double wd_timeout;              /* seconds; 0 = off */
static MPI_Comm wd_comm = MPI_COMM_NULL; /* private dup of MPI_COMM_WORLD */
static int wd_fired;                   /* a wait timed out: fail fast */
static int wd_printer;                 /* this rank reports the timeout */
#define WD_SILENT_MAX 1024
static size_t wd_silent[WD_SILENT_MAX]; /* the ranks found silent */
static size_t wd_n_silent;             /* how many (at most the above) */
static int wd_token = 1;               /* payload of pings and pongs: a
                                          static buffer, since their sends
                                          are freed without waiting */
#define WD_HIST DT_DEADLINE_HIST
#define WD_MIN_ROUNDS 8
static double wd_floor;                /* > 0: the adaptive deadline */
static double wd_hist[WD_HIST];        /* intervals between exchanges */
static size_t wd_nh, wd_hpos;          /* how many, next slot */
static double wd_last_done;            /* time of the last exchange done */
static size_t wd_samples;              /* intervals recorded in all */
static double wd_deadline(char *rule, size_t cap);

/* The adaptive deadline T (see the top of the file) and, into rule, which
 * term decided it; 0 when too few rounds are known. O(WD_HIST log). */
static double wd_adaptive(char *rule, size_t cap)
{
    static size_t seen = (size_t)-1; /* wd_samples when last computed */
    static double last_t;
    static char last_rule[200];
    if (wd_floor <= 0 || wd_nh < WD_MIN_ROUNDS)
        return 0;
    if (seen == wd_samples) { /* no new round since: the same answer */
        snprintf(rule, cap, "%s", last_rule);
        return last_t;
    }
    seen = wd_samples;
    last_t = wd_deadline(last_rule, sizeof last_rule);
    snprintf(rule, cap, "%s", last_rule);
    return last_t;
}

/* wd_adaptive's computation: the rule of dt_deadline.h. */
static double wd_deadline(char *rule, size_t cap)
{
    return dt_deadline(wd_hist, wd_nh, wd_floor, rule, cap);
}

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

/* Takes the WD_FIRED notices that arrived: their senders count as
 * answered (their pending pong receive is cancelled). */
static void wd_fired_notices(int *got, int *missing, MPI_Request *rq)
{
    int flag = 1;
    while (flag) {
        MPI_Status st;
        if (MPI_Iprobe(MPI_ANY_SOURCE, WD_FIRED, wd_comm, &flag, &st) !=
                MPI_SUCCESS || !flag)
            return;
        int v, r = st.MPI_SOURCE;
        MPI_Recv(&v, 1, MPI_INT, r, WD_FIRED, wd_comm, MPI_STATUS_IGNORE);
        if (!got[r]) {
            got[r] = 1;
            (*missing)--;
            if (rq[r] != MPI_REQUEST_NULL) {
                MPI_Cancel(&rq[r]);
                MPI_Request_free(&rq[r]);
            }
        }
    }
}

/* After a timeout in `what`: pings every rank, waits a grace period
 * (answering others' pings meanwhile) and names the ranks that stay
 * silent. Sets wd_fired; the lowest answering rank becomes the printer. */
static cm_status wd_fire(const char *what, double limit, double grace,
                         const char *rule)
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
                        limit, what);
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
        /* a rank that timed out before us may be past its grace period
         * (printing, or ending the job) and answer no ping: its notice
         * says it is alive, so it is never named, and only the lowest
         * of the ranks that fired prints */
        if (MPI_Isend(&wd_token, 1, MPI_INT, r, WD_FIRED, wd_comm, &sr) ==
            MPI_SUCCESS)
            MPI_Request_free(&sr);
        MPI_Irecv(&in[r], 1, MPI_INT, r, WD_PONG, wd_comm, &rq[r]);
    }
    double t0 = cm_time_now();
    int missing = size - 1;
    while (missing > 0 && cm_time_now() - t0 < grace) {
        wd_serve();
        wd_fired_notices(got, &missing, rq);
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
        if (wd_n_silent < WD_SILENT_MAX)
            wd_silent[wd_n_silent++] = (size_t)r;
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
    char how[400];
    if (rule)
        snprintf(how, sizeof how, "adaptive deadline %.3g s in all: %s; "
                 "--timeout SEC fixes one", limit + grace, rule);
    else
        snprintf(how, sizeof how, "--timeout %g", limit);
    if (n_silent)
        return cm_error(CM_EMPI, "no progress for %g s (waiting in %s): "
                        "rank%s %s do%s not answer (stopped, hung or "
                        "unreachable); the job is ended (%s)",
                        limit, what, n_silent > 1 ? "s" : "", silent,
                        n_silent > 1 ? "" : "es", how);
    return cm_error(CM_EMPI, "no progress for %g s (waiting in %s), though "
                    "every rank answers: a rank may be much slower than the "
                    "others; the job is ended (%s; %s)", limit, what, how,
                    rule ? "give --timeout SEC or a larger --timeout-floor"
                         : "raise --timeout");
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
    const int round = strcmp(what, "the gossip exchange") == 0;
    double limit = wd_timeout;
    char rule[200];
    double t_all = wd_adaptive(rule, sizeof rule);
    if (t_all > 0) { /* the wait's part of the whole deadline */
        double g = t_all / 5 < 2 ? 2 : t_all / 5;
        limit = t_all - g > 0.5 ? t_all - g : 0.5;
    }
    for (unsigned spin = 0;; spin++) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            char s[MPI_MAX_ERROR_STRING];
            int l = 0;
            MPI_Error_string(rc, s, &l);
            return cm_error(CM_EMPI, "%s failed: %s", what, s);
        }
        if (done) {
            if (round && wd_floor > 0) { /* one more step interval */
                double now = cm_time_now();
                if (wd_last_done > 0) {
                    wd_hist[wd_hpos] = now - wd_last_done;
                    wd_hpos = (wd_hpos + 1) % WD_HIST;
                    wd_nh += wd_nh < WD_HIST;
                    wd_samples++;
                }
                wd_last_done = now;
            }
            return CM_OK;
        }
        if ((spin & 63) == 63) {
            wd_serve();
            if (cm_time_now() - t0 > limit) {
                double g = limit / 4 < 2 ? 2 : limit / 4 > 30 ? 30
                                                              : limit / 4;
                if (t_all > 0)
                    g = t_all - limit;
                return wd_fire(what, limit, g, t_all > 0 ? rule : NULL);
            }
            sched_yield();
        }
    }
}

cm_status dt_comm_set_timeout(double seconds)
{
    if (!dt_comm_world())
        return cm_error(CM_EMPI, "MPI is not initialized");
#ifdef DT_SMPI
    /* Under SimGrid's SMPI the clock is simulated and a test loop would
     * cost simulated time and solver work per spin; SimGrid reports a
     * deadlock itself. Every wait is a plain MPI_Wait (docs/smpi.md). */
    (void)seconds;
    wd_timeout = 0;
    return CM_OK;
#endif
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

void dt_comm_set_adaptive(double floor_s)
{
    wd_floor = floor_s > 0 ? floor_s : 0;
    wd_nh = wd_hpos = 0;
    wd_last_done = 0;
}

size_t dt_comm_silent_ranks(size_t *ranks, size_t cap)
{
    for (size_t i = 0; i < wd_n_silent && i < cap; i++)
        ranks[i] = wd_silent[i];
    return wd_n_silent < cap ? wd_n_silent : cap;
}

int dt_comm_timed_out(int *report)
{
    if (report)
        *report = wd_printer;
    return wd_fired;
}

/* The launcher process that started this rank: its parent, when that is
 * Open MPI's mpirun (orterun) or a remote host's daemon (orted); 0 for
 * anything else (a shell: a singleton run has no launcher to end). */
static pid_t launcher_pid(unsigned long long *start)
{
    pid_t pp = getppid();
    char path[64], buf[1024], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pp);
    int fd = open(path, O_RDONLY);
    ssize_t k = fd >= 0 ? read(fd, comm, sizeof comm - 1) : -1;
    if (fd >= 0)
        close(fd);
    comm[k > 0 ? k : 0] = '\0';
    comm[strcspn(comm, "\n")] = '\0';
    if (strcmp(comm, "mpirun") != 0 && strcmp(comm, "orterun") != 0 &&
        strcmp(comm, "mpiexec") != 0 && strcmp(comm, "orted") != 0)
        return 0;
    /* its start time (field 22 of /proc/PID/stat), so that the reaper
     * never signals a process that reused the pid */
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pp);
    fd = open(path, O_RDONLY);
    k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    const char *p = strrchr(buf, ')'); /* comm may hold spaces */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (!p)
        return 0;
    *start = strtoull(p + 1, NULL, 10);
    return pp;
}

/* 1 while pid is the process that started at `start`. */
static int same_process(pid_t pid, unsigned long long start)
{
    unsigned long long now = 0;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    const char *p = strrchr(buf, ')');
    if (p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
        return 0; /* exited, not yet reaped */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p)
        now = strtoull(p + 1, NULL, 10);
    return p && now == start;
}

/* A detached process (own session, no stdio) that ends the launcher with
 * SIGKILL if it is still alive DT_WD_LAUNCHER_GRACE s after this rank's
 * abort. Under a network partition Open MPI 4.1's mpirun waits for an
 * unreachable host's daemon (and the daemon for mpirun) until TCP gives
 * up, about 10 minutes. No SIGTERM first: the launcher is already
 * aborting (MPI_Abort), so a first SIGTERM only prints "abort is already
 * in progress...hit ctrl-c again", and a second (every rank under the
 * launcher has a reaper) takes Open MPI 4.1.4's forced exit, which
 * crashes mpirun in PMIx_Finalize (SIGSEGV, exit 139, a core file):
 * 4 runs of 4 on the namespace cluster, docs/train/across-hosts.md. */
static void spawn_reaper(void)
{
    unsigned long long start = 0;
    pid_t target = launcher_pid(&start);
    if (target <= 1)
        return;
    pid_t pid = fork();
    if (pid != 0)
        return; /* the rank (or a failed fork: nothing to do) */
    setsid();
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) { /* mpirun's output relay must not wait for us */
        dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
        if (fd > 2)
            close(fd);
    }
    for (int t = 0; t < 10 * DT_WD_LAUNCHER_GRACE; t++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        if (!same_process(target, start))
            _exit(0); /* the launcher ended by itself */
    }
    kill(target, SIGKILL);
    _exit(0);
}

void dt_comm_abort_job(int code)
{
    if (wd_fired) /* a timeout: the launcher may not end by itself */
        spawn_reaper();
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code); /* MPI_Abort does not return; if it did, leave anyway */
}


int dt_wd_fired(void) { return wd_fired; }
