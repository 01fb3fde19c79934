/* check_lanczos.c: src/cm_lanczos.c, the sparse extreme eigensolver:
 * closed forms (ring, hypercube, complete graph, path on 2 nodes) to
 * 1e-9 relative, agreement with the dense solver on random regular
 * graphs, the SLEM and the extremes of W of weighted topologies, warm
 * starts, determinism, the engine's three-term recurrence against its
 * thick-restart fallback, the values-only runs step by step, and the
 * errors (disconnected, unweighted, no convergence, bad sizes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_blas.h"
#include "check_lanczos_topo.h"

#include "cm_lanczos.h"
#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_topo.h"
#include "tg_graph.h"

#define PI 3.14159265358979323846

static void build(cm_topo *t, tg_kind kind, size_t n, size_t d)
{
    tg_graph g;
    tg_graph_init(&g);
    cm_rng rng;
    cm_rng_seed(&rng, 5, 0);
    ck_assert_int_eq(tg_graph_build(&g, kind, n, d, &rng), CM_OK);
    cm_topo_init(t);
    ck_assert_int_eq(tg_graph_to_topo(&g, t), CM_OK);
    tg_graph_destroy(&g);
}

START_TEST(closed_forms)
{
    static const struct {
        tg_kind kind;
        size_t n;
    } tab[] = {{TG_KIND_RING, 3},       {TG_KIND_RING, 64},
               {TG_KIND_RING, 301},     {TG_KIND_HYPERCUBE, 8},
               {TG_KIND_HYPERCUBE, 1024}, {TG_KIND_COMPLETE, 5},
               {TG_KIND_COMPLETE, 200}};
    for (size_t c = 0; c < sizeof tab / sizeof *tab; c++) {
        size_t n = tab[c].n;
        double l2, ln, e2, en;
        switch (tab[c].kind) {
        case TG_KIND_RING:
            e2 = 2.0 - 2.0 * cos(2.0 * PI / (double)n);
            en = 2.0 - 2.0 * cos(2.0 * PI * (double)(n / 2) / (double)n);
            break;
        case TG_KIND_HYPERCUBE:
            e2 = 2.0;
            en = 2.0 * log2((double)n);
            break;
        default:
            e2 = en = (double)n;
        }
        cm_topo t;
        build(&t, tab[c].kind, n, 4);
        ck_assert_int_eq(cm_topo_sparse_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_msg(fabs(l2 - e2) <= 1e-9 * en && fabs(ln - en) <= 1e-9 * en,
                      "case %zu: %.12g %.12g vs %.12g %.12g", c, l2, ln, e2,
                      en);
        /* W = I - L/(ln + l2)*2: SLEM (ln - l2)/(ln + l2) */
        ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_LAPLACIAN),
                         CM_OK);
        double slem;
        ck_assert_msg(cm_topo_sparse_slem(&t, &slem) == CM_OK, "case %zu: %s",
                      c, cm_last_error());
        ck_assert_double_eq_tol(slem, (en - e2) / (en + e2), 1e-9);
        cm_topo_destroy(&t);
    }
}
END_TEST

/* Random regular graphs: sparse and dense (cm_mixing, GSL) agree. */
START_TEST(matches_dense)
{
    static const size_t ns[] = {3, 4, 17, 100, 300};
    for (size_t c = 0; c < sizeof ns / sizeof *ns; c++) {
        cm_topo t;
        size_t n = ns[c];
        build(&t, n < 5 ? TG_KIND_COMPLETE : TG_KIND_RANDOM, n, c == 3 ? 3 : 4);
        double l2, ln, d2, dn, s, ds;
        ck_assert_int_eq(cm_topo_sparse_extremes(&t, &l2, &ln), CM_OK);
        ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &d2, &dn), CM_OK);
        ck_assert_msg(fabs(l2 - d2) <= 1e-9 * dn && fabs(ln - dn) <= 1e-9 * dn,
                      "n=%zu: %.12g %.12g vs dense %.12g %.12g", n, l2, ln,
                      d2, dn);
        ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
        ck_assert_int_eq(cm_topo_sparse_slem(&t, &s), CM_OK);
        ck_assert_int_eq(cm_topo_slem(&t, &ds), CM_OK);
        ck_assert_double_eq_tol(s, ds, 1e-9);
        double w2, wmin, dw2, dwmin;
        ck_assert_int_eq(cm_topo_sparse_w_extremes(&t, &w2, &wmin), CM_OK);
        ck_assert_int_eq(cm_topo_w_extremes(&t, &dw2, &dwmin), CM_OK);
        ck_assert_double_eq_tol(w2, dw2, 1e-9);
        ck_assert_double_eq_tol(wmin, dwmin, 1e-9);
        cm_topo_destroy(&t);
    }
}
END_TEST

static void lap_mv(const void *ctx, const double *x, double *y)
{
    const cm_topo *t = ctx;
    for (size_t i = 0; i < t->n; i++) {
        y[i] = (double)cm_topo_degree(t, i) * x[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            y[i] -= x[t->adj[p]];
    }
}

/* The thick restart (max_stored = 0): Ritz vectors are unit, orthogonal
 * to 1 and (near) eigenvectors; a warm start from them converges in fewer
 * products; runs repeat exactly. */
START_TEST(vectors_and_warm_start)
{
    cm_topo t;
    build(&t, TG_KIND_RANDOM, 500, 4);
    size_t n = t.n;
    cm_lanczos lz;
    cm_lanczos_init(&lz);
    ck_assert_int_eq(cm_lanczos_reserve(&lz, n, 40, 8), CM_OK);
    lz.deflate_ones = 1;
    lz.max_stored = 0;
    ck_assert_int_eq(cm_lanczos_run(&lz, lap_mv, &t, NULL), CM_OK);
    size_t cold = lz.matvecs;
    double lo = lz.lo, hi = lz.hi;
    ck_assert_uint_eq(lz.nvec, 8);
    double *y = malloc(n * sizeof *y), *x0 = calloc(n, sizeof *x0);
    for (size_t k = 0; k < 2; k++) {
        const double *v = k ? lz.yhi : lz.ylo;
        double th = k ? lz.thi[0] : lz.tlo[0], nn = 0, sum = 0, res = 0;
        lap_mv(&t, v, y);
        for (size_t i = 0; i < n; i++) {
            nn += v[i] * v[i];
            sum += v[i];
            res += (y[i] - th * v[i]) * (y[i] - th * v[i]);
            x0[i] += v[i];
        }
        ck_assert_double_eq_tol(nn, 1.0, 1e-12);
        ck_assert(fabs(sum) < 1e-9);
        /* converged on the eigenvalue (error <= r^2/gap), so the vector's
         * residual r itself is only about sqrt(1e-10 * 8 * gap) */
        ck_assert_msg(sqrt(res) < 1e-4, "residual %g", sqrt(res));
    }
    ck_assert(lz.thi[0] == hi && lz.tlo[0] == lo && lz.tlo[1] >= lo);
    ck_assert_int_eq(cm_lanczos_run(&lz, lap_mv, &t, x0), CM_OK);
    ck_assert_double_eq_tol(lz.lo, lo, 1e-9);
    ck_assert_double_eq_tol(lz.hi, hi, 1e-9);
    ck_assert_msg(lz.matvecs < cold, "warm %zu cold %zu", lz.matvecs, cold);
    size_t warm = lz.matvecs;
    double wlo = lz.lo;
    ck_assert_int_eq(cm_lanczos_run(&lz, lap_mv, &t, x0), CM_OK);
    ck_assert(lz.matvecs == warm && lz.lo == wlo);
    free(y);
    free(x0);
    cm_lanczos_destroy(&lz);
    cm_topo_destroy(&t);
}
END_TEST

/* An early stop that fires once the top Ritz value passes a level. */
static int above(const void *ctx, double lo, double hi)
{
    (void)lo;
    return hi > *(const double *)ctx;
}

/* The three-term run against the thick restart (max_stored = 0): the
 * same extremes to 1e-9 relative on a random 4-regular graph and on the
 * 9-cube (eigenvalues 2k of multiplicity C(9, k): lost orthogonality
 * repeats converged values there), Ritz vectors orthonormal, orthogonal
 * to 1 and with V^T L V = diag(t), warm starts that save products, the
 * early stop, and determinism. */
START_TEST(three_term_matches_restarted)
{
    static const struct {
        tg_kind kind;
        size_t n;
    } tab[] = {{TG_KIND_RANDOM, 1000}, {TG_KIND_HYPERCUBE, 512}};
    for (size_t c = 0; c < 2; c++) {
        cm_topo t;
        build(&t, tab[c].kind, tab[c].n, 4);
        size_t n = t.n;
        cm_lanczos a, b;
        cm_lanczos_init(&a);
        cm_lanczos_init(&b);
        ck_assert_int_eq(cm_lanczos_reserve(&a, n, 40, 8), CM_OK);
        ck_assert_int_eq(cm_lanczos_reserve(&b, n, 40, 8), CM_OK);
        a.deflate_ones = b.deflate_ones = 1;
        a.scale = b.scale = 16.0;
        a.max_stored = 0;
        ck_assert_int_eq(cm_lanczos_run(&a, lap_mv, &t, NULL), CM_OK);
        ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, NULL), CM_OK);
        ck_assert_uint_gt(b.k, 0); /* the three-term recurrence answered */
        ck_assert_msg(fabs(a.lo - b.lo) <= 1e-9 * a.hi &&
                          fabs(a.hi - b.hi) <= 1e-9 * a.hi,
                      "case %zu: restarted %.12g %.12g three-term %.12g %.12g",
                      c, a.lo, a.hi, b.lo, b.hi);
        if (tab[c].kind == TG_KIND_HYPERCUBE)
            ck_assert(fabs(b.lo - 2.0) < 1e-9 && fabs(b.hi - 18.0) < 1e-9);
        ck_assert(b.nvec >= 1 && b.nvec <= 8);
        double *y = malloc(n * sizeof *y), *x0 = calloc(n, sizeof *x0);
        for (size_t e = 0; e < 2; e++) {
            const double *v = e ? b.yhi : b.ylo;
            const double *th = e ? b.thi : b.tlo;
            for (size_t i = 0; i < b.nvec; i++) {
                double sum = 0.0;
                for (size_t p = 0; p < n; p++)
                    sum += v[i * n + p];
                ck_assert(fabs(sum) < 1e-9);
                lap_mv(&t, v + i * n, y);
                for (size_t j = 0; j < b.nvec; j++) {
                    double dot = 0.0, quad = 0.0;
                    for (size_t p = 0; p < n; p++) {
                        dot += v[i * n + p] * v[j * n + p];
                        quad += v[j * n + p] * y[p];
                    }
                    ck_assert_msg(fabs(dot - (i == j)) < 1e-10,
                                  "case %zu end %zu: <y%zu, y%zu> = %g", c, e,
                                  i, j, dot);
                    ck_assert_msg(fabs(quad - (i == j ? th[i] : 0.0)) < 1e-9,
                                  "case %zu end %zu: y%zu' L y%zu = %g", c, e,
                                  j, i, quad);
                }
                if (i > 0) /* tlo ascending, thi descending */
                    ck_assert(e ? th[i] <= th[i - 1] : th[i] >= th[i - 1]);
                for (size_t p = 0; p < n; p++)
                    x0[p] += v[i * n + p];
            }
            /* Rayleigh quotients bound the extremes */
            ck_assert(e ? th[0] <= b.hi + 1e-9 : th[0] >= b.lo - 1e-9);
        }
        size_t cold = b.matvecs;
        double lo = b.lo;
        ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, x0), CM_OK);
        ck_assert_double_eq_tol(b.lo, lo, 1e-9);
        if (tab[c].kind == TG_KIND_RANDOM) /* the cube is exhausted at once */
            ck_assert_msg(b.matvecs < cold, "warm %zu cold %zu", b.matvecs,
                          cold);
        size_t warm = b.matvecs;
        double wlo = b.lo;
        ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, x0), CM_OK);
        ck_assert(b.matvecs == warm && b.lo == wlo);
        double level = 0.5 * b.hi;
        b.early = above;
        b.early_ctx = &level;
        ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, NULL), CM_OK);
        ck_assert(b.stopped_early == 1 && b.nvec == 0 && b.hi > level);
        ck_assert(b.matvecs <= cold);
        free(y);
        free(x0);
        cm_lanczos_destroy(&a);
        cm_lanczos_destroy(&b);
        cm_topo_destroy(&t);
    }
    /* a 400-node ring: no convergence within n/2 stored vectors, so the
     * restarted run answers, its products counted on top */
    cm_topo t;
    build(&t, TG_KIND_RING, 400, 2);
    cm_lanczos lz;
    cm_lanczos_init(&lz);
    ck_assert_int_eq(cm_lanczos_reserve(&lz, t.n, 40, 8), CM_OK);
    lz.deflate_ones = 1;
    lz.scale = 4.0;
    ck_assert_int_eq(cm_lanczos_run(&lz, lap_mv, &t, NULL), CM_OK);
    ck_assert_double_eq_tol(lz.lo, 2.0 - 2.0 * cos(2.0 * PI / 400.0), 1e-9);
    ck_assert_double_eq_tol(lz.hi, 4.0, 1e-9);
    ck_assert_uint_gt(lz.matvecs, 199);
    cm_lanczos_destroy(&lz);
    cm_topo_destroy(&t);
}
END_TEST

/* Values only (cm_shiftinv's form, two vectors held): the same ends as
 * the thick restart on a random 4-regular graph, run at once or budget by
 * budget (the same recurrence, checked more often); high_only leaves lo
 * NAN and still finds hi; the extrapolated rest is finite while the error
 * falls and long on a 100,000-node ring (a stall); misuse is refused. */
START_TEST(values_only)
{
    cm_topo t;
    build(&t, TG_KIND_RANDOM, 2000, 4);
    size_t n = t.n;
    cm_lanczos a, b;
    cm_lanczos_init(&a);
    cm_lanczos_init(&b);
    ck_assert_int_eq(cm_lanczos_reserve(&a, n, 40, 8), CM_OK);
    a.deflate_ones = 1;
    a.scale = 16.0;
    a.tol = 1e-12;
    a.max_stored = 0;
    ck_assert_int_eq(cm_lanczos_run(&a, lap_mv, &t, NULL), CM_OK);
    ck_assert_int_eq(cm_lanczos_start(&a, NULL), CM_EINVAL);
    ck_assert_int_eq(cm_lanczos_reserve_ends(&b, n), CM_OK);
    ck_assert_int_eq(cm_lanczos_more(&b, lap_mv, &t, 10), CM_EINVAL);
    b.deflate_ones = 1;
    b.scale = 16.0;
    b.tol = 1e-12;
    ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, NULL), CM_OK);
    ck_assert(b.converged && b.nvec == 0 && b.k == b.matvecs);
    ck_assert_msg(fabs(a.lo - b.lo) <= 1e-9 * a.hi &&
                      fabs(a.hi - b.hi) <= 1e-9 * a.hi,
                  "restarted %.15g %.15g values only %.15g %.15g", a.lo, a.hi,
                  b.lo, b.hi);
    size_t once = b.k;
    double lo = b.lo, hi = b.hi, pred = INFINITY;
    ck_assert_int_eq(cm_lanczos_start(&b, NULL), CM_OK);
    while (!b.converged && b.k < 10 * once) {
        ck_assert_int_eq(cm_lanczos_more(&b, lap_mv, &t, 7), CM_OK);
        if (!b.converged)
            pred = fmin(pred, cm_lanczos_predict(&b));
    }
    ck_assert_msg(b.converged && b.k <= once + 7, "%zu products in steps "
                  "of 7, %zu at once", b.k, once);
    ck_assert(fabs(b.lo - lo) <= 1e-10 * hi && fabs(b.hi - hi) <= 1e-10 * hi);
    ck_assert_msg(isfinite(pred) && pred < (double)once, "predicted %g",
                  pred);
    b.high_only = 1;
    ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, NULL), CM_OK);
    ck_assert(isnan(b.lo) && fabs(b.hi - hi) <= 1e-10 * hi);
    cm_topo_destroy(&t);
    /* a ring: lambda_2 ~ 1e-9 of lambda_n stalls */
    build(&t, TG_KIND_RING, 100000, 2);
    ck_assert_int_eq(cm_lanczos_reserve_ends(&b, t.n), CM_OK);
    b.deflate_ones = 1;
    b.scale = 4.0;
    b.tol_end = 1e-12;
    ck_assert_int_eq(cm_lanczos_start(&b, NULL), CM_OK);
    ck_assert_int_eq(cm_lanczos_more(&b, lap_mv, &t, 300), CM_OK);
    ck_assert(!b.converged && b.k == 300);
    ck_assert_msg(cm_lanczos_predict(&b) > 2000.0, "predicted %g",
                  cm_lanczos_predict(&b));
    b.max_matvec = 100;
    ck_assert_int_eq(cm_lanczos_run(&b, lap_mv, &t, NULL), CM_ENUMERIC);
    cm_topo_destroy(&t);
    cm_lanczos_destroy(&a);
    cm_lanczos_destroy(&b);
}
END_TEST

START_TEST(errors)
{
    cm_lanczos lz;
    cm_lanczos_init(&lz);
    ck_assert_int_eq(cm_lanczos_reserve(&lz, 10, 5, 1), CM_EINVAL);
    ck_assert_int_eq(cm_lanczos_reserve(&lz, 0, 10, 1), CM_EINVAL);
    ck_assert_int_eq(cm_lanczos_run(&lz, lap_mv, NULL, NULL), CM_EINVAL);
    /* a 2,000-node ring with a 20-product budget cannot converge */
    cm_topo t;
    build(&t, TG_KIND_RING, 2000, 2);
    ck_assert_int_eq(cm_lanczos_reserve(&lz, t.n, 16, 4), CM_OK);
    lz.deflate_ones = 1;
    lz.max_matvec = 20;
    ck_assert_int_eq(cm_lanczos_run(&lz, lap_mv, &t, NULL), CM_ENUMERIC);
    ck_assert(strstr(cm_last_error(), "no convergence") != NULL);
    double l2, ln, s;
    ck_assert_int_eq(cm_topo_sparse_slem(&t, &s), CM_EINVAL); /* unweighted */
    cm_topo_destroy(&t);
    /* two disjoint edges */
    size_t eu[] = {0, 2}, ev[] = {1, 3};
    cm_topo_init(&t);
    ck_assert_int_eq(cm_topo_from_edges(&t, 4, 2, eu, ev), CM_OK);
    ck_assert_int_eq(cm_topo_sparse_extremes(&t, &l2, &ln), CM_OK);
    ck_assert(l2 == 0.0 && fabs(ln - 2.0) < 1e-12);
    cm_topo_destroy(&t);
    cm_lanczos_destroy(&lz);
    cm_lanczos_destroy(NULL);
}
END_TEST

Suite *lanczos_suite(void)
{
    Suite *s = suite_create("lanczos");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, closed_forms);
    tcase_add_test(tc, matches_dense);
    tcase_add_test(tc, vectors_and_warm_start);
    tcase_add_test(tc, three_term_matches_restarted);
    tcase_add_test(tc, values_only);
    tcase_add_test(tc, errors);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
