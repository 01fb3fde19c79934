/* tg_neff: the effective number of neighbours of a gossip matrix.
 *
 * Vogels, Hendrikx & Jaggi, "Beyond spectral gap" (NeurIPS 2022): run the
 * scalar walk x <- W_t (sqrt(gamma) x + xi), xi ~ N(0, I) every round, and
 * let C be its stationary covariance, measured after the averaging step.
 *
 *     n_eff(gamma) = 1 / ((1 - gamma) mean_i C_ii) = n / ((1 - gamma) tr C)
 *
 * n_eff = 1 for W = I (alone) and n for W = J = 11^T/n (all-reduce).
 * - symmetric W, eigenvalues mu_k (all of them, 1 included):
 *   tr C = sum_k mu_k^2 / (1 - gamma mu_k^2), a closed form;
 * - any doubly stochastic W: C = gamma W C W^T + W W^T, one discrete
 *   Lyapunov (Stein) equation. The mean decouples (1^T W = 1^T), so
 *   tr C = 1/(1 - gamma) + tr Y with Y = A Y A^T + Q, A = sqrt(gamma)
 *   (W - J), Q = W W^T - J, solved by Smith's doubling;
 * - a periodic sequence W_0 .. W_{P-1}: C_p after phase p, C_p =
 *   gamma W_p C_{p-1} W_p^T + W_p W_p^T; n_eff from the mean of tr C_p
 *   over the P phases;
 * - randomised kinds (a fresh W_t each round): a Monte Carlo of the walk,
 *   with its standard error (tg_neff_mc).
 * "Per message": n_eff divided by the mean number of models a node sends
 * per round (the caller knows it; tg_neff_messages_topo for a file).
 */
#ifndef TG_NEFF_H
#define TG_NEFF_H

#include <stddef.h>
#include <stdint.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "cm_topo.h"

/* The gamma Vogels et al. fit on CIFAR-10 (the default of --gamma). */
#define TG_NEFF_GAMMA 0.951

/* Most gammas one --gamma list may hold. */
#define TG_NEFF_MAX_GAMMAS 16

/* Largest n the dense Lyapunov solve accepts (O(n^2) memory, 4 n x n). */
#define TG_NEFF_DENSE_MAX 4096

/* Parses "0.951" or "0.5,0.9,0.951" into g[0..*count) (each in (0, 1),
 * at most TG_NEFF_MAX_GAMMAS). CM_EINVAL naming flag otherwise. */
cm_status tg_neff_parse_gammas(const char *s, const char *flag, double *g,
                               size_t *count);

/* tr C of a symmetric W from its n eigenvalues mu (each |mu| <
 * 1/sqrt(gamma), else INFINITY): sum_k mu_k^2 / (1 - gamma mu_k^2).
 * O(n). */
double tg_neff_trace_eigs(const double *mu, size_t n, double gamma);

/* n_eff = n / ((1 - gamma) tr) for a covariance trace tr. */
double tg_neff_from_trace(size_t n, double gamma, double tr);

/* n_eff of a symmetric W from its eigenvalues (the closed form). O(n). */
double tg_neff_eigs(const double *mu, size_t n, double gamma);

/* n_eff of a weighted symmetric topology at each of the k gammas into
 * out[0..k): one dense eigensolve of W (LAPACK dsyev), then the closed
 * form; a directed (doubly stochastic) topology by tg_neff_series.
 * CM_EINVAL when unweighted or n > TG_NEFF_DENSE_MAX; CM_ENUMERIC,
 * CM_ENOMEM. O(n^3). */
cm_status tg_neff_topo(const cm_topo *t, const double *gamma, size_t k,
                       double *out);

/* tr C (after the averaging step) of the walk on a periodic sequence of
 * dense doubly stochastic n x n matrices w[0..period) (row-major, W[i][j]
 * = weight node i gives node j's model), averaged over the phases; period
 * 1 is a static W. Smith doubling on the complement of 1 until
 * ||A^(2^k)||_max <= 1e-18 (at most 64 doublings). CM_EINVAL when a
 * matrix is not doubly stochastic (rows and columns within 1e-9 of 1:
 * the message names the matrix and the node), n > TG_NEFF_DENSE_MAX, or
 * the walk does not converge (a disconnected product); CM_ENOMEM.
 * O(n^3 (period + log(1/(1 - gamma rho^2)))), rho the second singular
 * value of the period's product. */
cm_status tg_neff_dense_trace(const double *const *w, size_t period,
                              size_t n, double gamma, double *trace);

/* n_eff from tg_neff_dense_trace. */
cm_status tg_neff_dense(const double *const *w, size_t period, size_t n,
                        double gamma, double *neff);

/* Fills w (n x n, row-major, caller-owned) with the W of a weighted
 * topology (self weights on the diagonal). O(n^2 + m). */
void tg_neff_fill_dense(const cm_topo *t, double *w);

/* Models a node sends per round, averaged over the nodes: 2m/n for a
 * symmetric topology (every edge carries a model both ways), m/n for a
 * directed one (m arcs). */
double tg_neff_messages_topo(const cm_topo *t);

/* One round of a Monte Carlo: y = W_t x for the round t's matrix, where x
 * and y hold `reps` replicas per node (x[i * reps + r]). ctx is the
 * caller's (it may draw W_t from its own generator). */
typedef cm_status (*tg_neff_apply)(void *ctx, size_t round, size_t n,
                                   size_t reps, const double *x, double *y);

/* Applies a weighted topology (ctx: const cm_topo *), for tg_neff_mc:
 * y_i = W_ii x_i + sum over i's (in-)neighbours j of W_ij x_j, so a
 * directed cm_topo works too. */
cm_status tg_neff_apply_topo(void *ctx, size_t round, size_t n, size_t reps,
                             const double *x, double *y);

/* Epidemic Learning's rounds for tg_neff_mc, drawn exactly as
 * dpsgd-train draws them (cm_topo_epidemic_draw(n, s, local, seed,
 * round)); t is scratch (initialized; destroy it after). */
typedef struct {
    size_t s;        /* peers per round */
    int local;       /* 1: EL-Local, 0: EL-Oracle */
    uint64_t seed;   /* the run's seed */
    cm_topo t;       /* the round's graph (scratch) */
} tg_neff_epidemic;

/* Applies round `round` of a tg_neff_epidemic (ctx). */
cm_status tg_neff_apply_epidemic(void *ctx, size_t round, size_t n,
                                 size_t reps, const double *x, double *y);

/* Monte Carlo of the walk x <- W_t (sqrt(gamma) x + xi): `reps` replicas
 * (xi from cm_rng(seed, 7)), burn-in 30/(1-gamma) rounds, then
 * `rounds` (0: 200/(1-gamma)) averaged rounds of mean_i x_i^2. *neff from
 * the grand mean, *err its standard error (delta method over the
 * replicas' time averages, which are independent). CM_EINVAL for reps <
 * 2 or n = 0; the apply callback's status. O((burn + rounds) reps (n +
 * apply)). */
cm_status tg_neff_mc(size_t n, tg_neff_apply apply, void *ctx, double gamma,
                     size_t reps, size_t rounds, uint64_t seed, double *neff,
                     double *err);

/* tr Y = tr C - 1/(1-gamma) exactly for a sparse doubly stochastic W
 * (through apply), by the Neumann series of the Stein equation: X_0 =
 * W - J (apply on the identity), X_{k+1} = W X_k (columns of X_k sum to
 * 0, so J X_k = 0), tr Y = sum_k gamma^k ||X_k||_F^2, summed until a term
 * is below 1e-13 of the sum (at most 10,000 terms: CM_EINVAL, not
 * converging). Cost O(terms * n * (cost of one apply per column)): for S
 * permutations 2 (S+1) n^2 flops a term, ~25 terms at gamma = 0.951 for
 * S = 4, against ~20 n^3 for the dense doubling. Memory 2 n^2 doubles. */
cm_status tg_neff_series(size_t n, tg_neff_apply apply, void *ctx,
                         double gamma, double *trace_y, size_t *terms_out);

/* A stochastic estimate of tr Y = tr C - 1/(1-gamma) for a doubly
 * stochastic W (sparse: apply, one replica per probe): with `probes`
 * fixed Rademacher vectors z projected off 1 (z from cm_rng(seed, 11)),
 * tr Y = sum_k gamma^k ||(W - J)^(k+1) z||^2 averaged over z (Hutchinson
 * on the Neumann series of the Stein equation), summed until a term is
 * below 1e-10 of the sum or k = max_terms. The same seed gives the same
 * probes, so two graphs are compared with common random numbers. Cost
 * O(probes * terms * cost of apply); terms ~ log(1e-10) / log(gamma
 * rho^2), about 40 at gamma = 0.951 on a 4-regular MH graph. *terms_out
 * (may be NULL) gets the terms used. */
cm_status tg_neff_estimate(size_t n, tg_neff_apply apply, void *ctx,
                           double gamma, size_t probes, size_t max_terms,
                           uint64_t seed, double *trace_y,
                           size_t *terms_out);

#endif
