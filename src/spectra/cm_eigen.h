/* cm_eigen: the project's one dense symmetric eigensolver. Every dense
 * symmetric eigenproblem of both programs goes through here: Laplacian
 * spectra, mixing-matrix spectra, Lanczos projections, FDLA's SLEM,
 * sequence norms, placement's Fiedler vectors.
 *
 * cm_eigen_sym_work: our own Householder reduction to tridiagonal form
 * (fixed order of operations, cm_dlin.h), then LAPACK's dsterf (values)
 * or dsteqr (vectors), scalar Fortran without BLAS calls (the routines
 * OpenBLAS provides, declared by lapack.h of Debian's liblapacke-dev).
 * Its results are the same bits on every CPU and OpenBLAS kernel path
 * (docs/topo/portable-bits.md); LAPACK's dsyev, used before, reduces
 * through the BLAS and was not. cm_eigen_symd (dsyevd, divide and
 * conquer) still runs on the BLAS: for vectors whose bits decide nothing
 * written (the search's screen, placement).
 *
 * Matrices are n x n, column-major with leading dimension n; a symmetric
 * matrix reads the same row-major, and only its lower triangle is used.
 * Eigenvalues come out ascending. With vectors, column c of a (a[c n ..
 * c n + n)) is the unit eigenvector of w[c]; its sign is dsteqr's.
 */
#ifndef CM_EIGEN_H
#define CM_EIGEN_H

#include <stddef.h>

#include "cm_status.h"

/* The largest order dsyev is given: n^2 and 3n within a 32-bit int, the
 * index arithmetic of LAPACK's Fortran. */
#define CM_EIGEN_MAX_ORDER 46340

typedef enum {
    CM_EIGEN_VALUES = 0, /* eigenvalues only */
    CM_EIGEN_VECTORS     /* eigenvalues and eigenvectors (into a) */
} cm_eigen_job;

/* dsyev's optimal workspace length for order n (a workspace query, no
 * O(n^3) work), at least 3n (its minimum is max(1, 3n - 1)). 0 when n is
 * too large for LAPACK's int. O(1). */
size_t cm_eigen_lwork(size_t n, cm_eigen_job job);

/* Eigen-decomposition of the symmetric n x n matrix a (overwritten: with
 * the eigenvectors for CM_EIGEN_VECTORS, with garbage otherwise) into
 * w[n] ascending, by our Householder reduction and dsterf / dsteqr
 * (implicit QL/QR), in a fixed order of operations; a matrix near
 * underflow or overflow is scaled first, as dsyev does. work[lwork],
 * lwork >= max(1, 3n - 1) (the interface of dsyev, kept); scratch of 4n
 * doubles (values) or n^2 + 7n (vectors) is allocated here. O(n^3) time
 * (4/3 n^3 for values, about 3x that with vectors). CM_EINVAL (n or
 * lwork out of range), CM_ENOMEM, CM_ENUMERIC (no convergence). */
cm_status cm_eigen_sym_work(cm_eigen_job job, size_t n, double *a, double *w,
                            double *work, size_t lwork);

/* cm_eigen_sym_work with an optimal workspace allocated and freed here.
 * O(n^3) time, O(n) extra memory. CM_ENOMEM besides. */
cm_status cm_eigen_sym(cm_eigen_job job, size_t n, double *a, double *w);

/* Workspace lengths of cm_eigen_symd for order n: dsyevd's documented
 * minimum for vectors, 1 + 6n + 2n^2 doubles and 3 + 5n ints. */
size_t cm_eigen_symd_lwork(size_t n);
size_t cm_eigen_symd_liwork(size_t n);

/* Eigenvalues w[n] and eigenvectors (into a) of the symmetric n x n
 * matrix a by dsyevd (divide and conquer: faster than dsyev for all
 * vectors), with the caller's work[lwork] and iwork[liwork] of at least
 * the lengths above. O(n^3). CM_EINVAL, CM_ENUMERIC. */
cm_status cm_eigen_symd(size_t n, double *a, double *w, double *work,
                        size_t lwork, int *iwork, size_t liwork);

#endif
