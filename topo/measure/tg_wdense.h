/* tg_wdense: measures of a dense mixing matrix W (row-major n x n, any
 * doubly stochastic W, symmetric or not), for the data-aware kinds whose
 * W is built densely (tg_stlfw) and for `topogen eval --labels`.
 *
 *   ||W - J||_2: the largest singular value of W - 11^T/n (the SLEM for a
 *     symmetric W), LAPACK dgesvd, O(n^3);
 *   n_eff(gamma) (Vogels et al. 2022): the stationary covariance X of the
 *     random walk x <- W (sqrt(gamma) x + xi) solves X = gamma W X W^T +
 *     W W^T, and n_eff = 1 / ((1 - gamma) mean_i X_ii); X by Smith
 *     doubling (X <- X + A X A^T, A <- A^2 from X = W W^T, A = sqrt(gamma)
 *     W) until the added term is below 1e-13 of X, O(n^3 log(1/(1-gamma))).
 *     n_eff(I) = 1, n_eff(J) = n.
 */
#ifndef TG_WDENSE_H
#define TG_WDENSE_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* ||W - J||_2. CM_ENOMEM, CM_ENUMERIC (LAPACK). */
cm_status tg_wdense_norm(size_t n, const double *W, double *norm);

/* n_eff(gamma), 0 <= gamma < 1. CM_ENOMEM, CM_EINVAL for gamma. */
cm_status tg_wdense_neff(size_t n, const double *W, double gamma,
                         double *neff);

/* The dense W of a weighted topology (*W: n*n, caller frees). CM_EINVAL
 * when unweighted or n > 8192, CM_ENOMEM. */
cm_status tg_wdense_from_topo(const cm_topo *t, double **W);

/* An undirected weighted topology from a symmetric dense W: edge i-j for
 * W_ij > 0 (i != j), W_ij its weight, self weights W_ii (t initialized;
 * old content destroyed). CM_EINVAL when W is not symmetric. O(n^2). */
cm_status tg_wdense_to_topo(size_t n, const double *W, cm_topo *t);

#endif
