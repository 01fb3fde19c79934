/* tg_graph.c: graph storage, degree-preserving swaps and the baseline
 * constructions.
 *
 * Storage trades memory (an n x n byte matrix) for O(1) edge tests, which
 * the search makes millions of; at n = 256 that is 64 KiB. Constructions
 * collect an edge list, drop duplicates (e.g. i+n/2 == i-n/2 in the
 * exponential graph) and build the graph once.
 */
#include "tg_graph.h"

#include <stdlib.h>
#include <string.h>

void tg_graph_init(tg_graph *g)
{
    memset(g, 0, sizeof *g);
}

void tg_graph_destroy(tg_graph *g)
{
    if (!g)
        return;
    free(g->eu);
    free(g->ev);
    free(g->adj);
    free(g->off);
    free(g->nb);
    tg_graph_init(g);
}

cm_status tg_graph_from_edges(tg_graph *g, size_t n, size_t m,
                              const size_t *eu, const size_t *ev)
{
    cm_status st = CM_OK;
    tg_graph_destroy(g);
    g->n = n;
    g->m = m;
    g->eu = malloc((m + 1) * sizeof *g->eu);
    g->ev = malloc((m + 1) * sizeof *g->ev);
    g->adj = calloc(n * n + 1, 1);
    g->off = calloc(n + 1, sizeof *g->off);
    g->nb = malloc((2 * m + 1) * sizeof *g->nb);
    size_t *pos = malloc((n + 1) * sizeof *pos);
    if (!g->eu || !g->ev || !g->adj || !g->off || !g->nb || !pos) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node graph", n);
        goto cleanup;
    }
    for (size_t k = 0; k < m; k++) {
        size_t a = eu[k], b = ev[k];
        if (a >= n || b >= n) {
            st = cm_error(CM_EINVAL, "edge %zu-%zu: node id out of range "
                          "(n = %zu)", a, b, n);
            goto cleanup;
        }
        if (a == b) {
            st = cm_error(CM_EINVAL, "self-loop at node %zu", a);
            goto cleanup;
        }
        if (g->adj[a * n + b]) {
            st = cm_error(CM_EINVAL, "duplicate edge %zu-%zu", a, b);
            goto cleanup;
        }
        g->adj[a * n + b] = g->adj[b * n + a] = 1;
        g->eu[k] = a;
        g->ev[k] = b;
        g->off[a + 1]++;
        g->off[b + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        g->off[i + 1] += g->off[i];
    memcpy(pos, g->off, n * sizeof *pos);
    for (size_t k = 0; k < m; k++) {
        g->nb[pos[eu[k]]++] = ev[k];
        g->nb[pos[ev[k]]++] = eu[k];
    }
cleanup:
    free(pos);
    if (st != CM_OK)
        tg_graph_destroy(g);
    return st;
}

cm_status tg_graph_to_topo(const tg_graph *g, cm_topo *t)
{
    return cm_topo_from_edges(t, g->n, g->m, g->eu, g->ev);
}

cm_status tg_graph_from_topo(tg_graph *g, const cm_topo *t)
{
    return tg_graph_from_edges(g, t->n, t->m, t->ei, t->ej);
}

int tg_graph_is_connected(const tg_graph *g)
{
    size_t n = g->n;
    if (n <= 1)
        return 1;
    size_t *queue = malloc(n * sizeof *queue);
    unsigned char *seen = calloc(n, 1);
    size_t head = 0, tail = 0;
    if (!queue || !seen)
        goto cleanup;
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        size_t u = queue[head++];
        for (size_t p = g->off[u]; p < g->off[u + 1]; p++)
            if (!seen[g->nb[p]]) {
                seen[g->nb[p]] = 1;
                queue[tail++] = g->nb[p];
            }
    }
cleanup:
    free(queue);
    free(seen);
    return tail == n;
}

/* Replaces neighbour `from` of node u by `to`. */
static void nb_replace(tg_graph *g, size_t u, size_t from, size_t to)
{
    for (size_t p = g->off[u]; p < g->off[u + 1]; p++)
        if (g->nb[p] == from) {
            g->nb[p] = to;
            return;
        }
}

/* Rewrites edge {a, b} of the edge list to (c, d), or to (d, c) when it is
 * stored as (b, a): same slot, orientation kept, so that a swap and its
 * undo restore the list exactly (the search draws edges by slot and
 * orientation, and must not depend on whether a move was undone). */
static void edge_replace(tg_graph *g, size_t a, size_t b, size_t c, size_t d)
{
    for (size_t k = 0; k < g->m; k++) {
        if (g->eu[k] == a && g->ev[k] == b) {
            g->eu[k] = c;
            g->ev[k] = d;
            return;
        }
        if (g->eu[k] == b && g->ev[k] == a) {
            g->eu[k] = d;
            g->ev[k] = c;
            return;
        }
    }
}

int tg_graph_swap_ok(const tg_graph *g, size_t a, size_t b, size_t c,
                     size_t d)
{
    size_t n = g->n;
    if (a == b || a == c || a == d || b == c || b == d || c == d)
        return 0;
    return g->adj[a * n + b] && g->adj[c * n + d] &&
           !g->adj[a * n + c] && !g->adj[b * n + d];
}

void tg_graph_swap(tg_graph *g, size_t a, size_t b, size_t c, size_t d)
{
    size_t n = g->n;
    g->adj[a * n + b] = g->adj[b * n + a] = 0;
    g->adj[c * n + d] = g->adj[d * n + c] = 0;
    g->adj[a * n + c] = g->adj[c * n + a] = 1;
    g->adj[b * n + d] = g->adj[d * n + b] = 1;
    nb_replace(g, a, b, c);
    nb_replace(g, b, a, d);
    nb_replace(g, c, d, a);
    nb_replace(g, d, c, b);
    edge_replace(g, a, b, a, c);
    edge_replace(g, c, d, b, d);
}

static const struct {
    const char *name;
    tg_kind kind;
} kinds[] = {
    {"learned", TG_KIND_LEARNED},     {"rrl", TG_KIND_RRL},
    {"ring", TG_KIND_RING},           {"torus", TG_KIND_TORUS},
    {"hypercube", TG_KIND_HYPERCUBE}, {"exponential", TG_KIND_EXPONENTIAL},
    {"random", TG_KIND_RANDOM},       {"complete", TG_KIND_COMPLETE},
};

cm_status tg_kind_parse(const char *s, tg_kind *kind)
{
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (strcmp(s, kinds[k].name) == 0) {
            *kind = kinds[k].kind;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "--kind: unknown kind '%s' (expected learned, "
                    "rrl, ring, torus, hypercube, exponential, random, "
                    "complete, or the time-varying one-peer-exp or base)", s);
}

const char *tg_kind_name(tg_kind kind)
{
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (kinds[k].kind == kind)
            return kinds[k].name;
    return "?";
}

size_t tg_torus_side(size_t n)
{
    size_t best = 0;
    for (size_t a = 3; a * a <= n; a++)
        if (n % a == 0 && n / a >= 3)
            best = a;
    return best;
}

cm_status tg_kind_check(tg_kind kind, size_t n, size_t d)
{
    if (n < 3)
        return cm_error(CM_EINVAL, "-n: %zu nodes is too few (need n >= 3)",
                        n);
    if (n > TG_MAX_NODES)
        return cm_error(CM_EINVAL, "-n: %zu nodes is too many (topogen uses "
                        "dense n x n spectra; at most %d)", n, TG_MAX_NODES);
    switch (kind) {
    case TG_KIND_LEARNED:
    case TG_KIND_RANDOM:
    case TG_KIND_RRL:
        if (d < 2)
            return cm_error(CM_EINVAL, "-d: degree %zu is too small for a "
                            "connected %s graph (need d >= 2)", d,
                            tg_kind_name(kind));
        if (d >= n)
            return cm_error(CM_EINVAL, "-d: degree %zu must be below the "
                            "node count n = %zu", d, n);
        if ((n * d) % 2 != 0)
            return cm_error(CM_EINVAL, "-n/-d: n*d = %zu*%zu is odd; a "
                            "d-regular graph needs n*d even", n, d);
        return CM_OK;
    case TG_KIND_HYPERCUBE:
        if ((n & (n - 1)) != 0)
            return cm_error(CM_EINVAL, "-n: a hypercube needs n a power of "
                            "two, not %zu", n);
        return CM_OK;
    case TG_KIND_TORUS:
        if (tg_torus_side(n) == 0)
            return cm_error(CM_EINVAL, "-n: a torus needs n = a*b with a, b "
                            ">= 3; %zu cannot be factored so", n);
        return CM_OK;
    case TG_KIND_RING:
    case TG_KIND_EXPONENTIAL:
    case TG_KIND_COMPLETE:
        return CM_OK;
    }
    return cm_error(CM_EINVAL, "--kind: unknown kind");
}

/* A growable edge list that drops duplicates (via a byte matrix). */
typedef struct {
    size_t n, m, cap;
    size_t *u, *v;
    unsigned char *seen;
} elist;

static int elist_add(elist *e, size_t a, size_t b)
{
    if (a == b || e->seen[a * e->n + b])
        return 0;
    if (e->m == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 64;
        size_t *u = realloc(e->u, cap * sizeof *u);
        if (u)
            e->u = u;
        size_t *v = realloc(e->v, cap * sizeof *v);
        if (v)
            e->v = v;
        if (!u || !v)
            return -1;
        e->cap = cap;
    }
    e->seen[a * e->n + b] = e->seen[b * e->n + a] = 1;
    e->u[e->m] = a < b ? a : b;
    e->v[e->m] = a < b ? b : a;
    e->m++;
    return 0;
}

/* Adds every edge of the kind's construction. */
static int build_edges(elist *e, tg_kind kind, size_t n, size_t d)
{
    int rc = 0;
    switch (kind) {
    case TG_KIND_RING:
        for (size_t i = 0; i < n && !rc; i++)
            rc = elist_add(e, i, (i + 1) % n);
        break;
    case TG_KIND_RRL:
    case TG_KIND_RANDOM:
    case TG_KIND_LEARNED:
        for (size_t i = 0; i < n && !rc; i++) {
            for (size_t k = 1; k <= d / 2 && !rc; k++)
                rc = elist_add(e, i, (i + k) % n);
            if (d % 2 && !rc)
                rc = elist_add(e, i, (i + n / 2) % n);
        }
        break;
    case TG_KIND_TORUS: {
        size_t a = tg_torus_side(n), b = n / a;
        for (size_t r = 0; r < a && !rc; r++)
            for (size_t c = 0; c < b && !rc; c++) {
                rc = elist_add(e, r * b + c, r * b + (c + 1) % b);
                if (!rc)
                    rc = elist_add(e, r * b + c, ((r + 1) % a) * b + c);
            }
        break;
    }
    case TG_KIND_HYPERCUBE:
        for (size_t i = 0; i < n && !rc; i++)
            for (size_t bit = 1; bit < n && !rc; bit <<= 1)
                rc = elist_add(e, i, i ^ bit);
        break;
    case TG_KIND_EXPONENTIAL:
        for (size_t i = 0; i < n && !rc; i++)
            for (size_t s = 1; s < n && !rc; s <<= 1) {
                rc = elist_add(e, i, (i + s) % n);
                if (!rc)
                    rc = elist_add(e, i, (i + n - s) % n);
            }
        break;
    case TG_KIND_COMPLETE:
        for (size_t i = 0; i < n && !rc; i++)
            for (size_t j = i + 1; j < n && !rc; j++)
                rc = elist_add(e, i, j);
        break;
    }
    return rc;
}

cm_status tg_graph_build(tg_graph *g, tg_kind kind, size_t n, size_t d,
                         cm_rng *rng)
{
    cm_status st = tg_kind_check(kind, n, d);
    if (st != CM_OK)
        return st;
    if (kind == TG_KIND_RANDOM)
        return tg_graph_random_regular(g, n, d, rng);
    elist e = {n, 0, 0, NULL, NULL, calloc(n * n, 1)};
    if (!e.seen || build_edges(&e, kind, n, d) != 0) {
        st = cm_error(CM_ENOMEM, "out of memory building a %zu-node %s graph",
                      n, tg_kind_name(kind));
        goto cleanup;
    }
    st = tg_graph_from_edges(g, n, e.m, e.u, e.v);
cleanup:
    free(e.u);
    free(e.v);
    free(e.seen);
    return st;
}

cm_status tg_graph_random_regular(tg_graph *g, size_t n, size_t d,
                                  cm_rng *rng)
{
    cm_status st = tg_graph_build(g, TG_KIND_RRL, n, d, rng);
    if (st != CM_OK)
        return st;
    size_t want = 10 * g->m, done = 0, tries = 0;
    while (done < want && tries < 100 * want) {
        tries++;
        size_t k1 = cm_rng_below(rng, g->m), k2 = cm_rng_below(rng, g->m);
        size_t a = g->eu[k1], b = g->ev[k1], c = g->eu[k2], e = g->ev[k2];
        if (cm_rng_below(rng, 2)) {
            size_t tmp = c;
            c = e;
            e = tmp;
        }
        if (!tg_graph_swap_ok(g, a, b, c, e))
            continue;
        tg_graph_swap(g, a, b, c, e);
        if (!tg_graph_is_connected(g)) {
            tg_graph_swap(g, a, c, b, e);
            continue;
        }
        done++;
    }
    return CM_OK;
}
