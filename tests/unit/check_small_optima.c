/* check_small_optima.c: the default search finds the exhaustive optimum
 * where data/small-optima.tsv (scripts/experiments/exact-small.py: every connected
 * d-regular graph from nauty's geng) says it does: K_{3,3} (1/3), the
 * 8-node 4-regular optimum (1/3: l2/ln = 1/2), the Petersen graph (3/7)
 * and the 12-node 4-regular optimum (2/5). SLEM with optimal Laplacian
 * weights, (ln - l2)/(ln + l2), to 1e-9; the catalogue of extremal graphs
 * (topo/graph/tg_catalog.c) that topogen checks the search against for
 * n <= 20. */
#include <math.h>

#include <check.h>

#include "cm_mixing.h"
#include "tg_catalog.h"
#include "tg_graph.h"
#include "tg_search.h"

START_TEST(known_optima)
{
    static const struct {
        size_t n, d;
        double slem;
    } tab[] = {{6, 3, 1.0 / 3.0}, {8, 4, 1.0 / 3.0}, {10, 3, 3.0 / 7.0},
               {12, 4, 0.4}};
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        tg_search_opts o;
        tg_search_opts_default(&o);
        o.n = tab[c].n;
        o.d = tab[c].d;
        o.threads = 1; /* the graph does not depend on it */
        tg_graph g;
        tg_graph_init(&g);
        tg_search_result res;
        ck_assert_int_eq(tg_search_run(&o, &g, &res), CM_OK);
        cm_topo t;
        cm_topo_init(&t);
        ck_assert_int_eq(tg_graph_to_topo(&g, &t), CM_OK);
        double l2, ln;
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        double slem = (ln - l2) / (ln + l2);
        ck_assert_msg(slem <= tab[c].slem + 1e-9, "n=%zu d=%zu: SLEM %.12f, "
                      "optimum %.12f", tab[c].n, tab[c].d, slem, tab[c].slem);
        cm_topo_destroy(&t);
        tg_graph_destroy(&g);
    }
}
END_TEST

/* The catalogue's graphs: d-regular, connected, and their SLEMs with
 * optimal Laplacian weights from their closed-form spectra. */
START_TEST(catalogue)
{
    double r13 = sqrt(13.0), r2 = sqrt(2.0);
    static const struct {
        size_t n, d;
    } tab[] = {{10, 5}, {10, 3}, {14, 3}, {13, 6}, {17, 8}, {9, 4}, {16, 6},
               {16, 5}, {12, 9}, {12, 8}};
    double want[] = {1.0 / 3.0,            /* K_{5,5}: 5, 10 */
                     3.0 / 7.0,            /* Petersen: 2, 5 */
                     (3.0 + r2) / (9.0 - r2), /* Heawood: 3 -+ sqrt 2, 6 */
                     1.0 / r13,            /* Paley(13) */
                     1.0 / sqrt(17.0),     /* Paley(17) */
                     1.0 / 3.0,            /* rook 3x3: 3, 6 */
                     1.0 / 3.0,            /* rook 4x4: 4, 8 */
                     1.0 / 3.0,            /* Clebsch: 4, 8 */
                     1.0 / 7.0,            /* K_{3,3,3,3}: 9, 12 */
                     0.2};                 /* K_{4,4,4}: 8, 12 */
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        size_t n = tab[c].n, d = tab[c].d;
        ck_assert_uint_ge(tg_catalog_count(n, d), 1);
        cm_topo t;
        cm_topo_init(&t);
        const char *name;
        ck_assert_int_eq(tg_catalog_build(n, d, 0, &t, &name), CM_OK);
        size_t lo, hi;
        cm_topo_degree_range(&t, &lo, &hi);
        ck_assert_uint_eq(lo, d);
        ck_assert_uint_eq(hi, d);
        ck_assert_int_eq(cm_topo_check_connected(&t, name), CM_OK);
        double l2, ln;
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_msg(fabs((ln - l2) / (ln + l2) - want[c]) < 1e-9,
                      "%s: SLEM %.12f, expected %.12f", name,
                      (ln - l2) / (ln + l2), want[c]);
        cm_topo_destroy(&t);
    }
    cm_topo t;
    cm_topo_init(&t);
    const char *name;
    ck_assert_int_eq(tg_catalog_count(12, 4), 0);
    ck_assert_int_eq(tg_catalog_build(12, 4, 0, &t, &name), CM_EINVAL);
}
END_TEST

Suite *small_optima_suite(void)
{
    Suite *s = suite_create("small_optima");
    TCase *tc = tcase_create("geng_optima");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, known_optima);
    tcase_add_test(tc, catalogue);
    suite_add_tcase(s, tc);
    return s;
}
