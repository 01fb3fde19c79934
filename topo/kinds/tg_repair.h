/* tg_repair: a topology without some of its nodes (lost workers), the
 * survivors reconnected so that degrees are kept where the graph allows.
 *
 * Removing node r frees one edge end ("stub") at each of its surviving
 * neighbours. The stubs are matched into new edges, deterministically:
 *   1. per removed node r (ascending), its surviving neighbours in
 *      ascending (new) id order pair up greedily: the first unpaired one
 *      with the next that is not yet its neighbour (r is bypassed: the
 *      two ends of a cut ring edge join);
 *   2. the stubs left (odd counts, or pairs already adjacent) pair up the
 *      same way in ascending id order;
 *   3. two stubs still left at u and v (u ~ v already, or u = v) take a
 *      degree-preserving double-edge swap, the search's move: the first
 *      edge a-b (in edge order) with a, b not in {u, v}, u !~ a, v !~ b
 *      becomes u-a and v-b (degrees of a and b unchanged).
 * Every survivor keeps its degree, except one node when the number of
 * freed stubs is odd (it loses 1), and any stub for which step 3 finds no
 * edge. Survivors are renumbered in order: old id i becomes its rank
 * among the survivors. The result is unweighted (the caller weights it).
 * No randomness: one input gives one output.
 */
#ifndef TG_REPAIR_H
#define TG_REPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    size_t n_old;       /* nodes before */
    size_t removed;     /* nodes removed */
    size_t stubs;       /* edge ends freed at the survivors */
    size_t added;       /* edges added between survivors */
    size_t swaps;       /* double-edge swaps of step 3 */
    size_t short_nodes; /* survivors whose degree dropped */
    size_t short_first; /* the first of them (new id), if any */
    size_t components;  /* connected components of the result */
} tg_repair_info;

/* t (undirected) without the nodes rm[0..k) (ascending, distinct, < n),
 * reconnected as above, into out (initialized; unweighted; old content
 * destroyed). CM_EINVAL for a directed t, unsorted or out-of-range ids,
 * or fewer than 2 survivors; CM_ETOPO when the result is disconnected
 * (out is then still filled, info->components > 1); CM_ENOMEM.
 * O(n + m log m + s m) for s leftover stubs of step 3 (few). */
cm_status tg_repair(const cm_topo *t, const size_t *rm, size_t k,
                    cm_topo *out, tg_repair_info *info);

/* The search's moves on the repaired graph (learned and random graphs):
 * `iters` degree-preserving double-edge swaps drawn from cm_rng(seed, 0),
 * each kept only when the graph stays connected and its ratio energy
 * (lambda_n - lambda_2)/(lambda_n + lambda_2) (tg_search.h) drops: a
 * zero-temperature run of the annealing that learned it, started from
 * the repaired graph. t (unweighted, connected) is replaced by the result
 * (degrees unchanged). *e0, *e1: the energy before and after; *kept: the
 * swaps kept. CM_EINVAL above TG_GRAPH_DENSE_MAX nodes (the dense
 * spectrum); CM_ENUMERIC, CM_ENOMEM. O(iters n^3). */
cm_status tg_repair_polish(cm_topo *t, size_t iters, uint64_t seed,
                           double *e0, double *e1, size_t *kept);

#endif
