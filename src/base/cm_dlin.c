/* cm_dlin.c: kernels in a fixed order of operations (see cm_dlin.h). */
#include "cm_dlin.h"

#include <math.h>
#include <string.h>

double cm_dlin_dot(size_t n, const double *x, const double *y)
{
    /* eight partial sums, lane l holding the products of the indices
     * = l mod 8 (independent chains the compiler may put in vector
     * registers: each lane still adds in index order, so the bits do not
     * depend on the vector width), combined pairwise in a fixed order */
    double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (size_t l = 0; l < 8; l++)
            s[l] += x[i + l] * y[i + l];
    for (size_t l = 0; i < n; i++, l++)
        s[l] += x[i] * y[i];
    return ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
}

double cm_dlin_nrm2(size_t n, const double *x)
{
    return sqrt(cm_dlin_dot(n, x, x));
}

void cm_dlin_axpy(size_t n, double alpha, const double *x, double *y)
{
    for (size_t i = 0; i < n; i++)
        y[i] += alpha * x[i];
}

void cm_dlin_scal(size_t n, double alpha, double *x)
{
    for (size_t i = 0; i < n; i++)
        x[i] *= alpha;
}

void cm_dlin_gemv_t(size_t n, size_t k, const double *a, const double *x,
                    double *y)
{
    for (size_t c = 0; c < k; c++)
        y[c] = cm_dlin_dot(n, a + c * n, x);
}

void cm_dlin_gemv_n(size_t n, size_t k, double alpha, const double *a,
                    const double *x, double beta, double *y)
{
    if (beta == 0.0)
        memset(y, 0, n * sizeof *y);
    else if (beta != 1.0)
        cm_dlin_scal(n, beta, y);
    for (size_t c = 0; c < k; c++)
        cm_dlin_axpy(n, alpha * x[c], a + c * n, y);
}

void cm_dlin_gemm_tn(size_t n, size_t k1, size_t k2, const double *a,
                     const double *b, double *c)
{
    for (size_t j = 0; j < k2; j++)
        cm_dlin_gemv_t(n, k1, a, b + j * n, c + j * k1);
}

/* c[i] += b[0] a[0][i], then b[1] a[1][i], ... b[7] a[7][i]: eight
 * axpys in their order, c read and written once (the columns a[q] are
 * lda apart). */
static void axpy8(size_t n, const double *restrict a, size_t lda,
                  const double *restrict b, double *restrict c)
{
    const double *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda,
                 *a3 = a + 3 * lda, *a4 = a + 4 * lda, *a5 = a + 5 * lda,
                 *a6 = a + 6 * lda, *a7 = a + 7 * lda;
    double b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4],
           b5 = b[5], b6 = b[6], b7 = b[7];
    for (size_t i = 0; i < n; i++) {
        double t = c[i] + b0 * a0[i];
        t += b1 * a1[i];
        t += b2 * a2[i];
        t += b3 * a3[i];
        t += b4 * a4[i];
        t += b5 * a5[i];
        t += b6 * a6[i];
        c[i] = t + b7 * a7[i];
    }
}

void cm_dlin_gemm_nn(size_t n, size_t k, size_t k2, const double *a,
                     const double *b, double *c)
{
    /* by blocks of rows that stay in the first-level cache, eight columns
     * of a at a time: each c element still sums over l = 0..k-1 in
     * order, from 0, exactly as k axpys would */
    enum { ROWS = 128 };
    for (size_t r0 = 0; r0 < n; r0 += ROWS) {
        size_t nr = n - r0 < ROWS ? n - r0 : ROWS;
        for (size_t j = 0; j < k2; j++)
            memset(c + j * n + r0, 0, nr * sizeof *c);
        size_t l = 0;
        for (; l + 8 <= k; l += 8)
            for (size_t j = 0; j < k2; j++)
                axpy8(nr, a + l * n + r0, n, b + j * k + l, c + j * n + r0);
        for (; l < k; l++)
            for (size_t j = 0; j < k2; j++)
                cm_dlin_axpy(nr, b[j * k + l], a + l * n + r0, c + j * n + r0);
    }
}

int cm_dlin_potrf(size_t n, double *a)
{
    for (size_t j = 0; j < n; j++) {
        double *cj = a + j * n;
        for (size_t k = 0; k < j; k++)
            cm_dlin_axpy(n - j, -a[k * n + j], a + k * n + j, cj + j);
        if (!(cj[j] > 0.0))
            return (int)(j + 1);
        double d = sqrt(cj[j]);
        cj[j] = d;
        cm_dlin_scal(n - j - 1, 1.0 / d, cj + j + 1);
    }
    return 0;
}

void cm_dlin_potrs(size_t n, const double *l, double *b)
{
    for (size_t j = 0; j < n; j++) { /* L y = b */
        b[j] /= l[j * n + j];
        cm_dlin_axpy(n - j - 1, -b[j], l + j * n + j + 1, b + j + 1);
    }
    for (size_t j = n; j-- > 0;) /* L^T x = y */
        b[j] = (b[j] - cm_dlin_dot(n - j - 1, l + j * n + j + 1, b + j + 1)) /
               l[j * n + j];
}

void cm_dlin_potri(size_t n, double *a, double *work)
{
    memcpy(work, a, n * n * sizeof *a);
    for (size_t i = 0; i < n; i++) {
        double *col = a + i * n;
        memset(col, 0, n * sizeof *col);
        col[i] = 1.0;
        cm_dlin_potrs(n, work, col);
    }
}
