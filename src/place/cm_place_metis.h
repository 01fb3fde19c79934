/* cm_place_metis: METIS's partitions of one placement step, at exact
 * sizes, and the objective a placement step is judged by.
 *
 * `--placement graph` (cm_place.c) splits a set of workers into k parts
 * of prescribed sizes twice over: the workers over the hosts, then each
 * host's workers over its ranks. At each step it computes METIS's
 * partitions (METIS 5, libmetis-dev: recursive bisection and k-way on the
 * edge cut, k-way on the communication volume) beside its own recursive
 * bisection and keeps the one of least
 *
 *     J = V (m + 1) + cut,   V = sum_v |{part(u) : u ~ v} \ {part(v)}|,
 *
 * on the step's induced subgraph of m edges: the arrays a gossip round
 * sends between the parts first, cut edges second. METIS balances only
 * up to its UFACTOR (1, i.e. 0.1%, the least it takes), so its result is
 * repaired to the exact sizes greedily. The same code serves
 * scripts/benches/bench-place.c, which compares the partitioners.
 */
#ifndef CM_PLACE_METIS_H
#define CM_PLACE_METIS_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"

/* Which METIS partitioner. */
typedef enum {
    CM_METIS_RECURSIVE = 0, /* METIS_PartGraphRecursive, edge cut */
    CM_METIS_KWAY,          /* METIS_PartGraphKway, edge cut */
    CM_METIS_KWAY_VOL,      /* METIS_PartGraphKway, METIS_OBJTYPE_VOL */
    CM_METIS_METHODS        /* how many */
} cm_metis_method;

/* "METIS recursive", "METIS k-way", "METIS k-way volume". */
const char *cm_metis_name(cm_metis_method m);

/* Partitions the undirected graph of n nodes given as CSR (off[n+1],
 * adj[off[n]]: every edge listed from both ends, no self-loops) into k
 * parts, part[v] in 0..k-1, part p receiving exactly size[p] nodes
 * (size[0..k) sums to n, 2 <= k <= n). METIS runs with unit weights,
 * target part weights size[p] / n, UFACTOR 1, seed 1 and 0-based
 * numbering; a part METIS leaves over its size then gives nodes to parts
 * under theirs, one at a time, always the move that adds the fewest cut
 * edges (count of neighbours in the old part minus in the new one; the
 * lowest node, then the lowest part, on ties). *moves (may be NULL)
 * receives the number of moves. A pure function of its input, the same
 * on every machine that rounds alike (METIS's own generator, fixed seed).
 * Cost: METIS's O(m log k) roughly plus O(moves n (d + k)) for the
 * repair (moves is small: METIS is within 0.1% or a node or two).
 * CM_EINVAL for a k outside 2..n or a graph beyond METIS's 32-bit ids,
 * CM_ENOMEM, CM_ENUMERIC when METIS fails (its code in the message). */
cm_status cm_place_metis(size_t n, const size_t *off, const size_t *adj,
                         size_t k, const size_t *size, cm_metis_method m,
                         size_t *part, size_t *moves);

/* J = V (m + 1) + cut (above) of the partition part[0..n) (parts 0..k-1)
 * of the CSR graph into *j; *vol and *cut (may be NULL) receive V and
 * the cut edges. CM_EINVAL for a part >= k, CM_ENOMEM. O(n + m + k). */
cm_status cm_place_part_j(size_t n, const size_t *off, const size_t *adj,
                          size_t k, const size_t *part, uint64_t *j,
                          size_t *vol, size_t *cut);

#endif
