/* tg_groups.c: equal groups of contiguous node ids, their cut, and the
 * grouped search's start (see tg_groups.h).
 *
 * The start is built edge by edge (no igraph), in a fixed order, so that a
 * restart's trajectory depends only on its seed: group g (nodes
 * base = g s .. base + s - 1) gets the ring lattice i ~ i + 1..d/2 (and
 * i + s/2 for odd d) inside, minus its edge (base, base + 1); then
 * base_g + 1 ~ base_{g+1} for g = 0..G-1 (cyclically) restores every
 * degree and links the groups in a cycle. Removing one edge of a ring
 * lattice of degree >= 2 keeps it connected, so the start is connected.
 */
#include "tg_groups.h"

#include <stdlib.h>

size_t tg_groups_min_cross(size_t G)
{
    return G <= 1 ? 0 : G == 2 ? 2 : G;
}

cm_status tg_groups_check_n(size_t n, size_t G, const char *flag)
{
    if (G == 0)
        return cm_error(CM_EINVAL, "%s: at least 1 group", flag);
    if (G > n)
        return cm_error(CM_EINVAL, "%s %zu: more groups than the %zu nodes",
                        flag, G, n);
    if (n % G != 0)
        return cm_error(CM_EINVAL, "%s %zu: does not divide the %zu nodes "
                        "into equal groups", flag, G, n);
    return CM_OK;
}

cm_status tg_groups_check(size_t n, size_t d, size_t G, size_t C)
{
    cm_status st = tg_groups_check_n(n, G, "--groups");
    if (st != CM_OK)
        return st;
    if (G < 2)
        return cm_error(CM_EINVAL, "--groups %zu: a grouped search needs at "
                        "least 2 groups (one group is the plain search)", G);
    size_t s = n / G;
    if (s < d + 1)
        return cm_error(CM_EINVAL, "--groups %zu: groups of %zu nodes cannot "
                        "hold degree %zu inside (need n/G >= d + 1 = %zu)", G,
                        s, d, d + 1);
    if ((s * d) % 2 != 0)
        return cm_error(CM_EINVAL, "--groups %zu: groups of %zu nodes with "
                        "odd degree %zu leave an odd number of edge ends per "
                        "group (need (n/G)*d even)", G, s, d);
    size_t lo = tg_groups_min_cross(G);
    if (C < lo)
        return cm_error(CM_EINVAL, "--max-cross %zu: %zu groups of a "
                        "connected %zu-regular graph need at least %zu edges "
                        "between groups", C, G, d, lo);
    return CM_OK;
}

void tg_groups_cut(size_t n, size_t m, const size_t *eu, const size_t *ev,
                   size_t G, size_t *per_group, size_t *total)
{
    size_t cut = 0;
    for (size_t g = 0; per_group && g < G; g++)
        per_group[g] = 0;
    for (size_t k = 0; k < m; k++) {
        size_t ga = tg_group_of(eu[k], n, G), gb = tg_group_of(ev[k], n, G);
        if (ga == gb)
            continue;
        cut++;
        if (per_group) {
            per_group[ga]++;
            per_group[gb]++;
        }
    }
    *total = cut;
}

long tg_groups_swap_delta(size_t n, size_t G, size_t a, size_t b, size_t x,
                          size_t y)
{
    size_t ga = tg_group_of(a, n, G), gb = tg_group_of(b, n, G);
    size_t gx = tg_group_of(x, n, G), gy = tg_group_of(y, n, G);
    return (long)(ga != gx) + (long)(gb != gy) - (long)(ga != gb) -
           (long)(gx != gy);
}

/* The cycle of ring lattices (above) into g. */
static cm_status start_graph(tg_graph *g, size_t n, size_t d, size_t G)
{
    size_t s = n / G, cap = n * (d / 2 + 1) + G + 1, m = 0;
    size_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v);
    cm_status st = CM_OK;
    if (!u || !v) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node graph", n);
        goto cleanup;
    }
    for (size_t grp = 0; grp < G; grp++) {
        size_t base = grp * s, at = m;
        size_t got = tg_ring_lattice_edges(s, d, u + at, v + at);
        /* its first edge, (0, 1), is lifted out for the cycle of groups */
        for (size_t e = G > 1 ? 1 : 0; e < got; e++) {
            u[m] = base + u[at + e];
            v[m++] = base + v[at + e];
        }
    }
    for (size_t grp = 0; G > 1 && grp < G; grp++) {
        u[m] = grp * s + 1;
        v[m++] = ((grp + 1) % G) * s;
    }
    st = tg_graph_from_edges(g, n, m, u, v);
cleanup:
    free(u);
    free(v);
    return st;
}

/* tg_graph_shuffle's veto for tg_groups_start: a swap may not take the
 * cut above the bound C; a kept one updates the cut. */
typedef struct {
    size_t n, G, C, cut;
} cut_bound;

static int within_bound(void *ctx, size_t a, size_t b, size_t x, size_t y,
                        int commit)
{
    cut_bound *cb = ctx;
    long after = (long)cb->cut +
                 tg_groups_swap_delta(cb->n, cb->G, a, b, x, y);
    if (commit)
        cb->cut = (size_t)after;
    return after <= (long)cb->C;
}

cm_status tg_groups_start(tg_graph *g, size_t n, size_t d, size_t G,
                          size_t C, cm_rng *rng)
{
    cm_status st = tg_kind_check(TG_KIND_LEARNED, n, d);
    if (st == CM_OK)
        st = tg_groups_check(n, d, G, C);
    if (st == CM_OK)
        st = start_graph(g, n, d, G);
    if (st != CM_OK || !rng)
        return st;
    cut_bound cb = {n, G, C, 0};
    tg_groups_cut(n, g->m, g->eu, g->ev, G, NULL, &cb.cut);
    tg_graph_shuffle(g, rng, within_bound, &cb);
    return CM_OK;
}
