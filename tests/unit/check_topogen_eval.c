/* check_topogen_eval.c: topo/measure/tg_eval.c: figures of disconnected graphs
 * (lambda_2 = 0, SLEM 1, components, infinite diameter and rounds), the
 * rounds-to-1e-3 rule at SLEM 0, exact powers and 1, the complete graph
 * (SLEM 0: one round), and the consensus simulation's bound. */
#include <math.h>
#include <stdlib.h>

#include <check.h>

#include "check_blas.h"

#include "cm_mixing.h"
#include "tg_eval.h"
#include "tg_graph.h"

START_TEST(rounds_rule)
{
    ck_assert_double_eq(tg_eval_rounds(0.0), 1.0);
    ck_assert_double_eq(tg_eval_rounds(1e-3), 1.0);
    ck_assert_double_eq(tg_eval_rounds(0.1), 3.0);   /* 0.1^3 = 1e-3 */
    ck_assert_double_eq(tg_eval_rounds(0.5), 10.0);  /* 2^-10 < 1e-3 */
    ck_assert(isinf(tg_eval_rounds(1.0)));
    ck_assert(isinf(tg_eval_rounds(1.5)));
    /* SLEM near 1: finite and large */
    double r = tg_eval_rounds(1.0 - 1e-6);
    ck_assert(isfinite(r) && r > 6.9e6 && r < 7.0e6);
}
END_TEST

START_TEST(disconnected)
{
    /* two triangles and an isolated node */
    size_t a[] = {0, 1, 2, 3, 4, 5}, b[] = {1, 2, 0, 4, 5, 3};
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 7, 6, a, b), CM_OK);
    for (int rule = 0; rule < 3; rule++) {
        ck_assert_int_eq(cm_topo_set_weights(&t, (cm_weight_rule)rule),
                         CM_OK);
        tg_eval e;
        ck_assert_int_eq(tg_eval_topo(&t, &e), CM_OK);
        ck_assert_uint_eq(e.components, 3);
        ck_assert_double_eq(e.l2, 0.0);
        ck_assert_double_eq(e.slem, 1.0);
        ck_assert(isinf(e.rounds));
        ck_assert(isinf(e.diameter));
        ck_assert_double_eq_tol(e.ln, 3.0, 1e-9); /* triangle: 3 */
        ck_assert_uint_eq(e.dmin, 0);
        ck_assert_uint_eq(e.dmax, 2);
    }
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(complete_and_two_nodes)
{
    for (size_t n = 2; n <= 9; n += 7) {
        cm_topo t;
        cm_topo_init(&t);
        ck_assert_int_eq(tg_kind_build(&t, TG_KIND_COMPLETE, n, 0, NULL),
                         CM_OK);
        ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN),
                         CM_OK);
        tg_eval e;
        ck_assert_int_eq(tg_eval_topo(&t, &e), CM_OK);
        ck_assert_uint_eq(e.components, 1);
        ck_assert_double_eq_tol(e.slem, 0.0, 1e-12); /* W = 11^T/n */
        ck_assert_double_eq(e.rounds, 1.0);
        ck_assert_double_eq(e.diameter, 1.0);
        ck_assert_double_eq_tol(e.l2, (double)n, 1e-9);
        cm_topo_destroy(&t);
    }
}
END_TEST

/* The simulation's disagreement never exceeds SLEM^t. */
START_TEST(simulation_bound)
{
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(tg_kind_build(&t, TG_KIND_TORUS, 16, 0, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    tg_eval e;
    ck_assert_int_eq(tg_eval_topo(&t, &e), CM_OK);
    double rel[31];
    ck_assert_int_eq(tg_simulate(&t, 30, 7, rel), CM_OK);
    ck_assert_double_eq(rel[0], 1.0);
    for (int r = 1; r <= 30; r++)
        ck_assert(rel[r] <= pow(e.slem, r) * (1 + 1e-9) + 1e-15);
    ck_assert(rel[30] < rel[1]);
    cm_topo_destroy(&t);
}
END_TEST

Suite *topogen_eval_suite(void)
{
    Suite *s = suite_create("topogen_eval");
    TCase *tc = tcase_create("eval");
    tcase_add_test(tc, rounds_rule);
    tcase_add_test(tc, disconnected);
    tcase_add_test(tc, complete_and_two_nodes);
    tcase_add_test(tc, simulation_bound);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
