/* check_weights.c: the jobs done once: cm_topo_edge_index (every edge of
 * a graph at its index, an absent edge at its insertion point),
 * cm_topo_install_weights (installing a rule's per-edge weights gives
 * cm_topo_set_weights's adj_w and self bit for bit, also in place from
 * t->ew), cm_topo_alloc_weights (a weightless topology gets room that
 * install fills), and tg_search_opts_resolve (automatic settings become
 * the defaults' values, explicit ones are kept, twice is once). */
#include <string.h>

#include <check.h>

#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_groups.h"
#include "tg_search.h"

static void random_regular(cm_topo *t, size_t n, size_t d, uint64_t seed)
{
    tg_graph g;
    tg_graph_init(&g);
    cm_rng rng;
    cm_rng_seed(&rng, seed, 0);
    ck_assert_int_eq(tg_graph_build(&g, TG_KIND_RANDOM, n, d, &rng), CM_OK);
    cm_topo_init(t);
    ck_assert_int_eq(tg_graph_to_topo(&g, t), CM_OK);
    tg_graph_destroy(&g);
}

START_TEST(edge_index)
{
    cm_topo t;
    random_regular(&t, 30, 4, 3);
    for (size_t k = 0; k < t.m; k++)
        ck_assert_uint_eq(cm_topo_edge_index(&t, t.ei[k], t.ej[k]), k);
    /* 0 - 29 absent? its insertion point keeps the order */
    size_t k = cm_topo_edge_index(&t, 0, 29);
    ck_assert(k <= t.m);
    if (k < t.m)
        ck_assert(t.ei[k] > 0 || t.ej[k] >= 29);
    ck_assert_uint_eq(cm_topo_edge_index(&t, 29, 30), t.m);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(install_equals_set_weights)
{
    static const cm_weight_rule rules[] = {CM_WEIGHTS_LAPLACIAN,
                                           CM_WEIGHTS_MH, CM_WEIGHTS_MAXDEG};
    for (size_t r = 0; r < 3; r++) {
        cm_topo a, b;
        random_regular(&a, 40, 3, 7);
        random_regular(&b, 40, 3, 7);
        ck_assert_int_eq(cm_topo_set_weights(&a, rules[r]), CM_OK);
        ck_assert_int_eq(cm_topo_alloc_weights(&b), CM_OK);
        ck_assert_int_eq(cm_topo_install_weights(&b, a.ew), CM_OK);
        ck_assert(memcmp(a.ew, b.ew, a.m * sizeof *a.ew) == 0);
        ck_assert(memcmp(a.adj_w, b.adj_w, 2 * a.m * sizeof *a.adj_w) == 0);
        ck_assert(memcmp(a.self, b.self, a.n * sizeof *a.self) == 0);
        /* in place, from its own ew */
        ck_assert_int_eq(cm_topo_install_weights(&b, b.ew), CM_OK);
        ck_assert(memcmp(a.adj_w, b.adj_w, 2 * a.m * sizeof *a.adj_w) == 0);
        ck_assert(memcmp(a.self, b.self, a.n * sizeof *a.self) == 0);
        cm_topo_destroy(&a);
        cm_topo_destroy(&b);
    }
}
END_TEST

START_TEST(search_defaults_resolved_once)
{
    tg_search_opts o, r;
    tg_search_opts_default(&o);
    o.n = 128;
    o.groups = 4;
    r = o;
    tg_search_opts_resolve(&r);
    ck_assert_uint_eq(r.iters, tg_search_default_iters(128, 4));
    ck_assert_uint_eq(r.restarts, tg_search_default_restarts(128));
    ck_assert_uint_eq(r.candidates, tg_search_default_candidates(128));
    ck_assert_int_eq(r.solver, TG_SOLVER_SPARSE); /* 128 >= 96 */
    ck_assert_double_eq(r.t0, tg_search_default_t0(128));
    ck_assert_double_eq(r.t1, r.t0 / 100.0);
    ck_assert_uint_eq(r.max_cross, tg_groups_min_cross(4));
    tg_search_opts twice = r;
    tg_search_opts_resolve(&twice);
    ck_assert(memcmp(&twice, &r, sizeof r) == 0);
    o.n = 32;
    o.iters = 7;
    o.t0 = 0.5;
    o.solver = TG_SOLVER_AUTO;
    o.groups = 0;
    tg_search_opts_resolve(&o);
    ck_assert_uint_eq(o.iters, 7);
    ck_assert_double_eq(o.t0, 0.5);
    ck_assert_double_eq(o.t1, 0.005);
    ck_assert_int_eq(o.solver, TG_SOLVER_DENSE);
    ck_assert_uint_eq(o.max_cross, 0);
}
END_TEST

Suite *weights_suite(void)
{
    Suite *s = suite_create("weights");
    TCase *tc = tcase_create("once");
    tcase_add_test(tc, edge_index);
    tcase_add_test(tc, install_equals_set_weights);
    tcase_add_test(tc, search_defaults_resolved_once);
    suite_add_tcase(s, tc);
    return s;
}
