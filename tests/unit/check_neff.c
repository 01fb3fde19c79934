/* check_neff.c: topo/measure/tg_neff.c (n_eff: closed form, Lyapunov solve,
 * Monte Carlo, stochastic estimate), topo/weights/tg_neff_weights.c (optimal
 * weights with a certificate, the alpha scan) and topo/kinds/tg_digraph.c
 * (permutation, directed exponential and epidemic graphs).
 *
 * Closed forms: W = I gives 1 and W = J gives n, by every path. The
 * closed form equals the Lyapunov solve to 1e-10 and the Monte Carlo of
 * the walk within 4 standard errors; directed and periodic Lyapunov
 * solves equal their Monte Carlo within 4 standard errors. The optimal
 * weights beat laplacian, mh, maxdeg and fdla on the same graph, with a
 * certified gap. Bad input: gamma outside (0, 1), a W that is not doubly
 * stochastic (the message names the node). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_blas.h"

#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_digraph.h"
#include "tg_fdla.h"
#include "tg_graph.h"
#include "tg_neff.h"
#include "tg_neff_search.h"
#include "tg_neff_weights.h"
#include "tg_search.h"
#include "tg_seq.h"

/* t = kind(n, d) with the rule's weights. */
static void built(cm_topo *t, tg_kind kind, size_t n, size_t d,
                  cm_weight_rule rule)
{
    cm_rng r;
    cm_rng_seed(&r, 5, 0);
    cm_topo_init(t);
    ck_assert_int_eq(tg_kind_build(t, kind, n, d, &r), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(t, rule), CM_OK);
}

static double dense_neff(const cm_topo *t, double gamma)
{
    double *w = malloc(t->n * t->n * sizeof *w), v = 0;
    tg_neff_fill_dense(t, w);
    const double *ws[1] = {w};
    ck_assert_int_eq(tg_neff_dense(ws, 1, t->n, gamma, &v), CM_OK);
    free(w);
    return v;
}

START_TEST(identity_and_average)
{
    const double gs[3] = {0.5, 0.951, 0.99};
    double out[3];
    /* W = I: no edges */
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 7, 0, NULL, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    ck_assert_int_eq(tg_neff_topo(&t, gs, 3, out), CM_OK);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(out[k], 1.0, 1e-12);
        ck_assert_double_eq_tol(dense_neff(&t, gs[k]), 1.0, 1e-12);
    }
    cm_topo_destroy(&t);
    /* W = J: the complete graph with maxdeg weights 1/n */
    built(&t, TG_KIND_COMPLETE, 9, 0, CM_WEIGHTS_MAXDEG);
    ck_assert_int_eq(tg_neff_topo(&t, gs, 3, out), CM_OK);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(out[k], 9.0, 1e-9);
        ck_assert_double_eq_tol(dense_neff(&t, gs[k]), 9.0, 1e-9);
    }
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(closed_form_equals_lyapunov_and_monte_carlo)
{
    cm_topo t;
    built(&t, TG_KIND_RANDOM, 32, 4, CM_WEIGHTS_MH);
    const double gs[2] = {0.9, 0.951};
    double cf[2];
    ck_assert_int_eq(tg_neff_topo(&t, gs, 2, cf), CM_OK);
    for (int k = 0; k < 2; k++) {
        double ly = dense_neff(&t, gs[k]);
        ck_assert_msg(fabs(ly - cf[k]) <= 1e-10 * cf[k],
                      "gamma %g: closed form %.15g, Lyapunov %.15g", gs[k],
                      cf[k], ly);
        double mc, err;
        ck_assert_int_eq(tg_neff_mc(t.n, tg_neff_apply_topo, &t, gs[k], 32,
                                    0, 3, &mc, &err),
                         CM_OK);
        ck_assert(err > 0.0 && err < 0.05 * cf[k]);
        ck_assert_msg(fabs(mc - cf[k]) <= 4.0 * err,
                      "gamma %g: Monte Carlo %.4f +- %.4f, exact %.4f",
                      gs[k], mc, err, cf[k]);
    }
    /* the laplacian weights give a different value: the test can fail */
    cm_topo u;
    built(&u, TG_KIND_RANDOM, 32, 4, CM_WEIGHTS_LAPLACIAN);
    double lap;
    ck_assert_int_eq(tg_neff_topo(&u, gs, 1, &lap), CM_OK);
    ck_assert(fabs(lap - cf[0]) > 0.1);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(directed_permutations)
{
    size_t n = 40, s = 3, perm[3 * 40], perm2[3 * 40];
    cm_rng r;
    cm_rng_seed(&r, 9, 0);
    ck_assert_int_eq(tg_digraph_random_perms(n, s, &r, perm), CM_OK);
    cm_rng_seed(&r, 9, 0);
    ck_assert_int_eq(tg_digraph_random_perms(n, s, &r, perm2), CM_OK);
    ck_assert(memcmp(perm, perm2, sizeof perm) == 0); /* same seed */
    for (size_t i = 0; i < n; i++)
        for (size_t p = 0; p < s; p++) {
            ck_assert(perm[p * n + i] != i);
            for (size_t q = 0; q < p; q++)
                ck_assert(perm[p * n + i] != perm[q * n + i]);
        }
    tg_digraph g;
    tg_digraph_init(&g);
    ck_assert_int_eq(tg_digraph_from_perms(&g, n, s, perm), CM_OK);
    ck_assert_uint_eq(g.m, n * s);
    ck_assert_double_eq_tol(tg_digraph_messages(&g), 3.0, 1e-15);
    double *w = malloc(n * n * sizeof *w);
    tg_digraph_dense(&g, w);
    const double *ws[1] = {w};
    double ly, mc, err;
    ck_assert_int_eq(tg_neff_dense(ws, 1, n, 0.9, &ly), CM_OK);
    ck_assert_int_eq(tg_neff_mc(n, tg_digraph_apply, &g, 0.9, 32, 0, 4, &mc,
                                &err), CM_OK);
    ck_assert_msg(fabs(mc - ly) <= 4.0 * err, "MC %.4f +- %.4f, exact %.4f",
                  mc, err, ly);
    ck_assert(ly > 1.0 && ly < (double)n);
    /* the sparse series equals the dense solve */
    double tyx;
    ck_assert_int_eq(tg_neff_series(n, tg_digraph_apply, &g, 0.9, &tyx, NULL),
                     CM_OK);
    double ser = tg_neff_from_trace(n, 0.9, 1.0 / (1.0 - 0.9) + tyx);
    ck_assert_msg(fabs(ser - ly) <= 1e-10 * ly, "series %.15g, dense %.15g",
                  ser, ly);
    /* the estimator on the same graph, many probes: within 3 % */
    double ty;
    ck_assert_int_eq(tg_neff_estimate(n, tg_digraph_apply, &g, 0.9, 256,
                                      400, 1, &ty, NULL), CM_OK);
    double est = tg_neff_from_trace(n, 0.9, 1.0 / (1.0 - 0.9) + ty);
    ck_assert_msg(fabs(est - ly) <= 0.03 * ly, "estimate %.4f, exact %.4f",
                  est, ly);
    /* not doubly stochastic: the message names the node */
    w[0 * n + 0] += 0.25;
    w[0 * n + perm[0]] -= 0.25; /* row 0 still sums to 1, column not */
    w[1 * n + 1] += 0.0;
    ck_assert_int_eq(tg_neff_dense(ws, 1, n, 0.9, &ly), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "node") != NULL);
    ck_assert_int_eq(tg_neff_dense(ws, 1, n, 1.0, &ly), CM_EINVAL);
    free(w);
    tg_digraph_destroy(&g);
}
END_TEST

/* A directed topology in the file's form (cm_topo_from_arcs, what the
 * reader builds) gets the Lyapunov n_eff through tg_neff_topo, the value
 * topogen eval prints, and m arcs count as m / n messages per node. */
START_TEST(directed_topo_uses_lyapunov)
{
    size_t n = 24, s = 2, perm[2 * 24], src[2 * 24], dst[2 * 24];
    cm_rng r;
    cm_rng_seed(&r, 5, 0);
    ck_assert_int_eq(tg_digraph_random_perms(n, s, &r, perm), CM_OK);
    for (size_t p = 0; p < s; p++)
        for (size_t i = 0; i < n; i++) {
            src[p * n + i] = i;
            dst[p * n + i] = perm[p * n + i];
        }
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_arcs(&t, n, s * n, src, dst, NULL), CM_OK);
    ck_assert_int_eq(t.directed, 1);
    double *w = malloc(n * n * sizeof *w);
    tg_neff_fill_dense(&t, w);
    const double *ws[1] = {w};
    double g[2] = {0.5, 0.951}, got[2], want;
    ck_assert_int_eq(tg_neff_topo(&t, g, 2, got), CM_OK);
    for (size_t k = 0; k < 2; k++) {
        ck_assert_int_eq(tg_neff_dense(ws, 1, n, g[k], &want), CM_OK);
        ck_assert_double_eq_tol(got[k], want, 1e-12 * want);
    }
    /* the symmetric closed form would differ: W is not symmetric */
    ck_assert_double_eq_tol(tg_neff_messages_topo(&t), (double)s, 1e-15);
    free(w);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(directed_exponential)
{
    tg_digraph g;
    tg_digraph_init(&g);
    ck_assert_int_eq(tg_digraph_exp(&g, 16), CM_OK);
    ck_assert_uint_eq(g.m, 16 * 4);
    for (size_t k = 0; k < g.m; k++) {
        size_t d = (g.dst[k] + 16 - g.src[k]) % 16;
        ck_assert(d == 1 || d == 2 || d == 4 || d == 8);
        ck_assert_double_eq_tol(g.w[k], 0.2, 1e-15);
    }
    for (size_t i = 0; i < 16; i++)
        ck_assert_double_eq_tol(g.self[i], 0.2, 1e-15);
    ck_assert_int_eq(tg_digraph_exp(&g, 1), CM_EINVAL);
    tg_digraph_destroy(&g);
}
END_TEST

/* Round t applies seq[t mod P] (for the Monte Carlo). */
typedef struct {
    const cm_topo_seq *s;
} seq_ctx;

static cm_status apply_seq(void *ctx, size_t round, size_t n, size_t reps,
                           const double *x, double *y)
{
    const seq_ctx *c = ctx;
    return tg_neff_apply_topo(&c->s->round[round % c->s->period], round, n,
                              reps, x, y);
}

START_TEST(periodic_sequence)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_ONE_PEER_EXP, 16, 1), CM_OK);
    size_t n = 16, P = s.period;
    ck_assert_uint_eq(P, 4);
    double *w = malloc(P * n * n * sizeof *w);
    const double *ws[8];
    for (size_t p = 0; p < P; p++) {
        tg_neff_fill_dense(&s.round[p], w + p * n * n);
        ws[p] = w + p * n * n;
    }
    double ly, mc, err;
    ck_assert_int_eq(tg_neff_dense(ws, P, n, 0.9, &ly), CM_OK);
    seq_ctx c = {&s};
    ck_assert_int_eq(tg_neff_mc(n, apply_seq, &c, 0.9, 64, 0, 2, &mc, &err),
                     CM_OK);
    ck_assert_msg(fabs(mc - ly) <= 4.0 * err, "MC %.4f +- %.4f, exact %.4f",
                  mc, err, ly);
    /* exact averaging after 4 rounds: better than any single round */
    double one;
    ck_assert_int_eq(tg_neff_dense(ws, 1, n, 0.9, &one), CM_OK);
    ck_assert(ly > one);
    free(w);
    cm_topo_seq_destroy(&s);
}
END_TEST

/* n_eff of t with the rule's (or FDLA's) weights. */
static double neff_with(const cm_topo *src, int rule, double gamma)
{
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, src->n, src->m, src->ei,
                                        src->ej), CM_OK);
    if (rule < 0)
        ck_assert_int_eq(tg_fdla_weights(&t, TG_FDLA_TOL, NULL), CM_OK);
    else
        ck_assert_int_eq(cm_topo_set_weights(&t, (cm_weight_rule)rule),
                         CM_OK);
    double v;
    ck_assert_int_eq(tg_neff_topo(&t, &gamma, 1, &v), CM_OK);
    cm_topo_destroy(&t);
    return v;
}

START_TEST(optimal_weights_beat_the_rules)
{
    static const struct {
        tg_kind kind;
        size_t n, d;
    } cases[] = {{TG_KIND_RANDOM, 48, 4},
                 {TG_KIND_RRL, 40, 4},
                 {TG_KIND_TORUS, 30, 0}};
    const double gs[2] = {0.951, 0.5};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int g = 0; g < 2; g++) {
            cm_topo t;
            built(&t, cases[c].kind, cases[c].n, cases[c].d,
                  CM_WEIGHTS_MH);
            tg_neff_weights_result r, ra;
            ck_assert_int_eq(tg_neff_weights(&t, gs[g], &r), CM_OK);
            ck_assert_int_eq(cm_topo_validate(&t, "neff"), CM_OK);
            double best = r.neff;
            ck_assert(r.newton > 0);
            ck_assert(r.neff_upper >= r.neff);
            ck_assert_msg(r.neff_upper - r.neff <= 1e-6 * r.neff,
                          "case %zu gamma %g: gap %.3g", c, gs[g],
                          r.neff_upper - r.neff);
            for (int rule = -1; rule <= (int)CM_WEIGHTS_MAXDEG; rule++) {
                double v = neff_with(&t, rule, gs[g]);
                ck_assert_msg(best >= v - 1e-9 * v, "case %zu rule %d: %.6f "
                              "beats the optimum %.6f", c, rule, v, best);
                ck_assert(v <= r.neff_upper);
            }
            /* the alpha scan sits between MH-like rules and the optimum */
            ck_assert_int_eq(tg_neff_alpha(&t, gs[g], &ra), CM_OK);
            ck_assert(ra.neff <= best + 1e-9 * best);
            ck_assert(ra.neff >= neff_with(&t, CM_WEIGHTS_LAPLACIAN, gs[g]) -
                                     1e-9);
            ck_assert(ra.neff >= neff_with(&t, CM_WEIGHTS_MAXDEG, gs[g]) -
                                     1e-9);
            cm_topo_destroy(&t);
        }
}
END_TEST

START_TEST(weights_edge_cases)
{
    cm_topo t;
    built(&t, TG_KIND_RING, 8, 0, CM_WEIGHTS_MH);
    tg_neff_weights_result r;
    ck_assert_int_eq(tg_neff_weights(&t, 0.0, &r), CM_EINVAL);
    ck_assert_int_eq(tg_neff_weights(&t, 1.0, &r), CM_EINVAL);
    ck_assert_int_eq(tg_neff_alpha(&t, -1.0, &r), CM_EINVAL);
    /* deterministic */
    cm_topo u;
    built(&u, TG_KIND_RING, 8, 0, CM_WEIGHTS_MH);
    ck_assert_int_eq(tg_neff_weights(&t, 0.9, &r), CM_OK);
    ck_assert_int_eq(tg_neff_weights(&u, 0.9, &r), CM_OK);
    ck_assert(memcmp(t.ew, u.ew, t.m * sizeof *t.ew) == 0);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
    /* two nodes: one edge, the optimum averages exactly (n_eff = 2) */
    size_t a = 0, b = 1;
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, &a, &b), CM_OK);
    ck_assert_int_eq(tg_neff_weights(&t, 0.9, &r), CM_OK);
    ck_assert_double_eq_tol(r.neff, 2.0, 1e-6);
    cm_topo_destroy(&t);
    /* gamma list parsing */
    double g[TG_NEFF_MAX_GAMMAS];
    size_t k;
    ck_assert_int_eq(tg_neff_parse_gammas("0.5,0.9,0.951", "--gamma", g, &k),
                     CM_OK);
    ck_assert_uint_eq(k, 3);
    ck_assert_double_eq(g[2], 0.951);
    ck_assert_int_eq(tg_neff_parse_gammas("0.5,,1", "--gamma", g, &k),
                     CM_EINVAL);
    ck_assert_int_eq(tg_neff_parse_gammas("1", "--gamma", g, &k), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "--gamma") != NULL);
}
END_TEST

START_TEST(epidemic_monte_carlo)
{
    size_t n = 32, s = 3;
    tg_neff_epidemic ep = {s, 0, 5, {0}};
    cm_topo_init(&ep.t);
    double mc, err;
    ck_assert_int_eq(tg_neff_mc(n, tg_neff_apply_epidemic, &ep, 0.9, 16, 0, 5,
                                &mc, &err), CM_OK);
    /* fresh permutations every round mix at least as well as fixed ones */
    size_t perm[3 * 32];
    cm_rng r;
    cm_rng_seed(&r, 2, 0);
    ck_assert_int_eq(tg_digraph_random_perms(n, s, &r, perm), CM_OK);
    tg_digraph g;
    tg_digraph_init(&g);
    ck_assert_int_eq(tg_digraph_from_perms(&g, n, s, perm), CM_OK);
    double *w = malloc(n * n * sizeof *w), st;
    tg_digraph_dense(&g, w);
    const double *ws[1] = {w};
    ck_assert_int_eq(tg_neff_dense(ws, 1, n, 0.9, &st), CM_OK);
    ck_assert_msg(mc + 4.0 * err >= st, "epidemic %.3f +- %.3f, static %.3f",
                  mc, err, st);
    ck_assert(mc < (double)n);
    /* a drawn round is a directed topology: the series equals the dense
     * solve on it, and the Monte Carlo of that one round repeated */
    ck_assert_int_eq(cm_topo_epidemic_draw(&ep.t, n, s, 0, 5, 7), CM_OK);
    double ty, one, mc1, err1;
    ck_assert_int_eq(tg_neff_series(n, tg_neff_apply_topo, &ep.t, 0.9, &ty,
                                    NULL), CM_OK);
    one = tg_neff_from_trace(n, 0.9, 1.0 / (1.0 - 0.9) + ty);
    ck_assert_int_eq(tg_neff_mc(n, tg_neff_apply_topo, &ep.t, 0.9, 32, 0, 6,
                                &mc1, &err1), CM_OK);
    ck_assert_msg(fabs(mc1 - one) <= 4.0 * err1, "MC %.3f +- %.3f, series "
                  "%.3f", mc1, err1, one);
    ep.local = 1;
    ck_assert_int_eq(tg_neff_mc(n, tg_neff_apply_epidemic, &ep, 0.9, 16, 0, 5,
                                &mc, &err), CM_OK);
    ck_assert(mc > 1.0 && mc < (double)n && err > 0.0);
    free(w);
    cm_topo_destroy(&ep.t);
    tg_digraph_destroy(&g);
}
END_TEST

/* The search with the n_eff hook: the low-rank-updated energy equals the
 * closed form of the result (after thousands of updates and refreshes),
 * the search improves on its start, threads do not change the graph. */
START_TEST(search_objective_exact_updates)
{
    tg_neff_hook_cfg cfg = {0.951, TG_NEFF_PROBES, -1, 1};
    tg_energy_hook hook;
    tg_neff_hook(&hook, &cfg);
    tg_search_opts o;
    tg_search_opts_default(&o);
    o.n = 40;
    o.d = 4;
    o.obj = TG_OBJ_NEFF;
    o.hook = &hook;
    o.iters = 6000;
    o.restarts = 2;
    o.t0 = 0.01; /* hot: many accepted moves, so refreshes happen */
    o.threads = 1;
    tg_graph g, h;
    tg_graph_init(&g);
    tg_graph_init(&h);
    tg_search_result r, r2;
    ck_assert_int_eq(tg_search_run(&o, &g, &r), CM_OK);
    ck_assert_msg(r.accepted > 2 * TG_NEFF_REFRESH, "%zu accepted", r.accepted);
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(tg_graph_to_topo(&g, &t), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    double exact;
    ck_assert_int_eq(tg_neff_topo(&t, &cfg.gamma, 1, &exact), CM_OK);
    double from_energy = (1.0 - r.energy) * 40.0;
    ck_assert_msg(fabs(from_energy - exact) <= 1e-8 * exact,
                  "search energy says %.12f, closed form %.12f", from_energy,
                  exact);
    ck_assert(r.energy < r.start_energy);
    o.threads = 2;
    ck_assert_int_eq(tg_search_run(&o, &h, &r2), CM_OK);
    ck_assert(memcmp(g.eu, h.eu, g.m * sizeof *g.eu) == 0 &&
              memcmp(g.ev, h.ev, g.m * sizeof *g.ev) == 0);
    cm_topo_destroy(&t);
    tg_graph_destroy(&g);
    tg_graph_destroy(&h);
}
END_TEST

Suite *neff_suite(void)
{
    Suite *s = suite_create("neff");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, identity_and_average);
    tcase_add_test(tc, closed_form_equals_lyapunov_and_monte_carlo);
    tcase_add_test(tc, directed_permutations);
    tcase_add_test(tc, directed_topo_uses_lyapunov);
    tcase_add_test(tc, directed_exponential);
    tcase_add_test(tc, periodic_sequence);
    tcase_add_test(tc, optimal_weights_beat_the_rules);
    tcase_add_test(tc, weights_edge_cases);
    tcase_add_test(tc, epidemic_monte_carlo);
    tcase_add_test(tc, search_objective_exact_updates);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}
