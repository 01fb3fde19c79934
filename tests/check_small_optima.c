/* check_small_optima.c: the default search finds the exhaustive optimum
 * where data/small-optima.tsv (scripts/exact-small.py: every connected
 * d-regular graph from nauty's geng) says it does: K_{3,3} (1/3), the
 * 8-node 4-regular optimum (1/3: l2/ln = 1/2), the Petersen graph (3/7)
 * and the 12-node 4-regular optimum (2/5). SLEM with optimal Laplacian
 * weights, (ln - l2)/(ln + l2), to 1e-9. */
#include <math.h>

#include <check.h>

#include "cm_mixing.h"
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

Suite *small_optima_suite(void)
{
    Suite *s = suite_create("small_optima");
    TCase *tc = tcase_create("geng_optima");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, known_optima);
    suite_add_tcase(s, tc);
    return s;
}
