/* tg_lap: the dense linear assignment problem, min_P sum_i C[i, P(i)] over
 * permutations P, as Jonker and Volgenant solve it (Computing 38, 1987):
 * column reduction for a start (every column's cheapest row, assigned when
 * that row is free; duals v_j = min_i C_ij, u = 0), then one shortest
 * augmenting path per free row, Dijkstra on the reduced costs
 * C_ij - u_i - v_j >= 0 with the duals updated so that they stay
 * feasible and tight on the matching. Exact (an optimal assignment) for
 * any finite costs. The STL-FW oracle (tg_stlfw) calls it once per
 * iteration.
 */
#ifndef TG_LAP_H
#define TG_LAP_H

#include <stddef.h>

#include "cm_status.h"

/* Solves the LAP of the row-major n x n cost matrix c (finite values):
 * row_to_col[i] (caller's [n]) is the column of row i in an optimal
 * assignment; *cost (may be NULL) its total. CM_ENOMEM; CM_EINVAL for a
 * non-finite cost. Cost O(n^2) for the start plus O(n^2) per augmenting
 * path (at most n paths: O(n^3) worst case, far less on the STL-FW
 * gradients). Memory O(n). */
cm_status tg_lap_solve(size_t n, const double *c, size_t *row_to_col,
                       double *cost);

#endif
