/* cm_place_eval.c: what a placement costs per gossip round (cut edges,
 * arrays between ranks and across hosts, each rank's share), and the
 * phrase saying which partitioner made it. Integer counts, O(n d + P):
 * every rank computes them alike. Split from cm_place.c, whose contract
 * (cm_place.h) it shares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_place.h"
#include "cm_place_metis.h"
#include "cm_topo.h"

/* ---- costs --------------------------------------------------------------- */

cm_status cm_place_eval(const cm_topo *t, size_t P,
                        const size_t *host_of_rank, const size_t *rank_of,
                        cm_place_load *load, cm_place_stats *st)
{
    size_t n = t->n;
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < n; i++)
        if (rank_of[i] >= P)
            return cm_error(CM_EINVAL, "placement: worker %zu on rank %zu "
                            "of %zu", i, rank_of[i], P);
    size_t *stamp = malloc((P + 1) * sizeof *stamp);
    size_t *peer = malloc((P + 1) * sizeof *peer);
    size_t *by_rank = malloc((n + 1) * sizeof *by_rank);
    size_t *roff = calloc(P + 1, sizeof *roff);
    cm_place_load *ld = calloc(P + 1, sizeof *ld);
    if (!stamp || !peer || !by_rank || !roff || !ld) {
        free(ld), free(roff), free(by_rank), free(peer), free(stamp);
        return cm_error(CM_ENOMEM, "placement: out of memory");
    }
#define HOST(r) (host_of_rank ? host_of_rank[r] : 0)
    for (size_t r = 0; r < P; r++)
        stamp[r] = peer[r] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t r = rank_of[i];
        const size_t *oa; /* i's array goes to its out-neighbours' ranks */
        const double *ow;
        size_t oc;
        cm_topo_out(t, i, &oa, &ow, &oc);
        for (size_t k = 0; k < oc; k++) {
            size_t j = oa[k], p = rank_of[j];
            int x = HOST(p) != HOST(r);
            int once = t->directed || j > i; /* each edge or arc once */
            if (once && p != r)
                st->cut_edges++;
            if (once && x)
                st->cut_edges_host++;
            if (p == r || stamp[p] == i)
                continue;
            stamp[p] = i;         /* i's array goes to rank p once */
            ld[r].arrays[x]++;
            ld[p].arrays_in[x]++;
        }
        roff[r + 1]++;
    }
    /* distinct peers per rank: walk each rank's workers */
    for (size_t r = 0; r < P; r++)
        roff[r + 1] += roff[r];
    for (size_t i = 0; i < n; i++)
        by_rank[roff[rank_of[i]]++] = i;
    for (size_t r = P; r > 0; r--)
        roff[r] = roff[r - 1];
    roff[0] = 0;
    for (size_t r = 0; r < P; r++)
        for (size_t w = roff[r]; w < roff[r + 1]; w++) {
            size_t i = by_rank[w];
            const size_t *oa;
            const double *ow;
            size_t oc;
            cm_topo_out(t, i, &oa, &ow, &oc);
            for (size_t k = 0; k < oc; k++) {
                size_t p = rank_of[oa[k]];
                if (p != r && peer[p] != r) {
                    peer[p] = r;
                    ld[r].peers[HOST(p) != HOST(r)]++;
                }
            }
        }
    for (size_t r = 0; r < P; r++) {
        size_t a = ld[r].arrays[0] + ld[r].arrays[1];
        st->volume += a;
        st->volume_host += ld[r].arrays[1];
        if (a > st->max_rank)
            st->max_rank = a;
        if (ld[r].arrays[1] > st->max_rank_host)
            st->max_rank_host = ld[r].arrays[1];
        int first = 1;
        for (size_t r2 = 0; r2 < r; r2++)
            if (HOST(r2) == HOST(r))
                first = 0;
        st->hosts += first;
    }
#undef HOST
    if (load)
        memcpy(load, ld, P * sizeof *ld);
    free(ld);
    free(roff);
    free(by_rank);
    free(peer);
    free(stamp);
    return CM_OK;
}

/* ---- reporting ------------------------------------------------------- */

char *cm_place_how_describe(const cm_place_how *how, char *buf, size_t size)
{
    static const char *own = "own bisection";
    size_t steps = 0, used = 0, len = 0;
    for (size_t m = 0; m < CM_PLACE_PARTITIONERS; m++) {
        steps += how->won[m];
        used += how->won[m] > 0;
    }
    if (size)
        buf[0] = '\0';
    if (how->block_kept) {
        static const char *what[3] = {"arrays across hosts", "arrays",
                                      "cut edges"};
        int c = how->block_cost[0] != how->part_cost[0]   ? 0
                : how->block_cost[1] != how->part_cost[1] ? 1
                                                          : 2;
        snprintf(buf, size, "block, %zu %s against the partition's %zu",
                 how->block_cost[c], what[c], how->part_cost[c]);
        return buf;
    }
    if (how->block || !steps) {
        snprintf(buf, size, "%s", how->block ? "block" : "");
        return buf;
    }
    for (size_t m = 0; m < CM_PLACE_PARTITIONERS && len < size; m++) {
        const char *name = m == CM_PLACE_OWN ? own
                                             : cm_metis_name((cm_metis_method)m);
        if (!how->won[m])
            continue;
        int w = used == 1 ? snprintf(buf + len, size - len, "%s", name)
                          : snprintf(buf + len, size - len, "%s%s %zu step%s",
                                     len ? ", " : "", name, how->won[m],
                                     how->won[m] == 1 ? "" : "s");
        len += w > 0 ? (size_t)w : 0;
    }
    return buf;
}
