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

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_dlin.h"
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

/* Sum of squares of x[m] without overflow or underflow (scaled by the
 * largest entry): returns ||x||_2. */
static double norm_scaled(size_t m, const double *x)
{
    double big = 0.0;
    for (size_t i = 0; i < m; i++)
        big = fmax(big, fabs(x[i]));
    if (!(big > 0.0) || !isfinite(big))
        return big;
    double sum = 0.0, inv = 1.0 / big;
    for (size_t i = 0; i < m; i++) {
        double t = x[i] * inv;
        sum += t * t;
    }
    return big * sqrt(sum);
}

/* The reflector H = I - tau v v^T (v_0 = 1) with H x = (beta, 0, ...)
 * for x[m], m >= 1: v[1..] into v (and over x[1..]), beta into x[0];
 * returns tau (0: x is already (alpha, 0, ...), nothing to do). */
static double reflector(size_t m, double *x, double *v, double *beta)
{
    double alpha = x[0], xnorm = norm_scaled(m - 1, x + 1);
    v[0] = 1.0;
    if (xnorm == 0.0) {
        *beta = alpha;
        for (size_t i = 1; i < m; i++)
            v[i] = 0.0;
        return 0.0;
    }
    double b = -copysign(hypot(alpha, xnorm), alpha);
    double scal = 1.0 / (alpha - b);
    for (size_t i = 1; i < m; i++)
        v[i] = x[i] * scal;
    memcpy(x + 1, v + 1, (m - 1) * sizeof *x);
    x[0] = b;
    *beta = b;
    return (b - alpha) / b;
}

/* col[i] -= v[i] wj + w[i] vj and p[i] += col[i] vn for i in [0, m):
 * the update of one column of A22 fused with the next step's product. */
static void update_axpy(size_t m, double *restrict col,
                        const double *restrict v, const double *restrict w,
                        double vj, double wj, double *restrict p, double vn)
{
    for (size_t i = 0; i < m; i++) {
        double c = col[i] - (v[i] * wj + w[i] * vj);
        col[i] = c;
        p[i] += c * vn;
    }
}

/* p[i] += col[i] vj for i in [0, m). */
static void col_axpy(size_t m, const double *restrict col, double vj,
                     double *restrict p)
{
    for (size_t i = 0; i < m; i++)
        p[i] += col[i] * vj;
}

/* Householder reduction of the symmetric n x n a (lower triangle) to
 * tridiagonal T = Q^T A Q: diagonal d[n], off-diagonal e[n-1]; the
 * reflectors H_k = I - tau_k v v^T (v_0 = 1, the rest below a's
 * subdiagonal in column k) kept for the vectors (tau[n-1] or NULL).
 * Scratch work[4n]. Step k computes p = tau A22 v, w = p - (tau/2)
 * (p . v) v and A22 -= v w^T + w v^T; the update of step k and the
 * product of step k + 1 run in one pass over A22 (the next reflector
 * comes from A22's first column, updated first), so the matrix is read
 * once per step. The loops' order is fixed (cm_dlin.h). O(4/3 n^3). */
static void tridiagonalize(size_t n, double *a, double *d, double *e,
                           double *tau, double *work)
{
    double *v = work, *w = work + n, *vn = work + 2 * n, *acc = work + 3 * n;
    if (n == 1) {
        d[0] = a[0];
        return;
    }
    /* step 0's reflector and product */
    d[0] = a[0];
    double tk = reflector(n - 1, a + 1, v, &e[0]);
    if (tau)
        tau[0] = tk;
    memset(w, 0, (n - 1) * sizeof *w);
    if (tk != 0.0)
        for (size_t j = 0; j < n - 1; j++) {
            const double *col = a + (j + 1) * n + (j + 1);
            col_axpy(n - 2 - j, col + 1, v[j], w + j + 1);
            w[j] += col[0] * v[j] + cm_dlin_dot(n - 2 - j, col + 1,
                                                v + j + 1);
        }
    for (size_t k = 0; k + 1 < n; k++) {
        size_t m = n - k - 1;                     /* order of A22 */
        double *sub = a + (k + 1) * n + (k + 1); /* A22, leading dim n */
        /* w = tau A22 v - (tau/2)(p . v) v, p in w */
        if (tk != 0.0) {
            cm_dlin_scal(m, tk, w);
            cm_dlin_axpy(m, -0.5 * tk * cm_dlin_dot(m, w, v), v, w);
        }
        /* A22's first column, then the next reflector from it */
        if (tk != 0.0)
            for (size_t i = 0; i < m; i++)
                sub[i] -= v[i] * w[0] + w[i] * v[0];
        d[k + 1] = sub[0];
        if (m == 1)
            break;
        double tn = reflector(m - 1, sub + 1, vn, &e[k + 1]);
        if (tau)
            tau[k + 1] = tn;
        /* the rest of A22 updated, and the next product p' = A22' v'
         * (A22' = A22 without its first row and column) into acc */
        memset(acc, 0, (m - 1) * sizeof *acc);
        for (size_t j = 1; j < m; j++) {
            double *col = sub + j * n + j; /* A22[j.., j] */
            size_t len = m - j;
            double vnj = vn[j - 1];
            if (tk != 0.0)
                update_axpy(len, col, v + j, w + j, v[j], w[j],
                            acc + j - 1, tn != 0.0 ? vnj : 0.0);
            else if (tn != 0.0)
                col_axpy(len, col, vnj, acc + j - 1);
            if (tn != 0.0)
                acc[j - 1] += cm_dlin_dot(len - 1, col + 1, vn + j);
        }
        tk = tn;
        memcpy(v, vn, (m - 1) * sizeof *v);
        memcpy(w, acc, (m - 1) * sizeof *w);
    }
}

/* q = H_0 H_1 ... H_{n-2} (n x n) from the reflectors tridiagonalize
 * left in a and tau. O(4/3 n^3). */
static void form_q(size_t n, const double *a, const double *tau, double *q)
{
    memset(q, 0, n * n * sizeof *q);
    for (size_t i = 0; i < n; i++)
        q[i * n + i] = 1.0;
    for (size_t k = n - 1; k-- > 0;) {
        if (tau[k] == 0.0)
            continue;
        size_t m = n - k - 1;
        const double *x = a + k * n + k + 1;
        for (size_t c = k + 1; c < n; c++) {
            double *col = q + c * n + k + 1;
            double s = col[0];
            s += cm_dlin_dot(m - 1, x + 1, col + 1);
            s *= tau[k];
            col[0] -= s;
            cm_dlin_axpy(m - 1, -s, x + 1, col + 1);
        }
    }
}

cm_status cm_eigen_sym_work(cm_eigen_job job, size_t n, double *a, double *w,
                            double *work, size_t lwork)
{
    if (n == 0)
        return CM_OK;
    if (!int_range(n) || !int_range(lwork) || lwork < 3 * n - 1 ||
        n > CM_EIGEN_MAX_ORDER)
        return cm_error(CM_EINVAL, "eigensolver: order %zu or workspace "
                        "%zu out of LAPACK's range", n, lwork);
    int in = (int)n, info = 0;
    if (n == 1) {
        w[0] = a[0];
        if (job == CM_EIGEN_VECTORS)
            a[0] = 1.0;
        return CM_OK;
    }
    /* the caller's work holds e[n - 1]; the reduction's scratch (4n)
     * and, for vectors, Q and dsteqr's 2n - 2 are allocated here */
    double *e = work;
    size_t extra = 4 * n + (job == CM_EIGEN_VECTORS ? n * n + 3 * n : 0);
    double *scratch = malloc(extra * sizeof *scratch);
    if (!scratch)
        return cm_error(CM_ENOMEM, "out of memory for a %zu x %zu "
                        "eigensolve", n, n);
    /* as dsyev: a matrix of entries near underflow or overflow is scaled
     * into range first (the reduction squares its entries) */
    double anrm = 0.0, sigma = 1.0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = j; i < n; i++)
            anrm = fmax(anrm, fabs(a[j * n + i]));
    double smlnum = DBL_MIN / DBL_EPSILON, rmin = sqrt(smlnum),
           rmax = sqrt(1.0 / smlnum);
    if (anrm > 0.0 && anrm < rmin)
        sigma = rmin / anrm;
    else if (anrm > rmax)
        sigma = rmax / anrm;
    if (sigma != 1.0)
        for (size_t j = 0; j < n; j++)
            cm_dlin_scal(n - j, sigma, a + j * n + j);
    if (job == CM_EIGEN_VALUES) {
        tridiagonalize(n, a, w, e, NULL, scratch);
        LAPACK_dsterf(&in, w, e, &info);
    } else {
        double *tau = scratch + 4 * n, *q = tau + n, *zw = q + n * n;
        tridiagonalize(n, a, w, e, tau, scratch);
        form_q(n, a, tau, q);
        LAPACK_dsteqr("V", &in, w, e, q, &in, zw, &info);
        if (info == 0)
            memcpy(a, q, n * n * sizeof *a);
    }
    free(scratch);
    if (info == 0 && sigma != 1.0)
        cm_dlin_scal(n, 1.0 / sigma, w);
    if (info != 0)
        return cm_error(CM_ENUMERIC, "LAPACK %s failed (info = %d) on a "
                        "%zu x %zu tridiagonal", job == CM_EIGEN_VALUES
                        ? "dsterf" : "dsteqr", info, n, n);
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
