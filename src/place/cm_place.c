/* cm_place.c: balanced graph partition of the workers over hosts and ranks.
 *
 * Recursive bisection (Pothen, Simon & Liou 1990 for the spectral order;
 * Fiduccia & Mattheyses 1982 for the refinement). A part of k ranks with
 * target sizes s_1..s_k is split in two at k/2; each bisection of the s
 * nodes of the part into a side of exactly a nodes and one of s - a:
 *   1. candidate orders: the Fiedler vector of the induced subgraph's
 *      Laplacian (dense LAPACK eigensolve, s <= 1024), ascending and
 *      descending; breadth-first orders from two ends of the part; the
 *      index order (what block placement would do); for s <= 256 also 16
 *      seeded random orders. The first a nodes of an order form side 0.
 *   2. each candidate is refined by balanced FM passes on
 *      J = vol (m + 1) + cut, i.e. the communication volume first (nodes
 *      with a neighbour across: each sends its array once) and cut edges
 *      second: move the best-gain unlocked node off the side that is over
 *      target (either side when balanced), lock it, and roll back to the
 *      best balanced state of the pass; passes repeat while J improves.
 *   3. the candidate with the smallest J wins (first on ties).
 * Only the induced subgraph counts: arrays a node sends to parts decided
 * earlier are sent whatever this split does. Trade-off: an O(s^2 d) FM
 * pass (all gains recomputed per move) instead of bucket lists, which is
 * simple and ample for the few thousand workers a machine set trains.
 * Parts of more than 1024 workers start from the breadth-first and the
 * index order only, with at most 8 passes; parts of more than 4096 skip
 * the refinement (the better order is kept), so start-up stays O(n + m)
 * there. Everything is deterministic (fixed seeds, index tie-breaks).
 * Each step of the placement (the hosts, then each host's ranks) also
 * runs METIS three ways (cm_place_metis.c) and keeps the first of least
 * J over its parts, METIS's before the own code's: METIS cuts fewer
 * edges, the own FM often sends fewer arrays (scripts/benches/bench-place.sh).
 * Over several hosts the own bisection's whole placement is the last
 * candidate, by the traffic (the steps' J do not add up there). Block's
 * placement is priced last and kept when strictly cheaper by (arrays
 * across hosts, arrays, cut edges), so graph is never worse than block. A
 * time-varying topology (cm_place_workers_seq, cm_place_seq.c) takes the
 * cheapest of a few such placements (of the rounds' union, of each round,
 * block) by the traffic summed over its rounds; the costs are in
 * cm_place_eval.c.
 */
#include "cm_place.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_eigen.h"
#include "cm_place_metis.h"
#include "cm_rng.h"
#include "cm_topo.h"

#define SPECTRAL_MAX 1024 /* largest part ordered by its Fiedler vector */
#define RANDOM_MAX 256    /* largest part that also tries random orders */
#define RANDOM_STARTS 16
#define MAX_PASSES 50
#define REFINE_MAX 4096   /* larger parts: orders only, no FM (O(s^2)) */
#define LARGE_PASSES 8    /* FM passes for parts above SPECTRAL_MAX */

cm_status cm_place_parse(const char *s, cm_place_kind *kind)
{
    if (strcmp(s, "block") == 0)
        *kind = CM_PLACE_BLOCK;
    else if (strcmp(s, "graph") == 0)
        *kind = CM_PLACE_GRAPH;
    else
        return cm_error(CM_EINVAL, "--placement '%s': expected block or "
                        "graph", s);
    return CM_OK;
}

const char *cm_place_name(cm_place_kind kind)
{
    return kind == CM_PLACE_BLOCK ? "block" : "graph";
}

size_t cm_place_rank_size(size_t n, size_t P, size_t r)
{
    return n / P + (r < n % P);
}

/* ---- one bisection ------------------------------------------------------ */

/* The subgraph induced by a part: local ids 0..s-1, CSR. */
typedef struct {
    size_t s, m;       /* nodes, edges */
    size_t *off, *adj; /* [s+1], [2m] */
} sub_graph;

/* Working state of one refinement. */
typedef struct {
    const sub_graph *g;
    size_t a;           /* target size of side 0 */
    unsigned char *side;
    size_t *ext;        /* neighbours on the other side */
    size_t n0;          /* nodes on side 0 */
    int64_t vol, cut;
} fm_state;

static int64_t fm_j(const fm_state *f)
{
    return f->vol * (int64_t)(f->g->m + 1) + f->cut;
}

static void fm_init(fm_state *f)
{
    const sub_graph *g = f->g;
    f->n0 = 0;
    f->vol = f->cut = 0;
    for (size_t v = 0; v < g->s; v++) {
        size_t e = 0;
        for (size_t k = g->off[v]; k < g->off[v + 1]; k++)
            e += f->side[g->adj[k]] != f->side[v];
        f->ext[v] = e;
        f->vol += e > 0;
        f->cut += (int64_t)e;
        f->n0 += f->side[v] == 0;
    }
    f->cut /= 2;
}

/* J before minus J after moving v to the other side. O(deg v). */
static int64_t fm_gain(const fm_state *f, size_t v)
{
    const sub_graph *g = f->g;
    size_t deg = g->off[v + 1] - g->off[v];
    int64_t dvol = (int64_t)(deg - f->ext[v] > 0) - (f->ext[v] > 0);
    for (size_t k = g->off[v]; k < g->off[v + 1]; k++) {
        size_t u = g->adj[k], e = f->ext[u];
        size_t e2 = f->side[u] == f->side[v] ? e + 1 : e - 1;
        dvol += (int64_t)(e2 > 0) - (e > 0);
    }
    int64_t dcut = (int64_t)deg - 2 * (int64_t)f->ext[v];
    return -(dvol * (int64_t)(g->m + 1) + dcut);
}

static void fm_move(fm_state *f, size_t v)
{
    const sub_graph *g = f->g;
    size_t deg = g->off[v + 1] - g->off[v];
    f->vol += (int64_t)(deg - f->ext[v] > 0) - (f->ext[v] > 0);
    f->cut += (int64_t)deg - 2 * (int64_t)f->ext[v];
    for (size_t k = g->off[v]; k < g->off[v + 1]; k++) {
        size_t u = g->adj[k], e = f->ext[u];
        f->ext[u] = f->side[u] == f->side[v] ? e + 1 : e - 1;
        f->vol += (int64_t)(f->ext[u] > 0) - (e > 0);
    }
    f->ext[v] = deg - f->ext[v];
    f->n0 += f->side[v] == 0 ? (size_t)-1 : 1;
    f->side[v] ^= 1;
}

/* FM passes until J stops improving; side[] holds a balanced start and
 * receives the result. work: [2s] size_t. Returns the final J. */
static int64_t fm_refine(fm_state *f, unsigned char *locked, size_t *moves,
                         int max_passes)
{
    const sub_graph *g = f->g;
    fm_init(f);
    for (int pass = 0; pass < max_passes; pass++) {
        int64_t j0 = fm_j(f), best = j0;
        size_t best_step = 0, step = 0;
        memset(locked, 0, g->s);
        for (; step < g->s; step++) {
            int from = f->n0 > f->a ? 0 : f->n0 < f->a ? 1 : -1;
            size_t pick = SIZE_MAX;
            int64_t pg = INT64_MIN;
            for (size_t v = 0; v < g->s; v++) {
                if (locked[v] || (from >= 0 && f->side[v] != from))
                    continue;
                int64_t gv = fm_gain(f, v);
                if (gv > pg) {
                    pg = gv;
                    pick = v;
                }
            }
            if (pick == SIZE_MAX)
                break;
            fm_move(f, pick);
            locked[pick] = 1;
            moves[step] = pick;
            if (f->n0 == f->a && fm_j(f) < best) {
                best = fm_j(f);
                best_step = step + 1;
            }
        }
        while (step > best_step)
            fm_move(f, moves[--step]);
        if (best >= j0)
            break;
    }
    return fm_j(f);
}

/* Sorts ids by key ascending (ties by id): insertion sort is enough for
 * the s <= 1024 parts that have spectral keys. */
static void sort_by_key(size_t *ids, size_t s, const double *key)
{
    for (size_t i = 1; i < s; i++) {
        size_t v = ids[i], j = i;
        while (j > 0 && (key[ids[j - 1]] > key[v] ||
                         (key[ids[j - 1]] == key[v] && ids[j - 1] > v))) {
            ids[j] = ids[j - 1];
            j--;
        }
        ids[j] = v;
    }
}

/* Fiedler vector of the subgraph's Laplacian into key[s]. */
static cm_status fiedler(const sub_graph *g, double *key)
{
    size_t s = g->s;
    cm_status st = CM_OK;
    double *L = malloc(s * s * sizeof *L), *ev = malloc(s * sizeof *ev);
    if (!L || !ev) {
        st = cm_error(CM_ENOMEM, "placement: out of memory (%zu-node "
                      "eigensolve)", s);
        goto done;
    }
    cm_topo_csr_laplacian(s, g->off, g->adj, L);
    if ((st = cm_eigen_sym(CM_EIGEN_VECTORS, s, L, ev)) != CM_OK) {
        cm_error_prefix(st, "placement");
        goto done;
    }
    /* column 1 of L is the Fiedler vector; its sign fixed by the first
     * clearly non-zero entry: same bits anywhere */
    const double *f = L + s;
    double sign = 1.0;
    for (size_t v = 0; v < s; v++) {
        if (f[v] > 1e-9 || f[v] < -1e-9) {
            sign = f[v] > 0 ? 1.0 : -1.0;
            break;
        }
    }
    for (size_t v = 0; v < s; v++)
        key[v] = sign * f[v];
done:
    free(ev);
    free(L);
    return st;
}

/* Breadth-first order from root over the whole subgraph (components
 * appended in index order). Returns the last node reached. */
static size_t bfs_order(const sub_graph *g, size_t root, size_t *order,
                        unsigned char *seen)
{
    size_t head = 0, tail = 0;
    memset(seen, 0, g->s);
    for (size_t r0 = 0; r0 <= g->s && tail < g->s; r0++) {
        size_t r = r0 == 0 ? root : r0 - 1;
        if (seen[r])
            continue;
        seen[r] = 1;
        order[tail++] = r;
        while (head < tail) {
            size_t v = order[head++];
            for (size_t k = g->off[v]; k < g->off[v + 1]; k++)
                if (!seen[g->adj[k]]) {
                    seen[g->adj[k]] = 1;
                    order[tail++] = g->adj[k];
                }
        }
    }
    return order[g->s - 1];
}

/* Splits the subgraph: side[v] = 0 for exactly a nodes. */
static cm_status bisect(const sub_graph *g, size_t a, unsigned char *side)
{
    size_t s = g->s;
    cm_status st = CM_OK;
    size_t *order = malloc((s + 1) * sizeof *order);
    size_t *ext = malloc((s + 1) * sizeof *ext);
    size_t *moves = malloc((s + 1) * sizeof *moves);
    unsigned char *trial = malloc(s + 1), *locked = malloc(s + 1);
    double *key = malloc((s + 1) * sizeof *key);
    if (!order || !ext || !moves || !trial || !locked || !key) {
        st = cm_error(CM_ENOMEM, "placement: out of memory");
        goto done;
    }
    fm_state f = {g, a, trial, ext, 0, 0, 0};
    int64_t best = INT64_MAX;
    int n_orders = 2 + 2 + 1 + (s <= RANDOM_MAX ? RANDOM_STARTS : 0);
    int have_key = 0;
    if (s >= 3 && s <= SPECTRAL_MAX) {
        st = fiedler(g, key);
        if (st != CM_OK)
            goto done;
        have_key = 1;
    }
    cm_rng rng;
    cm_rng_seed(&rng, 0x706c616365ULL, s); /* "place" */
    size_t far = 0;
    for (int c = 0; c < n_orders; c++) {
        for (size_t v = 0; v < s; v++)
            order[v] = v;
        if (c < 2) {                         /* spectral, both ends */
            if (!have_key)
                continue;
            sort_by_key(order, s, key);
        } else if (c < 4) {                  /* BFS from 0, then from afar */
            far = bfs_order(g, c == 2 ? 0 : far, order, locked);
        } else if (c > 4) {                  /* seeded random orders */
            cm_rng_shuffle_size(&rng, order, s);
        }
        for (size_t k = 0; k < s; k++) {
            size_t v = order[c == 1 || c == 3 ? s - 1 - k : k];
            trial[v] = k < a ? 0 : 1;
        }
        int large = s > SPECTRAL_MAX;  /* only BFS from 0 and index order */
        if (large && c != 2 && c != 4)
            continue;
        int64_t j;
        if (s <= REFINE_MAX) {
            j = fm_refine(&f, locked, moves, large ? LARGE_PASSES : MAX_PASSES);
        } else {
            fm_init(&f);
            j = fm_j(&f);
        }
        if (j < best) {
            best = j;
            memcpy(side, trial, s);
        }
    }
done:
    free(key);
    free(locked);
    free(trial);
    free(moves);
    free(ext);
    free(order);
    return st;
}

/* ---- recursive bisection over k parts ----------------------------------- */

typedef struct {
    const cm_topo *t;
    size_t *loc;       /* [n] global -> local id in the current part */
    size_t *own;       /* [n] the own bisection's parts of a step */
} rb_ctx;

/* The subgraph induced by nodes[0..s) (global ids). */
static cm_status induce(rb_ctx *c, const size_t *nodes, size_t s,
                        sub_graph *g)
{
    const cm_topo *t = c->t;
    size_t m2 = 0;
    for (size_t v = 0; v < s; v++)
        c->loc[nodes[v]] = v;
    for (size_t v = 0; v < s; v++)
        for (size_t k = t->off[nodes[v]]; k < t->off[nodes[v] + 1]; k++)
            m2 += c->loc[t->adj[k]] != SIZE_MAX;
    g->s = s;
    g->m = m2 / 2;
    g->off = malloc((s + 1) * sizeof *g->off);
    g->adj = malloc((m2 + 1) * sizeof *g->adj);
    if (!g->off || !g->adj) {
        for (size_t v = 0; v < s; v++)
            c->loc[nodes[v]] = SIZE_MAX;
        return cm_error(CM_ENOMEM, "placement: out of memory");
    }
    size_t e = 0;
    for (size_t v = 0; v < s; v++) {
        g->off[v] = e;
        for (size_t k = t->off[nodes[v]]; k < t->off[nodes[v] + 1]; k++)
            if (c->loc[t->adj[k]] != SIZE_MAX)
                g->adj[e++] = c->loc[t->adj[k]];
    }
    g->off[s] = e;
    for (size_t v = 0; v < s; v++)
        c->loc[nodes[v]] = SIZE_MAX;
    return CM_OK;
}

/* Assigns nodes[0..s) (ascending global ids; reordered in place) to the
 * k parts labels[0..k) of sizes size[0..k) (summing to s): out[node] =
 * label. */
static cm_status rb(rb_ctx *c, size_t *nodes, size_t s, const size_t *label,
                    const size_t *size, size_t k, size_t *out)
{
    if (k == 1) {
        for (size_t v = 0; v < s; v++)
            out[nodes[v]] = label[0];
        return CM_OK;
    }
    size_t k1 = k / 2, a = 0;
    for (size_t p = 0; p < k1; p++)
        a += size[p];
    sub_graph g = {0, 0, NULL, NULL};
    unsigned char *side = malloc(s + 1);
    size_t *tmp = malloc((s + 1) * sizeof *tmp);
    cm_status st = side && tmp ? induce(c, nodes, s, &g)
                               : cm_error(CM_ENOMEM, "placement: out of memory");
    if (st == CM_OK)
        st = bisect(&g, a, side);
    if (st == CM_OK) {
        size_t i0 = 0, i1 = a;  /* stable split: both halves stay ascending */
        for (size_t v = 0; v < s; v++)
            tmp[side[v] ? i1++ : i0++] = nodes[v];
        memcpy(nodes, tmp, s * sizeof *nodes);
        st = rb(c, nodes, a, label, size, k1, out);
    }
    if (st == CM_OK)
        st = rb(c, nodes + a, s - a, label + k1, size + k1, k - k1, out);
    free(g.adj);
    free(g.off);
    free(tmp);
    free(side);
    return st;
}

/* One step of the placement: nodes[0..s) (ascending global ids;
 * reordered in place so that part p's nodes are block p, ascending, as
 * rb leaves them) into the k parts labels[0..k) of sizes size[0..k):
 * out[node] = label. The candidates, METIS's three then the own rb, each
 * judged by J on the induced subgraph; the first of least J is kept.
 * c->own: [n] scratch for rb's result. */
static cm_status step(rb_ctx *c, size_t *nodes, size_t s, const size_t *label,
                      const size_t *size, size_t k, unsigned use,
                      size_t *out, cm_place_how *how)
{
    if (k == 1)
        return rb(c, nodes, s, label, size, k, out);
    sub_graph g = {0, 0, NULL, NULL};
    size_t *orig = malloc((s + 1) * sizeof *orig);
    size_t *part = malloc((s + 1) * sizeof *part);
    size_t *best = malloc((s + 1) * sizeof *best);
    size_t *id = malloc((k + 1) * sizeof *id);
    size_t *fill = calloc(k + 1, sizeof *fill);
    cm_status st = orig && part && best && id && fill
                       ? induce(c, nodes, s, &g)
                       : cm_error(CM_ENOMEM, "placement: out of memory");
    uint64_t jbest = UINT64_MAX, j;
    size_t won = CM_PLACE_PARTITIONERS;
    cm_status failed = CM_OK;
    if (st != CM_OK)
        goto done;
    memcpy(orig, nodes, s * sizeof *orig);
    /* parts of one node each: every partition cuts every edge, so every
     * candidate's J is the same and the first that succeeds is kept (the
     * others are not run: the own rb costs O(k) bisections) */
    int singletons = 1;
    for (size_t q = 0; q < k; q++) {
        id[q] = q;
        singletons &= size[q] == 1;
    }
    for (size_t m = 0; m < CM_PLACE_PARTITIONERS && st == CM_OK &&
                       !(singletons && won < CM_PLACE_PARTITIONERS); m++) {
        if (m < CM_PLACE_OWN) {
            if (!(use & CM_PLACE_USE_METIS))
                continue;
            st = cm_place_metis(s, g.off, g.adj, k, size, (cm_metis_method)m,
                                part, NULL);
            if (st != CM_OK && st != CM_ENOMEM) { /* left out */
                failed = st;
                st = CM_OK;
                continue;
            }
        } else {
            if (!(use & CM_PLACE_USE_OWN))
                continue;
            memcpy(nodes, orig, s * sizeof *nodes);
            st = rb(c, nodes, s, id, size, k, c->own);
            for (size_t v = 0; v < s && st == CM_OK; v++)
                part[v] = c->own[orig[v]];
        }
        if (st == CM_OK)
            st = cm_place_part_j(s, g.off, g.adj, k, part, &j, NULL, NULL);
        if (st == CM_OK && j < jbest) {
            jbest = j;
            won = m;
            memcpy(best, part, s * sizeof *best);
        }
    }
    if (st == CM_OK && won == CM_PLACE_PARTITIONERS)
        st = failed != CM_OK ? failed
                             : cm_error(CM_EINTERNAL, "placement: no "
                                        "partitioner in use");
    if (st != CM_OK)
        goto done;
    /* part q's nodes become block q of nodes[], ascending */
    for (size_t q = 1; q < k; q++)
        fill[q] = fill[q - 1] + size[q - 1];
    for (size_t v = 0; v < s; v++) {
        nodes[fill[best[v]]++] = orig[v];
        out[orig[v]] = label[best[v]];
    }
    if (how)
        how->won[won]++;
done:
    free(g.adj);
    free(g.off);
    free(fill);
    free(id);
    free(best);
    free(part);
    free(orig);
    return st;
}

static cm_status place_steps(const cm_topo *t, size_t P,
                             const size_t *host_of_rank, unsigned use,
                             size_t *rank_of, cm_place_how *how);

cm_status cm_place_workers(const cm_topo *t, size_t P,
                           const size_t *host_of_rank, cm_place_kind kind,
                           size_t *rank_of)
{
    return cm_place_workers_how(t, P, host_of_rank, kind, CM_PLACE_USE_ALL,
                                rank_of, NULL);
}

static void place_block(size_t n, size_t P, size_t *rank_of)
{
    for (size_t r = 0, i = 0; r < P; r++)
        for (size_t k = cm_place_rank_size(n, P, r); k > 0; k--)
            rank_of[i++] = r;
}

/* (arrays across hosts, arrays, cut edges) of st, the order placements
 * are compared by. */
static void place_cost(const cm_place_stats *st, size_t cost[3])
{
    cost[0] = st->volume_host;
    cost[1] = st->volume;
    cost[2] = st->cut_edges;
}

static int cost_less(const size_t a[3], const size_t b[3])
{
    return a[0] != b[0] ? a[0] < b[0] : a[1] != b[1] ? a[1] < b[1]
                                                     : a[2] < b[2];
}

static cm_status place_graph(const cm_topo *t, size_t P,
                             const size_t *host_of_rank, unsigned use,
                             size_t *rank_of, cm_place_how *how);

cm_status cm_place_workers_how(const cm_topo *t, size_t P,
                               const size_t *host_of_rank,
                               cm_place_kind kind, unsigned use,
                               size_t *rank_of, cm_place_how *how)
{
    size_t n = t->n;
    if (how)
        memset(how, 0, sizeof *how);
    if (P == 0 || P > n)
        return cm_error(CM_EINVAL, "placement: %zu ranks for %zu workers "
                        "(need 1..%zu)", P, n, n);
    if (kind == CM_PLACE_BLOCK || P == 1) {
        place_block(n, P, rank_of);
        if (how)
            how->block = kind == CM_PLACE_BLOCK;
        return CM_OK;
    }
    cm_status st = place_graph(t, P, host_of_rank, use, rank_of, how);
    if (st != CM_OK || use != CM_PLACE_USE_ALL)
        return st;
    /* The partitioners are heuristics: block's placement, priced on t
     * itself (its arcs, when directed), replaces theirs when strictly
     * cheaper, so graph placement is never worse than block. */
    size_t *blk = malloc(n * sizeof *blk);
    size_t cb[3], cg[3];
    cm_place_stats sb, sg;
    if (!blk)
        return cm_error(CM_ENOMEM, "placement: out of memory");
    place_block(n, P, blk);
    st = cm_place_eval(t, P, host_of_rank, rank_of, NULL, &sg);
    if (st == CM_OK)
        st = cm_place_eval(t, P, host_of_rank, blk, NULL, &sb);
    if (st == CM_OK) {
        place_cost(&sb, cb);
        place_cost(&sg, cg);
        if (cost_less(cb, cg)) {
            memcpy(rank_of, blk, n * sizeof *rank_of);
            if (how) {
                how->block_kept = 1;
                memcpy(how->block_cost, cb, sizeof cb);
                memcpy(how->part_cost, cg, sizeof cg);
            }
        }
    }
    free(blk);
    return st;
}

/* The partitioners' placement (cm_place_workers_how past its checks:
 * kind graph, 2 <= P <= n), before block's is priced against it. */
static cm_status place_graph(const cm_topo *t, size_t P,
                             const size_t *host_of_rank, unsigned use,
                             size_t *rank_of, cm_place_how *how)
{
    size_t n = t->n;
    if (t->directed) { /* partition the undirected support of the arcs */
        cm_topo u;
        cm_topo_init(&u);
        cm_status su = cm_topo_support(t, &u);
        if (su == CM_OK)
            su = place_graph(&u, P, host_of_rank, use, rank_of, how);
        cm_topo_destroy(&u);
        return su;
    }
    cm_status st = place_steps(t, P, host_of_rank, use, rank_of, how);
    int hosts = 0;
    for (size_t r = 1; host_of_rank && r < P; r++)
        hosts |= host_of_rank[r] != host_of_rank[0];
    if (st != CM_OK || !hosts || use != CM_PLACE_USE_ALL)
        return st;
    /* Over several hosts the steps' J do not add up to the placement's
     * traffic (an array goes once to each rank of another host, not once
     * to the host), so a step won by METIS can cost arrays later: the own
     * bisection's whole placement replaces the steps' one when strictly
     * cheaper by (arrays across hosts, arrays, cut edges). */
    size_t *own = malloc(n * sizeof *own);
    cm_place_how ho;
    memset(&ho, 0, sizeof ho);
    cm_place_stats sa, so;
    size_t ca[3], co[3];
    st = own ? place_steps(t, P, host_of_rank, CM_PLACE_USE_OWN, own, &ho)
             : cm_error(CM_ENOMEM, "placement: out of memory");
    if (st == CM_OK)
        st = cm_place_eval(t, P, host_of_rank, rank_of, NULL, &sa);
    if (st == CM_OK)
        st = cm_place_eval(t, P, host_of_rank, own, NULL, &so);
    if (st == CM_OK) {
        place_cost(&sa, ca);
        place_cost(&so, co);
    }
    if (st == CM_OK && cost_less(co, ca)) {
        memcpy(rank_of, own, n * sizeof *rank_of);
        if (how)
            *how = ho;
    }
    free(own);
    return st;
}

/* The steps of a graph placement (cm_place_workers_how past its checks:
 * kind graph, 2 <= P <= n, undirected t). */
static cm_status place_steps(const cm_topo *t, size_t P,
                             const size_t *host_of_rank, unsigned use,
                             size_t *rank_of, cm_place_how *how)
{
    size_t n = t->n;
    cm_status st = CM_OK;
    /* hosts in order of their first rank; ranks grouped by host */
    size_t *hrank = malloc(P * sizeof *hrank);     /* ranks, host-major */
    size_t *hcount = calloc(P + 1, sizeof *hcount); /* ranks per host */
    size_t *hsize = calloc(P + 1, sizeof *hsize);   /* workers per host */
    size_t *hlab = calloc(P + 1, sizeof *hlab);
    size_t *rsize = malloc(P * sizeof *rsize);
    size_t *host_part = malloc(n * sizeof *host_part);
    size_t *nodes = malloc(n * sizeof *nodes);
    rb_ctx c = {t, malloc(n * sizeof(size_t)), malloc(n * sizeof(size_t))};
    if (!hrank || !hcount || !hsize || !hlab || !rsize || !host_part ||
        !nodes || !c.loc || !c.own) {
        st = cm_error(CM_ENOMEM, "placement: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        c.loc[i] = SIZE_MAX;
    size_t H = 0, q = 0;
    for (size_t r = 0; r < P; r++) {
        int seen = !host_of_rank && r > 0;   /* NULL: one host */
        for (size_t r2 = 0; r2 < r && host_of_rank; r2++)
            if (host_of_rank[r2] == host_of_rank[r])
                seen = 1;
        if (seen)
            continue;
        hlab[H] = H;
        for (size_t r2 = r; r2 < P; r2++)
            if (!host_of_rank || host_of_rank[r2] == host_of_rank[r]) {
                hrank[q++] = r2;
                hcount[H]++;
                hsize[H] += cm_place_rank_size(n, P, r2);
            }
        H++;
    }
    for (size_t i = 0; i < n; i++)
        nodes[i] = i;
    st = step(&c, nodes, n, hlab, hsize, H, use, host_part, how);
    for (size_t h = 0, base = 0, r0 = 0; st == CM_OK && h < H; h++) {
        /* nodes[base..base+hsize[h]) are host h's, ascending */
        for (size_t k = 0; k < hcount[h]; k++)
            rsize[k] = cm_place_rank_size(n, P, hrank[r0 + k]);
        st = step(&c, nodes + base, hsize[h], hrank + r0, rsize, hcount[h],
                  use, rank_of, how);
        base += hsize[h];
        r0 += hcount[h];
    }
done:
    free(c.own);
    free(c.loc);
    free(nodes);
    free(host_part);
    free(rsize);
    free(hlab);
    free(hsize);
    free(hcount);
    free(hrank);
    return st;
}
