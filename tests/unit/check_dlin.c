/* check_dlin.c: src/base/cm_dlin.c sums in the order its header states,
 * bit for bit (issue 39: that order, not the CPU's kernels, fixes
 * topogen's bits): the dot product against a scalar reference of its
 * eight lanes, gemm_nn against k axpys in order (its row blocks and
 * eight-column groups must not change a bit), gemm_tn and gemv_t against
 * dot products, gemv_n's beta = 0 writing only; and cm_eigen's fixed-order
 * solver against the definition (A v = lambda v, V orthonormal). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "cm_dlin.h"
#include "cm_eigen.h"
#include "cm_rng.h"

static void fill(double *x, size_t n, cm_rng *r)
{
    for (size_t i = 0; i < n; i++)
        x[i] = cm_rng_uniform(r) - 0.5;
}

START_TEST(dot_in_eight_lanes)
{
    cm_rng r;
    cm_rng_seed(&r, 11, 0);
    double x[61], y[61];
    fill(x, 61, &r);
    fill(y, 61, &r);
    for (size_t n = 0; n <= 61; n++) {
        double s[8] = {0};
        /* lane i mod 8, in index order (the tail after the last group
         * of eight starts again at lane 0, i.e. lane i mod 8 too) */
        for (size_t i = 0; i < n; i++)
            s[i % 8] += x[i] * y[i];
        double want = ((s[0] + s[4]) + (s[1] + s[5])) +
                      ((s[2] + s[6]) + (s[3] + s[7]));
        double got = cm_dlin_dot(n, x, y);
        ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                      "n = %zu: %.17g against %.17g", n, got, want);
    }
    ck_assert(cm_dlin_nrm2(3, (const double[]){3.0, 4.0, 0.0}) == 5.0);
}
END_TEST

START_TEST(gemm_is_axpys_in_order)
{
    /* n spans several row blocks and a partial one; k leaves a
     * remainder after the groups of eight */
    const size_t n = 300, k = 21, k2 = 5;
    cm_rng r;
    cm_rng_seed(&r, 12, 0);
    double *a = malloc(n * k * sizeof *a), *b = malloc(k * k2 * sizeof *b);
    double *c = malloc(n * k2 * sizeof *c), *ref = calloc(n * k2, sizeof *ref);
    double *t = malloc(k * k2 * sizeof *t), *y = malloc(n * sizeof *y);
    fill(a, n * k, &r);
    fill(b, k * k2, &r);
    cm_dlin_gemm_nn(n, k, k2, a, b, c);
    for (size_t j = 0; j < k2; j++)
        for (size_t l = 0; l < k; l++)
            for (size_t i = 0; i < n; i++)
                ref[j * n + i] += b[j * k + l] * a[l * n + i];
    ck_assert(memcmp(c, ref, n * k2 * sizeof *c) == 0);
    /* gemv_n with beta 0 ignores y's old contents (NaN here) */
    for (size_t i = 0; i < n; i++)
        y[i] = NAN;
    cm_dlin_gemv_n(n, k, 1.0, a, b, 0.0, y);
    ck_assert(memcmp(y, ref, n * sizeof *y) == 0);
    /* gemm_tn: dot products */
    cm_dlin_gemm_tn(n, k, k2, a, c, t);
    for (size_t j = 0; j < k2; j++)
        for (size_t i = 0; i < k; i++) {
            double d = cm_dlin_dot(n, a + i * n, c + j * n);
            ck_assert(memcmp(&t[j * k + i], &d, sizeof d) == 0);
        }
    cm_dlin_gemv_t(n, k, a, c, y);
    ck_assert(memcmp(y, t, k * sizeof *y) == 0);
    free(y);
    free(t);
    free(ref);
    free(c);
    free(b);
    free(a);
}
END_TEST

START_TEST(eigen_fixed_order_solver)
{
    /* a random symmetric matrix, a Laplacian-like one with a repeated
     * eigenvalue (the complete graph K_n: 0 once, n n-1 times) */
    for (int kind = 0; kind < 2; kind++) {
        const size_t n = 37;
        cm_rng r;
        cm_rng_seed(&r, 13, (uint64_t)kind);
        double *a = malloc(n * n * sizeof *a), *a0 = malloc(n * n * sizeof *a0);
        double *v = malloc(n * n * sizeof *v), *w = malloc(n * sizeof *w);
        double *wv = malloc(n * sizeof *wv);
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j <= i; j++) {
                double x = kind ? (i == j ? (double)(n - 1) : -1.0)
                                : cm_rng_uniform(&r) - 0.5;
                a0[i * n + j] = a0[j * n + i] = x;
            }
        memcpy(a, a0, n * n * sizeof *a);
        memcpy(v, a0, n * n * sizeof *v);
        ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VALUES, n, a, w), CM_OK);
        ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VECTORS, n, v, wv), CM_OK);
        for (size_t c = 0; c < n; c++) {
            ck_assert(c == 0 || w[c] >= w[c - 1]);
            ck_assert_msg(fabs(w[c] - wv[c]) <= 1e-12 * (double)n,
                          "value %zu: %.17g against %.17g", c, w[c], wv[c]);
            if (kind)
                ck_assert(fabs(w[c] - (c ? (double)n : 0.0)) < 1e-12 * n);
            for (size_t i = 0; i < n; i++) { /* (A v - lambda v)_i */
                double s = -wv[c] * v[c * n + i];
                for (size_t j = 0; j < n; j++)
                    s += a0[i * n + j] * v[c * n + j];
                ck_assert(fabs(s) < 1e-12 * (double)n);
            }
            for (size_t d = 0; d <= c; d++) {
                double p = cm_dlin_dot(n, v + c * n, v + d * n);
                ck_assert(fabs(p - (c == d ? 1.0 : 0.0)) < 1e-13 * n);
            }
        }
        free(wv);
        free(w);
        free(v);
        free(a0);
        free(a);
    }
}
END_TEST

Suite *dlin_suite(void)
{
    Suite *s = suite_create("dlin");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, dot_in_eight_lanes);
    tcase_add_test(tc, gemm_is_axpys_in_order);
    tcase_add_test(tc, eigen_fixed_order_solver);
    suite_add_tcase(s, tc);
    return s;
}
