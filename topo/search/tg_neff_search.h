/* tg_neff_search: the n_eff objectives of the search, as an energy hook
 * (tg_energy_hook, tg_search.h).
 *
 * Energy E = 1 - n_eff(gamma)/n of the Metropolis-Hastings matrix W =
 * I - alpha L, alpha = 1/(d + 1), of the d-regular state (the weights the
 * research notes found within 1-2 % of the best constant alpha for n_eff
 * at d = 4; the written file then gets --weights, e.g. neff).
 * neff-per-message ranks graphs alike on a d-regular state (every node
 * sends d models a round): the same energy; reports divide by d.
 *
 * Exact at every n up to TG_NEFF_UPDATE_MAX by low-rank updates: with
 * s = sqrt(gamma), X1 = I - sW, X2 = I + sW and G_k = X_k^-1,
 * tr f(W) = (tr G1 + tr G2)/(2 gamma) - n/gamma (tg_neff_weights.h). A
 * swap changes L by U S U^T (U: the four edge vectors a_e, S = diag(+1,
 * +1, -1, -1)), so X_k by U C_k U^T, C_k = -+ s alpha S, and Woodbury gives
 *     tr G_k' = tr G_k - tr(M_k^-1 U^T G_k^2 U),  M_k = C_k^-1 + U^T G_k U
 * from 4 x 4 matrices of entries of G_k and G_k^2: O(1) per proposal.
 * An accepted move updates G_k and G_k^2 by rank 4 and 8, O(n^2); every
 * TG_NEFF_REFRESH accepted moves both are recomputed from scratch
 * (Cholesky inversion, O(n^3)) so rounding cannot drift. Memory 4 n^2
 * doubles per search thread. Above TG_NEFF_UPDATE_MAX the hook falls back
 * to the stochastic estimate tg_neff_estimate (TG_NEFF_PROBES probes,
 * fixed per search thread): its noise per move is larger than the
 * differences between neighbours (measured: docs/topo/neff.md), so it only
 * guides a coarse search there.
 */
#ifndef TG_NEFF_SEARCH_H
#define TG_NEFF_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "tg_search.h"

/* Largest n of the exact low-rank path (4 n^2 doubles per thread). */
#define TG_NEFF_UPDATE_MAX 2048

/* Accepted moves between recomputations from scratch. */
#define TG_NEFF_REFRESH 1000

/* Probes of the estimate above TG_NEFF_UPDATE_MAX. */
#define TG_NEFF_PROBES 32

typedef struct {
    double gamma;   /* in (0, 1) */
    size_t probes;  /* estimate: probe vectors */
    int estimate;   /* -1: by n (TG_NEFF_UPDATE_MAX), 0: exact, 1: estimate */
    uint64_t seed;  /* estimate: probes from cm_rng(seed, 11) */
} tg_neff_hook_cfg;

/* A hook for cfg (borrowed: must outlive the search). */
void tg_neff_hook(tg_energy_hook *h, const tg_neff_hook_cfg *cfg);

#endif
