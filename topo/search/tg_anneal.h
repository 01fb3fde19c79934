/* tg_anneal: the one cooling loop of topogen's searches (the undirected
 * search, with or without an energy hook such as n_eff, and the directed
 * search): the temperature schedule, the wall-clock deadline, the stop
 * flag and the progress tick. The caller's move callback proposes, scores
 * and accepts or rejects one move at the temperature it is given.
 *
 * Schedule: geometric, T_k = t0 (t1/t0)^(k/iters), kept as T_0 = t0 and
 * T_{k+1} = T_k * cool with cool = (t1/t0)^(1/iters) (so one seed gives
 * the same chain bit for bit as the searches' former loops). With a
 * deadline the run follows whichever is further along, moves or time,
 * so a run cut short by the clock still ends cold:
 *     T = min(T_k, t0 (t1/t0)^(elapsed/share)),
 * share = deadline - the run's start. Metropolis acceptance: a move from
 * energy e to e2 is taken iff e2 <= tg_anneal_threshold(e, T, u), u
 * uniform in [0, 1) drawn by the caller from its own stream.
 */
#ifndef TG_ANNEAL_H
#define TG_ANNEAL_H

#include <signal.h>
#include <stddef.h>

#include "cm_status.h"

typedef enum {
    TG_ANNEAL_DONE,      /* all iters moves made */
    TG_ANNEAL_STOPPED,   /* *stop became non-zero */
    TG_ANNEAL_TIMED_OUT  /* the deadline passed */
} tg_anneal_end;

typedef struct {
    double t0, t1;        /* start and end temperatures, > 0 */
    size_t iters;         /* moves */
    double deadline;      /* cm_time_now() to end by; INFINITY: none */
    const volatile sig_atomic_t *stop; /* or NULL; checked before each
                             move */
    /* move it (0-based) at temperature temp; a status other than CM_OK
     * ends the loop and is returned */
    cm_status (*move)(void *ctx, size_t it, double temp);
    /* or NULL: called before move it when it % tick_every == 0, with the
     * move's temperature and the clock (cm_time_now) */
    void (*tick)(void *ctx, size_t it, double temp, double now);
    size_t tick_every;    /* with tick: moves between calls (0: none) */
    void *ctx;            /* passed to move and tick */
} tg_anneal_loop;

/* Runs the loop: at most l->iters calls of l->move, in order, each after
 * the stop and deadline checks (and the tick when due); *end says why it
 * ended. CM_OK, or the first failing move's status. O(iters) besides the
 * moves; the clock is read only with a deadline or a tick due. */
cm_status tg_anneal_run(const tg_anneal_loop *l, tg_anneal_end *end);

/* The Metropolis threshold e - temp log u for u in [0, 1) (INFINITY for
 * u = 0: the move is always taken). */
double tg_anneal_threshold(double e, double temp, double u);

/* The deadline of a run starting now that gets an equal share of what is
 * left of a time limit among the `waves` runs (>= 1) still to come,
 * this one included: now + (start + limit - now) / waves; INFINITY when
 * limit <= 0 (none). */
double tg_anneal_deadline(double start, double limit, size_t waves);

/* 1 when run r of a search started at `start` may begin: run 0 always
 * (its start state at least counts), a later one unless *stop is set or
 * the time limit (<= 0: none) is spent. */
int tg_anneal_may_start(size_t r, const volatile sig_atomic_t *stop,
                        double start, double limit);

#endif
