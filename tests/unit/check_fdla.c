/* check_fdla.c: topo/tg_fdla.c, the FDLA weights and their certificate.
 *
 * Closed forms: on edge-transitive graphs (rings, hypercubes, Petersen,
 * K_{a,b}, complete graphs) the best constant Laplacian weights are optimal
 * (Xiao & Boyd 2004, Boyd et al. 2009), so FDLA must neither beat them by
 * more than the tolerance nor miss them, and its certified lower bound
 * must sit within the tolerance below. Invariants: W symmetric with rows
 * summing to 1, lower <= slem <= lower + tol, no perturbation of the
 * weights goes below the bound. Edge cases: one node, two nodes, a
 * disconnected graph, too many edges, a bad tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_blas.h"

#include "cm_rng.h"
#include "cm_mixing.h"
#include "cm_topo.h"
#include "tg_fdla.h"
#include "tg_graph.h"

/* t = kind(n, d), unweighted. */
static void built(cm_topo *t, tg_kind kind, size_t n, size_t d)
{
    cm_rng r;
    cm_rng_seed(&r, 3, 0);
    tg_graph g;
    tg_graph_init(&g);
    ck_assert_int_eq(tg_graph_build(&g, kind, n, d, &r), CM_OK);
    cm_topo_init(t);
    ck_assert_int_eq(tg_graph_to_topo(&g, t), CM_OK);
    tg_graph_destroy(&g);
}

/* SLEM of the best constant Laplacian weights, (ln - l2)/(ln + l2). */
static double constant_slem(const cm_topo *t)
{
    double l2, ln;
    ck_assert_int_eq(cm_topo_laplacian_extremes(t, &l2, &ln), CM_OK);
    return (ln - l2) / (ln + l2);
}

/* Asserts the invariants of a solved t: rows sum to 1, the file rules
 * hold, lower <= slem <= lower + tol, and res->slem is t's SLEM. */
static void assert_solved(const cm_topo *t, const tg_fdla_result *r)
{
    for (size_t i = 0; i < t->n; i++) {
        double s = t->self[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            s += t->adj_w[p];
        ck_assert_msg(fabs(s - 1.0) <= 1e-12, "row %zu sums to %.17g", i, s);
    }
    for (size_t k = 0; k < t->m; k++) /* W_ij = W_ji: CSR copies agree */
        for (size_t p = t->off[t->ej[k]]; p < t->off[t->ej[k] + 1]; p++)
            if (t->adj[p] == t->ei[k])
                ck_assert(t->adj_w[p] == t->ew[k]);
    ck_assert_int_eq(cm_topo_validate(t, "fdla"), CM_OK);
    double slem;
    ck_assert_int_eq(cm_topo_slem(t, &slem), CM_OK);
    ck_assert_double_eq_tol(slem, r->slem, 1e-12);
    ck_assert_msg(r->lower <= r->slem + 1e-12, "lower %.12g > slem %.12g",
                  r->lower, r->slem);
    ck_assert_msg(r->slem - r->lower <= TG_FDLA_TOL, "gap %.3g",
                  r->slem - r->lower);
}

START_TEST(edge_transitive_constant_is_optimal)
{
    static const struct { tg_kind kind; size_t n; } tab[] = {
        {TG_KIND_RING, 3}, {TG_KIND_RING, 5}, {TG_KIND_RING, 8},
        {TG_KIND_RING, 17}, {TG_KIND_HYPERCUBE, 8},
        {TG_KIND_HYPERCUBE, 16}, {TG_KIND_HYPERCUBE, 64},
        {TG_KIND_COMPLETE, 6}, {TG_KIND_TORUS, 16}};
    for (size_t k = 0; k < sizeof tab / sizeof *tab; k++) {
        cm_topo t;
        built(&t, tab[k].kind, tab[k].n, 0);
        double c = constant_slem(&t);
        tg_fdla_result r;
        ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
        assert_solved(&t, &r);
        ck_assert_msg(r.slem >= c - TG_FDLA_TOL && r.slem <= c + TG_FDLA_TOL,
                      "%s n=%zu: fdla %.9f, constant %.9f",
                      tg_kind_name(tab[k].kind), tab[k].n, r.slem, c);
        ck_assert_msg(r.lower >= c - 2 * TG_FDLA_TOL, "%s n=%zu: bound %.9f",
                      tg_kind_name(tab[k].kind), tab[k].n, r.lower);
        ck_assert_double_eq_tol(r.slem_start, c, 1e-12);
        cm_topo_destroy(&t);
    }
}
END_TEST

START_TEST(petersen_and_bipartite)
{
    /* Petersen: L spectrum {0, 2^5, 5^4}: constant SLEM 3/7. K_{3,5}: L
     * spectrum {0, 3^4, 5^2, 8}: (8 - 3)/(8 + 3) = 5/11. */
    size_t u[15], v[15], m = 0;
    for (size_t i = 0; i < 5; i++) {
        u[m] = i, v[m++] = (i + 1) % 5;
        u[m] = i, v[m++] = i + 5;
        u[m] = 5 + i, v[m++] = 5 + (i + 2) % 5;
    }
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 10, m, u, v), CM_OK);
    tg_fdla_result r;
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
    assert_solved(&t, &r);
    ck_assert_double_eq_tol(r.slem, 3.0 / 7.0, TG_FDLA_TOL);
    m = 0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 3; j < 8; j++)
            u[m] = i, v[m++] = j;
    ck_assert_int_eq(cm_topo_from_edges(&t, 8, m, u, v), CM_OK);
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
    assert_solved(&t, &r);
    ck_assert_double_eq_tol(r.slem, 5.0 / 11.0, TG_FDLA_TOL);
    ck_assert_double_eq_tol(r.lower, 5.0 / 11.0, TG_FDLA_TOL);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(irregular_beats_constant_with_negative_weights)
{
    /* A random 3-regular graph: FDLA strictly improves on the constant
     * weights and uses negative ones, and the file rules still accept W. */
    cm_topo t;
    built(&t, TG_KIND_RANDOM, 32, 3);
    double c = constant_slem(&t);
    tg_fdla_result r;
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
    assert_solved(&t, &r);
    ck_assert_msg(r.slem < c - 1e-3, "fdla %.6f vs constant %.6f", r.slem, c);
    ck_assert_uint_gt(r.negative, 0);
    ck_assert(r.min_weight < 0.0);
    size_t neg = 0;
    for (size_t k = 0; k < t.m; k++)
        neg += t.ew[k] < 0.0;
    ck_assert_uint_eq(neg, r.negative);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(bound_holds_under_perturbation)
{
    /* No W on the graph beats the certified bound: random symmetric
     * perturbations of the optimal edge weights (self weights rebalanced)
     * all have SLEM >= lower. */
    cm_topo t;
    built(&t, TG_KIND_RANDOM, 24, 4);
    tg_fdla_result r;
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
    double *w = malloc(t.m * sizeof *w);
    memcpy(w, t.ew, t.m * sizeof *w);
    cm_rng rng;
    cm_rng_seed(&rng, 11, 0);
    for (int trial = 0; trial < 40; trial++) {
        double scale = trial < 20 ? 1e-3 : 1e-5;
        for (size_t k = 0; k < t.m; k++)
            t.ew[k] = w[k] + scale * cm_rng_normal(&rng);
        for (size_t i = 0; i < t.n; i++) {
            double row = 0.0;
            for (size_t p = t.off[i]; p < t.off[i + 1]; p++) {
                size_t j = t.adj[p], a = i < j ? i : j, b = i < j ? j : i;
                for (size_t k = 0; k < t.m; k++)
                    if (t.ei[k] == a && t.ej[k] == b)
                        t.adj_w[p] = t.ew[k];
                row += t.adj_w[p];
            }
            t.self[i] = 1.0 - row;
        }
        double s;
        ck_assert_int_eq(cm_topo_slem(&t, &s), CM_OK);
        ck_assert_msg(s >= r.lower - 1e-12, "trial %d: %.12g < bound %.12g",
                      trial, s, r.lower);
    }
    free(w);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(deterministic)
{
    cm_topo a, b;
    built(&a, TG_KIND_RANDOM, 40, 4);
    built(&b, TG_KIND_RANDOM, 40, 4);
    tg_fdla_result ra, rb;
    ck_assert_int_eq(tg_fdla_weights(&a, TG_FDLA_TOL, &ra), CM_OK);
    ck_assert_int_eq(tg_fdla_weights(&b, TG_FDLA_TOL, &rb), CM_OK);
    ck_assert(memcmp(a.ew, b.ew, a.m * sizeof *a.ew) == 0);
    ck_assert(memcmp(a.self, b.self, a.n * sizeof *a.self) == 0);
    ck_assert(ra.lower == rb.lower && ra.newton == rb.newton);
    /* a looser tolerance stops earlier, still certified */
    ck_assert_int_eq(tg_fdla_weights(&b, 1e-2, &rb), CM_OK);
    ck_assert(rb.newton < ra.newton);
    ck_assert(rb.slem - rb.lower <= 1e-2 && rb.lower <= ra.slem + 1e-12);
    cm_topo_destroy(&a);
    cm_topo_destroy(&b);
}
END_TEST

START_TEST(edge_cases)
{
    cm_topo t;
    cm_topo_init(&t);
    tg_fdla_result r;
    /* one node: W = [1], SLEM 0 */
    ck_assert_int_eq(cm_topo_from_edges(&t, 1, 0, NULL, NULL), CM_OK);
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
    ck_assert(t.self[0] == 1.0 && r.slem == 0.0);
    /* two nodes: W = J exactly averages, SLEM 0, w = 1/2 */
    size_t a = 0, b = 1;
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, &a, &b), CM_OK);
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_OK);
    ck_assert_double_eq_tol(t.ew[0], 0.5, 1e-5);
    ck_assert_double_eq_tol(r.slem, 0.0, TG_FDLA_TOL);
    /* disconnected: 0-1, 2-3 */
    size_t u[2] = {0, 2}, v[2] = {1, 3};
    ck_assert_int_eq(cm_topo_from_edges(&t, 4, 2, u, v), CM_OK);
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_ETOPO);
    ck_assert(t.ew == NULL); /* unchanged on error */
    /* bad tolerance */
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, &a, &b), CM_OK);
    ck_assert_int_eq(tg_fdla_weights(&t, 0.0, &r), CM_EINVAL);
    ck_assert_int_eq(tg_fdla_weights(&t, NAN, &r), CM_EINVAL);
    cm_topo_destroy(&t);
    /* too many edges: K_92 has 4186 > TG_FDLA_MAX_EDGES = 2048 */
    built(&t, TG_KIND_COMPLETE, 92, 0);
    ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, &r), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "too many") != NULL);
    cm_topo_destroy(&t);
}
END_TEST

Suite *fdla_suite(void)
{
    Suite *s = suite_create("fdla");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, edge_transitive_constant_is_optimal);
    tcase_add_test(tc, petersen_and_bipartite);
    tcase_add_test(tc, irregular_beats_constant_with_negative_weights);
    tcase_add_test(tc, bound_holds_under_perturbation);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, edge_cases);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
