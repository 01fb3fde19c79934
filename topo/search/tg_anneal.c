/* tg_anneal.c: the searches' cooling loop (see tg_anneal.h). */
#include "tg_anneal.h"

#include <math.h>

#include "cm_time.h"

cm_status tg_anneal_run(const tg_anneal_loop *l, tg_anneal_end *end)
{
    double t0 = l->t0, t1 = l->t1;
    double cool = pow(t1 / t0, 1.0 / (double)(l->iters > 1 ? l->iters : 1));
    double sched = t0, begin = cm_time_now();
    int timed = isfinite(l->deadline);
    *end = TG_ANNEAL_DONE;
    for (size_t it = 0; it < l->iters; it++, sched *= cool) {
        if (l->stop && *l->stop) {
            *end = TG_ANNEAL_STOPPED;
            return CM_OK;
        }
        int tick = l->tick && l->tick_every && it % l->tick_every == 0;
        double temp = sched, now = timed || tick ? cm_time_now() : 0.0;
        if (timed) {
            double tf = (now - begin) / (l->deadline - begin);
            if (tf >= 1.0) {
                *end = TG_ANNEAL_TIMED_OUT;
                return CM_OK;
            }
            temp = fmin(temp, t0 * pow(t1 / t0, tf));
        }
        if (tick)
            l->tick(l->ctx, it, temp, now);
        cm_status st = l->move(l->ctx, it, temp);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

double tg_anneal_threshold(double e, double temp, double u)
{
    return u > 0.0 ? e - temp * log(u) : INFINITY;
}

double tg_anneal_deadline(double start, double limit, size_t waves)
{
    if (!(limit > 0.0))
        return INFINITY;
    double now = cm_time_now();
    return now + (start + limit - now) / (double)(waves ? waves : 1);
}

int tg_anneal_may_start(size_t r, const volatile sig_atomic_t *stop,
                        double start, double limit)
{
    if (r == 0)
        return 1;
    if (stop && *stop)
        return 0;
    return !(limit > 0.0 && cm_time_now() - start >= limit);
}
