/* cm_place_seq.c: placing the workers of a time-varying topology.
 *
 * The rounds of a sequence send different arrays, so no one round's
 * graph stands for the period: the candidates are the graph placement of
 * the union of the rounds' edges, that of each round alone, and block,
 * each priced by its traffic summed over the rounds (arrays across
 * hosts, then arrays, then cut edges; cm_place_eval per round), the
 * earliest of the cheapest kept. O(period) placements; split from
 * cm_place.c, whose contract (cm_place.h) it shares.
 */
#include <stdlib.h>
#include <string.h>

#include "cm_place.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"

/* The traffic of rank_of over the period of s: arrays across hosts,
 * arrays, cut edges, each summed over the rounds. */
static cm_status seq_cost(const cm_topo_seq *s, size_t P,
                          const size_t *host_of_rank, const size_t *rank_of,
                          size_t cost[3])
{
    cost[0] = cost[1] = cost[2] = 0;
    for (size_t t = 0; t < s->period; t++) {
        cm_place_stats st;
        cm_status e = cm_place_eval(&s->round[t], P, host_of_rank, rank_of,
                                    NULL, &st);
        if (e != CM_OK)
            return e;
        cost[0] += st.volume_host;
        cost[1] += st.volume;
        cost[2] += st.cut_edges;
    }
    return CM_OK;
}

cm_status cm_place_workers_seq(const cm_topo_seq *s, size_t P,
                               const size_t *host_of_rank,
                               cm_place_kind kind, size_t *rank_of)
{
    return cm_place_workers_seq_how(s, P, host_of_rank, kind, rank_of, NULL);
}

cm_status cm_place_workers_seq_how(const cm_topo_seq *s, size_t P,
                                   const size_t *host_of_rank,
                                   cm_place_kind kind, size_t *rank_of,
                                   cm_place_how *how)
{
    if (s->period <= 1 || kind == CM_PLACE_BLOCK)
        return cm_place_workers_how(&s->round[0], P, host_of_rank, kind,
                                    CM_PLACE_USE_ALL, rank_of, how);
    cm_place_how h;
    size_t n = s->n, best[3] = {0, 0, 0}, cost[3];
    size_t *cand = malloc((n + 1) * sizeof *cand);
    cm_topo u;
    cm_topo_init(&u);
    cm_status st = cand ? cm_topo_seq_union(s, &u)
                        : cm_error(CM_ENOMEM, "placement: out of memory");
    /* candidate 0: the union; 1..period: round c - 1; period + 1: block */
    for (size_t c = 0; c <= s->period + 1 && st == CM_OK; c++) {
        const cm_topo *t = c >= 1 && c <= s->period ? &s->round[c - 1] : &u;
        st = cm_place_workers_how(t, P, host_of_rank,
                                  c <= s->period ? CM_PLACE_GRAPH
                                                 : CM_PLACE_BLOCK,
                                  CM_PLACE_USE_ALL, cand, &h);
        if (st == CM_OK)
            st = seq_cost(s, P, host_of_rank, cand, cost);
        if (st == CM_OK &&
            (c == 0 || cost[0] < best[0] ||
             (cost[0] == best[0] &&
              (cost[1] < best[1] ||
               (cost[1] == best[1] && cost[2] < best[2]))))) {
            memcpy(best, cost, sizeof best);
            memcpy(rank_of, cand, n * sizeof *rank_of);
            if (how)
                *how = h;
            if (how && h.block_kept) { /* its costs are of one graph */
                memset(how, 0, sizeof *how);
                how->block = 1;
            }
        }
    }
    cm_topo_destroy(&u);
    free(cand);
    return st;
}
