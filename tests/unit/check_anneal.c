/* check_anneal.c: the searches' one cooling loop (topo/search/tg_anneal):
 * the geometric schedule from t0 to t1, the stop flag, the deadline (a
 * run cut short ends on time and colder than its move count says), the
 * tick's stride, a failing move ending the loop with its status, the
 * Metropolis threshold, the time share and the restart gate. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include <check.h>

#include "cm_time.h"
#include "tg_anneal.h"

/* What the moves and ticks saw. */
typedef struct {
    size_t moves, ticks;
    double temp[64];
    size_t tick_it[64];
    volatile sig_atomic_t *stop;
    size_t stop_at;       /* set *stop after this many moves */
    size_t fail_at;       /* move index that fails (SIZE_MAX: none) */
    double sleep;         /* seconds each move takes */
} rec;

static cm_status rec_move(void *ctx, size_t it, double temp)
{
    rec *r = ctx;
    ck_assert_uint_eq(it, r->moves);
    if (r->moves < 64)
        r->temp[r->moves] = temp;
    r->moves++;
    if (r->stop && r->moves == r->stop_at)
        *r->stop = 1;
    if (r->sleep > 0.0) {
        double until = cm_time_now() + r->sleep;
        while (cm_time_now() < until) {
        }
    }
    return it == r->fail_at ? cm_error(CM_ENUMERIC, "move %zu failed", it)
                            : CM_OK;
}

static void rec_tick(void *ctx, size_t it, double temp, double now)
{
    rec *r = ctx;
    ck_assert(now > 0.0);
    ck_assert(temp > 0.0);
    if (r->ticks < 64)
        r->tick_it[r->ticks] = it;
    r->ticks++;
}

START_TEST(schedule_is_geometric)
{
    rec r = {0};
    r.fail_at = (size_t)-1;
    tg_anneal_loop l = {1e-2, 1e-4, 50, INFINITY, NULL, rec_move, NULL, 0,
                        &r};
    tg_anneal_end end;
    ck_assert_int_eq(tg_anneal_run(&l, &end), CM_OK);
    ck_assert_int_eq(end, TG_ANNEAL_DONE);
    ck_assert_uint_eq(r.moves, 50);
    ck_assert(r.temp[0] == 1e-2);
    for (size_t k = 0; k < 50; k++) {
        double want = 1e-2 * pow(1e-2, (double)k / 50.0);
        ck_assert_double_eq_tol(r.temp[k], want, 1e-12 * want + 1e-18);
        if (k)
            ck_assert(r.temp[k] < r.temp[k - 1]);
    }
    /* one move past the end would be at t1 */
    ck_assert_double_eq_tol(r.temp[49] * pow(1e-2, 1.0 / 50.0), 1e-4,
                            1e-15);
}
END_TEST

START_TEST(stop_flag_ends_the_loop)
{
    volatile sig_atomic_t stop = 0;
    rec r = {0};
    r.fail_at = (size_t)-1;
    r.stop = &stop;
    r.stop_at = 7;
    tg_anneal_loop l = {1.0, 0.01, 100, INFINITY, &stop, rec_move, NULL, 0,
                        &r};
    tg_anneal_end end;
    ck_assert_int_eq(tg_anneal_run(&l, &end), CM_OK);
    ck_assert_int_eq(end, TG_ANNEAL_STOPPED);
    ck_assert_uint_eq(r.moves, 7); /* checked before every move */
    /* a search with the flag set starts no restart but the first */
    ck_assert_int_eq(tg_anneal_may_start(0, &stop, cm_time_now(), 0.0), 1);
    ck_assert_int_eq(tg_anneal_may_start(1, &stop, cm_time_now(), 0.0), 0);
    stop = 0;
    ck_assert_int_eq(tg_anneal_may_start(1, &stop, cm_time_now(), 0.0), 1);
}
END_TEST

START_TEST(deadline_cools_on_the_clock)
{
    rec r = {0};
    r.fail_at = (size_t)-1;
    r.sleep = 0.002;
    /* 0.05 s for 1,000 moves of 2 ms: cut short after 25 moves at most */
    tg_anneal_loop l = {1.0, 1e-3, 1000, cm_time_now() + 0.05, NULL,
                        rec_move, NULL, 0, &r};
    tg_anneal_end end;
    ck_assert_int_eq(tg_anneal_run(&l, &end), CM_OK);
    ck_assert_int_eq(end, TG_ANNEAL_TIMED_OUT);
    ck_assert(r.moves <= 26); /* each move takes 2 ms at least */
    /* on the clock: move k starts at least 2k ms in, so T <= t0
     * (t1/t0)^(0.04 k), far colder than the move count's (t1/t0)^(k/1000) */
    for (size_t k = 1; k < r.moves; k++)
        ck_assert(r.temp[k] <= pow(1e-3, 0.04 * (double)k) * (1.0 + 1e-12));
    /* the share of what is left among the runs still to come */
    double start = cm_time_now();
    double d = tg_anneal_deadline(start, 10.0, 4);
    ck_assert(d > start + 2.4 && d <= cm_time_now() + 2.5);
    ck_assert(isinf(tg_anneal_deadline(start, 0.0, 4)));
    ck_assert_int_eq(tg_anneal_may_start(1, NULL, start - 11.0, 10.0), 0);
    ck_assert_int_eq(tg_anneal_may_start(1, NULL, start, 10.0), 1);
}
END_TEST

START_TEST(tick_stride_and_failure)
{
    rec r = {0};
    r.fail_at = 40;
    tg_anneal_loop l = {1.0, 0.1, 100, INFINITY, NULL, rec_move, rec_tick,
                        16, &r};
    tg_anneal_end end;
    ck_assert_int_eq(tg_anneal_run(&l, &end), CM_ENUMERIC);
    ck_assert_uint_eq(r.moves, 41); /* moves 0..40, the last one failed */
    ck_assert_uint_eq(r.ticks, 3);  /* before moves 0, 16 and 32 */
    ck_assert_uint_eq(r.tick_it[0], 0);
    ck_assert_uint_eq(r.tick_it[1], 16);
    ck_assert_uint_eq(r.tick_it[2], 32);
}
END_TEST

START_TEST(metropolis_threshold)
{
    ck_assert(isinf(tg_anneal_threshold(0.5, 0.1, 0.0)));
    ck_assert_double_eq_tol(tg_anneal_threshold(0.5, 0.1, exp(-2.0)), 0.7,
                            1e-15);
    /* u close to 1: hardly any uphill move passes */
    ck_assert(tg_anneal_threshold(0.5, 0.1, 1.0 - 1e-12) - 0.5 < 1e-12);
}
END_TEST

Suite *anneal_suite(void)
{
    Suite *s = suite_create("anneal");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, schedule_is_geometric);
    tcase_add_test(tc, stop_flag_ends_the_loop);
    tcase_add_test(tc, deadline_cools_on_the_clock);
    tcase_add_test(tc, tick_stride_and_failure);
    tcase_add_test(tc, metropolis_threshold);
    suite_add_tcase(s, tc);
    return s;
}
