/* tg_graph.c: the search's graph storage, degree-preserving swaps, and
 * the baseline constructions (over igraph, tg_igraph.c).
 *
 * Storage trades memory (an n x n byte matrix, up to TG_GRAPH_DENSE_MAX
 * nodes) for O(1) edge tests, which the search makes millions of; at
 * n = 256 that is 64 KiB. Edges are
 * validated by the one validator (cm_topo_check_edges) and connectivity
 * is the one BFS (cm_topo_csr_components).
 */
#include "tg_graph.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tg_igraph.h"

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
    free(g->ne);
    free(g->seen);
    free(g->queue);
    tg_graph_init(g);
}

cm_status tg_graph_from_edges(tg_graph *g, size_t n, size_t m,
                              const size_t *eu, const size_t *ev)
{
    tg_graph_destroy(g);
    cm_status st = cm_topo_check_edges(n, m, eu, ev);
    if (st != CM_OK)
        return st;
    g->n = n;
    g->m = m;
    g->eu = malloc((m + 1) * sizeof *g->eu);
    g->ev = malloc((m + 1) * sizeof *g->ev);
    g->adj = n <= TG_GRAPH_DENSE_MAX ? calloc(n * n + 1, 1) : NULL;
    g->off = calloc(n + 1, sizeof *g->off);
    g->nb = malloc((2 * m + 1) * sizeof *g->nb);
    g->ne = malloc((2 * m + 1) * sizeof *g->ne);
    g->seen = calloc(n + 1, sizeof *g->seen);
    g->queue = malloc((n + 1) * sizeof *g->queue);
    size_t *pos = malloc((n + 1) * sizeof *pos);
    if (!g->eu || !g->ev || (n <= TG_GRAPH_DENSE_MAX && !g->adj) ||
        !g->off || !g->nb || !g->ne || !g->seen || !g->queue || !pos) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node graph", n);
        goto cleanup;
    }
    for (size_t k = 0; k < m; k++) {
        size_t a = eu[k], b = ev[k];
        if (g->adj)
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
        g->ne[pos[eu[k]]] = k;
        g->nb[pos[eu[k]]++] = ev[k];
        g->ne[pos[ev[k]]] = k;
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

cm_status tg_graph_connected(const tg_graph *g, int *connected)
{
    size_t count = 0;
    *connected = g->n <= 1;
    if (g->n <= 1)
        return CM_OK;
    cm_status st = cm_topo_csr_components(g->n, g->off, g->nb, NULL, &count);
    *connected = st == CM_OK && count == 1;
    return st;
}

int tg_graph_swap_connected(tg_graph *g, size_t a, size_t b)
{
    size_t n = g->n;
    if (a == b)
        return 1;
    if (g->stamp >= UINT_MAX - 2) { /* the marks wrap: clear them */
        memset(g->seen, 0, n * sizeof *g->seen);
        g->stamp = 0;
    }
    unsigned own[2] = {g->stamp + 1, g->stamp + 2};
    g->stamp += 2;
    /* side 0 queues upwards from queue[0], side 1 downwards from
     * queue[n-1]; together they hold at most n nodes */
    size_t head[2] = {0, n - 1}, tail[2] = {1, n - 2}, count[2] = {1, 1};
    g->queue[0] = a;
    g->queue[n - 1] = b;
    g->seen[a] = own[0];
    g->seen[b] = own[1];
    for (;;) {
        int left0 = head[0] < tail[0], left1 = head[1] > tail[1];
        if (!left0 || !left1)
            return 0; /* one side's component is exhausted: apart */
        int s = count[0] <= count[1] ? 0 : 1;
        size_t u = g->queue[head[s]];
        head[s] = s ? head[s] - 1 : head[s] + 1;
        for (size_t p = g->off[u]; p < g->off[u + 1]; p++) {
            size_t v = g->nb[p];
            if (g->seen[v] == own[1 - s])
                return 1;
            if (g->seen[v] != own[s]) {
                g->seen[v] = own[s];
                g->queue[tail[s]] = v;
                tail[s] = s ? tail[s] - 1 : tail[s] + 1;
                count[s]++;
            }
        }
    }
}

int tg_graph_has_edge(const tg_graph *g, size_t i, size_t j)
{
    if (g->adj)
        return g->adj[i * g->n + j];
    for (size_t p = g->off[i]; p < g->off[i + 1]; p++)
        if (g->nb[p] == j)
            return 1;
    return 0;
}

/* The row entry of neighbour `from` of node u. */
static size_t nb_find(const tg_graph *g, size_t u, size_t from)
{
    size_t p = g->off[u];
    while (p + 1 < g->off[u + 1] && g->nb[p] != from)
        p++;
    return p;
}

int tg_graph_swap_ok(const tg_graph *g, size_t a, size_t b, size_t c,
                     size_t d)
{
    if (a == b || a == c || a == d || b == c || b == d || c == d)
        return 0;
    return tg_graph_has_edge(g, a, b) && tg_graph_has_edge(g, c, d) &&
           !tg_graph_has_edge(g, a, c) && !tg_graph_has_edge(g, b, d);
}

/* Edge slot k holds {u, v}: it becomes {u2, v2} with u2 where u was, so
 * that a swap and its undo restore the list exactly (the search draws
 * edges by slot and orientation, and must not depend on whether a move
 * was undone). */
static void slot_set(tg_graph *g, size_t k, size_t u, size_t u2, size_t v2)
{
    if (g->eu[k] == u) {
        g->eu[k] = u2;
        g->ev[k] = v2;
    } else {
        g->eu[k] = v2;
        g->ev[k] = u2;
    }
}

void tg_graph_swap(tg_graph *g, size_t a, size_t b, size_t c, size_t d)
{
    size_t n = g->n;
    if (g->adj) {
        g->adj[a * n + b] = g->adj[b * n + a] = 0;
        g->adj[c * n + d] = g->adj[d * n + c] = 0;
        g->adj[a * n + c] = g->adj[c * n + a] = 1;
        g->adj[b * n + d] = g->adj[d * n + b] = 1;
    }
    size_t pa = nb_find(g, a, b), pb = nb_find(g, b, a);
    size_t pc = nb_find(g, c, d), pd = nb_find(g, d, c);
    size_t k1 = g->ne[pa], k2 = g->ne[pc]; /* slots of {a,b} and {c,d} */
    g->nb[pa] = c;                /* a: b -> c, slot k1 */
    g->nb[pb] = d, g->ne[pb] = k2; /* b: a -> d, now in slot k2 */
    g->nb[pc] = a, g->ne[pc] = k1; /* c: d -> a, now in slot k1 */
    g->nb[pd] = b;                /* d: c -> b, slot k2 */
    /* {a,b} -> {a,c} in slot k1, {c,d} -> {b,d} in slot k2 (as the edge
     * list scan did: the kept end stays in its place) */
    slot_set(g, k1, a, a, c);
    slot_set(g, k2, d, d, b);
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
    size_t nmin = kind == TG_KIND_RING || kind == TG_KIND_COMPLETE ||
                          kind == TG_KIND_HYPERCUBE ||
                          kind == TG_KIND_EXPONENTIAL ? 2 : 3;
    if (n < nmin)
        return cm_error(CM_EINVAL, "-n: %zu nodes is too few (a %s graph "
                        "needs n >= %zu)", n, tg_kind_name(kind), nmin);
    if (kind == TG_KIND_LEARNED && n > TG_MAX_LEARNED)
        return cm_error(CM_EINVAL, "-n: %zu nodes is too many to learn (at "
                        "most %d; constructions such as --kind random go "
                        "to %d)", n, TG_MAX_LEARNED, TG_MAX_BUILD);
    if (n > TG_MAX_BUILD)
        return cm_error(CM_EINVAL, "-n: %zu nodes is too many (at most %d, "
                        "the file format's limit)", n, TG_MAX_BUILD);
    if (kind == TG_KIND_COMPLETE && n > 1 &&
        (double)n * (double)(n - 1) / 2.0 > (double)CM_TOPO_MAX_EDGES)
        return cm_error(CM_EINVAL, "-n: a complete graph on %zu nodes has "
                        "more than %d edges, the file format's limit", n,
                        CM_TOPO_MAX_EDGES);
    if ((kind == TG_KIND_RANDOM || kind == TG_KIND_RRL) &&
        (double)n * (double)d / 2.0 > (double)CM_TOPO_MAX_EDGES)
        return cm_error(CM_EINVAL, "-n/-d: %zu*%zu/2 edges is more than %d, "
                        "the file format's limit", n, d, CM_TOPO_MAX_EDGES);
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

cm_status tg_kind_build(cm_topo *t, tg_kind kind, size_t n, size_t d,
                        cm_rng *rng)
{
    cm_status st = tg_kind_check(kind, n, d);
    if (st != CM_OK)
        return st;
    if (kind == TG_KIND_COMPLETE)
        return tg_igraph_full(t, n);
    if (kind == TG_KIND_RANDOM)
        return rng ? tg_igraph_random_regular(t, n, d, rng)
                   : cm_error(CM_EINVAL, "a random graph needs a generator");
    /* the rest are circulants or lattices: shifts or sides, at most
     * max(d/2 + 1, log2 n + 1) of them */
    size_t cap = d / 2 + 2 + 8 * sizeof(size_t), k = 0;
    size_t *sh = malloc(cap * sizeof *sh);
    if (!sh)
        return cm_error(CM_ENOMEM, "out of memory");
    switch (kind) {
    case TG_KIND_RING:
        sh[k++] = 1;
        st = tg_igraph_circulant(t, n, sh, k);
        break;
    case TG_KIND_TORUS: {
        size_t a = tg_torus_side(n);
        sh[0] = n / a;
        sh[1] = a;
        st = tg_igraph_lattice(t, sh, 2, 1);
        break;
    }
    case TG_KIND_HYPERCUBE: /* the open lattice 2 x 2 x ... x 2 */
        for (size_t s = 1; s < n; s <<= 1)
            sh[k++] = 2;
        st = tg_igraph_lattice(t, sh, k, 0);
        break;
    case TG_KIND_EXPONENTIAL: /* i ~ i + 2^j */
        for (size_t s = 1; s < n; s <<= 1)
            sh[k++] = s;
        st = tg_igraph_circulant(t, n, sh, k);
        break;
    default: /* rrl (and learned's ring-lattice start): i ~ i + 1..d/2,
                and i ~ i + n/2 for odd d */
        for (size_t s = 1; s <= d / 2; s++)
            sh[k++] = s;
        if (d % 2)
            sh[k++] = n / 2;
        st = tg_igraph_circulant(t, n, sh, k);
        break;
    }
    free(sh);
    return st;
}

/* The k-th offset of the ring lattice (k = 1..d/2, then s/2 for odd d),
 * mod s. */
static size_t lattice_offset(size_t s, size_t d, size_t k)
{
    return (k <= d / 2 ? k : s / 2) % s;
}

size_t tg_ring_lattice_edges(size_t s, size_t d, size_t *u, size_t *v)
{
    const size_t K = d / 2 + d % 2;
    size_t m = 0;
    for (size_t i = 0; i < s; i++)
        for (size_t k = 1; k <= K; k++) {
            size_t o = lattice_offset(s, d, k), j = (i + o) % s;
            if (j == i)
                continue; /* a self-loop */
            /* the pair {i, j} was listed before when an earlier slot
             * makes it: (i, k') with the same offset, or (j, k') with
             * the opposite one when j comes first */
            int dup = 0;
            for (size_t k2 = 1; k2 <= K && !dup; k2++) {
                size_t o2 = lattice_offset(s, d, k2);
                dup = (k2 < k && o2 == o) || (j < i && o2 == s - o);
            }
            if (dup)
                continue;
            u[m] = i < j ? i : j;
            v[m++] = i < j ? j : i;
        }
    return m;
}

/* The search's ring-lattice start, i ~ i+1..i+d/2 (and i+n/2 for odd d),
 * with its edges in the order i = 0..n-1, k = 1..d/2: the search draws
 * edges by slot, so this order (not igraph's) keeps its trajectories,
 * and it needs no igraph call, so restarts on threads never wait. */
static cm_status ring_lattice(tg_graph *g, size_t n, size_t d)
{
    size_t cap = n * (d / 2 + 1) + 1, m = 0;
    size_t *u = malloc(cap * sizeof *u), *v = malloc(cap * sizeof *v);
    cm_status st = CM_OK;
    if (!u || !v) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node graph", n);
        goto cleanup;
    }
    m = tg_ring_lattice_edges(n, d, u, v);
    st = tg_graph_from_edges(g, n, m, u, v);
cleanup:
    free(u);
    free(v);
    return st;
}

cm_status tg_graph_build(tg_graph *g, tg_kind kind, size_t n, size_t d,
                         cm_rng *rng)
{
    cm_status st = tg_kind_check(kind, n, d);
    if (st != CM_OK)
        return st;
    if (kind == TG_KIND_RRL || kind == TG_KIND_LEARNED)
        return ring_lattice(g, n, d);
    cm_topo t;
    cm_topo_init(&t);
    st = tg_kind_build(&t, kind, n, d, rng);
    if (st == CM_OK)
        st = tg_graph_from_topo(g, &t);
    cm_topo_destroy(&t);
    return st;
}

void tg_graph_shuffle(tg_graph *g, cm_rng *rng, tg_swap_filter allow,
                      void *ctx)
{
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
        if (allow && !allow(ctx, a, b, c, e, 0))
            continue;
        tg_graph_swap(g, a, b, c, e);
        if (!tg_graph_swap_connected(g, a, b)) {
            tg_graph_swap(g, a, c, b, e);
            continue;
        }
        if (allow)
            allow(ctx, a, b, c, e, 1);
        done++;
    }
}

cm_status tg_graph_random_regular(tg_graph *g, size_t n, size_t d,
                                  cm_rng *rng)
{
    cm_status st = tg_graph_build(g, TG_KIND_RRL, n, d, rng);
    if (st == CM_OK)
        tg_graph_shuffle(g, rng, NULL, NULL);
    return st;
}
