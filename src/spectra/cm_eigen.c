/* cm_eigen.c: dense symmetric eigensolves through LAPACK (see cm_eigen.h).
 *
 * Why LAPACK and not GSL's gsl_eigen_symm: dsyev is 1.5-3x faster for
 * n = 32..256 and ~10x at 1,024 here, and GSL's implicit QR deflates an
 * off-diagonal e_i only when |e_i| < eps (|d_i| + |d_i+1|), a test with
 * no absolute floor: on the near-zero matrices of exact sequences
 * (B = A^T A with entries ~1e-35 and blocks of exact zeros) it can shrink
 * e_i into subnormals next to d_i = 0 and sweep on for minutes (seen with
 * OpenBLAS's AVX-512 dgemm kernel, whose rounding of B differs from the
 * AVX2 one). LAPACK's dsteqr/dsterf scale the matrix and deflate against
 * an absolute safe minimum.
 */
#include "cm_eigen.h"

#include <limits.h>
#include <stdlib.h>

#include "cm_lapack.h"

static int int_range(size_t n)
{
    return n <= (size_t)INT_MAX;
}

size_t cm_eigen_lwork(size_t n, cm_eigen_job job)
{
    if (n > CM_EIGEN_MAX_ORDER)
        return 0;
    /* 3n rather than LAPACK's 3n - 1: the fallback the callers always
     * used, so their bits stay */
    size_t min = n > 0 ? 3 * n : 1;
    int in = (int)n, lda = n > 0 ? (int)n : 1, lwork = -1, info = 0;
    double q = 0.0, a = 0.0, w = 0.0;
    LAPACK_dsyev(job == CM_EIGEN_VECTORS ? "V" : "N", "L", &in, &a, &lda, &w,
                 &q, &lwork, &info);
    if (info != 0 || !(q > (double)min) || q > (double)INT_MAX)
        return min;
    return (size_t)q;
}

cm_status cm_eigen_sym_work(cm_eigen_job job, size_t n, double *a, double *w,
                            double *work, size_t lwork)
{
    if (n == 0)
        return CM_OK;
    if (!int_range(n) || !int_range(lwork) || lwork < 3 * n - 1)
        return cm_error(CM_EINVAL, "eigensolver: order %zu or workspace "
                        "%zu out of LAPACK's range", n, lwork);
    int in = (int)n, il = (int)lwork, info = 0;
    LAPACK_dsyev(job == CM_EIGEN_VECTORS ? "V" : "N", "L", &in, a, &in, w,
                 work, &il, &info);
    if (info != 0)
        return cm_error(CM_ENUMERIC, "LAPACK dsyev failed (info = %d) on a "
                        "%zu x %zu matrix", info, n, n);
    return CM_OK;
}

cm_status cm_eigen_sym(cm_eigen_job job, size_t n, double *a, double *w)
{
    if (n == 0)
        return CM_OK;
    size_t lwork = cm_eigen_lwork(n, job);
    if (lwork == 0)
        return cm_error(CM_EINVAL, "eigensolver: order %zu out of LAPACK's "
                        "range", n);
    double *work = malloc(lwork * sizeof *work);
    if (!work)
        return cm_error(CM_ENOMEM, "out of memory for a %zu x %zu eigensolve",
                        n, n);
    cm_status st = cm_eigen_sym_work(job, n, a, w, work, lwork);
    free(work);
    return st;
}

size_t cm_eigen_symd_lwork(size_t n)
{
    return 1 + 6 * n + 2 * n * n;
}

size_t cm_eigen_symd_liwork(size_t n)
{
    return 3 + 5 * n;
}

cm_status cm_eigen_symd(size_t n, double *a, double *w, double *work,
                        size_t lwork, int *iwork, size_t liwork)
{
    if (n == 0)
        return CM_OK;
    if (!int_range(lwork) || !int_range(liwork) ||
        lwork < cm_eigen_symd_lwork(n) || liwork < cm_eigen_symd_liwork(n))
        return cm_error(CM_EINVAL, "eigensolver: order %zu out of LAPACK's "
                        "range or workspace too small", n);
    int in = (int)n, il = (int)lwork, ili = (int)liwork, info = 0;
    LAPACK_dsyevd("V", "L", &in, a, &in, w, work, &il, iwork, &ili, &info);
    if (info != 0)
        return cm_error(CM_ENUMERIC, "LAPACK dsyevd failed (info = %d) on a "
                        "%zu x %zu matrix", info, n, n);
    return CM_OK;
}
