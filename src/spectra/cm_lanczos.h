/* cm_lanczos: extreme eigenvalues of large sparse symmetric operators.
 *
 * Only the two ends of a spectrum matter to the project: lambda_2 and
 * lambda_n of a graph Laplacian L = D - A (the search's energy, the
 * Laplacian weights), and the SLEM of a mixing matrix W. This module finds
 * both ends at once from one Krylov space with thick-restart Lanczos (Wu
 * and Simon, SIAM J. Matrix Anal. Appl. 22, 2000) and full
 * reorthogonalisation, optionally in the complement of the constant vector
 * 1 (the null vector of L, the Perron vector of W). The operator is a
 * callback, so the same code serves topogen's search (tg_spectrum) and
 * nothing here links igraph (the tests drive it on graphs through
 * tests/unit/check_lanczos_topo.h).
 *
 * Accuracy: a run stops when the estimated eigenvalue error
 * min(r, r^2/gap) of both extreme Ritz pairs (r = ||A y - theta y||, gap
 * to the next Ritz value) is at most tol * max(scale, |theta|). The smallest Ritz value
 * is never below the true smallest eigenvalue (and the largest never
 * above the true largest), and some eigenvalue lies within the residual of
 * each; the residual bounds the error of the reported extremes unless the
 * start vector misses the extreme eigenvector entirely (the start always
 * mixes in a fixed pseudo-random vector to make that practically
 * impossible). Convergence takes about 1/sqrt(relative gap) products: a
 * few dozen for expanders, but O(n) for a long ring, whose lambda_2 ~
 * 4 pi^2/n^2 is hard for any Krylov method; runs that exhaust max_matvec
 * return CM_ENUMERIC (limits in the doc blocks below).
 */
#ifndef CM_LANCZOS_H
#define CM_LANCZOS_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* y = A x for vectors of length n; must be symmetric and deterministic. */
typedef void (*cm_matvec_fn)(const void *ctx, const double *x, double *y);

typedef struct {
    size_t n;           /* operator order */
    size_t max_basis;   /* Krylov vectors held before a thick restart */
    size_t keep;        /* Ritz vectors kept at each end on a restart and
                           returned in ylo/yhi after a run */
    size_t max_matvec;  /* products allowed per run before CM_ENUMERIC */
    double tol;         /* eigenvalue error tolerance, relative to the
                           operator's scale (default 1e-10) */
    double tol_accept;  /* after accept_after products, also accept ends
                           whose errors are within tol_accept of their own
                           size (0, the default: only tol) */
    size_t accept_after;/* default max_matvec */
    int deflate_ones;   /* 1: work in the complement of 1 */
    double scale;       /* a bound on ||A|| (0: unknown); tolerances are
                           relative to max(scale, largest |Ritz value|), so
                           an operator that vanishes on the space (W of a
                           complete graph) converges at once */
    /* optional early stop: at each convergence check, early(early_ctx,
     * lo, hi) with the current extreme Ritz values (lo >= the true
     * minimum, hi <= the true maximum, in any subspace); a non-zero
     * return ends the run at once with stopped_early = 1 and no Ritz
     * vectors (nvec = 0). The search uses it to reject a move as soon as
     * these bounds prove the rejection. NULL: none */
    int (*early)(const void *early_ctx, double lo, double hi);
    const void *early_ctx;
    /* results of the last run */
    int stopped_early;  /* 1 when early() ended the run */
    double lo, hi;      /* smallest and largest Ritz value */
    double lo_res, hi_res; /* their residual norms */
    size_t matvecs;     /* products used */
    size_t nvec;        /* Ritz vectors stored at each end (<= keep) */
    double *ylo, *yhi;  /* [keep*n] unit Ritz vectors: ylo + i*n has value
                           tlo[i] (ascending), yhi + i*n has thi[i]
                           (descending) */
    double *tlo, *thi;  /* [keep] their Ritz values */
    /* workspace */
    double *v3;         /* cm_lanczos_run3: [cap3*n] Lanczos vectors */
    double *a3, *b3;    /* [cap3] its tridiagonal T (diagonal, and b3[i]
                           between i and i + 1) */
    size_t cap3;        /* vectors v3 holds now */
    double *chk;        /* [cap_chk] its convergence checks' eigenvectors */
    size_t cap_chk;
    double *q;          /* [max_basis*n] orthonormal basis, column-major */
    double *w;          /* [n] residual vector */
    double *h;          /* [max_basis^2] projected matrix Q^T A Q */
    double *s;          /* [max_basis^2] its eigenvectors */
    double *theta;      /* [max_basis] its eigenvalues */
    double *coef;       /* [max_basis] projection coefficients */
    double *work;       /* [lwork] LAPACK workspace */
    int lwork;          /* size of work */
} cm_lanczos;

/* Sets every field to empty. */
void cm_lanczos_init(cm_lanczos *lz);

/* Sizes lz for order n (n >= 1), a basis of max_basis vectors (at least
 * 2*keep + 4, at most 512; the basis is max_basis*n doubles) and keep >= 1
 * Ritz vectors per end; sets max_matvec = 40 n + 1000 (capped at 100000),
 * tol = 1e-10, deflate_ones = 0, scale = 0. CM_EINVAL on bad sizes, CM_ENOMEM. */
cm_status cm_lanczos_reserve(cm_lanczos *lz, size_t n, size_t max_basis,
                             size_t keep);

/* Frees what lz owns and re-initializes it. Accepts NULL. */
void cm_lanczos_destroy(cm_lanczos *lz);

/* Extreme eigenpairs of the operator f(ctx, .) restricted to the
 * complement of 1 when deflate_ones. x0 (length n, or NULL) seeds the
 * Krylov space (a warm start: e.g. the previous Ritz vectors of a nearby
 * operator); a fixed pseudo-random vector of 5% of its norm is mixed in,
 * so runs are deterministic. Results in lz->lo, hi, ylo, yhi, ...
 * CM_ENUMERIC when LAPACK fails or max_matvec products do not converge;
 * CM_EINVAL when the restricted space is empty (n = 1 with deflation).
 * Cost: matvecs * (one product + O(n * max_basis) reorthogonalisation). */
cm_status cm_lanczos_run(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                         const double *x0);

/* cm_lanczos_run by the three-term recurrence without
 * reorthogonalisation and without restarts (Paige: the extreme Ritz values
 * converge as in exact arithmetic; lost orthogonality only repeats
 * converged ones), the Lanczos vectors stored: O(n) per product instead
 * of O(n max_basis), and no restart's loss on the clustered lambda_2 of
 * an optimised graph. Same fields, the same convergence test and early
 * stop, the same results: at the end the keep extreme Ritz vectors at
 * each end are cleaned by Rayleigh-Ritz (orthonormalised, copies of a
 * converged vector dropped, projected once more: at most 2 keep more
 * products), so ylo/yhi are orthonormal with V^T A V = diag(tlo/thi) to
 * rounding and nvec may be below keep. Needs deflate_ones (the search's
 * Laplacians). When the stored vectors would pass 256 MiB it falls back
 * to cm_lanczos_run from the same start. Memory O(k n) for k products. */
cm_status cm_lanczos_run3(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                          const double *x0);

/* Eigenvalues il..iu (1-based, ascending) of the order-k symmetric
 * tridiagonal with diagonal a[k] and off-diagonal b[k-1] into t
 * (ascending) and, when s is not NULL, their unit eigenvectors into s
 * (column c, leading dimension k, for t[c]); *got: how many came back.
 * LAPACK dstebz (bisection) and dstein (inverse iteration): the one
 * tridiagonal solve of both Lanczos paths (cm_lanczos_run3, cm_shiftinv).
 * CM_ENOMEM, CM_ENUMERIC. O(k (iu - il + 1)) plus O(k) work arrays. */
cm_status cm_lanczos_tridiag(const double *a, const double *b, size_t k,
                             size_t il, size_t iu, double *t, double *s,
                             size_t *got);

#endif
