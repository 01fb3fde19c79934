/* tg_spectrum: the Laplacian spectrum that the search evaluates per move.
 *
 * Only lambda_2 and lambda_n of L = D - A matter for every objective on a
 * regular graph. This module builds L densely and calls LAPACK's dsyev
 * (from OpenBLAS) for eigenvalues only: Householder tridiagonalisation,
 * (4/3) n^3 flops, blocked level-3 BLAS, then an O(n^2) QL/QR sweep. It is
 * exact to machine precision (no convergence tolerance to tune, no trouble
 * with the repeated eigenvalues that optimised regular graphs have), and
 * the workspace is allocated once per search, so a move costs one O(n^3)
 * call without allocation. See README (topogen) for measured costs.
 */
#ifndef TG_SPECTRUM_H
#define TG_SPECTRUM_H

#include <stddef.h>

#include "cm_status.h"
#include "tg_graph.h"

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

/* Smallest and largest eigenvalue of the symmetric k x k matrix m
 * (column-major, lower triangle used; destroyed), k <= 64, via dsyev on a
 * stack workspace. CM_EINVAL for k = 0 or k > 64, CM_ENUMERIC if LAPACK
 * fails. O(k^3). */
cm_status tg_small_sym_extremes(double *m, size_t k, double *lo, double *hi);

#endif
