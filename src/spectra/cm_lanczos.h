/* cm_lanczos: extreme eigenvalues of large sparse symmetric operators,
 * the project's one Lanczos iteration.
 *
 * Only the two ends of a spectrum matter to the project: lambda_2 and
 * lambda_n of a graph Laplacian L = D - A (the search's energy, the
 * Laplacian weights), the ends of M = I - W (the SLEM of a mixing matrix),
 * and the largest eigenvalue of an inverse or a product operator
 * (cm_shiftinv). One engine serves them all: the three-term recurrence
 * (Lanczos 1950) with one local reorthogonalisation against the newest
 * vector per step and none against the rest (Paige 1976: the extreme Ritz
 * values converge as in exact arithmetic; lost orthogonality only repeats
 * converged ones), optionally in the complement of the constant vector 1
 * (the null vector of L, the Perron vector of W), with the tridiagonal T's
 * extreme pairs by bisection and inverse iteration (cm_lanczos_tridiag).
 *
 *  - With Ritz vectors (cm_lanczos_reserve; the search's warm starts): the
 *    Lanczos vectors are stored (at most max_stored of them), and at the
 *    end the keep extreme Ritz vectors of each end are formed and cleaned
 *    by Rayleigh-Ritz. Its fallback is thick-restart Lanczos (Wu and
 *    Simon, SIAM J. Matrix Anal. Appl. 22, 2000) with full
 *    reorthogonalisation in a basis of max_basis vectors, from the same
 *    start: for spaces below 256 dimensions, and when a run needs more
 *    vectors than it may store.
 *  - Values only (cm_lanczos_reserve_ends; cm_shiftinv at up to 10^6
 *    nodes): two vectors held, O(n) memory, no restart; the run can be
 *    continued budget by budget (cm_lanczos_start, cm_lanczos_more) and
 *    extrapolates the products it still needs (cm_lanczos_predict).
 *
 * The operator is a callback, so nothing here links igraph or CHOLMOD.
 *
 * Accuracy: an end has converged when its estimated eigenvalue error
 * min(r, r^2/gap) (r = ||A y - theta y||, gap to the next Ritz value) is
 * at most tol * max(scale, |lo|, |hi|) or tol_end * |theta|. The smallest
 * Ritz value is never below the true smallest eigenvalue (and the largest
 * never above the true largest), and some eigenvalue lies within the
 * residual of each; the residual bounds the error of the reported
 * extremes unless the start vector misses the extreme eigenvector
 * entirely (the start always mixes in a fixed pseudo-random vector to make
 * that practically impossible). Convergence takes about 1/sqrt(relative
 * gap) products: a few dozen to a few hundred for expanders, but O(n) for
 * a long ring, whose lambda_2 ~ 4 pi^2/n^2 is hard for any Krylov method
 * (cm_shiftinv factors those); runs that exhaust max_matvec return
 * CM_ENUMERIC.
 */
#ifndef CM_LANCZOS_H
#define CM_LANCZOS_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* y = A x for vectors of length n; must be symmetric and deterministic.
 * ctx is the caller's (an operator that keeps scratch, a factor's solve
 * buffers say, holds a pointer to it). */
typedef void (*cm_matvec_fn)(const void *ctx, const double *x, double *y);

/* Checks a values-only run remembers for cm_lanczos_predict. */
#define CM_LANCZOS_HIST 6

typedef struct {
    size_t n;           /* operator order */
    size_t max_basis;   /* thick restart: vectors held before a restart
                           (0 when values only) */
    size_t keep;        /* Ritz vectors kept at each end on a restart and
                           returned in ylo/yhi after a run (0 when values
                           only) */
    size_t max_matvec;  /* products allowed per run before CM_ENUMERIC */
    size_t max_stored;  /* Lanczos vectors a run with Ritz vectors may
                           store (default: 256 MiB of them); a run that
                           needs more restarts thick from the same start
                           (0: always the thick restart) */
    double tol;         /* eigenvalue error tolerance, relative to the
                           operator's scale (default 1e-10) */
    double tol_end;     /* also converged: an end whose error is within
                           tol_end of its own size (default 0: off) */
    double tol_accept;  /* thick restart only: after accept_after
                           products, also accept ends whose errors are
                           within tol_accept of their own size (0, the
                           default: only tol) */
    size_t accept_after;/* default max_matvec */
    int deflate_ones;   /* 1: work in the complement of 1 */
    int high_only;      /* values only: 1 when only the largest end is
                           wanted (lo is then NAN) */
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
    /* results of the last run (values only: of the last check) */
    int stopped_early;  /* 1 when early() ended the run */
    int converged;      /* values only: 1 once both wanted ends have */
    double lo, hi;      /* smallest and largest Ritz value */
    double lo_res, hi_res; /* their residual norms */
    double lo_err, hi_err; /* values only: their error estimates */
    size_t matvecs;     /* products used */
    size_t nvec;        /* Ritz vectors stored at each end (<= keep) */
    double *ylo, *yhi;  /* [keep*n] unit Ritz vectors: ylo + i*n has value
                           tlo[i] (ascending), yhi + i*n has thi[i]
                           (descending) */
    double *tlo, *thi;  /* [keep] their Ritz values */
    /* the three-term recurrence */
    int values_only;    /* set by cm_lanczos_reserve_ends */
    size_t k;           /* its products so far (the order of T) */
    double *v3;         /* Lanczos vectors: [cap3*n] stored, or the last
                           two (vector k in slot k % 2) when values only */
    size_t cap3;        /* vectors v3 holds now */
    double *a3, *b3;    /* [capt] T: diagonal, and b3[i] between i and
                           i + 1 */
    size_t capt;        /* entries a3 and b3 hold now */
    double hmax;        /* largest |T| entry: the operator's scale */
    size_t next_check;  /* products at the next convergence check */
    double hist_err[CM_LANCZOS_HIST]; /* log(error / target) of the worse
                           wanted end at the last checks, oldest first */
    size_t hist_k[CM_LANCZOS_HIST];   /* products at those checks */
    size_t nhist;       /* checks recorded (at most CM_LANCZOS_HIST) */
    double *chk;        /* [cap_chk] the checks' eigenvectors of T */
    size_t cap_chk;
    /* thick restart's workspace */
    double *q;          /* [max_basis*n] orthonormal basis, column-major */
    double *w;          /* [n] residual vector (both paths) */
    double *h;          /* [max_basis^2] projected matrix Q^T A Q */
    double *s;          /* [max_basis^2] its eigenvectors */
    double *theta;      /* [max_basis] its eigenvalues */
    double *coef;       /* [max_basis] projection coefficients */
    double *work;       /* [lwork] LAPACK workspace */
    int lwork;          /* size of work */
} cm_lanczos;

/* Sets every field to empty. */
void cm_lanczos_init(cm_lanczos *lz);

/* Sizes lz for a run with Ritz vectors: order n (n >= 1), a thick-restart
 * basis of max_basis vectors (at least 2*keep + 4, at most 512; the basis
 * is max_basis*n doubles) and keep >= 1 Ritz vectors per end; sets
 * max_matvec from a budget of about 2e10 flops of reorthogonalisation
 * (2,000 to 200,000), max_stored = 256 MiB / (8 n), tol = 1e-10, the
 * other settings 0. CM_EINVAL on bad sizes, CM_ENOMEM. */
cm_status cm_lanczos_reserve(cm_lanczos *lz, size_t n, size_t max_basis,
                             size_t keep);

/* Sizes lz for values only: order n >= 1, three vectors of n doubles
 * (T grows with the run); max_matvec = 100000, tol = 1e-10, the other
 * settings 0. An lz already sized so is kept as it is (its settings
 * too). CM_EINVAL for n = 0, CM_ENOMEM. */
cm_status cm_lanczos_reserve_ends(cm_lanczos *lz, size_t n);

/* Frees what lz owns and re-initializes it. Accepts NULL. */
void cm_lanczos_destroy(cm_lanczos *lz);

/* Extreme eigenpairs of the operator f(ctx, .) restricted to the
 * complement of 1 when deflate_ones. x0 (length n, or NULL) seeds the
 * Krylov space (a warm start: e.g. the previous Ritz vectors of a nearby
 * operator); a fixed pseudo-random vector of 5% of its norm is mixed in,
 * so runs are deterministic. Results in lz->lo, hi, lo_res, hi_res and,
 * unless values only or stopped early, the cleaned Ritz vectors: ylo/yhi
 * orthonormal (and orthogonal to 1 when deflate_ones) with
 * Y^T A Y = diag(tlo/thi) to rounding, nvec <= keep (copies of a converged
 * vector dropped; at most 2 keep more products). The thick-restart
 * fallback (see above) counts its products on top of the three-term
 * run's. CM_ENUMERIC when LAPACK fails or max_matvec products do not
 * converge; CM_EINVAL when the space is empty (n = 1 with deflation) or
 * lz is not reserved. Cost: O(n) per product plus the product
 * (O(n max_basis) in the thick restart); memory one vector per product
 * (at most max_stored; values only: 3 n doubles) and O(k) for T. */
cm_status cm_lanczos_run(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                         const double *x0);

/* Values only, step by step: cm_lanczos_start begins a run from x0 (as
 * cm_lanczos_run; NULL: the pseudo-random start); cm_lanczos_more goes on
 * with at most budget more products and checks convergence at its end
 * (and on the way), setting lz->converged, lo, hi and their residuals
 * and error estimates. The recurrence continues across calls exactly as
 * one long run would, checks aside. CM_EINVAL when lz is not reserved
 * for values only or the space is empty; CM_ENUMERIC when LAPACK fails
 * or the start vector is zero; CM_ENOMEM when T cannot grow. */
cm_status cm_lanczos_start(cm_lanczos *lz, const double *x0);
cm_status cm_lanczos_more(cm_lanczos *lz, cm_matvec_fn f, const void *ctx,
                          size_t budget);

/* Values only: the products a run still needs to converge, extrapolated
 * from its last CM_LANCZOS_HIST checks (the least-squares slope of
 * log(error / target) against products: Lanczos converges about
 * geometrically at an extreme, faster once the Ritz value separates, so
 * the extrapolation errs high). INFINITY when the error does not fall
 * (a stall: rings, tori) or fewer checks were made. O(1). */
double cm_lanczos_predict(const cm_lanczos *lz);

/* Eigenvalues il..iu (1-based, ascending) of the order-k symmetric
 * tridiagonal with diagonal a[k] and off-diagonal b[k-1] into t
 * (ascending) and, when s is not NULL, their unit eigenvectors into s
 * (column c, leading dimension k, for t[c]); *got: how many came back.
 * LAPACK dstebz (bisection, scalar code) and our own inverse iteration
 * (dstein calls the BLAS, whose kernels differ by CPU): the one
 * tridiagonal solve of the engine's checks and of its Ritz vectors; the
 * same bits on every CPU (docs/topo/portable-bits.md).
 * CM_ENOMEM, CM_ENUMERIC. O(k (iu - il + 1)) plus O(k) work arrays. */
cm_status cm_lanczos_tridiag(const double *a, const double *b, size_t k,
                             size_t il, size_t iu, double *t, double *s,
                             size_t *got);

#endif
