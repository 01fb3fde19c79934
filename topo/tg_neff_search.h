/* tg_neff_search: the n_eff objectives of the search, as an energy hook
 * (tg_energy_hook, tg_search.h).
 *
 * Energy E = 1 - n_eff(gamma)/n of the Metropolis-Hastings matrix W =
 * I - L/(d + 1) of the d-regular state (the weights the research notes
 * found within 1-2 % of the best constant alpha for n_eff at d = 4; the
 * written file then gets --weights, e.g. neff). neff-per-message ranks
 * graphs alike on a d-regular state (every node sends d models a round):
 * the same energy; the report divides by d.
 * - n < TG_NEFF_ESTIMATE_FROM: exact, the closed form on the full
 *   Laplacian spectrum (LAPACK dsyev, O(n^3) a move);
 * - from it: the stochastic estimate tg_neff_estimate (Hutchinson with
 *   `probes` Rademacher vectors on the Neumann series of the Stein
 *   equation), O(probes * terms * (n d)) a move, about 40-60 terms at
 *   gamma = 0.951; the probes are fixed within an epoch of the search
 *   (common random numbers: two states are compared on the same probes)
 *   and redrawn every epoch.
 */
#ifndef TG_NEFF_SEARCH_H
#define TG_NEFF_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "tg_search.h"

/* From this n the hook estimates instead of solving. */
#define TG_NEFF_ESTIMATE_FROM 1024

/* Probes of the estimate (default). */
#define TG_NEFF_PROBES 32

typedef struct {
    double gamma;   /* in (0, 1) */
    size_t probes;  /* estimate: probe vectors */
    int estimate;   /* -1: by n (TG_NEFF_ESTIMATE_FROM), 0: exact, 1: estimate */
    uint64_t seed;  /* estimate: probes of epoch k from cm_rng(seed + k, 11) */
} tg_neff_hook_cfg;

/* A hook for cfg (borrowed: must outlive the search). */
void tg_neff_hook(tg_energy_hook *h, const tg_neff_hook_cfg *cfg);

/* n_eff (exact) of the MH W of a d-regular graph g. O(n^3). */
cm_status tg_neff_graph_mh(const tg_graph *g, double gamma, double *neff);

#endif
