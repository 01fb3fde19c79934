/* check_optim.c: SGD with momentum and weight decay, and the learning-
 * rate schedules (warm-up, cosine, step, const), against closed forms. */
#include <check.h>

#include "dt_optim.h"

START_TEST(test_optimizer)
{
    float v[3] = {1, 2, 3}, g[3] = {0.5f, -1, 0}, x[3] = {1, 1, -2};
    dt_sgd_velocity(v, g, x, 3, 0.9f, 0.1f);
    /* v = 0.9 v + g + 0.1 x */
    ck_assert_float_eq_tol(v[0], 0.9f + 0.5f + 0.1f, 1e-6f);
    ck_assert_float_eq_tol(v[1], 1.8f - 1.0f + 0.1f, 1e-6f);
    ck_assert_float_eq_tol(v[2], 2.7f - 0.2f, 1e-6f);
    dt_sgd_apply(x, v, 3, 0.5f);
    ck_assert_float_eq_tol(x[0], 1.0f - 0.75f, 1e-6f);
    dt_sched s = {.kind = DT_SCHED_COSINE, .lr = 0.1, .warmup = 1,
                  .total = 11, .step_epochs = 2, .gamma = 0.5};
    ck_assert_double_eq_tol(dt_sched_lr(&s, 0.0), 0.01, 1e-12);
    ck_assert_double_eq_tol(dt_sched_lr(&s, 0.5), 0.055, 1e-12);
    ck_assert_double_eq_tol(dt_sched_lr(&s, 1.0), 0.1, 1e-12);
    ck_assert_double_eq_tol(dt_sched_lr(&s, 6.0), 0.05, 1e-12);
    ck_assert_double_eq_tol(dt_sched_lr(&s, 11.0), 0.0, 1e-12);
    s.kind = DT_SCHED_STEP;
    ck_assert_double_eq_tol(dt_sched_lr(&s, 2.9), 0.1, 1e-12);
    ck_assert_double_eq_tol(dt_sched_lr(&s, 3.0), 0.05, 1e-12);
    ck_assert_double_eq_tol(dt_sched_lr(&s, 5.5), 0.025, 1e-12);
    s.kind = DT_SCHED_CONST;
    s.warmup = 0;
    ck_assert_double_eq_tol(dt_sched_lr(&s, 0.0), 0.1, 1e-12);
    dt_sched_kind k;
    ck_assert_int_eq(dt_sched_parse("linear", &k), CM_EINVAL);
    ck_assert_int_eq(dt_sched_parse("step", &k), CM_OK);
    ck_assert_int_eq(k, DT_SCHED_STEP);
}
END_TEST

Suite *optim_suite(void)
{
    Suite *s = suite_create("optim");
    TCase *tc = tcase_create("update_and_schedules");
    tcase_add_test(tc, test_optimizer);
    suite_add_tcase(s, tc);
    return s;
}
