/* tg_grow: a topology with new nodes (workers that join), keeping the
 * degrees of the nodes it had.
 *
 * Each new node v takes floor(D/2) edge splits, D the largest degree of
 * the graph before (at least one split): an edge (a, b) drawn at random
 * among those not touching v is replaced by (a, v) and (v, b). Every old
 * node keeps its degree, v gets an even degree close to D, and the graph
 * stays connected (a path a-v-b replaces each removed edge). Old nodes
 * keep their ids; the new ones are n .. n+K-1.
 */
#ifndef TG_GROW_H
#define TG_GROW_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    size_t splits;   /* edges of the old graph split (removed) */
    size_t kept;     /* edges of the old graph kept */
    size_t new_deg;  /* the degree each new node was given */
} tg_grow_info;

/* t (undirected, at least one edge) with k new nodes, as above, drawn from
 * cm_rng(seed, 0), into out (initialized; unweighted; old content
 * destroyed). CM_EINVAL for a directed t, no edge or k = 0; CM_ENOMEM.
 * O(m + k D (D + tries)). */
cm_status tg_grow(const cm_topo *t, size_t k, uint64_t seed, cm_topo *out,
                  tg_grow_info *info);

#endif
