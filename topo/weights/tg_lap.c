/* tg_lap.c: Jonker-Volgenant style LAP (column reduction + Dijkstra
 * shortest augmenting paths with dual potentials), dense costs.
 *
 * Indices are shifted by one inside (column 0 and row 0 are the virtual
 * source of each Dijkstra), as in the classical O(n^3) shortest-path
 * formulation: p[j] is the row matched to column j (0: free), way[j] the
 * previous column on the shortest path to j, minv[j] its tentative
 * reduced distance. The trade-off: no augmenting row reduction (the JV
 * step that assigns more rows before Dijkstra); the column start already
 * matches most rows of the STL-FW gradients, and the code stays short.
 */
#include "tg_lap.h"

#include <math.h>
#include <stdlib.h>

cm_status tg_lap_solve(size_t n, const double *c, size_t *row_to_col,
                       double *cost)
{
    if (n == 0) {
        if (cost)
            *cost = 0.0;
        return CM_OK;
    }
    for (size_t e = 0; e < n * n; e++)
        if (!isfinite(c[e]))
            return cm_error(CM_EINVAL, "assignment: non-finite cost at (%zu, "
                            "%zu)", e / n, e % n);
    double *u = calloc(n + 1, sizeof *u), *v = calloc(n + 1, sizeof *v);
    double *minv = malloc((n + 1) * sizeof *minv);
    size_t *p = calloc(n + 1, sizeof *p), *way = calloc(n + 1, sizeof *way);
    size_t *rowcol = calloc(n + 1, sizeof *rowcol);
    unsigned char *used = malloc(n + 1);
    cm_status s = CM_OK;
    if (!u || !v || !minv || !p || !way || !rowcol || !used) {
        s = cm_error(CM_ENOMEM, "assignment: out of memory (n = %zu)", n);
        goto done;
    }
#define C(i, j) c[((i) - 1) * n + ((j) - 1)]
    /* column reduction: v_j = min_i C_ij, u = 0 (feasible), the column
     * given to its cheapest row when that row is still free (tight) */
    for (size_t j = 1; j <= n; j++) {
        size_t imin = 1;
        for (size_t i = 2; i <= n; i++)
            if (C(i, j) < C(imin, j))
                imin = i;
        v[j] = C(imin, j);
        if (!rowcol[imin]) {
            rowcol[imin] = j;
            p[j] = imin;
        }
    }
    /* one shortest augmenting path per free row */
    for (size_t i = 1; i <= n; i++) {
        if (rowcol[i])
            continue;
        p[0] = i;
        size_t j0 = 0;
        for (size_t j = 0; j <= n; j++) {
            minv[j] = INFINITY;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            size_t i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            const double *row = &C(i0, 1);
            double ui = u[i0];
            for (size_t j = 1; j <= n; j++) {
                if (used[j])
                    continue;
                double cur = row[j - 1] - ui - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (size_t j = 0; j <= n; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do { /* augment along the path */
            size_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
        for (size_t j = 1; j <= n; j++)
            if (p[j])
                rowcol[p[j]] = j;
    }
    double total = 0.0;
    for (size_t j = 1; j <= n; j++) {
        row_to_col[p[j] - 1] = j - 1;
        total += C(p[j], j);
    }
#undef C
    if (cost)
        *cost = total;
done:
    free(used);
    free(rowcol);
    free(way);
    free(p);
    free(minv);
    free(v);
    free(u);
    return s;
}
