/* cm_topo_dir.c: directed topologies (see cm_topo.h, "Directed
 * topologies"): the builder from arcs, the reader's directed path, the
 * doubly-stochastic check, the writer, and the per-round draw of an
 * epidemic topology.
 *
 * Storage: arcs sorted by (sender, receiver) in ei/ej/ew, the in-lists
 * (rows of W) in off/adj/adj_w and the out-lists (columns of W) in
 * out_off/out_adj/out_w, all ascending, so a directed topology prints and
 * iterates in one canonical order as an undirected one does.
 *
 * Epidemic draw (de Vos et al., "Epidemic Learning", NeurIPS 2023).
 * EL-Oracle: s random permutations, each repaired by random swaps until
 * no node sends to itself or twice to the same receiver (the union is an
 * s-regular digraph; for s > (n-1)/2 the complement, (n-1-s)-regular, is
 * drawn instead so the repair always has room). EL-Local: each node
 * draws s distinct receivers by rejection. Both from one cm_rng stream
 * keyed by (seed, round), so the graph of round r is a pure function.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_rng.h"
#include "cm_topo_rec.h"

static int arc_cmp(const void *pa, const void *pb)
{
    const cm_topo_rec *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Fills t (n set, directed) from m sorted, distinct, loop-free arcs r
 * (a -> b, w = W_ba; NAN everywhere for uniform receiver weights). Self
 * weights: uniform, or implied from the in-lists (explicit ones are set
 * by the caller afterwards). */
static cm_status build_dir(cm_topo *t, const cm_topo_rec *r, size_t m,
                           int uniform)
{
    size_t n = t->n;
    t->directed = 1;
    t->m = m;
    t->ei = malloc((m + 1) * sizeof *t->ei);
    t->ej = malloc((m + 1) * sizeof *t->ej);
    t->ew = malloc((m + 1) * sizeof *t->ew);
    t->self = calloc(n, sizeof *t->self);
    t->off = calloc(n + 1, sizeof *t->off);
    t->adj = malloc((m + 1) * sizeof *t->adj);
    t->adj_w = malloc((m + 1) * sizeof *t->adj_w);
    t->out_off = calloc(n + 1, sizeof *t->out_off);
    t->out_adj = malloc((m + 1) * sizeof *t->out_adj);
    t->out_w = malloc((m + 1) * sizeof *t->out_w);
    size_t *pos = malloc((n + 1) * sizeof *pos);
    if (!t->ei || !t->ej || !t->ew || !t->self || !t->off || !t->adj ||
        !t->adj_w || !t->out_off || !t->out_adj || !t->out_w || !pos) {
        free(pos);
        return cm_error(CM_ENOMEM, "out of memory for a %zu-node digraph", n);
    }
    for (size_t k = 0; k < m; k++) {
        t->off[r[k].b + 1]++;
        t->out_off[r[k].a + 1]++;
    }
    for (size_t i = 0; i < n; i++) {
        t->off[i + 1] += t->off[i];
        t->out_off[i + 1] += t->out_off[i];
    }
    for (size_t k = 0; k < m; k++) {
        t->ei[k] = r[k].a;
        t->ej[k] = r[k].b;
        t->ew[k] = uniform ? 1.0 / (double)(cm_topo_degree(t, r[k].b) + 1)
                           : r[k].w;
    }
    /* arcs sorted by sender: each in-list gets its senders ascending */
    memcpy(pos, t->off, n * sizeof *pos);
    for (size_t k = 0; k < m; k++) {
        size_t p = pos[t->ej[k]]++;
        t->adj[p] = t->ei[k];
        t->adj_w[p] = t->ew[k];
    }
    for (size_t k = 0; k < m; k++) { /* out-lists are runs of the arcs */
        t->out_adj[k] = t->ej[k];
        t->out_w[k] = t->ew[k];
    }
    free(pos);
    for (size_t i = 0; i < n; i++) {
        if (uniform) {
            t->self[i] = 1.0 / (double)(cm_topo_degree(t, i) + 1);
            continue;
        }
        double row = 0.0;
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            row += t->adj_w[p];
        t->self[i] = 1.0 - row;
    }
    return CM_OK;
}

cm_status cm_topo_from_arcs(cm_topo *t, size_t n, size_t m, const size_t *src,
                            const size_t *dst, const double *w)
{
    cm_topo_destroy(t);
    cm_status st = CM_OK;
    cm_topo_rec *r = malloc((m + 1) * sizeof *r);
    if (!r)
        return cm_error(CM_ENOMEM, "out of memory for %zu arcs", m);
    for (size_t k = 0; k < m; k++) {
        if (src[k] >= n || dst[k] >= n) {
            st = cm_error(CM_EINVAL, "arc %zu -> %zu: node id out of range "
                          "(n = %zu)", src[k], dst[k], n);
            goto cleanup;
        }
        if (src[k] == dst[k]) {
            st = cm_error(CM_EINVAL, "self-loop at node %zu", src[k]);
            goto cleanup;
        }
        r[k].a = src[k];
        r[k].b = dst[k];
        r[k].w = w ? w[k] : NAN;
        r[k].line = k;
    }
    if (m > 1)
        qsort(r, m, sizeof *r, arc_cmp);
    for (size_t k = 1; k < m; k++)
        if (r[k].a == r[k - 1].a && r[k].b == r[k - 1].b) {
            st = cm_error(CM_EINVAL, "duplicate arc %zu -> %zu", r[k].a,
                          r[k].b);
            goto cleanup;
        }
    t->n = n;
    st = build_dir(t, r, m, w == NULL);
cleanup:
    free(r);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

/* Compensated sum of what node i receives (row) or gives (column). */
static double dir_sum(const cm_topo *t, size_t i, int column)
{
    const size_t *o = column ? t->out_off : t->off;
    const double *w = column ? t->out_w : t->adj_w;
    double s = t->self[i], c = 0.0;
    for (size_t p = o[i]; p < o[i + 1]; p++) {
        double y = w[p] - c, u = s + y;
        c = (u - s) - y;
        s = u;
    }
    return s;
}

/* First node whose row or column fails (n when none); *column tells. */
static size_t first_bad(const cm_topo *t, int *column, double *sum)
{
    for (size_t i = 0; i < t->n; i++)
        for (int col = 0; col < 2; col++) {
            double s = dir_sum(t, i, col);
            if (!(fabs(s - 1.0) <= CM_TOPO_ROW_TOL)) {
                *column = col;
                *sum = s;
                return i;
            }
        }
    return t->n;
}

cm_status cm_topo_check_doubly(const cm_topo *t, const char *path)
{
    if (!t->directed || cm_topo_is_epidemic(t))
        return CM_OK;
    int col = 0;
    double s = 0.0;
    size_t i = first_bad(t, &col, &s);
    if (i == t->n)
        return CM_OK;
    if (col)
        return cm_error(CM_ETOPO, "%s: node %zu gives %.12g in total (its "
                        "self weight plus the weights its receivers give it: "
                        "column %zu of W), not 1 (within %g): W must be doubly "
                        "stochastic", path, i, s, i, CM_TOPO_ROW_TOL);
    return cm_error(CM_ETOPO, "%s: node %zu receives %.12g in total (row %zu "
                    "of W, its self weight included), not 1 (within %g): W "
                    "must be doubly stochastic", path, i, s, i,
                    CM_TOPO_ROW_TOL);
}

cm_status cm_topo_from_arc_recs(cm_topo *t, const char *path,
                                cm_topo_recvec *v, size_t n_decl, int has_n,
                                size_t n_line, cm_topo_base base,
                                int *shifted, size_t *self_lines,
                                size_t epi_s, int epi_local)
{
    cm_status st = CM_OK;
    cm_topo_rec *arcs = NULL;
    size_t *self_line = NULL, *first_line = NULL;
    cm_topo_destroy(t);
    *shifted = 0;
    *self_lines = 0;
    if (epi_s > 0) {
        if (v->len > 0)
            return cm_error(CM_EFORMAT, "%s:%zu: an epidemic topology "
                            "(kind=epidemic) lists no arcs: each round's "
                            "graph is drawn from the run's seed", path,
                            v->r[0].line);
        if (!has_n)
            return cm_error(CM_EFORMAT, "%s: an epidemic topology needs its "
                            "node count (n=N in the header)", path);
        if (n_decl < 2 || epi_s > n_decl - 1)
            return cm_error(CM_EFORMAT, "%s:%zu: epidemic s=%zu needs "
                            "1 <= s <= n - 1 = %zu", path, n_line, epi_s,
                            n_decl ? n_decl - 1 : 0);
        t->n = n_decl;
        t->directed = 1;
        t->epi_s = epi_s;
        t->epi_local = epi_local;
        t->off = calloc(n_decl + 1, sizeof *t->off);
        t->out_off = calloc(n_decl + 1, sizeof *t->out_off);
        if (!t->off || !t->out_off) {
            cm_topo_destroy(t);
            return cm_error(CM_ENOMEM, "%s: out of memory", path);
        }
        return CM_OK;
    }
    if (v->len == 0 && !has_n)
        return cm_error(CM_EFORMAT, "%s: no arcs found (empty topology file)",
                        path);
    int weighted = v->len > 0 && !isnan(v->r[0].w);
    size_t maxid = 0;
    int has_zero = 0;
    for (size_t k = 0; k < v->len; k++) {
        const cm_topo_rec *r = &v->r[k];
        if ((!isnan(r->w)) != weighted)
            return cm_error(CM_EFORMAT, "%s:%zu: weight %s, but line %zu %s "
                            "(weights must be all present or all absent)",
                            path, r->line, weighted ? "missing" : "given",
                            v->r[0].line, weighted ? "has one" : "has none");
        maxid = r->a > maxid ? r->a : maxid;
        maxid = r->b > maxid ? r->b : maxid;
        has_zero |= r->a == 0 || r->b == 0;
    }
    if (base == CM_BASE_1 || (base == CM_BASE_AUTO && !has_n && !has_zero &&
                              v->len > 0)) {
        for (size_t k = 0; k < v->len; k++) {
            if (v->r[k].a == 0 || v->r[k].b == 0)
                return cm_error(CM_EFORMAT, "%s:%zu: node id 0 in a 1-based "
                                "edge list", path, v->r[k].line);
            v->r[k].a--;
            v->r[k].b--;
        }
        maxid--;
        *shifted = 1;
    }
    size_t n = has_n ? n_decl : (v->len ? maxid + 1 : 0);
    for (size_t k = 0; k < v->len; k++) {
        size_t hi = v->r[k].a > v->r[k].b ? v->r[k].a : v->r[k].b;
        if (hi >= n)
            return cm_error(CM_EFORMAT, "%s:%zu: node id %zu is beyond the "
                            "node count n=%zu declared on line %zu", path,
                            v->r[k].line, hi + (size_t)*shifted, n, n_line);
    }
    if (n == 0)
        return cm_error(CM_EFORMAT, "%s: declares n=0 nodes", path);
    if (v->len > 1)
        qsort(v->r, v->len, sizeof *v->r, arc_cmp);
    arcs = malloc((v->len + 1) * sizeof *arcs);
    self_line = calloc(n, sizeof *self_line);
    first_line = calloc(n, sizeof *first_line);
    if (!arcs || !self_line || !first_line) {
        st = cm_error(CM_ENOMEM, "%s: out of memory", path);
        goto cleanup;
    }
    size_t m = 0;
    for (size_t k = 0; k < v->len; k++) {
        const cm_topo_rec *r = &v->r[k];
        if (k > 0 && r->a == v->r[k - 1].a && r->b == v->r[k - 1].b) {
            if (r->a == r->b)
                st = cm_error(CM_EFORMAT, "%s:%zu: second self weight of "
                              "node %zu (line %zu gives one)", path, r->line,
                              r->a, v->r[k - 1].line);
            else
                st = cm_error(CM_EFORMAT, "%s:%zu: duplicate arc %zu -> %zu "
                              "(line %zu lists it)", path, r->line, r->a,
                              r->b, v->r[k - 1].line);
            goto cleanup;
        }
        if (r->a == r->b) {
            if (!weighted) {
                st = cm_error(CM_EFORMAT, "%s:%zu: self-loop %zu %zu without "
                              "a weight (self lines are only for weighted "
                              "files)", path, r->line, r->a, r->b);
                goto cleanup;
            }
            self_line[r->a] = r->line;
            continue;
        }
        if (!first_line[r->a])
            first_line[r->a] = r->line;
        arcs[m++] = *r;
    }
    t->n = n;
    st = build_dir(t, arcs, m, !weighted);
    if (st != CM_OK)
        goto cleanup;
    for (size_t k = 0; k < v->len; k++)
        if (v->r[k].a == v->r[k].b) {
            t->self[v->r[k].a] = v->r[k].w;
            (*self_lines)++;
        }
    int col = 0;
    double s = 0.0;
    size_t i = first_bad(t, &col, &s);
    if (i < n) {
        size_t ln = self_line[i] ? self_line[i] : col ? first_line[i] : 0;
        if (!ln && !col) /* a row: name the first arc into i */
            for (size_t k = 0; k < m && !ln; k++)
                ln = arcs[k].b == i ? arcs[k].line : 0;
        char where[32] = "";
        if (ln)
            snprintf(where, sizeof where, ":%zu", ln);
        if (col)
            st = cm_error(CM_EFORMAT, "%s%s: node %zu gives %.12g in total "
                          "(its self weight plus the weights of its arcs "
                          "%zu -> j: column %zu of W), not 1: W must be "
                          "doubly stochastic", path, where, i, s, i, i);
        else
            st = cm_error(CM_EFORMAT, "%s%s: node %zu receives %.12g in "
                          "total (row %zu of W, its self weight included), "
                          "not 1: W must be doubly stochastic", path, where,
                          i, s, i);
    }
cleanup:
    free(first_line);
    free(self_line);
    free(arcs);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

cm_status cm_topo_support(const cm_topo *t, cm_topo *u)
{
    size_t m = t->m, k = 0;
    size_t *a = malloc((m + 1) * sizeof *a), *b = malloc((m + 1) * sizeof *b);
    cm_status st = CM_OK;
    if (!a || !b) {
        st = cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
        goto cleanup;
    }
    for (size_t e = 0; e < m; e++) {
        size_t i = t->ei[e], j = t->ej[e];
        /* an arc with its reverse is one edge: keep it from the smaller */
        if (t->directed && i > j) {
            int both = 0; /* j -> i exists: the out-list of j */
            for (size_t p = t->out_off[j]; p < t->out_off[j + 1]; p++)
                both |= t->out_adj[p] == i;
            if (both)
                continue;
        }
        a[k] = i;
        b[k++] = j;
    }
    st = cm_topo_from_edges(u, t->n, k, a, b);
cleanup:
    free(b);
    free(a);
    return st;
}

/* ---- epidemic draw --------------------------------------------------- */

/* 1 when node i may not send to v: v == i, or i already sends to v in one
 * of the first l layers of tgt ([layer * n + node]). */
static int bad_target(const size_t *tgt, size_t n, size_t l, size_t i,
                      size_t v)
{
    if (v == i)
        return 1;
    for (size_t q = 0; q < l; q++)
        if (tgt[q * n + i] == v)
            return 1;
    return 0;
}

/* s layers of targets (tgt[l * n + i]: whom i sends to in layer l), each
 * a permutation, their union s-regular and loop-free; s <= (n - 1)/2.
 * -1 when the repair gives up (not seen for these s). */
static int draw_layers(cm_rng *r, size_t n, size_t s, size_t *tgt)
{
    for (size_t l = 0; l < s; l++) {
        size_t *p = tgt + l * n;
        int done = 0;
        for (int attempt = 0; attempt < 64 && !done; attempt++) {
            for (size_t i = 0; i < n; i++)
                p[i] = i;
            cm_rng_shuffle_size(r, p, n);
            done = 1;
            for (size_t i = 0; i < n && done; i++) {
                size_t tries = 0;
                while (bad_target(tgt, n, l, i, p[i])) {
                    size_t j = (size_t)cm_rng_below(r, n);
                    if (j != i && !bad_target(tgt, n, l, i, p[j]) &&
                        !bad_target(tgt, n, l, j, p[i])) {
                        size_t x = p[i];
                        p[i] = p[j];
                        p[j] = x;
                    } else if (++tries > 64 * n + 1024) {
                        done = 0;
                        break;
                    }
                }
            }
        }
        if (!done)
            return -1;
    }
    return 0;
}

cm_status cm_topo_epidemic_draw(cm_topo *t, size_t n, size_t s, int local,
                                uint64_t seed, uint64_t round)
{
    cm_topo_destroy(t);
    if (n < 2 || s < 1 || s > n - 1)
        return cm_error(CM_EINVAL, "epidemic topology: s=%zu needs "
                        "1 <= s <= n - 1 = %zu", s, n ? n - 1 : 0);
    cm_rng r;
    /* a stream of its own: the workers use (seed, worker id) */
    cm_rng_seed(&r, seed ^ 0x65706964656d6963ULL, round);
    cm_status st = CM_OK;
    size_t m = n * s;
    size_t *src = malloc((m + 1) * sizeof *src);
    size_t *dst = malloc((m + 1) * sizeof *dst);
    size_t *tgt = NULL;
    unsigned char *mark = NULL;
    if (!src || !dst) {
        st = cm_error(CM_ENOMEM, "out of memory for %zu arcs", m);
        goto cleanup;
    }
    if (local) {
        for (size_t i = 0, k = 0; i < n; i++)
            for (size_t c = 0; c < s;) {
                size_t v = (size_t)cm_rng_below(&r, n - 1);
                v += v >= i; /* uniform over the others */
                int dup = 0;
                for (size_t q = k - c; q < k && !dup; q++)
                    dup = dst[q] == v;
                if (dup)
                    continue;
                src[k] = i;
                dst[k++] = v;
                c++;
            }
    } else {
        int comp = s > (n - 1) / 2; /* draw the sparser complement */
        size_t sl = comp ? n - 1 - s : s;
        tgt = malloc((sl * n + 1) * sizeof *tgt);
        mark = calloc(n, 1);
        if (!tgt || !mark) {
            st = cm_error(CM_ENOMEM, "out of memory for %zu arcs", m);
            goto cleanup;
        }
        if (draw_layers(&r, n, sl, tgt) != 0) {
            st = cm_error(CM_ENUMERIC, "epidemic topology: no %zu-regular "
                          "digraph on %zu nodes found for round %llu", s, n,
                          (unsigned long long)round);
            goto cleanup;
        }
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (!comp) {
                for (size_t l = 0; l < sl; l++) {
                    src[k] = i;
                    dst[k++] = tgt[l * n + i];
                }
                continue;
            }
            memset(mark, 0, n);
            for (size_t l = 0; l < sl; l++)
                mark[tgt[l * n + i]] = 1;
            for (size_t v = 0; v < n; v++)
                if (v != i && !mark[v]) {
                    src[k] = i;
                    dst[k++] = v;
                }
        }
    }
    st = cm_topo_from_arcs(t, n, m, src, dst, NULL);
cleanup:
    free(mark);
    free(tgt);
    free(dst);
    free(src);
    return st;
}
