/* cm_shiftinv: both ends of a large sparse graph spectrum to ~1e-12
 * relative, for any connected sparse graph up to CM_TOPO_MAX_NODES.
 *
 * The matrix is M = L = D - A (a Laplacian, weights ignored) or
 * M = I - W (a weighted topology's mixing matrix): symmetric, M 1 = 0.
 * Wanted are lambda_2(M) (the smallest eigenvalue on the complement of 1)
 * and lambda_max(M); W's spectrum follows as mu = 1 - lambda, so the SLEM
 * is max(|1 - lambda_2|, |1 - lambda_max|).
 *
 * Method, one path for every graph (no closed forms):
 *  1. Lanczos on M itself (cm_lanczos, values only: the three-term
 *     recurrence without reorthogonalisation beyond the newest vector;
 *     Paige: the extreme Ritz values still converge, losing
 *     orthogonality only adds copies of converged ones), on the
 *     complement of 1; O(n + m) per product (on a breadth-first
 *     renumbered 32-bit copy of the graph), O(n) memory. Expanders
 *     (optimised and random regular graphs) converge here in a few
 *     hundred to ~1,500 products, whatever n. After a first budget of
 *     100 products it continues, 50 at a time, while the extrapolated
 *     rest (the slope of log(error / target) at the last six
 *     checks, cm_lanczos_predict) is at most 2,000 products; a stall
 *     (rings, tori, long lattices: lambda_2 ~ 4 pi^2 / n^2 sits a
 *     relative 1e-9 from the rest) goes on to step 2.
 *  2. Unless a breadth-first level of s nodes holding node 0's median
 *     node (a balanced separator: s = 2 on a ring, ~ the side on a torus,
 *     a fraction of n on an expander) says the factor would be refused
 *     (s^2 / 2 entries above CM_SHIFTINV_MAX_FILL, or s^3 / 3 flops
 *     above the budget below), and when a sparse Cholesky factorization
 *     (SuiteSparse CHOLMOD, AMD/METIS ordering) of M fits in
 *     CM_SHIFTINV_MAX_FILL entries and costs with 400 solves less than
 *     3,000 products:
 *     shift-and-invert with the same Lanczos on the inverse operators,
 *       lambda_2:   M grounded at node 0 (row and column 0 removed) is
 *                   positive definite for a connected graph whose M is
 *                   positive semidefinite with a simple 0; solving it with
 *                   y_0 = 0 and removing the mean applies the
 *                   pseudo-inverse M^+ exactly on the complement of 1,
 *                   whose largest eigenvalue is 1/lambda_2;
 *       lambda_max: (sigma I - M)^-1 with sigma above lambda_max (step
 *                   1's Ritz value plus a margin, raised until the
 *                   factorization is positive definite, at most the
 *                   Gershgorin bound), largest eigenvalue
 *                   1/(sigma - lambda_max).
 *     A not positive definite grounded M means M is indefinite on the
 *     complement of 1 (a W with an eigenvalue above 1): CM_ETOPO-free,
 *     reported as CM_ENUMERIC with the reason.
 *  3. Otherwise (large fill: big expanders, which step 1 handles) step 1
 *     continues for about 1e11 more flops; when the separator estimate
 *     had skipped step 2, step 2 is tried then, and only then
 *     CM_ENUMERIC.
 *
 * Accuracy: a run stops when each wanted end's error estimate
 * min(r, r^2/gap) (r the Ritz residual, gap to the next Ritz value) is
 * below CM_SHIFTINV_TOL of its own size (or 1e-15 of ||M||).
 */
#ifndef CM_SHIFTINV_H
#define CM_SHIFTINV_H

#include <stddef.h>

#include "cm_lanczos.h"
#include "cm_status.h"
#include "cm_topo.h"

/* Relative error target of each end. */
#define CM_SHIFTINV_TOL 1e-12

/* Largest factor CHOLMOD may build: entries of L (8 bytes and an index
 * each; 1e8 is about 1.2 GB). */
#define CM_SHIFTINV_MAX_FILL 100000000.0

/* How a run went, for reports and benchmarks. */
typedef struct {
    int factored;        /* 1 when step 2 (shift-and-invert) answered */
    size_t products;     /* products with M in steps 1 and 3 */
    size_t solves;       /* solves with a factor in step 2 */
    size_t factorizations; /* numeric factorizations (incl. refused shifts) */
    double fill;         /* entries of the grounded factor (0: CHOLMOD's
                            analysis never ran) */
} cm_shiftinv_stats;

/* lambda_2(M) into *l2 and lambda_max(M) into *lmax for M = L (mixing =
 * 0; weights ignored) or M = I - W (mixing = 1; t weighted), n >= 2.
 * A disconnected t gets *l2 = 0 exactly. stats may be NULL.
 * CM_EINVAL for n < 2 or an unweighted t with mixing; CM_ENOMEM;
 * CM_ENUMERIC when no step converges (the message says why: fill and
 * budget). Cost: O(k (n + m)) for k products (step 1), plus CHOLMOD's
 * analysis and factorization (O(fill) memory; near-linear for rings and
 * tori, O(n^1.5) flops for planar meshes) and O(fill) per solve. */
cm_status cm_shiftinv_ends(const cm_topo *t, int mixing, double *l2,
                           double *lmax, cm_shiftinv_stats *stats);

/* The largest eigenvalue of a symmetric positive semidefinite operator A
 * (op: y = A x, called on x orthogonal to 1, its result projected back
 * onto that complement) on the complement of 1 (n >= 2), by cm_lanczos
 * (values only), to CM_SHIFTINV_TOL relative or 1e-15 of `scale` (a bound on
 * ||A||) absolute, within max_products products. CM_ENUMERIC when it does
 * not converge, CM_ENOMEM. O(n) memory. */
cm_status cm_shiftinv_op_max(size_t n, cm_matvec_fn op, const void *ctx,
                             double scale, size_t max_products, double *max);

#endif
