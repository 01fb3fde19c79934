/* check_shiftinv.c: src/cm_shiftinv.c through the path users take: a
 * file written here, read by the real reader (cm_topo_read), weighted by
 * cm_topo_set_weights and evaluated by tg_eval_topo. Closed forms to 1e-9
 * relative for lambda_2, lambda_n and the SLEM (and 1 - SLEM to 1e-6) of
 * a 100,000-node ring, a 300 x 300 torus and an odd 20,001-node ring (its
 * lambda_n is a double eigenvalue below the Gershgorin bound); agreement
 * with the dense solver on a random 4-regular graph (Lanczos alone);
 * a 20,000-node expander converging without the factorization's analysis
 * (against cm_lanczos);
 * a disconnected graph (lambda_2 = 0) and two nodes; period-product norms
 * above the dense limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "cm_lanczos.h"
#include "cm_mixing.h"
#include "cm_rng.h"
#include "cm_shiftinv.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "tg_eval.h"
#include "tg_graph.h"
#include "tg_seq.h"

#define PI 3.14159265358979323846

/* 4 sin^2(pi k / n): the Laplacian eigenvalue 2 - 2 cos(2 pi k / n) of an
 * n-cycle without the cancellation of 2 - 2 cos. */
static double cyc(double k, double n)
{
    double s = sin(PI * k / n);
    return 4.0 * s * s;
}

/* Writes a side x side torus (side = 0: an n-ring) to a temporary file,
 * reads it back with the reader. */
static void read_lattice(cm_topo *t, size_t n, size_t side)
{
    char path[] = "/tmp/check_shiftinv_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "# n=%zu\n", n);
    for (size_t i = 0; i < n; i++) {
        if (!side) {
            fprintf(f, "%zu %zu\n", i, (i + 1) % n);
            continue;
        }
        size_t r = i / side, c = i % side;
        fprintf(f, "%zu %zu\n%zu %zu\n", i, r * side + (c + 1) % side, i,
                ((r + 1) % side) * side + c);
    }
    ck_assert_int_eq(fclose(f), 0);
    cm_topo_init(t);
    ck_assert_msg(cm_topo_read(t, path) == CM_OK, "%s", cm_last_error());
    unlink(path);
}

static void near(double got, double want, double rel, const char *what)
{
    ck_assert_msg(fabs(got - want) <= rel * fabs(want),
                  "%s: %.17g, expected %.17g (rel. error %.3g)", what, got,
                  want, fabs(got - want) / fabs(want));
}

/* Laplacian and mh weights through tg_eval_topo against l2, ln; mh's
 * constant weight is 1/(d + 1) on a d-regular graph. */
static void check_eval(cm_topo *t, double l2, double ln, double d,
                       const char *name)
{
    char what[64];
    tg_eval e;
    ck_assert_int_eq(cm_topo_set_weights(t, CM_WEIGHTS_LAPLACIAN), CM_OK);
    ck_assert_msg(tg_eval_topo(t, &e) == CM_OK, "%s", cm_last_error());
    snprintf(what, sizeof what, "%s lambda_2", name);
    near(e.l2, l2, 1e-9, what);
    snprintf(what, sizeof what, "%s lambda_n", name);
    near(e.ln, ln, 1e-9, what);
    double slem = (ln - l2) / (ln + l2);
    snprintf(what, sizeof what, "%s laplacian SLEM", name);
    near(e.slem, slem, 1e-9, what);
    snprintf(what, sizeof what, "%s laplacian 1 - SLEM", name);
    near(1.0 - e.slem, 1.0 - slem, 1e-6, what);
    ck_assert_int_eq(cm_topo_set_weights(t, CM_WEIGHTS_MH), CM_OK);
    double s = 0.0;
    ck_assert_msg(cm_topo_slem(t, &s) == CM_OK, "%s", cm_last_error());
    double a = 1.0 / (d + 1.0);
    slem = fmax(1.0 - a * l2, fabs(1.0 - a * ln));
    snprintf(what, sizeof what, "%s mh SLEM", name);
    near(s, slem, 1e-9, what);
    snprintf(what, sizeof what, "%s mh 1 - SLEM", name);
    near(1.0 - s, 1.0 - slem, 1e-6, what);
    /* the trainer's validation computes the same SLEM */
    double vs = 0.0;
    ck_assert_int_eq(cm_topo_validate_slem(t, name, &vs), CM_OK);
    ck_assert_double_eq(vs, s);
}

START_TEST(ring_100000)
{
    cm_topo t;
    size_t n = 100000;
    read_lattice(&t, n, 0);
    check_eval(&t, cyc(1, (double)n), 4.0, 2.0, "100000-ring");
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(torus_300)
{
    cm_topo t;
    read_lattice(&t, 90000, 300);
    check_eval(&t, cyc(1, 300), 8.0, 4.0, "300x300 torus");
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(odd_ring)
{
    cm_topo t;
    size_t n = 20001; /* lambda_n = 4 cos^2(pi/(2n)), twice */
    read_lattice(&t, n, 0);
    check_eval(&t, cyc(1, (double)n), cyc((double)(n - 1) / 2, (double)n),
               2.0, "20001-ring");
    cm_shiftinv_stats s;
    double l2, ln;
    ck_assert_int_eq(cm_shiftinv_ends(&t, 0, &l2, &ln, &s), CM_OK);
    ck_assert_int_eq(s.factored, 1); /* Lanczos alone cannot */
    ck_assert(s.fill > 0.0);
    cm_topo_destroy(&t);
}
END_TEST

/* A random connected 4-regular graph on n nodes from seed into t
 * (initialised here). */
static void random4(cm_topo *t, size_t n, uint64_t seed)
{
    tg_graph g;
    tg_graph_init(&g);
    cm_rng rng;
    cm_rng_seed(&rng, seed, 0);
    ck_assert_int_eq(tg_graph_build(&g, TG_KIND_RANDOM, n, 4, &rng), CM_OK);
    cm_topo_init(t);
    ck_assert_int_eq(tg_graph_to_topo(&g, t), CM_OK);
    tg_graph_destroy(&g);
}

START_TEST(random_regular_against_dense)
{
    cm_topo t;
    random4(&t, 1000, 3);
    double d2, dn, l2, ln; /* dense below CM_SPARSE_FROM */
    ck_assert_int_eq(cm_topo_laplacian_extremes(&t, &d2, &dn), CM_OK);
    cm_shiftinv_stats s;
    ck_assert_int_eq(cm_shiftinv_ends(&t, 0, &l2, &ln, &s), CM_OK);
    ck_assert_int_eq(s.factored, 0); /* an expander: Lanczos alone */
    near(l2, d2, 1e-9, "lambda_2");
    near(ln, dn, 1e-9, "lambda_n");
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    double ds, m2, mm;
    ck_assert_int_eq(cm_topo_slem(&t, &ds), CM_OK);
    ck_assert_int_eq(cm_shiftinv_ends(&t, 1, &m2, &mm, NULL), CM_OK);
    near(fmax(fabs(1.0 - m2), fabs(1.0 - mm)), ds, 1e-9, "mh SLEM");
    cm_topo_destroy(&t);
}
END_TEST

/* y = L x of t (the reference's product). */
static void lap_mv(const void *ctx, const double *x, double *y)
{
    const cm_topo *t = ctx;
    for (size_t i = 0; i < t->n; i++) {
        double v = (double)(t->off[i + 1] - t->off[i]) * x[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            v -= x[t->adj[p]];
        y[i] = v;
    }
}

/* The decision between Lanczos and a factorization: a 20,000-node random
 * 4-regular graph (lambda_2 within ~1e-3 of lambda_3: the first 100
 * products do not converge) converges by Lanczos alone and CHOLMOD's
 * analysis never runs (fill stays 0: its factor would be far too large,
 * and the analysis alone costs hundreds of products). Its ends against
 * another method, cm_lanczos's thick-restart fallback (max_stored = 0:
 * restarts, full reorthogonalisation) to 1e-13 of ||L||, to 1e-9
 * relative. */
START_TEST(expander_without_analysis)
{
    cm_topo t;
    random4(&t, 20000, 5);
    double l2, ln;
    cm_shiftinv_stats s;
    ck_assert_msg(cm_shiftinv_ends(&t, 0, &l2, &ln, &s) == CM_OK, "%s",
                  cm_last_error());
    ck_assert_msg(s.products > 100, "%zu products: step 1 alone converged, "
                  "the decision was not exercised", s.products);
    ck_assert_int_eq(s.factored, 0);
    ck_assert_msg(s.fill == 0.0, "the analysis ran (fill %g)", s.fill);
    ck_assert_int_eq(s.factorizations, 0);
    cm_lanczos lz;
    cm_lanczos_init(&lz);
    ck_assert_int_eq(cm_lanczos_reserve(&lz, t.n, 96, 2), CM_OK);
    lz.deflate_ones = 1;
    lz.scale = 8.0;
    lz.tol = 1e-13;
    lz.max_stored = 0;
    ck_assert_msg(cm_lanczos_run(&lz, lap_mv, &t, NULL) == CM_OK, "%s",
                  cm_last_error());
    near(l2, lz.lo, 1e-9, "expander lambda_2");
    near(ln, lz.hi, 1e-9, "expander lambda_n");
    cm_lanczos_destroy(&lz);
    cm_topo_destroy(&t);
}
END_TEST

START_TEST(small_and_disconnected)
{
    cm_topo t;
    cm_topo_init(&t);
    size_t a[] = {0}, b[] = {1};
    ck_assert_int_eq(cm_topo_from_edges(&t, 2, 1, a, b), CM_OK);
    double l2, ln;
    ck_assert_int_eq(cm_shiftinv_ends(&t, 0, &l2, &ln, NULL), CM_OK);
    near(l2, 2.0, 1e-12, "K2 lambda_2");
    near(ln, 2.0, 1e-12, "K2 lambda_n");
    ck_assert_int_eq(cm_shiftinv_ends(&t, 1, &l2, &ln, NULL), CM_EINVAL);
    /* two rings of 5000: lambda_2 = 0 exactly, lambda_n of a 5000-ring */
    size_t n = 10000;
    size_t *ei = malloc(n * sizeof *ei), *ej = malloc(n * sizeof *ej);
    for (size_t i = 0; i < n; i++) {
        ei[i] = i;
        ej[i] = i % 5000 == 4999 ? i - 4999 : i + 1;
    }
    ck_assert_int_eq(cm_topo_from_edges(&t, n, n, ei, ej), CM_OK);
    ck_assert_int_eq(cm_shiftinv_ends(&t, 0, &l2, &ln, NULL), CM_OK);
    ck_assert_double_eq(l2, 0.0);
    near(ln, 4.0, 1e-12, "two rings lambda_n");
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    double s;
    ck_assert_int_eq(cm_topo_slem(&t, &s), CM_OK);
    ck_assert_double_eq(s, 1.0);
    ck_assert_int_eq(cm_topo_validate_slem(&t, "two", &s), CM_ETOPO);
    free(ei);
    free(ej);
    cm_topo_destroy(&t);
}
END_TEST

/* Period products above the dense limit (Lanczos on P^T P): Base-2
 * averages exactly at any n; W^2 of an mh ring has norm SLEM^2. */
START_TEST(sequence_norms)
{
    cm_topo_seq s;
    cm_topo_seq_init(&s);
    ck_assert_int_eq(tg_seq_build(&s, TG_SEQ_BASE, 5000, 1), CM_OK);
    double norm = 1.0;
    ck_assert_int_eq(cm_topo_seq_norm(&s, s.period, &norm), CM_OK);
    ck_assert_msg(norm <= 1e-12, "base product norm %g", norm);
    ck_assert_int_eq(cm_topo_seq_norm(&s, s.period - 1, &norm), CM_OK);
    ck_assert(norm > 1e-3); /* one round short: not yet averaged */
    cm_topo_seq_destroy(&s);
    cm_topo t;
    size_t n = 5000;
    read_lattice(&t, n, 0);
    ck_assert_int_eq(cm_topo_set_weights(&t, CM_WEIGHTS_MH), CM_OK);
    cm_topo_seq_init(&s);
    ck_assert_int_eq(cm_topo_seq_from_topo(&s, &t), CM_OK);
    ck_assert_int_eq(cm_topo_seq_norm(&s, 2, &norm), CM_OK);
    double slem = 1.0 - cyc(1, (double)n) / 3.0;
    near(norm, slem * slem, 1e-9, "||W^2 - J/n||");
    cm_topo_seq_destroy(&s);
}
END_TEST

Suite *shiftinv_suite(void)
{
    Suite *s = suite_create("shiftinv");
    TCase *tc = tcase_create("closed_forms_large");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ring_100000);
    tcase_add_test(tc, torus_300);
    tcase_add_test(tc, odd_ring);
    suite_add_tcase(s, tc);
    tc = tcase_create("small");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_regular_against_dense);
    tcase_add_test(tc, expander_without_analysis);
    tcase_add_test(tc, small_and_disconnected);
    tcase_add_test(tc, sequence_norms);
    suite_add_tcase(s, tc);
    return s;
}
