/* check_diverge.c: the rules of dt_diverge (issue 41): a loss or a
 * consensus that explodes without a NaN stops the run with CM_ENUMERIC
 * and a message naming the rule and the values; the values of healthy
 * runs and unmeasured ones (NaN) pass; chance accuracy by its bound. */
#include <math.h>
#include <string.h>

#include <check.h>

#include "dt_diverge.h"

START_TEST(loss_rule)
{
    const double bound = DT_DIVERGE_LOSS * log(10.0); /* 23.03 */
    ck_assert_int_eq(dt_diverge_check(2.30, 0.0, 471.0, 10, 1, 32, 0.05),
                     CM_OK);
    ck_assert_int_eq(dt_diverge_check(bound * 0.999, 0.0, 471.0, 10, 1, 32,
                                      0.05), CM_OK);
    ck_assert_int_eq(dt_diverge_check(NAN, 0.0, 471.0, 10, 1, 32, 0.05),
                     CM_OK); /* not measured (step 0): the NaN check is
                                dt_check_finite's, at the step */
    ck_assert_int_eq(dt_diverge_check(bound * 1.001, 0.0, 471.0, 10, 2, 40,
                                      0.1), CM_ENUMERIC);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "training diverged at "
                                 "epoch 2 (step 40): the training loss"));
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "ln(10)"));
}
END_TEST

START_TEST(consensus_rule)
{
    /* the largest consensus of a run that trained in data/: 59.6 */
    ck_assert_int_eq(dt_diverge_check(2.0, 59.6, 471.3, 10, 3, 96, 0.05),
                     CM_OK);
    ck_assert_int_eq(dt_diverge_check(2.0, 0.25 * 471.3 * 0.999, 471.3, 10,
                                      3, 96, 0.05), CM_OK);
    ck_assert_int_eq(dt_diverge_check(2.30, 326.0, 471.3, 10, 5, 300, 0.05),
                     CM_ENUMERIC); /* GT, H = 5, that ended at 9.8% */
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "the consensus distance "
                                 "326 exceeds 0.25 x the initial model's "
                                 "squared norm 471.3"));
    /* a zero-norm start has no scale: only the loss rule applies */
    ck_assert_int_eq(dt_diverge_check(2.0, 1e6, 0.0, 10, 1, 1, 0.05), CM_OK);
    ck_assert_int_eq(dt_diverge_check(2.0, NAN, 471.3, 10, 1, 1, 0.05),
                     CM_OK);
}
END_TEST

START_TEST(chance)
{
    ck_assert(dt_at_chance(0.0996, 10));
    ck_assert(dt_at_chance(0.1499, 10));
    ck_assert(!dt_at_chance(0.15, 10));
    ck_assert(!dt_at_chance(0.93, 10));
    ck_assert(!dt_at_chance(0.0, 0));
}
END_TEST

Suite *diverge_suite(void)
{
    Suite *s = suite_create("diverge");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, loss_rule);
    tcase_add_test(tc, consensus_rule);
    tcase_add_test(tc, chance);
    suite_add_tcase(s, tc);
    return s;
}
