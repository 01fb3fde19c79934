/* tg_fdla: fastest distributed linear averaging weights (Xiao & Boyd 2004).
 *
 * Given a connected graph, find the symmetric W with W 1 = 1 and W_ij = 0
 * off the edges (negative entries allowed) that minimises
 *
 *     SLEM(W) = || W - 11^T/n ||_2.
 *
 * Every such W is W = I - L(w) = I - sum_e w_e a_e a_e^T, a_e = e_i - e_j
 * for edge e = {i, j}, so the problem is the semidefinite program
 *
 *     minimise s  over (w, s)
 *     subject to  s I - M(w) >= 0,  s I + M(w) >= 0,  M(w) = I - J - L(w)
 *
 * (J = 11^T/n, ">= 0" positive semidefinite). tg_fdla solves it to a
 * stated accuracy with a barrier interior-point method and certifies the
 * result with a dual-feasible point: the returned `lower` is a lower bound
 * on the optimal SLEM, so `slem - lower` bounds how far the weights are
 * from optimal. See tg_fdla.c for the method and its cost.
 */
#ifndef TG_FDLA_H
#define TG_FDLA_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* Largest edge count tg_fdla_weights accepts: each Newton step forms and
 * factors a dense (m+1) x (m+1) matrix. */
#define TG_FDLA_MAX_EDGES 2048

/* Default certified optimality gap (slem - lower) the solver stops at. */
#define TG_FDLA_TOL 1e-6

typedef struct {
    double slem;       /* SLEM of the returned W (dense eigensolve of the
                          final weights, independent of the solver) */
    double lower;      /* certified lower bound on the optimal SLEM over all
                          W on this graph (from a dual-feasible point) */
    double slem_start; /* SLEM of the best constant Laplacian weights, the
                          starting point */
    size_t newton;     /* Newton steps taken */
    size_t stages;     /* barrier stages (centring problems) */
    double min_weight; /* most negative (or smallest) edge weight */
    size_t negative;   /* edges with a negative weight */
    double seconds;    /* wall time of the solve */
} tg_fdla_result;

/* Replaces t's weights (if any) with FDLA weights: edge weights w_e and
 * self weights W_ii = 1 - sum_j W_ij, so rows sum to 1 up to round-off.
 * tol > 0 is the target certified gap (slem - lower), e.g. TG_FDLA_TOL;
 * the solver stops earlier if round-off makes further progress
 * impossible, and res->lower then still is a valid bound. res may be NULL.
 * Deterministic (no randomness, fixed operation order).
 * Errors: CM_ETOPO when t is disconnected; CM_EINVAL when tol <= 0 or t has
 * more than TG_FDLA_MAX_EDGES edges; CM_ENUMERIC when a factorisation
 * fails; CM_ENOMEM. On error t is unchanged.
 * Cost: O(n^3 + m n + m^3) per Newton step: two n x n Cholesky
 * factorisations and inversions, the O(m^2) Hessian fill, an (m+1) x (m+1)
 * Cholesky solve; plus an O(n^3) eigensolve per barrier stage. 50-60
 * Newton steps in practice (n = 256, d = 4: about 1.5 s on one core).
 * Memory O(n^2 + m^2). */
cm_status tg_fdla_weights(cm_topo *t, double tol, tg_fdla_result *res);

#endif
