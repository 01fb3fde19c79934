/* tg_neff_weights: edge weights that maximise n_eff(gamma) on a graph.
 *
 * For W = I - L(w) (symmetric, W 1 = 1, W_ij = 0 off the edges, negative
 * entries allowed, as FDLA), n_eff = n / ((1 - gamma) F(w)) with
 *
 *     F(w) = tr f(W),  f(mu) = mu^2 / (1 - gamma mu^2)
 *          = (1/(2 gamma)) [tr (I - sW)^-1 + tr (I + sW)^-1] - n/gamma,
 *
 * s = sqrt(gamma): a convex function of w (tr X^-1 is convex on positive
 * definite X, and I -+ sW are affine in w) on the open set where
 * |mu_k(W)| < 1/s. tg_neff_weights minimises it by damped Newton steps
 * (Hessian in closed form, like tg_fdla) and certifies the result with a
 * dual point: for PSD Z1, Z2 with a_e^T (Z1 - Z2) a_e = 0 on every edge,
 * tr X1^-1 + tr X2^-1 >= (tr Z1^(1/2) + tr Z2^(1/2))^2 /
 * ((1 - s) tr Z1 + (1 + s) tr Z2) for every feasible w, so `neff_upper`
 * bounds n_eff over all W on the graph. tg_neff_alpha is the
 * one-parameter scan W = I - alpha L for graphs too large for Newton.
 */
#ifndef TG_NEFF_WEIGHTS_H
#define TG_NEFF_WEIGHTS_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* Largest edge count the Newton solve accepts (a dense m x m system). */
#define TG_NEFF_MAX_EDGES 2048

typedef struct {
    double gamma;      /* the gamma optimised for */
    double neff;       /* n_eff of the returned W (closed form, dense
                          eigensolve of the final weights) */
    double neff_upper; /* certified: no W on this graph has a larger n_eff
                          (Newton only; the scan sets neff) */
    double neff_start; /* n_eff of the start (MH weights; scan: alpha
                          1/(dmax + 1)) */
    double alpha;      /* scan: the best alpha (Newton: 0) */
    size_t newton;     /* Newton steps taken */
    double min_weight; /* smallest edge weight */
    size_t negative;   /* edges with a negative weight */
    double seconds;    /* wall time */
} tg_neff_weights_result;

/* Replaces t's weights with the n_eff-optimal ones at gamma in (0, 1).
 * Stops when the Newton decrement is below 1e-12 F or after 100 steps;
 * the bound is valid either way (res->neff_upper >= res->neff). res may
 * be NULL. Deterministic. CM_EINVAL for gamma outside (0, 1) or more than
 * TG_NEFF_MAX_EDGES edges, n > 4096; CM_ENUMERIC when a factorisation
 * fails; CM_ENOMEM. On error t is unchanged.
 * Cost per Newton step O(n^3 + m^2 + m^3/3): two Cholesky inversions and
 * two products G^2, the Hessian fill, the m x m solve; 8-15 steps. */
cm_status tg_neff_weights(cm_topo *t, double gamma,
                          tg_neff_weights_result *res);

/* W = I - alpha L with the alpha in (0, (1 + 1/sqrt(gamma))/lambda_n)
 * maximising n_eff (golden section on the convex F(alpha), from one
 * dense Laplacian spectrum). Same errors; cost O(n^3) + O(100 n). */
cm_status tg_neff_alpha(cm_topo *t, double gamma,
                        tg_neff_weights_result *res);

#endif
