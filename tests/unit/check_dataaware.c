/* check_dataaware.c: the data-aware pieces of topogen. The counts file
 * reader (strict, messages with file:line) and writer round trip; H
 * against a direct computation of (1/n)||(W - J) Pi||_F^2; the LAP
 * against brute force; STL-FW's objective decreases every iteration and
 * its W is doubly stochastic with at most budget in- and out-neighbours;
 * D-Cliques' cliques each hold every class (shards:1); the search's
 * incremental H equals a recomputation after random swaps, and the
 * data-aware search lowers H. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_labels.h"
#include "cm_mixing.h"
#include "cm_rng.h"
#include "tg_dcliques.h"
#include "tg_digraph.h"
#include "tg_digraph_search.h"
#include "tg_graph.h"
#include "tg_hetero.h"
#include "tg_lap.h"
#include "tg_search.h"
#include "tg_search_hetero.h"
#include "tg_stlfw.h"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* A skewed random partition: n workers, k classes, a few classes each. */
static void make_labels(cm_labels *l, size_t n, size_t k, uint64_t seed)
{
    cm_labels_init(l);
    l->n = n;
    l->k = k;
    l->count = calloc(n * k, sizeof *l->count);
    ck_assert_ptr_nonnull(l->count);
    cm_rng r;
    cm_rng_seed(&r, seed, 0);
    for (size_t i = 0; i < n; i++) {
        l->count[i * k + cm_rng_below(&r, k)] += 50 + cm_rng_below(&r, 50);
        l->count[i * k + cm_rng_below(&r, k)] += cm_rng_below(&r, 20);
    }
}

START_TEST(test_labels_file)
{
    char dir[] = "/tmp/check_da.XXXXXX", p[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    cm_labels l, m;
    make_labels(&l, 7, 4, 3);
    cm_labels_set_identity(&l, "synthetic", "dirichlet:0.1", 5, 1234);
    snprintf(p, sizeof p, "%s/c.txt", dir);
    ck_assert_int_eq(cm_labels_save(&l, p, "two\ncomment lines"), CM_OK);
    cm_labels_init(&m);
    ck_assert_int_eq(cm_labels_read(&m, p), CM_OK);
    ck_assert_uint_eq(m.n, 7);
    ck_assert_uint_eq(m.k, 4);
    ck_assert_mem_eq(m.count, l.count, 28 * sizeof *l.count);
    ck_assert_str_eq(m.identity, l.identity);
    char v[64];
    ck_assert_int_eq(cm_labels_identity_get(m.identity, "partition", v,
                                            sizeof v), 0);
    ck_assert_str_eq(v, "dirichlet:0.1");
    ck_assert_int_eq(cm_labels_identity_get(m.identity, "seed", v,
                                            sizeof v), 0);
    ck_assert_str_eq(v, "5");
    ck_assert_int_ne(cm_labels_identity_get(m.identity, "nope", v,
                                            sizeof v), 0);
    /* bad files: one message naming the file and the line */
    static const struct { const char *text, *msg; } bad[] = {
        {"1 2\n3 -4\n", ":2: expected a non-negative integer count"},
        {"1 2\n3 4 5\n", ":2: 3 counts, but the first worker's line has 2"},
        {"1 2\n0 0\n", ":2: worker 1 has no images"},
        {"# only a comment\n\n", "no worker line"},
        {"1 2.5\n", ":1: expected a non-negative integer count"},
        {"1 99999999999999999999\n", ":1: count too large"},
        {"# labels 1 workers=3\n1 2\n", "the header says workers=3"},
        {"# labels 1 workers=0\n1 2\n", ":1: bad workers=0"},
        {"1 2\r3\n", ":1: stray carriage return"},
        {"1 2\n3\x01\n", ":2: expected a non-negative integer count"},
    };
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        put(p, bad[b].text);
        ck_assert_int_eq(cm_labels_read(&m, p), CM_EFORMAT);
        ck_assert_msg(strstr(cm_last_error(), bad[b].msg) &&
                          strstr(cm_last_error(), "c.txt"),
                      "case %zu: '%s'", b, cm_last_error());
        ck_assert_ptr_null(m.count);
    }
    FILE *f = fopen(p, "w"); /* an embedded NUL, and an over-long line */
    fputs("1 2\n3", f);
    fputc(0, f);
    fputs(" 4\n", f);
    fclose(f);
    ck_assert_int_eq(cm_labels_read(&m, p), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), ":2: NUL byte"));
    f = fopen(p, "w");
    for (int i = 0; i < 40000; i++)
        fputs("1 ", f);
    fclose(f);
    ck_assert_int_eq(cm_labels_read(&m, p), CM_EFORMAT);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "line longer than"));
    snprintf(p, sizeof p, "%s/missing.txt", dir);
    ck_assert_int_eq(cm_labels_read(&m, p), CM_EIO);
    put(p, "5 0 0\n0 0 5\n");
    ck_assert_int_eq(cm_labels_read(&m, p), CM_OK); /* no header is fine */
    ck_assert_str_eq(m.identity, "");
    ck_assert_uint_eq(cm_labels_classes_of(&m, 0), 1);
    cm_labels_destroy(&m);
    cm_labels_destroy(&l);
    snprintf(p, sizeof p, "rm -rf %s", dir);
    ck_assert_int_eq(system(p), 0);
}
END_TEST

/* H = (1/n) ||(W - J) Pi||_F^2 by the definition: the dense product with
 * J = 11^T/n, in long double. */
static double direct_h(size_t n, size_t k, const double *W, const double *pi)
{
    long double sum = 0.0L;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < k; c++) {
            long double x = 0.0L;
            for (size_t j = 0; j < n; j++)
                x += ((long double)W[i * n + j] - 1.0L / n) * pi[j * k + c];
            sum += x * x;
        }
    return (double)(sum / n);
}

START_TEST(test_hetero_direct)
{
    cm_labels l;
    make_labels(&l, 24, 5, 11);
    double *pi, *pibar;
    ck_assert_int_eq(tg_hetero_pi(&l, &pi, &pibar), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 4, 0);
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(tg_kind_build(&t, TG_KIND_RANDOM, 24, 4, &r), CM_OK);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    double *W = calloc(24 * 24, sizeof *W);
    for (size_t i = 0; i < 24; i++) {
        W[i * 24 + i] = t.self[i];
        for (size_t e = t.off[i]; e < t.off[i + 1]; e++)
            W[i * 24 + t.adj[e]] = t.adj_w[e];
    }
    tg_hetero h1, h2;
    ck_assert_int_eq(tg_hetero_topo(&t, &l, &h1), CM_OK);
    tg_hetero_dense(24, 5, W, pi, pibar, &h2);
    double d = direct_h(24, 5, W, pi);
    ck_assert_double_eq_tol(h1.h, d, 1e-14);
    ck_assert_double_eq_tol(h2.h, d, 1e-14);
    ck_assert_double_gt(d, 0.0);
    ck_assert_double_le(h1.h, h1.worst);
    /* W = J: H = 0; W = I: the plain heterogeneity */
    for (size_t e = 0; e < 24 * 24; e++)
        W[e] = 1.0 / 24;
    tg_hetero_dense(24, 5, W, pi, pibar, &h2);
    ck_assert_double_eq_tol(h2.h, 0.0, 1e-15);
    memset(W, 0, 24 * 24 * sizeof *W);
    for (size_t i = 0; i < 24; i++)
        W[i * 24 + i] = 1.0;
    tg_hetero_dense(24, 5, W, pi, pibar, &h2);
    ck_assert_double_eq_tol(h2.h, direct_h(24, 5, W, pi), 1e-14);
    /* a topology of another size is refused */
    cm_labels l2;
    make_labels(&l2, 10, 5, 1);
    ck_assert_int_eq(tg_hetero_topo(&t, &l2, &h1), CM_EINVAL);
    cm_labels_destroy(&l2);
    free(W);
    free(pi);
    free(pibar);
    cm_topo_destroy(&t);
    cm_labels_destroy(&l);
}
END_TEST

/* Brute force over all permutations of n <= 7. */
static double brute_lap(size_t n, const double *c)
{
    size_t p[8];
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    double best = INFINITY;
    for (;;) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
            s += c[i * n + p[i]];
        if (s < best)
            best = s;
        /* next permutation */
        size_t i = n - 1;
        while (i > 0 && p[i - 1] >= p[i])
            i--;
        if (i == 0)
            break;
        size_t j = n - 1;
        while (p[j] <= p[i - 1])
            j--;
        size_t t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
        for (size_t a = i, b = n - 1; a < b; a++, b--) {
            t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
    }
    return best;
}

START_TEST(test_lap)
{
    cm_rng r;
    cm_rng_seed(&r, 21, 0);
    double c[49];
    size_t sol[7];
    for (size_t n = 1; n <= 7; n++)
        for (int rep = 0; rep < 30; rep++) {
            for (size_t e = 0; e < n * n; e++) /* ties too: small ints */
                c[e] = rep % 2 ? cm_rng_uniform(&r) * 10 - 5
                               : (double)cm_rng_below(&r, 4);
            double cost;
            ck_assert_int_eq(tg_lap_solve(n, c, sol, &cost), CM_OK);
            unsigned char used[7] = {0};
            double s = 0.0;
            for (size_t i = 0; i < n; i++) {
                ck_assert_uint_lt(sol[i], n);
                ck_assert_int_eq(used[sol[i]], 0);
                used[sol[i]] = 1;
                s += c[i * n + sol[i]];
            }
            ck_assert_double_eq_tol(s, cost, 1e-12);
            ck_assert_double_eq_tol(cost, brute_lap(n, c), 1e-9);
        }
    c[0] = NAN;
    ck_assert_int_eq(tg_lap_solve(2, c, sol, NULL), CM_EINVAL);
}
END_TEST

START_TEST(test_stlfw)
{
    cm_labels l;
    make_labels(&l, 40, 6, 8);
    double *pi, *pibar;
    ck_assert_int_eq(tg_hetero_pi(&l, &pi, &pibar), CM_OK);
    double *W = malloc(40 * 40 * sizeof *W);
    for (int sym = 0; sym < 2; sym++)
        for (size_t budget = 1 + (size_t)sym; budget <= 5; budget += 2) {
            tg_stlfw_opts o = {budget, 0.1, sym};
            tg_stlfw_result res;
            ck_assert_int_eq(tg_stlfw_learn(40, 6, pi, pibar, &o, W, &res),
                             CM_OK);
            ck_assert_uint_ge(res.iters, 1);
            for (size_t it = 0; it < res.iters; it++)
                ck_assert_msg(res.obj[it + 1] < res.obj[it],
                              "sym %d budget %zu: objective %.17g -> %.17g "
                              "at iteration %zu", sym, budget, res.obj[it],
                              res.obj[it + 1], it);
            ck_assert_double_eq_tol(res.obj[res.iters],
                                    tg_stlfw_objective(40, 6, W, pi, pibar,
                                                       0.1), 1e-12);
            size_t in[40] = {0};
            for (size_t i = 0; i < 40; i++) {
                double row = 0.0, col = 0.0;
                size_t out = 0;
                for (size_t j = 0; j < 40; j++) {
                    ck_assert_double_ge(W[i * 40 + j], 0.0);
                    row += W[i * 40 + j];
                    col += W[j * 40 + i];
                    if (i != j && W[i * 40 + j] != 0.0) {
                        out++;
                        in[j]++;
                    }
                    if (sym)
                        ck_assert_double_eq(W[i * 40 + j], W[j * 40 + i]);
                }
                ck_assert_double_eq_tol(row, 1.0, 1e-12);
                ck_assert_double_eq_tol(col, 1.0, 1e-12);
                ck_assert_uint_le(out, budget);
            }
            for (size_t j = 0; j < 40; j++)
                ck_assert_uint_le(in[j], budget);
            ck_assert_uint_le(res.max_out, budget);
            ck_assert_uint_le(res.max_in, budget);
        }
    tg_stlfw_opts bad = {0, 0.1, 0}, bad2 = {1, 0.1, 1};
    tg_stlfw_result res;
    ck_assert_int_eq(tg_stlfw_learn(40, 6, pi, pibar, &bad, W, &res),
                     CM_EINVAL);
    ck_assert_int_eq(tg_stlfw_learn(40, 6, pi, pibar, &bad2, W, &res),
                     CM_EINVAL);
    free(W);
    free(pi);
    free(pibar);
    cm_labels_destroy(&l);
}
END_TEST

/* shards:1-like counts: worker i holds class perm(i) mod k only. */
START_TEST(test_dcliques)
{
    const size_t ns[] = {100, 50, 37};
    for (size_t a = 0; a < 3; a++)
        for (int inter = 0; inter < 3; inter++) {
            size_t n = ns[a], k = 10;
            cm_labels l;
            cm_labels_init(&l);
            l.n = n;
            l.k = k;
            l.count = calloc(n * k, sizeof *l.count);
            cm_rng r;
            cm_rng_seed(&r, 5, 0);
            size_t *p = malloc(n * sizeof *p);
            for (size_t i = 0; i < n; i++)
                p[i] = i;
            cm_rng_shuffle_size(&r, p, n);
            for (size_t i = 0; i < n; i++)
                l.count[i * k + p[i] % k] = 600;
            cm_topo t;
            cm_topo_init(&t);
            tg_dcliques_result res;
            ck_assert_int_eq(tg_dcliques_build(&l, (tg_inter)inter, inter == 1,
                                               3, 4000, &t, &res), CM_OK);
            ck_assert_uint_eq(res.q, (n + k - 1) / k);
            if (n % k == 0) { /* the class count allows: every class in
                                 every clique */
                for (size_t C = 0; C < res.q; C++) {
                    unsigned char seen[10] = {0};
                    for (size_t i = 0; i < n; i++)
                        if (res.clique[i] == C)
                            seen[p[i] % k] = 1;
                    for (size_t c = 0; c < k; c++)
                        ck_assert_msg(seen[c], "n=%zu: clique %zu lacks "
                                      "class %zu", n, C, c);
                }
                ck_assert_double_eq_tol(res.skew, 0.0, 1e-12);
            }
            ck_assert_double_le(res.skew, res.skew_start);
            /* cliques are complete; W symmetric, stochastic, connected */
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                    if (res.clique[i] == res.clique[j]) {
                        int found = 0;
                        for (size_t e = t.off[i]; e < t.off[i + 1]; e++)
                            found |= t.adj[e] == j;
                        ck_assert(found);
                    }
            ck_assert_int_eq(cm_topo_validate(&t, "dcliques"), CM_OK);
            for (size_t i = 0; i < n; i++)
                ck_assert_double_ge(t.self[i], 0.0);
            free(res.clique);
            free(p);
            cm_topo_destroy(&t);
            cm_labels_destroy(&l);
        }
}
END_TEST

/* H of W = (I + A)/(d + 1) directly from the graph. */
static double graph_h(const tg_graph *g, size_t d, const double *pi,
                      const double *pibar, size_t k)
{
    size_t n = g->n;
    size_t *off = malloc((n + 1) * sizeof *off);
    size_t *col = malloc((n + 2 * g->m) * sizeof *col);
    double *w = malloc((n + 2 * g->m) * sizeof *w);
    size_t e = 0;
    for (size_t i = 0; i < n; i++) {
        off[i] = e;
        col[e] = i;
        w[e++] = 1.0 / (double)(d + 1);
        for (size_t q = g->off[i]; q < g->off[i + 1]; q++) {
            col[e] = g->nb[q];
            w[e++] = 1.0 / (double)(d + 1);
        }
    }
    off[n] = e;
    tg_hetero h;
    tg_hetero_rows(n, k, off, col, w, pi, pibar, &h);
    free(off);
    free(col);
    free(w);
    return h.h;
}

START_TEST(test_search_hetero)
{
    cm_labels l;
    make_labels(&l, 30, 5, 2);
    double *pi, *pibar;
    ck_assert_int_eq(tg_hetero_pi(&l, &pi, &pibar), CM_OK);
    cm_rng r;
    cm_rng_seed(&r, 9, 0);
    tg_graph g;
    tg_graph_init(&g);
    ck_assert_int_eq(tg_graph_random_regular(&g, 30, 4, &r), CM_OK);
    tg_search_hetero hs;
    tg_search_hetero_init(&hs);
    ck_assert_int_eq(tg_search_hetero_start(&hs, &g, 4, pi, pibar, 5, 2.0),
                     CM_OK);
    ck_assert_double_eq_tol(tg_search_hetero_value(&hs),
                            graph_h(&g, 4, pi, pibar, 5), 1e-13);
    size_t done = 0;
    for (int t = 0; t < 2000 && done < 200; t++) {
        size_t k1 = cm_rng_below(&r, g.m), k2 = cm_rng_below(&r, g.m);
        size_t a = g.eu[k1], b = g.ev[k1], x = g.eu[k2], y = g.ev[k2];
        if (!tg_graph_swap_ok(&g, a, b, x, y))
            continue;
        double before = tg_search_hetero_energy(&hs);
        double dh = tg_search_hetero_delta(&hs, a, b, x, y);
        tg_graph_swap(&g, a, b, x, y);
        tg_search_hetero_apply(&hs, a, b, x, y);
        ck_assert_double_eq_tol(tg_search_hetero_energy(&hs), before + dh,
                                1e-12);
        ck_assert_double_eq_tol(tg_search_hetero_value(&hs),
                                graph_h(&g, 4, pi, pibar, 5), 1e-12);
        done++;
    }
    ck_assert_uint_ge(done, 100);
    /* the data-aware search finds a graph with a lower H than the plain
     * one of the same seed */
    tg_search_opts o;
    tg_search_opts_default(&o);
    o.n = 30;
    o.d = 4;
    o.iters = 3000;
    o.restarts = 1;
    o.threads = 1;
    tg_graph plain, aware;
    tg_graph_init(&plain);
    tg_graph_init(&aware);
    tg_search_result rp, ra;
    ck_assert_int_eq(tg_search_run(&o, &plain, &rp), CM_OK);
    o.pi = pi;
    o.pibar = pibar;
    o.k = 5;
    o.hetero_weight = 10.0;
    ck_assert_int_eq(tg_search_run(&o, &aware, &ra), CM_OK);
    double hp = graph_h(&plain, 4, pi, pibar, 5);
    double ha = graph_h(&aware, 4, pi, pibar, 5);
    ck_assert_double_eq_tol(ra.hetero, ha, 1e-12);
    ck_assert_msg(ha < 0.8 * hp, "data-aware H %.5f, plain %.5f", ha, hp);
    int conn = -1;
    ck_assert_int_eq(tg_graph_connected(&aware, &conn), CM_OK);
    ck_assert(conn);
    /* with host groups too: the bound still holds */
    o.groups = 3;
    o.max_cross = 6;
    ck_assert_int_eq(tg_search_run(&o, &aware, &ra), CM_OK);
    ck_assert_uint_le(ra.cross, 6);
    tg_graph_destroy(&plain);
    tg_graph_destroy(&aware);
    tg_search_hetero_destroy(&hs);
    tg_graph_destroy(&g);
    free(pi);
    free(pibar);
    cm_labels_destroy(&l);
}
END_TEST

/* H of a permutation digraph W = (I + sum_p P_p)/(s + 1), directly. */
static double digraph_h(const tg_digraph_search_opts *o, const tg_digraph *g)
{
    size_t n = o->n;
    double *W = calloc(n * n, sizeof *W);
    for (size_t i = 0; i < n; i++)
        W[i * n + i] = 1.0 / (double)(o->s + 1);
    for (size_t e = 0; e < g->m; e++) /* arc src -> dst: W[dst][src] */
        W[g->dst[e] * n + g->src[e]] += 1.0 / (double)(o->s + 1);
    double h = direct_h(n, o->k, W, o->pi);
    free(W);
    return h;
}

START_TEST(test_digraph_hetero)
{
    cm_labels l;
    make_labels(&l, 24, 5, 6);
    double *pi, *pibar;
    ck_assert_int_eq(tg_hetero_pi(&l, &pi, &pibar), CM_OK);
    tg_digraph_search_opts o = {0};
    o.n = 24;
    o.s = 2;
    o.gamma = 0.951;
    o.seed = 3;
    o.iters = 1500;
    o.restarts = 1;
    tg_digraph plain, aware;
    tg_digraph_init(&plain);
    tg_digraph_init(&aware);
    tg_digraph_search_result rp, ra;
    ck_assert_int_eq(tg_digraph_search(&o, &plain, &rp), CM_OK);
    o.pi = pi;
    o.pibar = pibar;
    o.k = 5;
    o.hetero_weight = 10.0;
    ck_assert_int_eq(tg_digraph_search(&o, &aware, &ra), CM_OK);
    double ha = digraph_h(&o, &aware), hp = digraph_h(&o, &plain);
    ck_assert_double_eq_tol(ra.hetero, ha, 1e-12); /* the incremental H */
    ck_assert_msg(ha < 0.8 * hp, "directed data-aware H %.5f, plain %.5f",
                  ha, hp);
    tg_digraph_destroy(&plain);
    tg_digraph_destroy(&aware);
    free(pi);
    free(pibar);
    cm_labels_destroy(&l);
}
END_TEST

Suite *dataaware_suite(void)
{
    Suite *s = suite_create("dataaware");
    TCase *tc = tcase_create("counts_file");
    tcase_add_test(tc, test_labels_file);
    suite_add_tcase(s, tc);
    tc = tcase_create("h_direct");
    tcase_add_test(tc, test_hetero_direct);
    suite_add_tcase(s, tc);
    tc = tcase_create("lap_brute_force");
    tcase_add_test(tc, test_lap);
    suite_add_tcase(s, tc);
    tc = tcase_create("stlfw_descends_doubly_stochastic_budget");
    tcase_add_test(tc, test_stlfw);
    suite_add_tcase(s, tc);
    tc = tcase_create("dcliques_every_class");
    tcase_add_test(tc, test_dcliques);
    suite_add_tcase(s, tc);
    tc = tcase_create("search_hetero_incremental");
    tcase_add_test(tc, test_search_hetero);
    suite_add_tcase(s, tc);
    tc = tcase_create("digraph_search_hetero");
    tcase_add_test(tc, test_digraph_hetero);
    suite_add_tcase(s, tc);
    return s;
}
