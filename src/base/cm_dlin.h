/* cm_dlin: the few vector and matrix kernels whose results decide what
 * topogen writes, in one fixed order of operations (issue 39).
 *
 * OpenBLAS picks its kernels at run time from the CPU (AVX-512, AVX2,
 * SSE3 ... or OPENBLAS_CORETYPE); each sums in its own order, so a dot
 * product, a norm or a matrix product differs in the last bits from one
 * machine to the next. Where those bits feed a decision (the annealer's
 * accept/reject, the candidate ranking, a Lanczos convergence test) or a
 * number written out, the project calls these instead: plain C loops
 * whose order is fixed by the source (four partial sums combined in a
 * fixed order, so the compiler may not and need not reorder them; the
 * project builds with -std=c11, i.e. -ffp-contract=off, so no FMA is
 * fused in either). The same binary gives the same bits on every x86-64
 * CPU and with any OPENBLAS_CORETYPE (docs/topo/portable-bits.md).
 *
 * Matrices are column-major with leading dimension = their row count, as
 * the callers hold them. Every function is O(its flops); none allocates.
 */
#ifndef CM_DLIN_H
#define CM_DLIN_H

#include <stddef.h>

/* x . y over n entries. */
double cm_dlin_dot(size_t n, const double *x, const double *y);

/* ||x||_2 = sqrt(x . x) (no scaling: for vectors of moderate entries,
 * as Lanczos vectors are). */
double cm_dlin_nrm2(size_t n, const double *x);

/* y += alpha x. */
void cm_dlin_axpy(size_t n, double alpha, const double *x, double *y);

/* x *= alpha. */
void cm_dlin_scal(size_t n, double alpha, double *x);

/* y[c] = a_c . x for the k columns a_c of the n x k matrix a. */
void cm_dlin_gemv_t(size_t n, size_t k, const double *a, const double *x,
                    double *y);

/* y = beta y + alpha A x for the n x k matrix a (beta = 0: y is only
 * written, as in BLAS). Columns are added in order 0..k-1. */
void cm_dlin_gemv_n(size_t n, size_t k, double alpha, const double *a,
                    const double *x, double beta, double *y);

/* c[i + j k1] = a_i . b_j: the k1 x k2 product A^T B of the n x k1 matrix
 * a and the n x k2 matrix b. */
void cm_dlin_gemm_tn(size_t n, size_t k1, size_t k2, const double *a,
                     const double *b, double *c);

/* c = A B: the n x k matrix a times the k x k2 matrix b into the n x k2
 * matrix c (c must not overlap a or b). */
void cm_dlin_gemm_nn(size_t n, size_t k, size_t k2, const double *a,
                     const double *b, double *c);

#endif
