/* check_mixing.c: src/cm_mixing.c: the Laplacian extremes and the SLEM
 * against closed forms (ring, complete, hypercube, Petersen) within 1e-9,
 * the weight rules (stochastic, symmetric), components and disconnected
 * graphs, and the dense limit refused with a message before allocating. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_graphs.h"

#include "cm_mixing.h"

START_TEST(test_spectra_closed_forms)
{
    cm_topo t;
    double l2, ln;
    cm_topo_init(&t);
    for (size_t n = 3; n <= 12; n++) {
        ring(&t, n);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, 2 - 2 * cos(2 * M_PI / n), 1e-9);
        double want = n % 2 ? 2 - 2 * cos(M_PI * (n - 1) / n) : 4.0;
        ck_assert_double_eq_tol(ln, want, 1e-9);
    }
    for (size_t n = 2; n <= 20; n += 3) {
        complete(&t, n);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, (double)n, 1e-9);
        ck_assert_double_eq_tol(ln, (double)n, 1e-9);
    }
    for (size_t k = 1; k <= 6; k++) {
        hypercube(&t, k);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, 2.0, 1e-9);
        ck_assert_double_eq_tol(ln, 2.0 * k, 1e-9);
    }
    petersen(&t);
    ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
    ck_assert_double_eq_tol(l2, 2.0, 1e-9);
    ck_assert_double_eq_tol(ln, 5.0, 1e-9);
    /* Laplacian weights on Petersen: SLEM = (5 - 2)/(5 + 2) */
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    double slem;
    ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, 3.0 / 7.0, 1e-9);
    /* validation hands back the same SLEM; none for an unweighted graph */
    double vs;
    ck_assert_int_eq(cm_topo_validate_slem(&t, "p", &vs), CM_OK);
    ck_assert(vs == slem);
    petersen(&t);
    ck_assert_int_eq(cm_topo_validate_slem(&t, "p", &vs), CM_OK);
    ck_assert(vs == -1.0);
    /* lambda_2(W), lambda_min(W): Petersen with W = I - (2/7) L has
     * 3/7 and -3/7; an even ring with max-degree weights W = I - L/3 has
     * 1 - (2 - 2 cos(2 pi/n))/3 and -1/3 (D^2's limit exactly) */
    double w2, wmin;
    ck_assert_int_eq(cm_topo_w_extremes(&t, &w2, &wmin), CM_EINVAL);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    ck_assert_int_eq(cm_topo_w_extremes(&t, &w2, &wmin), CM_OK);
    ck_assert_double_eq_tol(w2, 3.0 / 7.0, 1e-9);
    ck_assert_double_eq_tol(wmin, -3.0 / 7.0, 1e-9);
    ring(&t, 8);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MAXDEG), CM_OK);
    ck_assert_int_eq(cm_topo_w_extremes(&t, &w2, &wmin), CM_OK);
    ck_assert_double_eq_tol(w2, 1 - (2 - 2 * cos(2 * M_PI / 8)) / 3, 1e-9);
    ck_assert_double_eq_tol(wmin, -1.0 / 3.0, 1e-9);
    /* the whole range: lambda_max(W) = 1 for a stochastic W */
    double lo, hi;
    ck_assert_int_eq(cm_topo_w_range(&t, &lo, &hi), CM_OK);
    ck_assert_double_eq_tol(lo, -1.0 / 3.0, 1e-9);
    ck_assert_double_eq_tol(hi, 1.0, 1e-9);
    petersen(&t);
    ck_assert_int_eq(cm_topo_w_range(&t, &lo, &hi), CM_EINVAL);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    ck_assert_int_eq(cm_topo_w_range(&t, &lo, &hi), CM_OK);
    ck_assert_double_eq_tol(lo, -3.0 / 7.0, 1e-9);
    ck_assert_double_eq_tol(hi, 1.0, 1e-9);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_weight_rules_stochastic)
{
    cm_topo t;
    cm_topo_init(&t);
    for (int rule = 0; rule < 3; rule++) {
        for (int g = 0; g < 3; g++) {
            if (g == 0) ring(&t, 9);
            if (g == 1) petersen(&t);
            if (g == 2) { /* a star with a tail: degrees differ */
                size_t ei[] = {0, 0, 0, 0, 4}, ej[] = {1, 2, 3, 4, 5};
                ck_assert_int_eq(cm_topo_from_edges(&t, 6, 5, ei, ej), CM_OK);
            }
            ck_assert_int_eq(cm_topo_set_weights(&t, (cm_weight_rule)rule),
                             CM_OK);
            ck_assert_int_eq(cm_topo_validate(&t, "w"), CM_OK);
            for (size_t i = 0; i < t.n; i++) {
                double s = t.self[i];
                for (size_t p = t.off[i]; p < t.off[i + 1]; p++) {
                    s += t.adj_w[p];
                    /* symmetry: find W_ji */
                    size_t j = t.adj[p];
                    int found = 0;
                    for (size_t q = t.off[j]; q < t.off[j + 1]; q++)
                        if (t.adj[q] == i) {
                            ck_assert_double_eq(t.adj_w[q], t.adj_w[p]);
                            found = 1;
                        }
                    ck_assert(found);
                }
                ck_assert_double_eq_tol(s, 1.0, 1e-12);
            }
        }
    }
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_from_edges_rejects)
{
    cm_topo t;
    cm_topo_init(&t);
    size_t a[] = {0, 1}, b[] = {1, 0};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 2, a, b), CM_EINVAL);
    size_t c[] = {0}, d[] = {0};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, c, d), CM_EINVAL);
    size_t e[] = {0}, f[] = {2};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, e, f), CM_EINVAL);
    /* two nodes, one edge: the smallest connected case */
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, a, a + 1), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    double slem;
    ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, 0.0, 1e-12); /* alpha = 1/2: exact average */
    cm_topo_destroy(&t);
}
END_TEST

/* Components and the dense-size limit, refused before allocating. */
START_TEST(test_components_and_limits)
{
    cm_topo t;
    cm_topo_init(&t);
    size_t a[] = {0, 2, 3}, b[] = {1, 3, 4};
    ck_assert_int_eq(cm_topo_from_edges(&t, 6, 3, a, b), CM_OK);
    size_t comp[6], count = 0;
    ck_assert_int_eq(cm_topo_components(&t, comp, &count), CM_OK);
    ck_assert_uint_eq(count, 3);
    ck_assert_uint_eq(comp[0], 0);
    ck_assert_uint_eq(comp[1], 0);
    ck_assert_uint_eq(comp[2], 1);
    ck_assert_uint_eq(comp[4], 1);
    ck_assert_uint_eq(comp[5], 2);
    ck_assert_int_eq(cm_topo_check_connected(&t, "x"), CM_ETOPO);
    /* disconnected graphs get weights: SLEM 1 */
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    double slem = 0;
    ck_assert_int_eq(cm_topo_slem(&t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, 1.0, 1e-12);
    /* above the dense limit the sparse path answers (a long ring, whose
     * ends are too close to the rest of its spectrum for Lanczos alone:
     * shift-and-invert), never allocating n^2 */
    size_t n = CM_MIXING_DENSE_MAX + 1;
    size_t *ei = malloc(n * sizeof *ei), *ej = malloc(n * sizeof *ej);
    for (size_t i = 0; i < n; i++) {
        ei[i] = i;
        ej[i] = (i + 1) % n;
    }
    ck_assert_int_eq(cm_topo_from_edges(&t, n, n, ei, ej), CM_OK);
    double l2, ln, sn = sin(3.14159265358979323846 / (double)n);
    ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
    ck_assert_double_eq_tol(l2, 4.0 * sn * sn, 1e-9 * l2);
    /* mh weights on a big ring: validated with their SLEM 1 - l2/3 */
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    ck_assert_int_eq(cm_topo_validate_slem(&t, "big", &slem), CM_OK);
    ck_assert_double_eq_tol(slem, 1.0 - 4.0 * sn * sn / 3.0, 1e-12);
    free(ei);
    free(ej);
    cm_topo_destroy(&t);
}
END_TEST

/* A circulant on n nodes: i ~ i + 1, i + 61, i + 277 (mod n). */
static void circulant(cm_topo *t, size_t n)
{
    static const size_t hop[3] = {1, 61, 277};
    size_t *ei = malloc(3 * n * sizeof *ei), *ej = malloc(3 * n * sizeof *ej);
    ck_assert_ptr_nonnull(ei);
    ck_assert_ptr_nonnull(ej);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 3; k++) {
            ei[3 * i + k] = i;
            ej[3 * i + k] = (i + hop[k]) % n;
        }
    ck_assert_int_eq(cm_topo_from_edges(t, n, 3 * n, ei, ej), CM_OK);
    free(ej);
    free(ei);
}

/* The Laplacian ends travel with the graph as a value: set by the
 * laplacian weights (the very bits a solve gives), taken by
 * cm_topo_spectra without a second solve, gone with a rebuild. 3000
 * nodes: the sparse path (CM_SPARSE_FROM). */
START_TEST(test_laplacian_ends_passed_on)
{
    cm_topo t;
    cm_topo_init(&t);
    circulant(&t, 3000);
    ck_assert(t.n >= CM_SPARSE_FROM);
    ck_assert_int_eq(t.lap_known, 0);
    double l2, ln, slem;
    ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
    /* 6-regular: lambda_n <= 2d = 12, which this circulant reaches
     * exactly; the solver's rounding lands on either side of it (AVX-512
     * kernels: 12.000000000000004), so the bound has a margin */
    ck_assert(l2 > 0.0 && ln > l2 && ln <= 12.0 * (1.0 + 1e-12));
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    ck_assert_int_eq(t.lap_known, 1);
    ck_assert(t.lap_l2 == l2 && t.lap_ln == ln);
    /* cm_topo_spectra takes the recorded value: a changed one shows */
    t.lap_l2 = l2 / 2;
    double a, b;
    ck_assert_int_eq(cm_topo_spectra(&t, &a, &b, &slem), CM_OK);
    ck_assert(a == l2 / 2 && b == ln);
    circulant(&t, 3000); /* rebuilt: nothing recorded */
    ck_assert_int_eq(t.lap_known, 0);
    cm_topo_destroy(&t);
}
END_TEST

Suite *mixing_suite(void)
{
    Suite *s = suite_create("mixing");
    TCase *tc = tcase_create("spectra_closed_forms");
    tcase_add_test(tc, test_spectra_closed_forms);
    suite_add_tcase(s, tc);
    tc = tcase_create("weight_rules_stochastic");
    tcase_add_test(tc, test_weight_rules_stochastic);
    tcase_add_test(tc, test_from_edges_rejects);
    suite_add_tcase(s, tc);
    tc = tcase_create("components_and_dense_limit");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_components_and_limits);
    tcase_add_test(tc, test_laplacian_ends_passed_on);
    suite_add_tcase(s, tc);
    return s;
}
