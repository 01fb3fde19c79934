/* tg_grow.c: new nodes by edge splitting (see tg_grow.h).
 *
 * Splitting an edge is the one local move that adds a node without
 * changing any old node's degree: the "subdivision" of random regular
 * graph models (a random d-regular graph on n + 1 nodes from one on n by
 * d/2 subdivisions keeps it d-regular). Trade-off: each split removes one
 * old edge (K D / 2 of them in all); --iters swaps can then improve the
 * spectrum as after a repair.
 */
#include "tg_grow.h"

#include <stdlib.h>
#include <string.h>

#include "cm_rng.h"

cm_status tg_grow(const cm_topo *t, size_t k, uint64_t seed, cm_topo *out,
                  tg_grow_info *info)
{
    memset(info, 0, sizeof *info);
    if (t->directed)
        return cm_error(CM_EINVAL, "a directed topology cannot be grown "
                        "(edge splitting keeps undirected degrees)");
    if (!k || !t->m)
        return cm_error(CM_EINVAL, "growing needs new nodes and a graph with "
                        "an edge");
    size_t n = t->n, dmax = 0;
    for (size_t i = 0; i < n; i++)
        if (t->off[i + 1] - t->off[i] > dmax)
            dmax = t->off[i + 1] - t->off[i];
    size_t splits = dmax / 2 ? dmax / 2 : 1;
    size_t cap = t->m + k * splits + 1;
    size_t *ei = malloc(cap * sizeof *ei), *ej = malloc(cap * sizeof *ej);
    unsigned char *old = calloc(cap, 1); /* 1: an edge of t */
    size_t *nb = malloc((2 * splits + 1) * sizeof *nb);
    cm_status s = CM_OK;
    if (!ei || !ej || !old || !nb) {
        s = cm_error(CM_ENOMEM, "out of memory growing the topology");
        goto done;
    }
    size_t m = t->m;
    for (size_t q = 0; q < m; q++) {
        ei[q] = t->ei[q];
        ej[q] = t->ej[q];
        old[q] = 1;
    }
    cm_rng rng;
    cm_rng_seed(&rng, seed, 0);
    for (size_t v = n; v < n + k; v++) {
        size_t deg = 0;
        for (size_t sp = 0; sp < splits; sp++) {
            /* an edge not touching v, nor a neighbour of v (no multi-edge) */
            size_t q = m;
            for (size_t tries = 0; tries < 64 * m && q == m; tries++) {
                size_t c = (size_t)cm_rng_below(&rng, m);
                int bad = ei[c] == v || ej[c] == v;
                for (size_t j = 0; j < deg && !bad; j++)
                    bad = nb[j] == ei[c] || nb[j] == ej[c];
                if (!bad)
                    q = c;
            }
            if (q == m)
                break; /* the graph is too small for more */
            size_t a = ei[q], b = ej[q];
            info->splits += old[q];
            ei[q] = a; /* (a, b) becomes (a, v) ... */
            ej[q] = v;
            old[q] = 0;
            ei[m] = b; /* ... and (b, v) */
            ej[m] = v;
            old[m++] = 0;
            nb[deg++] = a;
            nb[deg++] = b;
        }
        if (!info->new_deg || deg < info->new_deg)
            info->new_deg = deg;
    }
    info->kept = t->m - info->splits;
    s = cm_topo_from_edges(out, n + k, m, ei, ej);
done:
    free(ei);
    free(ej);
    free(old);
    free(nb);
    return s;
}
