/* check_eigen.c: src/cm_eigen.c, the one dense symmetric eigensolver:
 * the path graph's Laplacian spectrum in closed form (2 - 2 cos(pi k/n)),
 * eigenvectors that satisfy A v = lambda v and are orthonormal (dsyev and
 * dsyevd), matrices scaled into 1e-35 and 1e-300 with blocks of exact
 * zeros (the near-zero products of exact sequences, where GSL's QR swept
 * on for minutes) in well under a second with relative accuracy, and the
 * errors (workspace too small). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_blas.h"

#include "cm_eigen.h"
#include "cm_rng.h"

#define PI 3.14159265358979323846

/* Laplacian of the path 0 - 1 - ... - n-1 into a (n x n). */
static void path_laplacian(double *a, size_t n)
{
    memset(a, 0, n * n * sizeof *a);
    for (size_t i = 0; i + 1 < n; i++) {
        a[i * n + i] += 1.0;
        a[(i + 1) * n + i + 1] += 1.0;
        a[i * n + i + 1] = a[(i + 1) * n + i] = -1.0;
    }
}

START_TEST(path_closed_form)
{
    for (size_t n = 1; n <= 40; n++) {
        double *a = malloc(n * n * sizeof *a), *w = malloc(n * sizeof *w);
        path_laplacian(a, n);
        ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VALUES, n, a, w), CM_OK);
        for (size_t k = 0; k < n; k++)
            ck_assert_msg(fabs(w[k] - (2.0 - 2.0 * cos(PI * (double)k /
                                                        (double)n))) < 1e-12,
                          "n=%zu k=%zu: %.17g", n, k, w[k]);
        free(a);
        free(w);
    }
}
END_TEST

/* max |A v_c - w_c v_c| and max |V^T V - I| of the columns in v. */
static void check_vectors(const double *a0, const double *v, const double *w,
                          size_t n)
{
    for (size_t c = 0; c < n; c++) {
        for (size_t i = 0; i < n; i++) {
            double r = -w[c] * v[c * n + i];
            for (size_t j = 0; j < n; j++)
                r += a0[i * n + j] * v[c * n + j];
            ck_assert_msg(fabs(r) < 1e-10, "residual %g", r);
        }
        for (size_t d = 0; d < n; d++) {
            double dot = 0.0;
            for (size_t i = 0; i < n; i++)
                dot += v[c * n + i] * v[d * n + i];
            ck_assert(fabs(dot - (c == d)) < 1e-12);
        }
    }
}

START_TEST(vectors_dsyev_and_dsyevd)
{
    size_t n = 37;
    double *a0 = malloc(n * n * sizeof *a0), *a = malloc(n * n * sizeof *a);
    double *w = malloc(n * sizeof *w), *w2 = malloc(n * sizeof *w2);
    cm_rng rng;
    cm_rng_seed(&rng, 11, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++)
            a0[i * n + j] = a0[j * n + i] = cm_rng_uniform(&rng) - 0.5;
    memcpy(a, a0, n * n * sizeof *a);
    ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VECTORS, n, a, w), CM_OK);
    for (size_t k = 1; k < n; k++)
        ck_assert(w[k - 1] <= w[k]);
    check_vectors(a0, a, w, n);

    size_t lw = cm_eigen_symd_lwork(n), liw = cm_eigen_symd_liwork(n);
    double *work = malloc(lw * sizeof *work);
    int *iwork = malloc(liw * sizeof *iwork);
    memcpy(a, a0, n * n * sizeof *a);
    ck_assert_int_eq(cm_eigen_symd(n, a, w2, work, lw, iwork, liw), CM_OK);
    check_vectors(a0, a, w2, n);
    for (size_t k = 0; k < n; k++)
        ck_assert(fabs(w[k] - w2[k]) < 1e-12);
    /* too small a workspace is refused before LAPACK sees it */
    ck_assert_int_eq(cm_eigen_symd(n, a, w2, work, lw - 1, iwork, liw),
                     CM_EINVAL);
    ck_assert_int_eq(cm_eigen_sym_work(CM_EIGEN_VALUES, n, a, w, work,
                                       3 * n - 2), CM_EINVAL);
    ck_assert_uint_ge(cm_eigen_lwork(n, CM_EIGEN_VALUES), 3 * n);
    ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VALUES, 0, a, w), CM_OK);
    free(iwork);
    free(work);
    free(w2);
    free(w);
    free(a);
    free(a0);
}
END_TEST

START_TEST(near_zero_matrices)
{
    /* B = s^2 C^T C with C random except for zero rows: positive
     * semidefinite, with blocks of exact zeros, entries ~s^2 */
    static const double scale[] = {1e-17, 1e-150};
    size_t n = 68;
    double *c = calloc(n * n, sizeof *c), *b = malloc(n * n * sizeof *b);
    double *b1 = malloc(n * n * sizeof *b1);
    double *w = malloc(n * sizeof *w), *w1 = malloc(n * sizeof *w1);
    cm_rng rng;
    cm_rng_seed(&rng, 3, 0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            c[i * n + j] = i % 3 == 0 ? 0.0 : cm_rng_uniform(&rng) - 0.5;
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                double sum = 0.0, sum1 = 0.0;
                for (size_t r = 0; r < n; r++) {
                    sum += (scale[k] * c[r * n + i]) * (scale[k] * c[r * n + j]);
                    sum1 += c[r * n + i] * c[r * n + j];
                }
                b[i * n + j] = sum;
                b1[i * n + j] = sum1;
            }
        ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VALUES, n, b, w), CM_OK);
        ck_assert_int_eq(cm_eigen_sym(CM_EIGEN_VALUES, n, b1, w1), CM_OK);
        double s2 = scale[k] * scale[k];
        ck_assert_msg(fabs(w[n - 1] / s2 - w1[n - 1]) < 1e-10 * w1[n - 1],
                      "scale %g: %.17g vs %.17g", scale[k], w[n - 1] / s2,
                      w1[n - 1]);
    }
    free(w1);
    free(w);
    free(b1);
    free(b);
    free(c);
}
END_TEST

Suite *eigen_suite(void)
{
    Suite *s = suite_create("eigen");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, path_closed_form);
    tcase_add_test(tc, vectors_dsyev_and_dsyevd);
    tcase_add_test(tc, near_zero_matrices);
    tcase_add_unchecked_fixture(tc, one_thread, restore_threads);
    suite_add_tcase(s, tc);
    return s;
}
