/* cm_topo.c: the topology value, its canonical storage, the writer, and
 * the checks every reader and builder shares (edges, components, the
 * Laplacian fill).
 *
 * Storage is an edge list plus a CSR adjacency, both sorted, so a topology
 * prints and iterates in one canonical order. Records from any reader end
 * in cm_topo_from_recs, which sorts them by undirected edge so duplicates
 * and conflicts are reported with the line numbers at fault.
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_topo_rec.h"

void cm_topo_init(cm_topo *t)
{
    memset(t, 0, sizeof *t);
}

void cm_topo_destroy(cm_topo *t)
{
    if (!t)
        return;
    free(t->ei);
    free(t->ej);
    free(t->ew);
    free(t->self);
    free(t->off);
    free(t->adj);
    free(t->adj_w);
    free(t->out_off);
    free(t->out_adj);
    free(t->out_w);
    cm_topo_init(t);
}

/* Builds off/adj/adj_w from the sorted edge list. */
static cm_status build_csr(cm_topo *t)
{
    size_t n = t->n, m = t->m;
    t->off = calloc(n + 1, sizeof *t->off);
    t->adj = malloc((2 * m + 1) * sizeof *t->adj);
    if (t->ew)
        t->adj_w = malloc((2 * m + 1) * sizeof *t->adj_w);
    if (!t->off || !t->adj || (t->ew && !t->adj_w))
        return cm_error(CM_ENOMEM, "out of memory building a %zu-node graph", n);
    for (size_t k = 0; k < m; k++) {
        t->off[t->ei[k] + 1]++;
        t->off[t->ej[k] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        t->off[i + 1] += t->off[i];
    size_t *pos = malloc((n + 1) * sizeof *pos);
    if (!pos)
        return cm_error(CM_ENOMEM, "out of memory building a %zu-node graph", n);
    memcpy(pos, t->off, n * sizeof *pos);
    /* Edges sorted by (ei, ej): filling ej-side entries in order, then the
     * ei-side, keeps each row ascending only if we insert all neighbours
     * smaller than i before larger ones; two passes do exactly that. */
    for (size_t k = 0; k < m; k++) {       /* i = ej, neighbour ei < i */
        size_t p = pos[t->ej[k]]++;
        t->adj[p] = t->ei[k];
        if (t->adj_w)
            t->adj_w[p] = t->ew[k];
    }
    for (size_t k = 0; k < m; k++) {       /* i = ei, neighbour ej > i */
        size_t p = pos[t->ei[k]]++;
        t->adj[p] = t->ej[k];
        if (t->adj_w)
            t->adj_w[p] = t->ew[k];
    }
    free(pos);
    return CM_OK;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const cm_topo_rec *x = pa, *y = pb;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

int cm_topo_recvec_push(cm_topo_recvec *v, cm_topo_rec x)
{
    if (v->len == v->cap) {
        if (v->cap >= CM_TOPO_MAX_EDGES)
            return -1;
        size_t cap = v->cap ? 2 * v->cap : 256;
        cm_topo_rec *p = realloc(v->r, cap * sizeof *p);
        if (!p)
            return -1;
        v->r = p;
        v->cap = cap;
    }
    v->r[v->len++] = x;
    return 0;
}

/* Turns sorted, de-duplicated records (a < b) into t's edge arrays. */
static cm_status edges_from_recs(cm_topo *t, const cm_topo_rec *r, size_t m,
                                 int weighted)
{
    t->m = m;
    t->ei = malloc((m + 1) * sizeof *t->ei);
    t->ej = malloc((m + 1) * sizeof *t->ej);
    if (weighted)
        t->ew = malloc((m + 1) * sizeof *t->ew);
    if (!t->ei || !t->ej || (weighted && !t->ew))
        return cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
    for (size_t k = 0; k < m; k++) {
        t->ei[k] = r[k].a;
        t->ej[k] = r[k].b;
        if (weighted)
            t->ew[k] = r[k].w;
    }
    return build_csr(t);
}

cm_status cm_topo_check_edges(size_t n, size_t m, const size_t *ei,
                              const size_t *ej)
{
    cm_status st = CM_OK;
    cm_topo_rec *r = malloc((m + 1) * sizeof *r);
    if (!r)
        return cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
    for (size_t k = 0; k < m; k++) {
        if (ei[k] >= n || ej[k] >= n) {
            st = cm_error(CM_EINVAL, "edge %zu-%zu: node id out of range "
                          "(n = %zu)", ei[k], ej[k], n);
            goto cleanup;
        }
        if (ei[k] == ej[k]) {
            st = cm_error(CM_EINVAL, "self-loop at node %zu", ei[k]);
            goto cleanup;
        }
        r[k].a = ei[k] < ej[k] ? ei[k] : ej[k];
        r[k].b = ei[k] < ej[k] ? ej[k] : ei[k];
        r[k].w = NAN;
        r[k].line = k;
    }
    if (m > 1)
        qsort(r, m, sizeof *r, rec_cmp);
    for (size_t k = 1; k < m; k++)
        if (r[k].a == r[k - 1].a && r[k].b == r[k - 1].b) {
            st = cm_error(CM_EINVAL, "duplicate edge %zu-%zu", r[k].a, r[k].b);
            goto cleanup;
        }
cleanup:
    free(r);
    return st;
}

cm_status cm_topo_from_edges(cm_topo *t, size_t n, size_t m,
                             const size_t *ei, const size_t *ej)
{
    cm_topo_destroy(t);
    cm_status st = cm_topo_check_edges(n, m, ei, ej);
    if (st != CM_OK)
        return st;
    cm_topo_rec *r = malloc((m + 1) * sizeof *r);
    if (!r)
        return cm_error(CM_ENOMEM, "out of memory for %zu edges", m);
    for (size_t k = 0; k < m; k++) {
        r[k].a = ei[k] < ej[k] ? ei[k] : ej[k];
        r[k].b = ei[k] < ej[k] ? ej[k] : ei[k];
        r[k].w = NAN;
        r[k].line = k;
    }
    if (m > 1)
        qsort(r, m, sizeof *r, rec_cmp);
    t->n = n;
    st = edges_from_recs(t, r, m, 0);
    free(r);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

cm_status cm_topo_from_recs(cm_topo *t, const char *path, cm_topo_recvec *v,
                            size_t n_decl, int has_n, size_t n_line,
                            cm_topo_base base, int *shifted,
                            size_t *self_lines)
{
    cm_status st = CM_OK;
    cm_topo_rec *edges = NULL;
    unsigned char *has_self = NULL;
    cm_topo_destroy(t);
    *shifted = 0;
    *self_lines = 0;
    if (v->len == 0 && !has_n)
        return cm_error(CM_EFORMAT, "%s: no edges found (empty topology file)",
                        path);
    /* Weighted or not: decided by the first record, then enforced. */
    int weighted = v->len > 0 && !isnan(v->r[0].w);
    size_t maxid = 0;
    int has_zero = 0;
    for (size_t k = 0; k < v->len; k++) {
        if ((!isnan(v->r[k].w)) != weighted)
            return cm_error(CM_EFORMAT, "%s:%zu: weight %s, but line %zu %s "
                            "(weights must be all present or all absent)",
                            path, v->r[k].line, weighted ? "missing" : "given",
                            v->r[0].line, weighted ? "has one" : "has none");
        if (v->r[k].b > maxid)
            maxid = v->r[k].b;
        if (v->r[k].a == 0)
            has_zero = 1;
    }
    if (base == CM_BASE_1 || (base == CM_BASE_AUTO && !has_n && !has_zero &&
                              v->len > 0)) {
        for (size_t k = 0; k < v->len; k++) {
            if (v->r[k].a == 0)
                return cm_error(CM_EFORMAT, "%s:%zu: node id 0 in a 1-based "
                                "edge list", path, v->r[k].line);
            v->r[k].a--;
            v->r[k].b--;
        }
        maxid--;
        *shifted = 1;
    }
    size_t n = has_n ? n_decl : (v->len ? maxid + 1 : 0);
    for (size_t k = 0; k < v->len; k++)
        if (v->r[k].b >= n)
            return cm_error(CM_EFORMAT, "%s:%zu: node id %zu is beyond the "
                            "node count n=%zu declared on line %zu", path,
                            v->r[k].line, v->r[k].b + (size_t)*shifted, n,
                            n_line);
    if (n == 0)
        return cm_error(CM_EFORMAT, "%s: declares n=0 nodes", path);
    t->n = n;
    if (weighted) {
        t->self = calloc(n, sizeof *t->self);
        has_self = calloc(n, 1);
        if (!t->self || !has_self) {
            st = cm_error(CM_ENOMEM, "%s: out of memory", path);
            goto cleanup;
        }
    }
    if (v->len > 1)
        qsort(v->r, v->len, sizeof *v->r, rec_cmp);
    edges = malloc((v->len + 1) * sizeof *edges);
    if (!edges) {
        st = cm_error(CM_ENOMEM, "%s: out of memory", path);
        goto cleanup;
    }
    size_t m = 0;
    for (size_t k = 0; k < v->len; k++) {
        const cm_topo_rec *r = &v->r[k];
        if (k > 0 && r->a == v->r[k - 1].a && r->b == v->r[k - 1].b) {
            const cm_topo_rec *p = &v->r[k - 1];
            if (weighted && p->w != r->w) {
                if (r->a == r->b)
                    st = cm_error(CM_EFORMAT, "%s:%zu: self weight of node %zu "
                                  "is %.17g, but line %zu gives %.17g", path,
                                  r->line, r->a, r->w, p->line, p->w);
                else
                    st = cm_error(CM_EFORMAT, "%s:%zu: edge %zu-%zu has weight "
                                  "%.17g, but line %zu gives %.17g (W must be "
                                  "symmetric)", path, r->line, r->a, r->b,
                                  r->w, p->line, p->w);
                goto cleanup;
            }
            continue;
        }
        if (r->a == r->b) {
            if (!weighted) {
                st = cm_error(CM_EFORMAT, "%s:%zu: self-loop %zu %zu without a "
                              "weight (self lines are only for weighted files)",
                              path, r->line, r->a, r->b);
                goto cleanup;
            }
            t->self[r->a] = r->w;
            has_self[r->a] = 1;
            (*self_lines)++;
            continue;
        }
        edges[m++] = *r;
    }
    st = edges_from_recs(t, edges, m, weighted);
    if (st == CM_OK && weighted)
        for (size_t i = 0; i < n; i++) {
            if (has_self[i])
                continue;
            double row = 0.0; /* the order of cm_topo_set_weights */
            for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
                row += t->adj_w[p];
            t->self[i] = 1.0 - row;
        }
cleanup:
    free(edges);
    free(has_self);
    if (st != CM_OK)
        cm_topo_destroy(t);
    return st;
}

/* ---- weights --------------------------------------------------------- */

cm_status cm_topo_alloc_weights(cm_topo *t)
{
    double *ew = malloc((t->m + 1) * sizeof *ew);
    double *self = malloc((t->n + 1) * sizeof *self);
    double *adj_w = malloc((2 * t->m + 1) * sizeof *adj_w);
    if (!ew || !self || !adj_w) {
        free(ew);
        free(self);
        free(adj_w);
        return cm_error(CM_ENOMEM, "out of memory for the weights of a "
                        "%zu-node topology", t->n);
    }
    free(t->ew);
    free(t->self);
    free(t->adj_w);
    t->ew = ew;
    t->self = self;
    t->adj_w = adj_w;
    return CM_OK;
}

/* ---- structure ------------------------------------------------------- */

void cm_topo_degree_range(const cm_topo *t, size_t *dmin, size_t *dmax)
{
    size_t lo = t->n ? SIZE_MAX : 0, hi = 0;
    for (size_t i = 0; i < t->n; i++) {
        size_t d = cm_topo_degree(t, i);
        if (d < lo)
            lo = d;
        if (d > hi)
            hi = d;
    }
    *dmin = lo;
    *dmax = hi;
}

cm_status cm_topo_csr_components(size_t n, const size_t *off,
                                 const size_t *adj, size_t *comp,
                                 size_t *count)
{
    *count = 0;
    if (n == 0)
        return CM_OK;
    size_t *label = comp ? comp : malloc(n * sizeof *label);
    size_t *queue = malloc(n * sizeof *queue);
    if (!label || !queue) {
        if (!comp)
            free(label);
        free(queue);
        return cm_error(CM_ENOMEM, "out of memory for a %zu-node search", n);
    }
    for (size_t i = 0; i < n; i++)
        label[i] = SIZE_MAX;
    size_t c = 0;
    for (size_t s = 0; s < n; s++) {
        if (label[s] != SIZE_MAX)
            continue;
        size_t head = 0, tail = 0;
        queue[tail++] = s;
        label[s] = c;
        while (head < tail) {
            size_t u = queue[head++];
            for (size_t p = off[u]; p < off[u + 1]; p++)
                if (label[adj[p]] == SIZE_MAX) {
                    label[adj[p]] = c;
                    queue[tail++] = adj[p];
                }
        }
        c++;
    }
    *count = c;
    if (!comp)
        free(label);
    free(queue);
    return CM_OK;
}

void cm_topo_csr_laplacian(size_t n, const size_t *off, const size_t *adj,
                           double *a)
{
    memset(a, 0, n * n * sizeof *a);
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] = (double)(off[i + 1] - off[i]);
        for (size_t p = off[i]; p < off[i + 1]; p++)
            a[i * n + adj[p]] = -1.0;
    }
}

cm_status cm_topo_components(const cm_topo *t, size_t *comp, size_t *count)
{
    return cm_topo_csr_components(t->n, t->off, t->adj, comp, count);
}

cm_status cm_topo_check_connected(const cm_topo *t, const char *path)
{
    if (t->n <= 1)
        return CM_OK;
    for (size_t i = 0; i < t->n; i++)
        if (cm_topo_degree(t, i) == 0)
            return cm_error(CM_ETOPO, "%s: node %zu has no edges (the graph "
                            "is disconnected)", path, i);
    size_t *comp = malloc(t->n * sizeof *comp), count = 0;
    if (!comp)
        return cm_error(CM_ENOMEM, "%s: out of memory", path);
    cm_status st = cm_topo_components(t, comp, &count);
    if (st == CM_OK && count > 1) {
        size_t reached = 0, missing = 0;
        for (size_t i = t->n; i-- > 0;)
            if (comp[i] == 0)
                reached++;
            else
                missing = i;
        st = cm_error(CM_ETOPO, "%s: the graph is disconnected (%zu "
                      "components; node 0 reaches %zu of %zu nodes; node %zu "
                      "is not reached)", path, count, reached, t->n, missing);
    }
    free(comp);
    return st;
}

size_t cm_topo_edge_index(const cm_topo *t, size_t i, size_t j)
{
    size_t lo = 0, hi = t->m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ei[mid] < i || (t->ei[mid] == i && t->ej[mid] < j))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
