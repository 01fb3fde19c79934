/* tg_spectrum: the Laplacian spectrum that the search evaluates per move.
 *
 * Only lambda_2 and lambda_n of L = D - A matter for every objective on a
 * regular graph. Two paths: a sparse one for large n (tg_spec_sparse:
 * warm-started Lanczos, O(n) memory, O(k (m + 40 n)) for k products per
 * solve) and a dense one for small n: L is built densely and LAPACK's
 * dsyev (OpenBLAS) computes eigenvalues only: Householder
 * tridiagonalisation, (4/3) n^3 flops, then an O(n^2) QL/QR sweep, exact
 * to machine precision, with the workspace allocated once per search.
 * docs/topo/search.md has the measured costs and crossover.
 */
#ifndef TG_SPECTRUM_H
#define TG_SPECTRUM_H

#include <stddef.h>

#include "cm_lanczos.h"
#include "cm_status.h"
#include "tg_graph.h"

/* Sparse path: Lanczos basis size and Ritz vectors kept per end. */
#define TG_SPEC_BASIS 40
#define TG_SPEC_KEEP 8

typedef struct {
    size_t n;      /* matrix order the workspace was sized for */
    double *a;     /* [n*n] dense Laplacian, overwritten by LAPACK */
    double *w;     /* [n] eigenvalues, ascending */
    double *work;  /* [lwork] LAPACK workspace */
    int lwork;     /* size of work (LAPACK wants int; checked) */
    double *z;     /* [n*n] eigenvectors of the last tg_spec_vectors call:
                      vector k is z[k*n .. k*n+n) */
    double *zw;    /* [n] their eigenvalues, ascending */
    double *zwork; /* [zlwork] dsyevd workspace */
    int *ziwork;   /* [zliwork] dsyevd integer workspace */
    int zlwork, zliwork; /* sizes of zwork and ziwork */
    cm_lanczos lz; /* sparse path: Lanczos workspace and the Ritz vectors
                      of the last tg_spec_sparse call (lz.ylo, lz.yhi) */
    size_t max_matvec; /* sparse path: products per solve at most (0:
                      cm_lanczos_reserve's default; tests set a few to
                      make solves fail) */
} tg_spec;

/* Sets every field to empty. */
void tg_spec_init(tg_spec *s);

/* Sizes the workspace for n x n problems (queries LAPACK's optimal
 * lwork). CM_EINVAL when n exceeds what LAPACK's int can index. */
cm_status tg_spec_reserve(tg_spec *s, size_t n);

/* Frees the workspace. Accepts NULL. */
void tg_spec_destroy(tg_spec *s);

/* All n eigenvalues of L(g), ascending, into s->w (valid until the next
 * call). Reserves space as needed. CM_ENUMERIC when LAPACK fails. O(n^3). */
cm_status tg_spec_laplacian(tg_spec *s, const tg_graph *g);

/* lambda_2 and lambda_n of L(g) (0, 0 for n <= 1); lambda_2 > 0 iff g is
 * connected. O(n^3), no allocation once reserved. */
cm_status tg_spec_extremes(tg_spec *s, const tg_graph *g, double *l2,
                           double *ln);

/* All eigenpairs of L(g) into s->zw (ascending) and s->z (unit vectors,
 * orthonormal), via LAPACK dsyevd (divide and conquer). Used by the
 * search's screen (tg_search.c); about 2-3x the cost of
 * tg_spec_laplacian. Allocates its workspace on first use. O(n^3). */
cm_status tg_spec_vectors(tg_spec *s, const tg_graph *g);

/* lambda_2 and lambda_n of L(g) for a connected g (n >= 3) by
 * Lanczos on the complement of 1 (cm_lanczos_run: the three-term
 * recurrence with stored vectors from 256 nodes, thick restart with basis
 * TG_SPEC_BASIS below; errors <= 1e-10 * 2d), warm-started from x0 (length n,
 * or NULL: cold). The TG_SPEC_KEEP lowest and highest Ritz pairs are left
 * in s->lz (ylo/tlo ascending from lambda_2, yhi/thi descending from
 * lambda_n). l2 is never below the true lambda_2 nor ln above the true
 * lambda_n, each within the tolerance. CM_ENUMERIC when it does not
 * converge. A caller may set s->lz.early/early_ctx (after a first
 * call has sized s->lz) to stop as soon as the Ritz bounds decide its
 * question; s->lz.stopped_early then says l2/ln are only the bounds
 * l2 >= lambda_2, ln <= lambda_n. Cost O(k (m + n TG_SPEC_BASIS)) for k
 * products (k ~ 50-200 on the search's regular graphs, n = 512..4096). */
cm_status tg_spec_sparse(tg_spec *s, const tg_graph *g, const double *x0,
                         double *l2, double *ln);

/* Smallest and largest eigenvalue of the symmetric k x k matrix m
 * (column-major, lower triangle used; destroyed), k <= 64, via dsyev on a
 * stack workspace. CM_EINVAL for k = 0 or k > 64, CM_ENUMERIC if LAPACK
 * fails. O(k^3). */
cm_status tg_small_sym_extremes(double *m, size_t k, double *lo, double *hi);

#endif
