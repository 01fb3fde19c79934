/* cm_dlin.c: kernels in a fixed order of operations (see cm_dlin.h). */
#include "cm_dlin.h"

#include <math.h>
#include <string.h>

double cm_dlin_dot(size_t n, const double *x, const double *y)
{
    /* four partial sums (independent chains: the loop runs near the
     * speed of a vectorised one), combined in a fixed order */
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
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

void cm_dlin_gemm_nn(size_t n, size_t k, size_t k2, const double *a,
                     const double *b, double *c)
{
    for (size_t j = 0; j < k2; j++)
        cm_dlin_gemv_n(n, k, 1.0, a, b + j * k, 0.0, c + j * n);
}
