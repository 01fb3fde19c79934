/* check_d2_mix.c: D^2's mixing matrix M = (1 - c) I + c W chosen by
 * dt_d2_mix_choose, against closed forms. The cube Q3 with Laplacian
 * weights has W = I - L/4, eigenvalues 1, 1/2, 0, -1/2: auto takes
 * c = 1.25 / 1.5 (lambda_min(M) = -1/4), whose M has eigenvalues 1, 7/12,
 * 1/6, -1/4, so SLEM 7/12. Time-varying sequences are refused.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "check_graphs.h"
#include "cm_mixing.h"
#include "cm_topo_seq.h"
#include "dt_d2_mix.h"
#include "tg_seq.h"

static void cube_round(cm_topo *t)
{
    cm_topo_destroy(t);
    hypercube(t, 3);
    ck_assert_int_eq(cm_topo_set_weights(t, CM_WEIGHTS_LAPLACIAN), CM_OK);
}

/* A static W (period 1): the formulas of the trainer before sequences. */
START_TEST(test_static_cube)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(cm_topo_seq_alloc(&s, 1, 8), CM_OK);
    cube_round(&s.round[0]);
    dt_d2_mix m;
    ck_assert_int_eq(dt_d2_mix_choose(&s, "q3.txt", 0.0, &m), CM_OK);
    ck_assert_double_eq_tol(m.c, 1.25 / 1.5, 1e-12);
    ck_assert_double_eq_tol(m.slem, 7.0 / 12.0, 1e-9);
    ck_assert_double_eq_tol(m.lmin, -0.5, 1e-9);
    /* half: (I + W)/2, eigenvalues (1 + lambda)/2: SLEM 3/4 */
    ck_assert_int_eq(dt_d2_mix_choose(&s, "q3.txt", 0.5, &m), CM_OK);
    ck_assert_double_eq_tol(m.slem, 0.75, 1e-9);
    /* W itself: lambda_min(M) = -1/2, refused naming the file */
    ck_assert_int_eq(dt_d2_mix_choose(&s, "q3.txt", 1.0, &m), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "on q3.txt"));
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "above -1/3"));
    ck_assert_ptr_null(strstr(cm_last_error(), "round"));
    cm_topo_seq_destroy(&s);
}
END_TEST

/* A time-varying sequence is refused before anything else, naming the
 * file, the period and the alternatives, whatever --d2-mixing says. */
START_TEST(test_sequence_refused)
{
    const tg_seq_kind kinds[] = {TG_SEQ_ONE_PEER_EXP, TG_SEQ_BASE};
    const size_t ns[] = {16, 12}, ds[] = {1, 2};
    const double cs[] = {0.0, 0.5, 1.0};
    for (size_t k = 0; k < 2; k++) {
        cm_topo_seq s;
        cm_topo_seq_init(&s);
        ck_assert_int_eq(tg_seq_build(&s, kinds[k], ns[k], ds[k]), CM_OK);
        ck_assert_uint_gt(s.period, 1);
        char period[32];
        snprintf(period, sizeof period, "(period %zu)", s.period);
        for (size_t j = 0; j < 3; j++) {
            dt_d2_mix m;
            ck_assert_int_eq(dt_d2_mix_choose(&s, "seq.txt", cs[j], &m),
                             CM_EINVAL);
            ck_assert_ptr_nonnull(strstr(cm_last_error(),
                                         "--algorithm d2 on seq.txt"));
            ck_assert_ptr_nonnull(strstr(cm_last_error(), period));
            ck_assert_ptr_nonnull(strstr(cm_last_error(), "gt or qgm"));
        }
        cm_topo_seq_destroy(&s);
    }
}
END_TEST

Suite *d2_mix_suite(void)
{
    Suite *s = suite_create("d2_mix");
    TCase *tc = tcase_create("choose");
    tcase_add_test(tc, test_static_cube);
    tcase_add_test(tc, test_sequence_refused);
    suite_add_tcase(s, tc);
    return s;
}
