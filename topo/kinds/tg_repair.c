/* tg_repair.c: remove nodes, match the freed stubs (see tg_repair.h).
 *
 * The edge set lives in an open-addressing hash of (min, max) pairs, so
 * an edge test is O(1) whatever n (the search's tg_graph holds an n x n
 * matrix only up to 4,096 nodes, and fixed rows that cannot grow).
 * Trade-off: the greedy matching is not the maximum matching; the swaps
 * of step 3 absorb what it leaves, at O(m) each.
 */
#include "tg_repair.h"

#include "cm_rng.h"
#include "tg_graph.h"
#include "tg_spectrum.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- a set of undirected edges ---------------------------------------- */

typedef struct {
    uint64_t *key; /* [cap] (u << 32 | v) + 1 with u < v; 0 empty,
                      UINT64_MAX deleted */
    size_t cap;
} edge_set;

static uint64_t ekey(size_t u, size_t v)
{
    if (u > v) {
        size_t t = u;
        u = v;
        v = t;
    }
    return (((uint64_t)u << 32) | (uint64_t)v) + 1;
}

static size_t eslot(const edge_set *s, uint64_t k)
{
    uint64_t h = k * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 17) & (s->cap - 1);
}

static int es_has(const edge_set *s, size_t u, size_t v)
{
    uint64_t k = ekey(u, v);
    for (size_t i = eslot(s, k);; i = (i + 1) & (s->cap - 1)) {
        if (s->key[i] == k)
            return 1;
        if (s->key[i] == 0)
            return 0;
    }
}

static void es_add(edge_set *s, size_t u, size_t v)
{
    uint64_t k = ekey(u, v);
    size_t i = eslot(s, k);
    while (s->key[i] != 0 && s->key[i] != UINT64_MAX && s->key[i] != k)
        i = (i + 1) & (s->cap - 1);
    s->key[i] = k;
}

static void es_del(edge_set *s, size_t u, size_t v)
{
    uint64_t k = ekey(u, v);
    for (size_t i = eslot(s, k);; i = (i + 1) & (s->cap - 1)) {
        if (s->key[i] == k) {
            s->key[i] = UINT64_MAX;
            return;
        }
        if (s->key[i] == 0)
            return;
    }
}

/* ---- the repair ------------------------------------------------------- */

typedef struct {
    size_t *u, *v; /* [cap] edges, new ids; a deleted edge has u = v */
    size_t m, cap;
    edge_set set;
} edges;

static int add_edge(edges *e, size_t u, size_t v)
{
    if (e->m == e->cap) {
        size_t nc = 2 * e->cap + 16;
        size_t *nu = realloc(e->u, nc * sizeof *nu);
        if (!nu)
            return 0;
        e->u = nu;
        size_t *nv = realloc(e->v, nc * sizeof *nv);
        if (!nv)
            return 0;
        e->v = nv;
        e->cap = nc;
    }
    e->u[e->m] = u;
    e->v[e->m] = v;
    e->m++;
    es_add(&e->set, u, v);
    return 1;
}

/* Greedy pairing of the stubs at st[0..k) (node ids, ascending): the
 * first unpaired stub with the next one at another node not yet its
 * neighbour. Unpaired stubs are appended to left[*nl]. 0 when out of
 * memory. */
static int pair_up(edges *e, const size_t *st, size_t k, unsigned char *used,
                   size_t *left, size_t *nl)
{
    memset(used, 0, k);
    for (size_t i = 0; i < k; i++) {
        if (used[i])
            continue;
        for (size_t j = i + 1; j < k; j++)
            if (!used[j] && st[j] != st[i] && !es_has(&e->set, st[i], st[j])) {
                if (!add_edge(e, st[i], st[j]))
                    return 0;
                used[i] = used[j] = 1;
                break;
            }
        if (!used[i])
            left[(*nl)++] = st[i];
    }
    return 1;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

cm_status tg_repair(const cm_topo *t, const size_t *rm, size_t k,
                    cm_topo *out, tg_repair_info *info)
{
    const size_t n = t->n;
    memset(info, 0, sizeof *info);
    info->n_old = n;
    info->removed = k;
    if (t->directed)
        return cm_error(CM_EINVAL, "a directed topology cannot be repaired "
                        "(only undirected ones)");
    for (size_t i = 0; i < k; i++)
        if (rm[i] >= n || (i && rm[i] <= rm[i - 1]))
            return cm_error(CM_EINVAL, "removed ids must be ascending, "
                            "distinct and below n = %zu", n);
    if (n < k + 2)
        return cm_error(CM_EINVAL, "removing %zu of %zu nodes leaves %s: a "
                        "topology needs at least 2", k, n,
                        n == k ? "none" : "1");
    if (n > UINT32_MAX)
        return cm_error(CM_EINVAL, "too many nodes (%zu)", n);
    cm_status s = CM_OK;
    size_t *id = malloc(n * sizeof *id), *st = NULL, *left = NULL;
    unsigned char *used = NULL;
    edges e = {0};
    size_t cap = 16;
    while (cap < 4 * (t->m + t->off[n] + 8)) /* load <= 1/4 with stubs */
        cap *= 2;
    e.set.cap = cap;
    e.set.key = calloc(cap, sizeof *e.set.key);
    size_t nstub = 0;
    for (size_t i = 0; i < k; i++)
        nstub += cm_topo_degree(t, rm[i]);
    st = malloc((nstub + 1) * sizeof *st);
    left = malloc((nstub + 1) * sizeof *left);
    used = malloc(nstub + 1);
    if (!id || !e.set.key || !st || !left || !used) {
        s = cm_error(CM_ENOMEM, "out of memory for the repair of %zu nodes",
                     n);
        goto done;
    }
    /* new ids: rank among the survivors; SIZE_MAX for the removed */
    for (size_t i = 0, r = 0, nn = 0; i < n; i++) {
        if (r < k && rm[r] == i) {
            id[i] = SIZE_MAX;
            r++;
        } else {
            id[i] = nn++;
        }
    }
    const size_t n_new = n - k;
    for (size_t q = 0; q < t->m; q++)
        if (id[t->ei[q]] != SIZE_MAX && id[t->ej[q]] != SIZE_MAX &&
            !add_edge(&e, id[t->ei[q]], id[t->ej[q]])) {
            s = cm_error(CM_ENOMEM, "out of memory");
            goto done;
        }
    /* step 1: per removed node, its surviving neighbours */
    size_t nl = 0;
    for (size_t i = 0; i < k; i++) {
        size_t c = 0, r = rm[i];
        for (size_t p = t->off[r]; p < t->off[r + 1]; p++)
            if (id[t->adj[p]] != SIZE_MAX)
                st[c++] = id[t->adj[p]];
        info->stubs += c;
        if (!pair_up(&e, st, c, used, left, &nl)) {
            s = cm_error(CM_ENOMEM, "out of memory");
            goto done;
        }
    }
    /* step 2: what is left, in id order */
    qsort(left, nl, sizeof *left, cmp_size);
    memcpy(st, left, nl * sizeof *st);
    size_t c = nl;
    nl = 0;
    if (!pair_up(&e, st, c, used, left, &nl)) {
        s = cm_error(CM_ENOMEM, "out of memory");
        goto done;
    }
    /* step 3: pairs of leftover stubs u, v through a swap with a-b */
    for (size_t i = 0; i + 1 < nl; i += 2) {
        size_t u = left[i], v = left[i + 1];
        int done_swap = 0;
        for (size_t q = 0; q < e.m && !done_swap; q++) {
            for (int o = 0; o < 2 && !done_swap; o++) {
                size_t a = o ? e.v[q] : e.u[q], b = o ? e.u[q] : e.v[q];
                if (a == u || a == v || b == u || b == v ||
                    es_has(&e.set, u, a) || es_has(&e.set, v, b))
                    continue;
                es_del(&e.set, a, b);
                e.u[q] = u; /* a-b becomes u-a ... */
                e.v[q] = a;
                es_add(&e.set, u, a);
                if (!add_edge(&e, v, b)) { /* ... and v-b */
                    s = cm_error(CM_ENOMEM, "out of memory");
                    goto done;
                }
                info->swaps++;
                done_swap = 1;
            }
        }
    }
    if ((s = cm_topo_from_edges(out, n_new, e.m, e.u, e.v)) != CM_OK)
        goto done;
    /* what changed: survivors whose degree dropped, edges not in t */
    for (size_t i = 0; i < n; i++) {
        if (id[i] == SIZE_MAX)
            continue;
        if (cm_topo_degree(out, id[i]) < cm_topo_degree(t, i)) {
            if (!info->short_nodes)
                info->short_first = id[i];
            info->short_nodes++;
        }
    }
    size_t kept = 0; /* edges of t between survivors still in out */
    for (size_t q = 0; q < t->m; q++) {
        size_t a = id[t->ei[q]], b = id[t->ej[q]]; /* a < b: order kept */
        if (a == SIZE_MAX || b == SIZE_MAX)
            continue;
        size_t x = cm_topo_edge_index(out, a, b);
        kept += x < out->m && out->ei[x] == a && out->ej[x] == b;
    }
    info->added = out->m - kept;
    s = cm_topo_components(out, NULL, &info->components);
    if (s == CM_OK && info->components > 1)
        s = cm_error(CM_ETOPO, "removing %zu node%s leaves %zu components, "
                     "even with the freed edge ends reconnected", k,
                     k == 1 ? "" : "s", info->components);
done:
    free(id);
    free(st);
    free(left);
    free(used);
    free(e.u);
    free(e.v);
    free(e.set.key);
    return s;
}

static double ratio_energy(double l2, double ln)
{
    return ln + l2 > 0 ? (ln - l2) / (ln + l2) : 1.0;
}

cm_status tg_repair_polish(cm_topo *t, size_t iters, uint64_t seed,
                           double *e0, double *e1, size_t *kept)
{
    *kept = 0;
    if (t->n > TG_GRAPH_DENSE_MAX)
        return cm_error(CM_EINVAL, "the swaps after a repair use the dense "
                        "spectrum: at most %d nodes (this graph has %zu)",
                        TG_GRAPH_DENSE_MAX, t->n);
    tg_graph g;
    tg_spec sp;
    tg_graph_init(&g);
    tg_spec_init(&sp);
    double l2, ln;
    cm_status s = tg_graph_from_topo(&g, t);
    if (s == CM_OK)
        s = tg_spec_extremes(&sp, &g, &l2, &ln);
    if (s != CM_OK)
        goto done;
    double e = ratio_energy(l2, ln);
    *e0 = e;
    cm_rng rng;
    cm_rng_seed(&rng, seed, 0);
    for (size_t it = 0; it < iters && g.m >= 2 && s == CM_OK; it++) {
        size_t p = (size_t)cm_rng_below(&rng, g.m);
        size_t q = (size_t)cm_rng_below(&rng, g.m);
        int flip = (int)cm_rng_below(&rng, 2);
        size_t a = g.eu[p], b = g.ev[p];
        size_t c = flip ? g.ev[q] : g.eu[q], d = flip ? g.eu[q] : g.ev[q];
        if (p == q || !tg_graph_swap_ok(&g, a, b, c, d))
            continue;
        tg_graph_swap(&g, a, b, c, d);
        double m2, mn;
        if (tg_graph_swap_connected(&g, a, b) &&
            (s = tg_spec_extremes(&sp, &g, &m2, &mn)) == CM_OK &&
            ratio_energy(m2, mn) < e - 1e-12) {
            e = ratio_energy(m2, mn);
            (*kept)++;
            continue;
        }
        tg_graph_swap(&g, a, c, b, d); /* undo */
    }
    *e1 = e;
    if (s == CM_OK) {
        cm_topo u;
        cm_topo_init(&u);
        if ((s = tg_graph_to_topo(&g, &u)) == CM_OK) {
            cm_topo_destroy(t);
            *t = u;
        }
    }
done:
    tg_spec_destroy(&sp);
    tg_graph_destroy(&g);
    return s;
}
