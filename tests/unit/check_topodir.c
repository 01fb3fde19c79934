/* check_topodir.c: directed topology files and epidemic draws
 * (src/cm_topo_dir.c): the arc convention (i j w is W_ji), implied self
 * weights, round trips bit for bit, networkx's DiGraph reading the same
 * W, the doubly-stochastic and mixing checks, one test per bad-input
 * class, and the per-round EL-Oracle / EL-Local graphs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_mixing.h"
#include "cm_place.h"
#include "cm_topo.h"
#include "check_files.h"

#define TMPL "/tmp/check_topodir_XXXXXX" /* tmp_text's files */

/* Reads text as a file (and validates when asked). */
static cm_status read_text(cm_topo *t, const char *text, int validate)
{
    const char *p = tmp_text(TMPL, text, strlen(text));
    cm_status st = cm_topo_read(t, p);
    if (st == CM_OK && validate)
        st = cm_topo_validate(t, p);
    unlink(p);
    return st;
}

/* W[i][j] of t, dense (caller frees). */
static double *dense_w(const cm_topo *t)
{
    double *w = calloc(t->n * t->n, sizeof *w);
    for (size_t i = 0; i < t->n; i++) {
        w[i * t->n + i] = t->self[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            w[i * t->n + t->adj[p]] = t->adj_w[p];
    }
    return w;
}

static void assert_same(const cm_topo *a, const cm_topo *b)
{
    ck_assert_uint_eq(a->n, b->n);
    ck_assert_uint_eq(a->m, b->m);
    ck_assert_int_eq(a->directed, b->directed);
    ck_assert_uint_eq(a->epi_s, b->epi_s);
    ck_assert_int_eq(a->epi_local, b->epi_local);
    for (size_t k = 0; k < a->m; k++) {
        ck_assert_uint_eq(a->ei[k], b->ei[k]);
        ck_assert_uint_eq(a->ej[k], b->ej[k]);
        ck_assert(memcmp(&a->ew[k], &b->ew[k], sizeof(double)) == 0);
    }
    for (size_t i = 0; a->self && i < a->n; i++)
        ck_assert(memcmp(&a->self[i], &b->self[i], sizeof(double)) == 0);
}

/* A doubly stochastic, non-symmetric W on 6 nodes with uneven weights:
 * 0.5 I + 0.3 P1 + 0.2 P2 for two cycles P1 (i -> i+1), P2 (i -> i+3). */
static void uneven(cm_topo *t)
{
    size_t src[12], dst[12];
    double w[12];
    for (size_t i = 0; i < 6; i++) {
        src[2 * i] = i;
        dst[2 * i] = (i + 1) % 6;
        w[2 * i] = 0.3;
        src[2 * i + 1] = i;
        dst[2 * i + 1] = (i + 3) % 6;
        w[2 * i + 1] = 0.2;
    }
    ck_assert_int_eq(cm_topo_from_arcs(t, 6, 12, src, dst, w), CM_OK);
}

START_TEST(test_arc_convention)
{
    cm_topo t;
    cm_topo_init(&t);
    /* 0 -> 1 -> 2 -> 0, each receiver keeps 0.75 and takes 0.25 */
    ck_assert_int_eq(read_text(&t, "# topogen 2 n=3 directed=1\n"
                                   "0 1 0.25\n1 2 0.25\n2 0 0.25\n", 1),
                     CM_OK);
    ck_assert_int_eq(t.directed, 1);
    ck_assert_uint_eq(t.m, 3);
    double *w = dense_w(&t);
    ck_assert(w[1 * 3 + 0] == 0.25); /* W_10: 1 receives from 0 */
    ck_assert(w[0 * 3 + 1] == 0.0);
    ck_assert(w[0 * 3 + 2] == 0.25);
    ck_assert(w[2 * 3 + 2] == 0.75);
    free(w);
    const size_t *adj;
    const double *ow;
    size_t c;
    cm_topo_out(&t, 0, &adj, &ow, &c);
    ck_assert_uint_eq(c, 1);
    ck_assert_uint_eq(adj[0], 1);
    ck_assert(ow[0] == 0.25);
    double slem = 0.0;
    ck_assert_int_eq(cm_topo_validate_slem(&t, "x", &slem), CM_OK);
    /* W = 0.75 I + 0.25 P is normal: ||W - J|| = |0.75 + 0.25 w| */
    ck_assert_double_eq_tol(slem, sqrt(0.75 * 0.75 + 0.25 * 0.25 -
                                       2 * 0.75 * 0.25 * 0.5), 1e-12);
    /* unweighted: BlueFog's uniform receiver weights */
    ck_assert_int_eq(read_text(&t, "# directed=1\n0 1\n1 2\n2 0\n0 2\n1 0\n"
                                   "2 1\n", 1), CM_OK);
    w = dense_w(&t);
    for (size_t k = 0; k < 9; k++)
        ck_assert(w[k] == 1.0 / 3.0);
    free(w);
    /* an undirected file reads as before */
    ck_assert_int_eq(read_text(&t, "0 1 0.5\n", 1), CM_OK);
    ck_assert_int_eq(t.directed, 0);
    ck_assert_uint_eq(t.m, 1);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_round_trip)
{
    cm_topo t, u;
    cm_topo_init(&t);
    cm_topo_init(&u);
    uneven(&t);
    ck_assert_int_eq(cm_topo_check_doubly(&t, "x"), CM_OK);
    char path[] = "/tmp/check_topodir_rt_XXXXXX";
    close(mkstemp(path));
    for (int pass = 0; pass < 3; pass++) {
        const char *comment = pass == 0 ? NULL : pass == 1 ?
            "topogen 2 n=6 d=2 kind=perm directed=1" : "hello";
        ck_assert_int_eq(cm_topo_save(&t, path, comment), CM_OK);
        ck_assert_int_eq(cm_topo_read(&u, path), CM_OK);
        assert_same(&t, &u);
        ck_assert_int_eq(cm_topo_validate(&u, path), CM_OK);
    }
    /* an explicit self weight the reader would not recompute survives */
    t.self[2] = nextafter(t.self[2], 1.0);
    ck_assert_int_eq(cm_topo_save(&t, path, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_read(&u, path), CM_OK);
    assert_same(&t, &u);
    /* epidemic: a header only */
    ck_assert_int_eq(read_text(&t, "# topogen 2 n=9 kind=epidemic s=3 "
                                   "local=1\n", 1), CM_OK);
    ck_assert(cm_topo_is_epidemic(&t));
    ck_assert_uint_eq(t.epi_s, 3);
    ck_assert_int_eq(t.epi_local, 1);
    ck_assert_int_eq(cm_topo_save(&t, path, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_read(&u, path), CM_OK);
    assert_same(&t, &u);
    /* topogen's spelling: d=S, epidemic=local|oracle */
    ck_assert_int_eq(read_text(&u, "# topogen 2 n=16 d=3 kind=epidemic "
                                   "directed=1 epidemic=local seed=1\n", 1),
                     CM_OK);
    ck_assert_uint_eq(u.epi_s, 3);
    ck_assert_int_eq(u.epi_local, 1);
    ck_assert_int_eq(read_text(&u, "# topogen 2 n=16 d=5 kind=epidemic "
                                   "epidemic=oracle\n", 1), CM_OK);
    ck_assert_uint_eq(u.epi_s, 5);
    ck_assert_int_eq(u.epi_local, 0);
    /* every epidemic draw round-trips as a static directed file */
    ck_assert_int_eq(cm_topo_epidemic_draw(&t, 11, 3, 0, 5, 7), CM_OK);
    ck_assert_int_eq(cm_topo_save(&t, path, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_read(&u, path), CM_OK);
    assert_same(&t, &u);
    unlink(path);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST

/* networkx reads our file as a DiGraph; W[j][i] = weight(i -> j) and
 * W_jj = 1 - what j receives give the same W as our reader. */
START_TEST(test_networkx_digraph)
{
    if (system("/usr/bin/python3 -c 'import networkx' 2>/dev/null") != 0)
        ck_abort_msg("python3 with networkx is needed (installed by "
                     "scripts/install-deps.sh)");
    cm_topo t, u;
    cm_topo_init(&t);
    cm_topo_init(&u);
    uneven(&t);
    char path[] = "/tmp/check_topodir_nx_XXXXXX";
    close(mkstemp(path));
    ck_assert_int_eq(cm_topo_save(&t, path, "topogen 2 n=6 directed=1"),
                     CM_OK);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c '\n"
             "import networkx as nx\n"
             "g = nx.read_weighted_edgelist(\"%s\", create_using=nx.DiGraph,"
             " nodetype=int)\n"
             "n = 6\n"
             "A = nx.to_numpy_array(g, nodelist=range(n))\n"
             "W = A.T.copy()\n"
             "for j in range(n): W[j, j] = 1 - sum(W[j, k] for k in "
             "range(n) if k != j)\n"
             "print(\" \".join(repr(float(x)) for x in W.flatten()))\n'",
             path);
    FILE *fp = popen(cmd, "r");
    ck_assert_ptr_nonnull(fp);
    double *w = dense_w(&t);
    for (size_t k = 0; k < 36; k++) {
        double x = NAN;
        ck_assert_int_eq(fscanf(fp, "%lf", &x), 1);
        ck_assert_msg(fabs(x - w[k]) <= 1e-15, "W[%zu][%zu]: networkx %.17g, "
                      "ours %.17g", k / 6, k % 6, x, w[k]);
    }
    ck_assert_int_eq(pclose(fp), 0);
    free(w);
    unlink(path);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST

static const struct {
    const char *text;
    cm_status st;
    const char *msg;
} bad[] = {
    {"# directed=1\n0 1 0.5\n1 2 0.5\n2 0 0.25\n", CM_EFORMAT,
     ":2: node 0 gives 1.25"},
    {"# directed=1\n0 1 0.5\n1 2 0.5\n2 0 0.5\n1 1 0.4\n", CM_EFORMAT,
     ":5: node 1 receives"},
    {"# directed=1 n=3\n0 1 0.5\n1 3 0.5\n", CM_EFORMAT, "beyond the node"},
    {"# directed=1\n0 1\n1 1\n", CM_EFORMAT, "self-loop"},
    {"# directed=1\n0 1 0.5\n1 0 0.5\n0 1 0.5\n", CM_EFORMAT,
     ":4: duplicate arc 0 -> 1 (line 2"},
    {"# directed=2\n0 1 0.5\n", CM_EFORMAT, "directed="},
    {"# n=4 kind=epidemic s=2\n0 1\n", CM_EFORMAT, "lists no arcs"},
    {"# n=4 kind=epidemic s=4\n", CM_EFORMAT, "1 <= s <= n - 1"},
    {"# n=4 kind=epidemic\n", CM_EFORMAT, "needs s=S"},
    {"# directed=1\n0 1 1\n1 2 1\n2 0 1\n", CM_ETOPO, "does not mix"},
    {"# directed=1\n0 1 .5\n1 0 .5\n2 3 .5\n3 2 .5\n", CM_ETOPO,
     "not strongly connected"},
};

START_TEST(test_bad_input)
{
    cm_topo t;
    cm_topo_init(&t);
    ck_assert_int_eq(read_text(&t, bad[_i].text, 1), bad[_i].st);
    ck_assert_msg(strstr(cm_last_error(), bad[_i].msg), "case %d: '%s' lacks "
                  "'%s'", _i, cm_last_error(), bad[_i].msg);
    if (bad[_i].st == CM_EFORMAT) /* nothing half-read */
        ck_assert_uint_eq(t.n, 0);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(test_builder_refuses)
{
    cm_topo t;
    cm_topo_init(&t);
    size_t s1[] = {0, 1}, d1[] = {1, 1}, d2[] = {1, 3}, s3[] = {0, 0},
           d3[] = {1, 1};
    ck_assert_int_eq(cm_topo_from_arcs(&t, 3, 2, s1, d1, NULL), CM_EINVAL);
    ck_assert_int_eq(cm_topo_from_arcs(&t, 3, 2, s1, d2, NULL), CM_EINVAL);
    ck_assert_int_eq(cm_topo_from_arcs(&t, 3, 2, s3, d3, NULL), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "duplicate arc 0 -> 1"));
    cm_topo_destroy(&t);
}
END_TEST

/* Checks an EL-Oracle or EL-Local draw's structure and weights. */
static void check_draw(const cm_topo *t, size_t n, size_t s, int local)
{
    ck_assert_uint_eq(t->n, n);
    ck_assert_uint_eq(t->m, n * s);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(t->out_off[i + 1] - t->out_off[i], s);
        size_t in = cm_topo_degree(t, i);
        if (!local)
            ck_assert_uint_eq(in, s);
        ck_assert(t->self[i] == 1.0 / (double)(in + 1));
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            ck_assert_uint_ne(t->adj[p], i);
            ck_assert(t->adj_w[p] == t->self[i]);
        }
    }
    if (!local)
        ck_assert_int_eq(cm_topo_check_doubly(t, "x"), CM_OK);
}

START_TEST(test_epidemic_draw)
{
    static const size_t cases[][2] = {{2, 1}, {3, 2}, {10, 3}, {10, 6},
                                      {10, 9}, {64, 7}, {257, 4}};
    cm_topo a, b;
    cm_topo_init(&a);
    cm_topo_init(&b);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int local = 0; local < 2; local++) {
            size_t n = cases[c][0], s = cases[c][1];
            ck_assert_int_eq(cm_topo_epidemic_draw(&a, n, s, local, 42, 3),
                             CM_OK);
            check_draw(&a, n, s, local);
            /* a pure function of (seed, round, n, s) */
            ck_assert_int_eq(cm_topo_epidemic_draw(&b, n, s, local, 42, 3),
                             CM_OK);
            assert_same(&a, &b);
            if (s < n - 1 && n > 3) { /* another round, another graph */
                ck_assert_int_eq(cm_topo_epidemic_draw(&b, n, s, local, 42,
                                                       4), CM_OK);
                int differ = 0;
                for (size_t k = 0; k < a.m; k++)
                    differ |= a.ej[k] != b.ej[k];
                ck_assert(differ);
            }
        }
    /* every (n, s) of small graphs draws, EL-Oracle and EL-Local */
    for (size_t n = 2; n <= 24; n++)
        for (size_t s = 1; s < n; s++)
            for (uint64_t r = 0; r < 3; r++)
                for (int local = 0; local < 2; local++) {
                    ck_assert_int_eq(cm_topo_epidemic_draw(&a, n, s, local,
                                                           r + 11, r),
                                     CM_OK);
                    check_draw(&a, n, s, local);
                }
    ck_assert_int_eq(cm_topo_epidemic_draw(&a, 5, 5, 0, 1, 0), CM_EINVAL);
    ck_assert_int_eq(cm_topo_epidemic_draw(&a, 5, 0, 1, 1, 0), CM_EINVAL);
    cm_topo_destroy(&b);
    cm_topo_destroy(&a);
}
END_TEST

/* EL-Oracle's receivers are uniform: over many rounds each ordered pair
 * i -> j (i != j) appears with frequency s/(n-1). */
START_TEST(test_epidemic_uniform)
{
    const size_t n = 6, s = 2, rounds = 3000;
    size_t count[36] = {0};
    cm_topo t;
    cm_topo_init(&t);
    for (size_t r = 0; r < rounds; r++) {
        ck_assert_int_eq(cm_topo_epidemic_draw(&t, n, s, 0, 9, r), CM_OK);
        for (size_t k = 0; k < t.m; k++)
            count[t.ei[k] * n + t.ej[k]]++;
    }
    double expect = (double)rounds * (double)s / (double)(n - 1);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (i == j) {
                ck_assert_uint_eq(count[i * n + j], 0);
                continue;
            }
            /* binomial sd ~ sqrt(1200 * 0.6) = 27; 6 sd */
            ck_assert_msg(fabs((double)count[i * n + j] - expect) < 160.0,
                          "pair %zu -> %zu: %zu of %g", i, j,
                          count[i * n + j], expect);
        }
    cm_topo_destroy(&t);
}
END_TEST


/* Placement counts each arc once, from sender to receiver: a directed
 * ring on P blocks sends P arrays per round (the undirected ring 2P); the
 * graph placement partitions the arcs' undirected support. */
START_TEST(test_place_counts_arcs)
{
    cm_topo t, u;
    cm_topo_init(&t);
    cm_topo_init(&u);
    size_t src[12], dst[12], n = 12, P = 3, rank_of[12];
    for (size_t i = 0; i < n; i++)
        src[i] = i, dst[i] = (i + 1) % n;
    ck_assert_int_eq(cm_topo_from_arcs(&t, n, n, src, dst, NULL), CM_OK);
    ck_assert_int_eq(cm_place_workers(&t, P, NULL, CM_PLACE_BLOCK, rank_of),
                     CM_OK);
    cm_place_stats st;
    cm_place_load ld[3];
    ck_assert_int_eq(cm_place_eval(&t, P, NULL, rank_of, ld, &st), CM_OK);
    ck_assert_uint_eq(st.volume, P);
    ck_assert_uint_eq(st.cut_edges, P);
    ck_assert_uint_eq(st.max_rank, 1);
    for (size_t r = 0; r < P; r++)
        ck_assert_uint_eq(ld[r].arrays_in[0], 1);
    ck_assert_int_eq(cm_topo_support(&t, &u), CM_OK);
    ck_assert_uint_eq(u.m, n);
    ck_assert_int_eq(u.directed, 0);
    ck_assert_int_eq(cm_place_eval(&u, P, NULL, rank_of, NULL, &st), CM_OK);
    ck_assert_uint_eq(st.volume, 2 * P);
    ck_assert_uint_eq(st.cut_edges, P);
    /* both directions of every edge: the support has each edge once */
    size_t s2[24], d2[24];
    for (size_t i = 0; i < n; i++) {
        s2[2 * i] = i, d2[2 * i] = (i + 1) % n;
        s2[2 * i + 1] = (i + 1) % n, d2[2 * i + 1] = i;
    }
    ck_assert_int_eq(cm_topo_from_arcs(&t, n, 2 * n, s2, d2, NULL), CM_OK);
    ck_assert_int_eq(cm_topo_support(&t, &u), CM_OK);
    ck_assert_uint_eq(u.m, n);
    /* graph placement of a shuffled directed ring: contiguous arcs */
    for (size_t i = 0; i < n; i++)
        src[i] = (5 * i) % n, dst[i] = (5 * (i + 1)) % n;
    ck_assert_int_eq(cm_topo_from_arcs(&t, n, n, src, dst, NULL), CM_OK);
    ck_assert_int_eq(cm_place_workers(&t, P, NULL, CM_PLACE_GRAPH, rank_of),
                     CM_OK);
    ck_assert_int_eq(cm_place_eval(&t, P, NULL, rank_of, NULL, &st), CM_OK);
    ck_assert_uint_eq(st.volume, P);
    cm_topo_destroy(&u);
    cm_topo_destroy(&t);
}
END_TEST

Suite *topodir_suite(void)
{
    Suite *s = suite_create("topodir");
    TCase *tc = tcase_create("directed_files");
    tcase_add_test(tc, test_arc_convention);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_networkx_digraph);
    tcase_add_loop_test(tc, test_bad_input, 0, sizeof bad / sizeof bad[0]);
    tcase_add_test(tc, test_builder_refuses);
    tcase_add_test(tc, test_place_counts_arcs);
    suite_add_tcase(s, tc);
    tc = tcase_create("epidemic");
    tcase_add_test(tc, test_epidemic_draw);
    tcase_add_test(tc, test_epidemic_uniform);
    suite_add_tcase(s, tc);
    return s;
}
