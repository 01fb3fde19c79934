/* tg_catalog: known extremal regular graphs for small n, as a check on
 * the search.
 *
 * For some (n, d) the best graph for the ratio objective is a known
 * strongly regular or otherwise extremal graph whose Laplacian has few
 * distinct eigenvalues; the annealer may land above it (K_{5,5}: SLEM
 * 1/3, the default search 0.358). The catalogue: complete multipartite
 * graphs K_{s,...,s} (s = n - d dividing n; K_{d,d} for n = 2d; SLEM
 * s/(2n - s)), the Petersen graph (10, 3), the Heawood graph (14, 3;
 * the (3,6)-cage), Paley graphs of prime order q = 1 mod 4 (5, 13, 17;
 * d = (q-1)/2), rook's graphs K_a x K_a (9, 4 = Paley(9); 16, 6), and the
 * Clebsch graph (16, 5; the folded 5-cube).
 */
#ifndef TG_CATALOG_H
#define TG_CATALOG_H

#include <stddef.h>

#include "cm_status.h"
#include "cm_topo.h"

/* Number of catalogue graphs with n nodes and degree d. */
size_t tg_catalog_count(size_t n, size_t d);

/* Builds the k-th (k < tg_catalog_count(n, d)) catalogue graph with n
 * nodes and degree d into t (initialized; old content destroyed),
 * unweighted; *name gets its name (static storage). CM_EINVAL for a bad
 * k, CM_ENOMEM. O(n^2). */
cm_status tg_catalog_build(size_t n, size_t d, size_t k, cm_topo *t,
                           const char **name);

#endif
