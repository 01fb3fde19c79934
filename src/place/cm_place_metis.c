/* cm_place_metis.c: METIS (Karypis & Kumar, "A fast and high quality
 * multilevel scheme for partitioning irregular graphs", SIAM J. Sci.
 * Comput. 1998) for one placement step, repaired to exact part sizes.
 *
 * METIS never promises exact balance (UFACTOR 1 allows 0.1% over the
 * target, and small graphs round to a node or two), while a rank must
 * hold exactly its block size of workers. The repair is a greedy one:
 * while a part is over its size, move the node (of any over-full part, to
 * any under-full one) whose move adds the fewest cut edges. It is
 * O(n (d + k)) per move, ample for the handful of moves METIS leaves;
 * cm_place.c then judges the result by J against the own bisection.
 */
#include "cm_place_metis.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <metis.h>

const char *cm_metis_name(cm_metis_method m)
{
    return m == CM_METIS_RECURSIVE ? "METIS recursive"
           : m == CM_METIS_KWAY    ? "METIS k-way"
                                   : "METIS k-way volume";
}

/* Greedy repair of part[] to the sizes want[k]; returns the moves. cnt:
 * [k] zeroed scratch (left zeroed), have: [k] the current sizes. */
static size_t repair(size_t n, const size_t *off, const size_t *adj,
                     size_t k, const size_t *want, size_t *have,
                     size_t *cnt, size_t *part)
{
    size_t moves = 0;
    for (;;) {
        size_t best_i = SIZE_MAX, best_to = 0;
        long best_d = 0;
        for (size_t i = 0; i < n; i++) {
            size_t a = part[i];
            if (have[a] <= want[a])
                continue;
            for (size_t p = off[i]; p < off[i + 1]; p++)
                cnt[part[adj[p]]]++;
            for (size_t b = 0; b < k; b++) {
                if (have[b] >= want[b])
                    continue;
                long d = (long)cnt[a] - (long)cnt[b];
                if (best_i == SIZE_MAX || d < best_d) {
                    best_i = i;
                    best_to = b;
                    best_d = d;
                }
            }
            for (size_t p = off[i]; p < off[i + 1]; p++)
                cnt[part[adj[p]]] = 0;
        }
        if (best_i == SIZE_MAX)
            return moves;
        have[part[best_i]]--;
        have[best_to]++;
        part[best_i] = best_to;
        moves++;
    }
}

cm_status cm_place_metis(size_t n, const size_t *off, const size_t *adj,
                         size_t k, const size_t *size, cm_metis_method m,
                         size_t *part, size_t *moves)
{
    if (k < 2 || k > n)
        return cm_error(CM_EINVAL, "placement: METIS on %zu parts of %zu "
                        "nodes (need 2..%zu)", k, n, n);
    if (n >= (size_t)INT32_MAX || off[n] >= (size_t)INT32_MAX)
        return cm_error(CM_EINVAL, "placement: %zu nodes, %zu adjacencies: "
                        "beyond METIS's 32-bit ids", n, off[n]);
    cm_status st = CM_OK;
    idx_t nv = (idx_t)n, ncon = 1, np = (idx_t)k, objval = 0;
    idx_t *xadj = malloc((n + 1) * sizeof *xadj);
    idx_t *iadj = malloc((off[n] + 1) * sizeof *iadj);
    idx_t *out = malloc((n + 1) * sizeof *out);
    real_t *tp = malloc(k * sizeof *tp);
    size_t *have = calloc(k, sizeof *have), *cnt = calloc(k, sizeof *cnt);
    if (!xadj || !iadj || !out || !tp || !have || !cnt) {
        st = cm_error(CM_ENOMEM, "placement: out of memory (METIS)");
        goto done;
    }
    for (size_t i = 0; i <= n; i++)
        xadj[i] = (idx_t)off[i];
    for (size_t p = 0; p < off[n]; p++)
        iadj[p] = (idx_t)adj[p];
    for (size_t r = 0; r < k; r++)
        tp[r] = (real_t)size[r] / (real_t)n;
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_UFACTOR] = 1;
    opt[METIS_OPTION_SEED] = 1;
    opt[METIS_OPTION_NUMBERING] = 0;
    if (m == CM_METIS_KWAY_VOL)
        opt[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_VOL;
    int rc = m == CM_METIS_RECURSIVE
                 ? METIS_PartGraphRecursive(&nv, &ncon, xadj, iadj, NULL,
                                            NULL, NULL, &np, tp, NULL, opt,
                                            &objval, out)
                 : METIS_PartGraphKway(&nv, &ncon, xadj, iadj, NULL, NULL,
                                       NULL, &np, tp, NULL, opt, &objval,
                                       out);
    if (rc == METIS_ERROR_MEMORY) {
        st = cm_error(CM_ENOMEM, "placement: out of memory (METIS)");
        goto done;
    }
    if (rc != METIS_OK) {
        st = cm_error(CM_ENUMERIC, "placement: %s failed (METIS code %d) "
                      "on %zu nodes, %zu parts", cm_metis_name(m), rc, n, k);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (out[i] < 0 || (size_t)out[i] >= k) {
            st = cm_error(CM_ENUMERIC, "placement: %s put node %zu in "
                          "part %ld of %zu", cm_metis_name(m), i,
                          (long)out[i], k);
            goto done;
        }
        part[i] = (size_t)out[i];
        have[part[i]]++;
    }
    size_t mv = repair(n, off, adj, k, size, have, cnt, part);
    if (moves)
        *moves = mv;
done:
    free(cnt);
    free(have);
    free(tp);
    free(out);
    free(iadj);
    free(xadj);
    return st;
}

cm_status cm_place_part_j(size_t n, const size_t *off, const size_t *adj,
                          size_t k, const size_t *part, uint64_t *j,
                          size_t *vol, size_t *cut)
{
    for (size_t v = 0; v < n; v++)
        if (part[v] >= k)
            return cm_error(CM_EINVAL, "placement: node %zu in part %zu of "
                            "%zu", v, part[v], k);
    size_t *stamp = malloc((k + 1) * sizeof *stamp);
    if (!stamp)
        return cm_error(CM_ENOMEM, "placement: out of memory");
    for (size_t p = 0; p < k; p++)
        stamp[p] = SIZE_MAX;
    size_t V = 0, c = 0;
    for (size_t v = 0; v < n; v++)
        for (size_t p = off[v]; p < off[v + 1]; p++) {
            size_t u = adj[p], q = part[u];
            if (q == part[v])
                continue;
            c += u > v;
            if (stamp[q] != v) { /* v's array goes to part q once */
                stamp[q] = v;
                V++;
            }
        }
    free(stamp);
    *j = (uint64_t)V * (uint64_t)(off[n] / 2 + 1) + (uint64_t)c;
    if (vol)
        *vol = V;
    if (cut)
        *cut = c;
    return CM_OK;
}
