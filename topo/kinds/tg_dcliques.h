/* tg_dcliques: D-Cliques (Bellet, Kermarrec, Lavoie, 2021/2022): cliques
 * whose union of labels is close to the global label mix, sparsely linked.
 *
 * Cliques: q = ceil(n / K) cliques of sizes floor or ceil n/q (K the
 * class count: about one node per class), from a seeded random
 * assignment, then greedy swaps: `steps` times pick two random cliques
 * and, among the node pairs whose exchange lowers the sum of their skews
 * (total variation distance between the clique's pooled label counts,
 * normalized, and the global mix), exchange a random one. Inter-clique
 * links, one edge per linked pair of cliques, at the member with the
 * fewest inter-clique edges (lowest id on ties):
 *   ring:        clique i - clique i+1 (mod q);
 *   small-world: clique i - clique i + 2^j (mod q), j = 0, 1, ..., while
 *                2^j < q (O(q log q) edges);
 *   fractal:     blocks of K cliques fully linked (one edge per pair),
 *                then blocks of K such blocks, ... until one block.
 * Weights: Metropolis-Hastings, or equal-clique (every intra-clique edge
 * of clique C weighs 1/(|C| + e_C), e_C the most inter-clique edges of a
 * member; an inter-clique edge the smaller of its two cliques' weights;
 * self weights take the rest), symmetric and doubly stochastic.
 */
#ifndef TG_DCLIQUES_H
#define TG_DCLIQUES_H

#include <stddef.h>
#include <stdint.h>

#include "cm_labels.h"
#include "cm_status.h"
#include "cm_topo.h"

typedef enum {
    TG_INTER_SMALL_WORLD, /* power-of-two offsets (default) */
    TG_INTER_RING,        /* a ring of cliques */
    TG_INTER_FRACTAL      /* recursive blocks of K */
} tg_inter;

typedef struct {
    size_t q;            /* cliques */
    size_t *clique;      /* [n] clique of each node (owned) */
    double skew_start;   /* mean clique skew (TV) of the random start */
    double skew;         /* after the swaps */
    size_t swaps;        /* exchanges made */
    size_t inter_edges;  /* edges between cliques */
} tg_dcliques_result;

/* Builds the D-Cliques topology of the partition l (n workers, K classes)
 * into t (initialized; old content destroyed), weighted (equal_clique:
 * equal-clique weights, else MH); seed drives the start and the swaps.
 * res->clique is allocated (free it). CM_EINVAL for n < 2, CM_ENOMEM.
 * O(steps * (n/q)^2 K + m). */
cm_status tg_dcliques_build(const cm_labels *l, tg_inter inter,
                            int equal_clique, uint64_t seed, size_t steps,
                            cm_topo *t, tg_dcliques_result *res);

#endif
