/* check_loop.c: the training-loop driver both modes share. Steps run in
 * order with the schedule's learning rate at step/S epochs; evaluations
 * come at epoch ends and every eval_every steps; stop_after ends the run
 * after that epoch's evaluation; a resumed run starts at its step; the
 * first failure stops the loop and is returned. */
#include <stdint.h>

#include <check.h>

#include "dt_loop.h"

typedef struct {
    size_t steps, evals, epoch_ends;
    size_t next_step;       /* the step expected next */
    size_t eval_at[32];     /* steps done at each evaluation */
    size_t fail_at;         /* step that fails (SIZE_MAX: none) */
    size_t prev_eval;       /* steps done at the previous evaluation */
    double eval_lr[32];     /* the rate each evaluation reported */
    const dt_loop_plan *p;
} trace;

static cm_status on_step(void *ctx, size_t step, double lr)
{
    trace *t = ctx;
    ck_assert_uint_eq(step, t->next_step);
    double want = dt_sched_lr(&t->p->sched,
                              (double)step / (double)t->p->steps_per_epoch);
    ck_assert(lr == want);
    t->next_step++;
    t->steps++;
    if (step == t->fail_at)
        return cm_error(CM_EIO, "step %zu failed", step);
    return CM_OK;
}

static cm_status on_eval(void *ctx, size_t done, double lr, int epoch_end)
{
    trace *t = ctx;
    ck_assert_uint_eq(done, t->next_step);
    /* the rate the row's steps were trained at: the first step's since
     * the previous evaluation, not the last step's or the one after */
    double want = dt_sched_lr(&t->p->sched, (double)t->prev_eval /
                                                (double)t->p->steps_per_epoch);
    ck_assert(lr == want);
    t->prev_eval = done;
    ck_assert_int_eq(epoch_end, done % t->p->steps_per_epoch == 0);
    if (t->evals < 32) {
        t->eval_at[t->evals] = done;
        t->eval_lr[t->evals] = lr;
    }
    t->evals++;
    t->epoch_ends += (size_t)epoch_end;
    return CM_OK;
}

static void plan_of(dt_loop_plan *p, size_t S, size_t epochs)
{
    dt_config cfg;
    dt_config_default(&cfg);
    cfg.epochs = epochs;
    cfg.schedule = DT_SCHED_COSINE;
    cfg.warmup = 1.0;
    dt_loop_plan_init(p, &cfg, S);
}

static size_t run(const dt_loop_plan *p, trace *t, size_t start,
                  cm_status want)
{
    const dt_loop_body b = {.step = on_step, .evaluate = on_eval, .ctx = t};
    size_t step = start;
    t->p = p;
    t->next_step = start;
    t->prev_eval = start;
    ck_assert_int_eq(dt_loop_run(p, &b, &step), want);
    return step;
}

START_TEST(test_epochs_and_eval_every)
{
    dt_loop_plan p;
    plan_of(&p, 5, 3);
    trace t = {.fail_at = SIZE_MAX};
    ck_assert_uint_eq(run(&p, &t, 0, CM_OK), 15);
    ck_assert_uint_eq(t.steps, 15);
    ck_assert_uint_eq(t.evals, 3);
    ck_assert_uint_eq(t.eval_at[2], 15);
    /* every 4 steps too: 4 8 12 and the epoch ends 5 10 15 */
    p.eval_every = 4;
    trace u = {.fail_at = SIZE_MAX};
    run(&p, &u, 0, CM_OK);
    static const size_t want[] = {4, 5, 8, 10, 12, 15};
    ck_assert_uint_eq(u.evals, 6);
    ck_assert_uint_eq(u.epoch_ends, 3);
    for (size_t k = 0; k < 6; k++)
        ck_assert_uint_eq(u.eval_at[k], want[k]);
    /* cosine with one warm-up epoch: the first epoch's row reports lr/10,
     * the rate of its first step (its last step already ran at
     * lr/10 + 0.9 lr 4/5), the third epoch's the rate at 2 epochs */
    ck_assert(t.eval_lr[0] == dt_sched_lr(&p.sched, 0.0));
    ck_assert(t.eval_lr[0] < dt_sched_lr(&p.sched, 0.8));
    ck_assert(t.eval_lr[2] == dt_sched_lr(&p.sched, 2.0));
    ck_assert(t.eval_lr[2] > dt_sched_lr(&p.sched, 2.8));
    /* with --eval-every 4: the row at 5 steps reports step 4's rate */
    ck_assert(u.eval_lr[1] == dt_sched_lr(&p.sched, 0.8));
}
END_TEST

START_TEST(test_stop_after_and_resume)
{
    dt_loop_plan p;
    plan_of(&p, 4, 5);
    p.stop_after = 2;
    trace t = {.fail_at = SIZE_MAX};
    ck_assert_uint_eq(run(&p, &t, 0, CM_OK), 8);
    ck_assert_uint_eq(t.evals, 2);
    /* resumed at step 8: steps 8..19, the learning rates of an
     * uninterrupted run (checked in on_step) */
    p.stop_after = 0;
    trace u = {.fail_at = SIZE_MAX};
    ck_assert_uint_eq(run(&p, &u, 8, CM_OK), 20);
    ck_assert_uint_eq(u.steps, 12);
    ck_assert_uint_eq(u.eval_at[0], 12);
    /* one step per epoch, one epoch: a single step and evaluation */
    plan_of(&p, 1, 1);
    trace v = {.fail_at = SIZE_MAX};
    ck_assert_uint_eq(run(&p, &v, 0, CM_OK), 1);
    ck_assert_uint_eq(v.evals, 1);
    /* zero epochs: nothing runs */
    plan_of(&p, 3, 0);
    trace z = {.fail_at = SIZE_MAX};
    ck_assert_uint_eq(run(&p, &z, 0, CM_OK), 0);
    ck_assert_uint_eq(z.steps + z.evals, 0);
}
END_TEST

START_TEST(test_failure_stops)
{
    dt_loop_plan p;
    plan_of(&p, 4, 3);
    trace t = {.fail_at = 6};
    ck_assert_uint_eq(run(&p, &t, 0, CM_EIO), 6);
    ck_assert_uint_eq(t.steps, 7);
    ck_assert_uint_eq(t.evals, 1); /* after step 4 only */
}
END_TEST

Suite *loop_suite(void)
{
    Suite *s = suite_create("loop");
    TCase *tc = tcase_create("eval_cadence");
    tcase_add_test(tc, test_epochs_and_eval_every);
    suite_add_tcase(s, tc);
    tc = tcase_create("stop_and_resume");
    tcase_add_test(tc, test_stop_after_and_resume);
    suite_add_tcase(s, tc);
    tc = tcase_create("failure_stops");
    tcase_add_test(tc, test_failure_stops);
    suite_add_tcase(s, tc);
    return s;
}
