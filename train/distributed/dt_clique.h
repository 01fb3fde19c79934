/* dt_clique: the cliques of a D-Cliques topology file, for --algorithm
 * clique-avg (Bellet et al.: Clique Averaging, the gradient of every
 * worker replaced by the mean over its clique before the local update).
 *
 * topogen --kind dcliques writes `# cliques: c_0 c_1 ... c_{n-1}` (the
 * clique of each node) in the topology header. From it, the clique graph:
 * every pair of one clique joined, W_ij = 1/|C| for i, j in clique C (self
 * weight included), so one gossip round on it gives each worker its
 * clique's exact mean. No MPI here (the round is dt_gossip's).
 */
#ifndef DT_CLIQUE_H
#define DT_CLIQUE_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* Reads the `# cliques:` line of path (a topology of n nodes) and builds
 * the weighted clique graph into t (initialized). CM_EINVAL naming path
 * when the line is missing, has another count than n, a bad id, or a
 * clique whose members are not all joined in topo (the file's graph);
 * CM_EIO, CM_ENOMEM. O(n + sum |C|^2). */
cm_status dt_clique_topo(const char *path, const cm_topo *topo,
                         cm_topo *t);

/* The complete graph on n nodes with W_ij = 1/n for every i, j (self
 * weight included) into t (initialized): one gossip round on it gives
 * every worker the exact average of all, summed in ascending worker order
 * (so the same bits on any number of ranks). --global-every and the local
 * all-reduce average with it. CM_ENOMEM. O(n^2). */
cm_status dt_complete_topo(size_t n, cm_topo *t);

#endif
