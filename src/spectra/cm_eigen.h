/* cm_eigen: the project's one dense symmetric eigensolver, LAPACK's dsyev
 * and dsyevd (the Fortran routines OpenBLAS provides, declared by
 * lapack.h of Debian's liblapacke-dev; nothing of LAPACKE itself is
 * linked). Every dense symmetric eigenproblem of both programs goes
 * through here: Laplacian spectra, mixing-matrix spectra, Lanczos
 * projections, FDLA's SLEM, sequence norms, placement's Fiedler vectors.
 *
 * Matrices are n x n, column-major with leading dimension n; a symmetric
 * matrix reads the same row-major, and only its lower triangle is used.
 * Eigenvalues come out ascending. With vectors, column c of a (a[c n ..
 * c n + n)) is the unit eigenvector of w[c]; its sign is LAPACK's.
 *
 * Bits: results depend on the workspace size (LAPACK picks blocked or
 * unblocked reductions by lwork) and on OpenBLAS's kernels, so callers
 * that must keep their bits pass the same lwork every time.
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
 * w[n] ascending, by dsyev (tridiagonal QR) with the caller's workspace
 * work[lwork], lwork >= max(1, 3n - 1). O(n^3) time, no allocation.
 * CM_EINVAL (n or lwork out of LAPACK's range), CM_ENUMERIC (no
 * convergence). */
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
