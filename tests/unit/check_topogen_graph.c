/* check_topogen_graph.c: topo/graph/tg_graph.c and
 * topo/measure/tg_spectrum.c: the fast
 * Laplacian eigensolver against closed forms (ring, complete, hypercube,
 * Petersen) within 1e-9, every construction's degree, edge count and
 * connectivity, swaps and their undo, parameter checks, file round trips. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <igraph.h>

#include "check_blas.h"
#include "check_files.h"

#include "cm_eigen.h"
#include "cm_rng.h"
#include "cm_mixing.h"
#include "tg_graph.h"
#include "tg_spectrum.h"

#define TOL 1e-9

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Compares tg_spec_laplacian(g) with the sorted expected spectrum. */
static void assert_spectrum(const tg_graph *g, double *expect)
{
    tg_spec s;
    tg_spec_init(&s);
    ck_assert_int_eq(tg_spec_laplacian(&s, g), CM_OK);
    qsort(expect, g->n, sizeof *expect, cmp_double);
    for (size_t k = 0; k < g->n; k++)
        ck_assert_msg(fabs(s.w[k] - expect[k]) <= TOL,
                      "eigenvalue %zu: %.15g, expected %.15g", k, s.w[k],
                      expect[k]);
    tg_spec_destroy(&s);
}

static void build(tg_graph *g, tg_kind kind, size_t n, size_t d)
{
    cm_rng r;
    cm_rng_seed(&r, 7, 0);
    tg_graph_init(g);
    ck_assert_int_eq(tg_graph_build(g, kind, n, d, &r), CM_OK);
}

START_TEST(spectrum_ring)
{
    static const size_t ns[] = {3, 4, 7, 16, 33, 64};
    for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
        size_t n = ns[t];
        tg_graph g;
        build(&g, TG_KIND_RING, n, 2);
        double ev[64];
        for (size_t k = 0; k < n; k++)
            ev[k] = 2.0 - 2.0 * cos(2.0 * M_PI * (double)k / (double)n);
        assert_spectrum(&g, ev);
        tg_graph_destroy(&g);
    }
}
END_TEST

START_TEST(spectrum_complete)
{
    for (size_t n = 3; n <= 20; n += 17) {
        tg_graph g;
        build(&g, TG_KIND_COMPLETE, n, 0);
        double ev[20];
        for (size_t k = 0; k < n; k++)
            ev[k] = k == 0 ? 0.0 : (double)n;
        assert_spectrum(&g, ev);
        tg_graph_destroy(&g);
    }
}
END_TEST

START_TEST(spectrum_hypercube)
{
    for (size_t dim = 2; dim <= 6; dim++) {
        size_t n = (size_t)1 << dim;
        tg_graph g;
        build(&g, TG_KIND_HYPERCUBE, n, 0);
        double ev[64];
        for (size_t v = 0; v < n; v++) /* eigenvalue 2 * popcount(v) */
            ev[v] = 2.0 * (double)__builtin_popcountll(v);
        assert_spectrum(&g, ev);
        tg_spec s;
        tg_spec_init(&s);
        double l2, ln;
        ck_assert_int_eq(tg_spec_extremes(&s, &g, &l2, &ln), CM_OK);
        ck_assert_double_eq_tol(l2, 2.0, TOL);
        ck_assert_double_eq_tol(ln, 2.0 * (double)dim, TOL);
        tg_spec_destroy(&s);
        tg_graph_destroy(&g);
    }
}
END_TEST

START_TEST(spectrum_petersen)
{
    size_t u[15], v[15], m = 0;
    for (size_t i = 0; i < 5; i++) {
        u[m] = i, v[m++] = (i + 1) % 5;          /* outer cycle */
        u[m] = i, v[m++] = i + 5;                /* spokes */
        u[m] = 5 + i, v[m++] = 5 + (i + 2) % 5;  /* inner pentagram */
    }
    tg_graph g;
    tg_graph_init(&g);
    ck_assert_int_eq(tg_graph_from_edges(&g, 10, m, u, v), CM_OK);
    double ev[10] = {0, 2, 2, 2, 2, 2, 5, 5, 5, 5};
    assert_spectrum(&g, ev);
    tg_graph_destroy(&g);
}
END_TEST

START_TEST(spectrum_edge_cases)
{
    tg_spec s;
    tg_spec_init(&s);
    tg_graph g;
    tg_graph_init(&g);
    double l2 = -1, ln = -1;
    /* one node: no edges, extremes 0 */
    ck_assert_int_eq(tg_graph_from_edges(&g, 1, 0, NULL, NULL), CM_OK);
    ck_assert_int_eq(tg_spec_extremes(&s, &g, &l2, &ln), CM_OK);
    ck_assert(l2 == 0.0 && ln == 0.0);
    /* two nodes, one edge: spectrum {0, 2} */
    size_t a = 0, b = 1;
    ck_assert_int_eq(tg_graph_from_edges(&g, 2, 1, &a, &b), CM_OK);
    ck_assert_int_eq(tg_spec_extremes(&s, &g, &l2, &ln), CM_OK);
    ck_assert_double_eq_tol(l2, 2.0, TOL);
    ck_assert_double_eq_tol(ln, 2.0, TOL);
    /* disconnected (two disjoint edges): lambda_2 = 0 */
    size_t u[2] = {0, 2}, v[2] = {1, 3};
    ck_assert_int_eq(tg_graph_from_edges(&g, 4, 2, u, v), CM_OK);
    ck_assert_int_eq(tg_spec_extremes(&s, &g, &l2, &ln), CM_OK);
    ck_assert_double_eq_tol(l2, 0.0, TOL);
    int conn = -1;
    ck_assert_int_eq(tg_graph_connected(&g, &conn), CM_OK);
    ck_assert(!conn);
    /* the dense path's order limit: n^2 must index within LAPACK's
     * 32-bit int, refused before any allocation (46,341^2 doubles would
     * be 17 GB) */
    ck_assert((long long)CM_EIGEN_MAX_ORDER * CM_EIGEN_MAX_ORDER <= INT_MAX);
    ck_assert((long long)(CM_EIGEN_MAX_ORDER + 1) * (CM_EIGEN_MAX_ORDER + 1) >
              INT_MAX);
    ck_assert_int_eq(tg_spec_reserve(&s, CM_EIGEN_MAX_ORDER + 1), CM_EINVAL);
    ck_assert(strstr(cm_last_error(), "32-bit int") != NULL);
    ck_assert_int_eq(tg_spec_reserve(&s, 0), CM_EINVAL);
    tg_graph_destroy(&g);
    tg_spec_destroy(&s);
}
END_TEST

/* Every construction: degree range, edge count, connectivity. */
START_TEST(constructions)
{
    static const struct {
        tg_kind kind;
        size_t n, d, m, dmin, dmax;
    } tab[] = {
        {TG_KIND_RING, 10, 0, 10, 2, 2},
        {TG_KIND_RRL, 12, 4, 24, 4, 4},
        {TG_KIND_RRL, 12, 5, 30, 5, 5},   /* odd d: chord i + n/2 */
        {TG_KIND_RRL, 9, 6, 27, 6, 6},
        {TG_KIND_TORUS, 12, 0, 24, 4, 4}, /* 3 x 4 */
        {TG_KIND_TORUS, 64, 0, 128, 4, 4},
        {TG_KIND_HYPERCUBE, 32, 0, 80, 5, 5},
        {TG_KIND_EXPONENTIAL, 16, 0, 56, 7, 7}, /* 2 log2 n - 1 */
        {TG_KIND_EXPONENTIAL, 10, 0, 30, 6, 6}, /* +-1,2,4,8 mod 10 */
        {TG_KIND_COMPLETE, 9, 0, 36, 8, 8},
        {TG_KIND_RANDOM, 20, 3, 30, 3, 3},
        {TG_KIND_RANDOM, 31, 4, 62, 4, 4},
        {TG_KIND_RANDOM, 16, 8, 64, 8, 8},
        {TG_KIND_RING, 2, 0, 1, 1, 1},        /* n = 2: one edge */
        {TG_KIND_COMPLETE, 2, 0, 1, 1, 1},
        {TG_KIND_HYPERCUBE, 2, 0, 1, 1, 1},
        {TG_KIND_EXPONENTIAL, 2, 0, 1, 1, 1},
    };
    for (size_t t = 0; t < sizeof tab / sizeof *tab; t++) {
        tg_graph g;
        build(&g, tab[t].kind, tab[t].n, tab[t].d);
        ck_assert_uint_eq(g.n, tab[t].n);
        ck_assert_msg(g.m == tab[t].m, "%s n=%zu: %zu edges, expected %zu",
                      tg_kind_name(tab[t].kind), tab[t].n, g.m, tab[t].m);
        for (size_t i = 0; i < g.n; i++) {
            size_t deg = tg_graph_degree(&g, i);
            ck_assert(deg >= tab[t].dmin && deg <= tab[t].dmax);
            for (size_t p = g.off[i]; p < g.off[i + 1]; p++)
                ck_assert(g.adj[i * g.n + g.nb[p]] && g.nb[p] != i);
        }
        int conn = -1;
        ck_assert_int_eq(tg_graph_connected(&g, &conn), CM_OK);
        ck_assert(conn);
        /* and as a topology file's graph */
        cm_topo topo;
        cm_topo_init(&topo);
        ck_assert_int_eq(tg_graph_to_topo(&g, &topo), CM_OK);
        ck_assert_int_eq(cm_topo_check_connected(&topo, "x"), CM_OK);
        ck_assert_uint_eq(topo.m, g.m);
        cm_topo_destroy(&topo);
        tg_graph_destroy(&g);
    }
}
END_TEST

/* Our constructions are isomorphic to igraph's for the kinds igraph has. */
static void to_igraph(const tg_graph *g, igraph_t *out)
{
    igraph_vector_int_t ev;
    ck_assert_int_eq(igraph_vector_int_init(&ev, (igraph_integer_t)(2 * g->m)),
                     IGRAPH_SUCCESS);
    for (size_t k = 0; k < g->m; k++) {
        VECTOR(ev)[2 * k] = (igraph_integer_t)g->eu[k];
        VECTOR(ev)[2 * k + 1] = (igraph_integer_t)g->ev[k];
    }
    ck_assert_int_eq(igraph_create(out, &ev, (igraph_integer_t)g->n,
                                   IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&ev);
}

static void lattice(igraph_t *ig, const igraph_integer_t *dims, size_t nd,
                    igraph_bool_t periodic)
{
    igraph_vector_int_t dv;
    igraph_vector_bool_t per;
    igraph_vector_int_init(&dv, (igraph_integer_t)nd);
    igraph_vector_bool_init(&per, (igraph_integer_t)nd);
    for (size_t k = 0; k < nd; k++) {
        VECTOR(dv)[k] = dims[k];
        VECTOR(per)[k] = periodic;
    }
    ck_assert_int_eq(igraph_square_lattice(ig, &dv, 1, IGRAPH_UNDIRECTED, 0,
                                           &per), IGRAPH_SUCCESS);
    igraph_vector_int_destroy(&dv);
    igraph_vector_bool_destroy(&per);
}

START_TEST(constructions_match_igraph)
{
    for (int t = 0; t < 4; t++) {
        tg_graph g;
        igraph_t ours, ref;
        igraph_bool_t iso = 0;
        static const igraph_integer_t torus[2] = {3, 4}, cube[4] = {2, 2, 2,
                                                                    2};
        switch (t) {
        case 0:
            build(&g, TG_KIND_RING, 11, 2);
            igraph_ring(&ref, 11, IGRAPH_UNDIRECTED, 0, 1);
            break;
        case 1:
            build(&g, TG_KIND_COMPLETE, 9, 0);
            igraph_full(&ref, 9, IGRAPH_UNDIRECTED, IGRAPH_NO_LOOPS);
            break;
        case 2:
            build(&g, TG_KIND_TORUS, 12, 0);
            lattice(&ref, torus, 2, 1);
            break;
        default:
            build(&g, TG_KIND_HYPERCUBE, 16, 0);
            lattice(&ref, cube, 4, 0);
            break;
        }
        to_igraph(&g, &ours);
        ck_assert_int_eq(igraph_isomorphic(&ours, &ref, &iso), IGRAPH_SUCCESS);
        ck_assert_msg(iso, "construction %d differs from igraph's", t);
        igraph_destroy(&ours);
        igraph_destroy(&ref);
        tg_graph_destroy(&g);
    }
}
END_TEST

START_TEST(random_is_seeded)
{
    tg_graph a, b, c;
    cm_rng r1, r2, r3;
    cm_rng_seed(&r1, 5, 0);
    cm_rng_seed(&r2, 5, 0);
    cm_rng_seed(&r3, 6, 0);
    tg_graph_init(&a);
    tg_graph_init(&b);
    tg_graph_init(&c);
    ck_assert_int_eq(tg_graph_random_regular(&a, 40, 4, &r1), CM_OK);
    ck_assert_int_eq(tg_graph_random_regular(&b, 40, 4, &r2), CM_OK);
    ck_assert_int_eq(tg_graph_random_regular(&c, 40, 4, &r3), CM_OK);
    ck_assert_mem_eq(a.adj, b.adj, 40 * 40);
    ck_assert(memcmp(a.adj, c.adj, 40 * 40) != 0);
    tg_graph_destroy(&a);
    tg_graph_destroy(&b);
    tg_graph_destroy(&c);
}
END_TEST

/* --kind random through igraph's degree-sequence generator: one seed, one
 * graph; another seed, another graph; always simple, regular, connected. */
START_TEST(igraph_random_is_seeded)
{
    cm_topo a, b, c;
    cm_rng r1, r2, r3;
    cm_rng_seed(&r1, 5, 0);
    cm_rng_seed(&r2, 5, 0);
    cm_rng_seed(&r3, 6, 0);
    cm_topo_init(&a);
    cm_topo_init(&b);
    cm_topo_init(&c);
    ck_assert_int_eq(tg_kind_build(&a, TG_KIND_RANDOM, 40, 3, &r1), CM_OK);
    ck_assert_int_eq(tg_kind_build(&b, TG_KIND_RANDOM, 40, 3, &r2), CM_OK);
    ck_assert_int_eq(tg_kind_build(&c, TG_KIND_RANDOM, 40, 3, &r3), CM_OK);
    ck_assert_uint_eq(a.m, 60);
    ck_assert_mem_eq(a.ei, b.ei, a.m * sizeof *a.ei);
    ck_assert_mem_eq(a.ej, b.ej, a.m * sizeof *a.ej);
    ck_assert(memcmp(a.ej, c.ej, a.m * sizeof *a.ej) != 0 ||
              memcmp(a.ei, c.ei, a.m * sizeof *a.ei) != 0);
    size_t dmin, dmax;
    cm_topo_degree_range(&c, &dmin, &dmax);
    ck_assert_uint_eq(dmin, 3);
    ck_assert_uint_eq(dmax, 3);
    ck_assert_int_eq(cm_topo_check_connected(&c, "c"), CM_OK);
    /* a random graph needs a generator; n = 1 is refused for every kind */
    ck_assert_int_eq(tg_kind_build(&a, TG_KIND_RANDOM, 40, 3, NULL),
                     CM_EINVAL);
    ck_assert_int_eq(tg_kind_check(TG_KIND_RING, 1, 2), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "needs n >= 2"));
    ck_assert_int_eq(tg_kind_check(TG_KIND_RRL, 2, 1), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "needs n >= 3"));
    cm_topo_destroy(&a);
    cm_topo_destroy(&b);
    cm_topo_destroy(&c);
}
END_TEST

START_TEST(swap_and_undo)
{
    tg_graph g;
    build(&g, TG_KIND_RRL, 10, 4);
    unsigned char before[100];
    memcpy(before, g.adj, sizeof before);
    /* 0~1 and 5~6 -> 0~5 and 1~6 */
    ck_assert(tg_graph_swap_ok(&g, 0, 1, 5, 6));
    ck_assert(!tg_graph_swap_ok(&g, 0, 1, 1, 2)); /* shares a node */
    ck_assert(!tg_graph_swap_ok(&g, 0, 1, 2, 3)); /* 0~2 exists */
    ck_assert(!tg_graph_swap_ok(&g, 0, 5, 1, 6)); /* 0 !~ 5 */
    tg_graph_swap(&g, 0, 1, 5, 6);
    ck_assert(g.adj[0 * 10 + 5] && g.adj[1 * 10 + 6]);
    ck_assert(!g.adj[0 * 10 + 1] && !g.adj[5 * 10 + 6]);
    for (size_t i = 0; i < 10; i++) {
        ck_assert_uint_eq(tg_graph_degree(&g, i), 4);
        for (size_t p = g.off[i]; p < g.off[i + 1]; p++)
            ck_assert(g.adj[i * 10 + g.nb[p]]);
    }
    size_t hits = 0;
    for (size_t k = 0; k < g.m; k++)
        hits += g.adj[g.eu[k] * 10 + g.ev[k]];
    ck_assert_uint_eq(hits, g.m);
    tg_graph_swap(&g, 0, 5, 1, 6); /* undo */
    ck_assert_mem_eq(g.adj, before, sizeof before);
    tg_graph_destroy(&g);
}
END_TEST

/* The rows, their edge slots and the edge list describe one graph. */
static void assert_consistent(const tg_graph *g)
{
    size_t seen = 0, bad = 0; /* one assertion: Check's are not free */
    for (size_t i = 0; i < g->n; i++)
        for (size_t p = g->off[i]; p < g->off[i + 1]; p++) {
            size_t k = g->ne[p], j = g->nb[p];
            bad += k >= g->m ||
                   !((g->eu[k] == i && g->ev[k] == j) ||
                     (g->eu[k] == j && g->ev[k] == i)) ||
                   !tg_graph_has_edge(g, i, j) || !tg_graph_has_edge(g, j, i);
            seen++;
        }
    ck_assert_msg(bad == 0 && seen == 2 * g->m, "%zu bad row entries", bad);
}

/* tg_graph_swap_connected agrees with the whole-graph BFS on every swap
 * of random walks over swaps (rings split into two cycles often; random
 * 3-regular graphs rarely), with and without the dense matrix (above
 * TG_GRAPH_DENSE_MAX nodes edge tests scan rows), and a swap and its
 * undo restore rows, slots and edge list. */
START_TEST(swap_connected_matches_bfs)
{
    static const struct {
        tg_kind kind;
        size_t n, d;
    } tab[] = {{TG_KIND_RING, 40, 2}, {TG_KIND_RANDOM, 60, 3},
               {TG_KIND_RING, TG_GRAPH_DENSE_MAX + 10, 2}};
    cm_rng rng;
    cm_rng_seed(&rng, 9, 0);
    for (size_t c = 0; c < 3; c++) {
        tg_graph g;
        tg_graph_init(&g);
        ck_assert_int_eq(tg_graph_build(&g, tab[c].kind, tab[c].n, tab[c].d,
                                        &rng), CM_OK);
        ck_assert((g.adj != NULL) == (g.n <= TG_GRAPH_DENSE_MAX));
        assert_consistent(&g);
        size_t splits = 0, kept = 0;
        for (size_t t = 0; t < 400; t++) {
            size_t k1 = cm_rng_below(&rng, g.m), k2 = cm_rng_below(&rng, g.m);
            size_t a = g.eu[k1], b = g.ev[k1], x = g.eu[k2], y = g.ev[k2];
            if (!tg_graph_swap_ok(&g, a, b, x, y))
                continue;
            size_t *eu = malloc(g.m * sizeof *eu), *ev = malloc(g.m * sizeof *ev);
            memcpy(eu, g.eu, g.m * sizeof *eu);
            memcpy(ev, g.ev, g.m * sizeof *ev);
            tg_graph_swap(&g, a, b, x, y);
            int local = tg_graph_swap_connected(&g, a, b);
            int conn = -1;
            ck_assert_int_eq(tg_graph_connected(&g, &conn), CM_OK);
            ck_assert_int_eq(local, conn);
            assert_consistent(&g);
            ck_assert(tg_graph_has_edge(&g, a, x) && tg_graph_has_edge(&g, b, y));
            ck_assert(!tg_graph_has_edge(&g, a, b) && !tg_graph_has_edge(&g, x, y));
            if (local) {
                kept++;
            } else {
                splits++;
                tg_graph_swap(&g, a, x, b, y); /* undo */
                ck_assert_mem_eq(g.eu, eu, g.m * sizeof *eu);
                ck_assert_mem_eq(g.ev, ev, g.m * sizeof *ev);
                assert_consistent(&g);
            }
            free(eu);
            free(ev);
        }
        ck_assert_msg(kept > 0, "case %zu: no swap kept", c);
        if (tab[c].kind == TG_KIND_RING)
            ck_assert_msg(splits > 0, "case %zu: no swap split the ring", c);
        int conn = -1;
        ck_assert_int_eq(tg_graph_connected(&g, &conn), CM_OK);
        ck_assert(conn);
        tg_graph_destroy(&g);
    }
}
END_TEST

START_TEST(bad_parameters)
{
    ck_assert_int_eq(tg_kind_check(TG_KIND_LEARNED, 9, 3), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "odd"));
    ck_assert_int_eq(tg_kind_check(TG_KIND_RANDOM, 8, 8), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "-d"));
    ck_assert_int_eq(tg_kind_check(TG_KIND_RRL, 8, 1), CM_EINVAL);
    ck_assert_int_eq(tg_kind_check(TG_KIND_LEARNED, 2, 1), CM_EINVAL);
    ck_assert_int_eq(tg_kind_check(TG_KIND_HYPERCUBE, 24, 4), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "power of two"));
    ck_assert_int_eq(tg_kind_check(TG_KIND_TORUS, 13, 4), CM_EINVAL);
    ck_assert_int_eq(tg_kind_check(TG_KIND_TORUS, 14, 4), CM_EINVAL);
    ck_assert_int_eq(tg_kind_check(TG_KIND_TORUS, 15, 4), CM_OK);
    ck_assert_uint_eq(tg_torus_side(64), 8);
    ck_assert_uint_eq(tg_torus_side(15), 3);
    tg_kind k;
    ck_assert_int_eq(tg_kind_parse("star", &k), CM_EINVAL);
    ck_assert_ptr_nonnull(strstr(cm_last_error(), "--kind"));
    ck_assert_int_eq(tg_kind_parse("hypercube", &k), CM_OK);
    ck_assert_int_eq(k, TG_KIND_HYPERCUBE);
    /* bad edge lists */
    tg_graph g;
    tg_graph_init(&g);
    size_t u[2] = {0, 1}, v[2] = {1, 0}, s = 2;
    ck_assert_int_eq(tg_graph_from_edges(&g, 3, 2, u, v), CM_EINVAL);
    ck_assert_int_eq(tg_graph_from_edges(&g, 3, 1, &s, &s), CM_EINVAL);
    ck_assert_int_eq(tg_graph_from_edges(&g, 2, 1, u, &s), CM_EINVAL);
    tg_graph_destroy(&g);
}
END_TEST

/* A weighted construction survives cm_topo_save / cm_topo_load. */
START_TEST(file_round_trip)
{
    static const tg_kind kinds[] = {TG_KIND_TORUS, TG_KIND_RANDOM,
                                    TG_KIND_EXPONENTIAL};
    static const cm_weight_rule rules[] = {
        CM_WEIGHTS_LAPLACIAN, CM_WEIGHTS_MH, CM_WEIGHTS_MAXDEG};
    char path[] = "/tmp/check_tg_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    for (size_t t = 0; t < 3; t++) {
        tg_graph g;
        build(&g, kinds[t], 16, 4);
        cm_topo a, b;
        cm_topo_init(&a);
        cm_topo_init(&b);
        ck_assert_int_eq(tg_graph_to_topo(&g, &a), CM_OK);
        ck_assert_int_eq(cm_topo_set_weights(&a, rules[t]), CM_OK);
        ck_assert_int_eq(cm_topo_save(&a, path, "topogen test\nsecond"),
                         CM_OK);
        ck_assert_int_eq(load_topo(&b, path), CM_OK);
        ck_assert_uint_eq(b.n, a.n);
        ck_assert_uint_eq(b.m, a.m);
        for (size_t k = 0; k < a.m; k++) {
            ck_assert_uint_eq(a.ei[k], b.ei[k]);
            ck_assert_uint_eq(a.ej[k], b.ej[k]);
            ck_assert(a.ew[k] == b.ew[k]);
        }
        for (size_t i = 0; i < a.n; i++)
            ck_assert(a.self[i] == b.self[i]);
        tg_graph h;
        tg_graph_init(&h);
        ck_assert_int_eq(tg_graph_from_topo(&h, &b), CM_OK);
        ck_assert_mem_eq(h.adj, g.adj, 16 * 16);
        tg_graph_destroy(&h);
        cm_topo_destroy(&a);
        cm_topo_destroy(&b);
        tg_graph_destroy(&g);
    }
    unlink(path);
}
END_TEST

/* issue 34: the ring lattice without its s x s matrix of seen pairs (8
 * GB at 65,536 nodes) lists the same edges in the same order as the
 * matrix did, for every small s (where offsets wrap and pairs repeat)
 * and degree, odd ones (the s/2 offset) included. */
static size_t lattice_by_matrix(size_t s, size_t d, size_t *u, size_t *v)
{
    unsigned char *seen = calloc(s * s + 1, 1);
    ck_assert_ptr_nonnull(seen);
    size_t m = 0;
    for (size_t i = 0; i < s; i++)
        for (size_t k = 1; k <= d / 2 + d % 2; k++) {
            size_t j = (i + (k <= d / 2 ? k : s / 2)) % s;
            size_t a = i < j ? i : j, b = i < j ? j : i;
            if (a == b || seen[a * s + b])
                continue;
            seen[a * s + b] = 1;
            u[m] = a;
            v[m++] = b;
        }
    free(seen);
    return m;
}

START_TEST(ring_lattice_without_matrix)
{
    size_t cap = 80 * 12;
    size_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v);
    size_t *u2 = malloc(cap * sizeof *u2), *v2 = malloc(cap * sizeof *v2);
    ck_assert(u && v && u2 && v2);
    for (size_t s = 1; s <= 70; s++)
        for (size_t d = 1; d <= 13; d++) {
            size_t m = tg_ring_lattice_edges(s, d, u, v);
            size_t m2 = lattice_by_matrix(s, d, u2, v2);
            ck_assert_msg(m == m2, "s=%zu d=%zu: %zu edges, expected %zu",
                          s, d, m, m2);
            for (size_t e = 0; e < m; e++)
                ck_assert_msg(u[e] == u2[e] && v[e] == v2[e],
                              "s=%zu d=%zu edge %zu", s, d, e);
        }
    free(u);
    free(v);
    free(u2);
    free(v2);
}
END_TEST

Suite *topogen_graph_suite(void)
{
    Suite *s = suite_create("topogen_graph");
    TCase *tc = tcase_create("spectrum_closed_forms");
    tcase_add_test(tc, spectrum_ring);
    tcase_add_test(tc, ring_lattice_without_matrix);
    tcase_add_test(tc, spectrum_complete);
    tcase_add_test(tc, spectrum_hypercube);
    tcase_add_test(tc, spectrum_petersen);
    tcase_add_test(tc, spectrum_edge_cases);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    tc = tcase_create("constructions_over_igraph");
    tcase_add_test(tc, constructions);
    tcase_add_test(tc, constructions_match_igraph);
    tcase_add_test(tc, random_is_seeded);
    tcase_add_test(tc, igraph_random_is_seeded);
    suite_add_tcase(s, tc);
    tc = tcase_create("swaps_parameters_files");
    tcase_add_test(tc, swap_and_undo);
    tcase_add_test(tc, swap_connected_matches_bfs);
    tcase_add_test(tc, bad_parameters);
    tcase_add_test(tc, file_round_trip);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
