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
#include "cm_topo_header.h"

/* The weighted clique graph of the `# cliques:` line the reader kept in h
 * (the header of path, a topology of n nodes; ids already checked against
 * n: a malformed line failed the read, exit 1) into t (initialized).
 * CM_EINVAL naming path when the line is missing (clique-avg on another
 * kind of file) or a clique's members are not all joined in topo (the
 * file's graph); CM_ENOMEM. O(n + sum |C|^2). */
cm_status dt_clique_topo(const cm_topo_header *h, const char *path,
                         const cm_topo *topo, cm_topo *t);

#endif
