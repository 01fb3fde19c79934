/* tg_digraph.c: directed gossip graphs: permutations, the directed
 * exponential graph, their dense W and sparse product and the directed
 * file writer (see tg_digraph.h).
 *
 * Random permutations are drawn by rejection (Fisher-Yates, redrawn while
 * a node maps to itself or to a target an earlier permutation gave it), so
 * each is uniform among the admissible ones given the earlier ones; about
 * e^(s) tries for the s-th, trivial next to anything that uses them.
 */
#include "tg_digraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_atomic.h"
#include "cm_topo.h"
#include "tg_neff.h"

void tg_digraph_init(tg_digraph *g)
{
    memset(g, 0, sizeof *g);
}

void tg_digraph_destroy(tg_digraph *g)
{
    if (!g)
        return;
    free(g->src);
    free(g->dst);
    free(g->w);
    free(g->self);
    tg_digraph_init(g);
}

/* Sorts edge k by (src, dst) through an index array. */
typedef struct {
    size_t s, d;
    double w;
} dedge;

static int cmp_edge(const void *a, const void *b)
{
    const dedge *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* g from m edges (any order; no duplicates, no self loops); self weights
 * 1 - incoming. */
static cm_status from_edges(tg_digraph *g, size_t n, dedge *e, size_t m)
{
    tg_digraph_destroy(g);
    qsort(e, m, sizeof *e, cmp_edge);
    for (size_t k = 0; k < m; k++) {
        if (e[k].s == e[k].d || e[k].s >= n || e[k].d >= n)
            return cm_error(CM_EINVAL, "directed graph: bad edge %zu -> %zu",
                            e[k].s, e[k].d);
        if (k && e[k].s == e[k - 1].s && e[k].d == e[k - 1].d)
            return cm_error(CM_EINVAL, "directed graph: edge %zu -> %zu "
                            "twice", e[k].s, e[k].d);
    }
    g->src = malloc((m + 1) * sizeof *g->src);
    g->dst = malloc((m + 1) * sizeof *g->dst);
    g->w = malloc((m + 1) * sizeof *g->w);
    g->self = malloc((n + 1) * sizeof *g->self);
    if (!g->src || !g->dst || !g->w || !g->self) {
        tg_digraph_destroy(g);
        return cm_error(CM_ENOMEM, "out of memory for a directed graph");
    }
    g->n = n;
    g->m = m;
    for (size_t i = 0; i < n; i++)
        g->self[i] = 1.0;
    for (size_t k = 0; k < m; k++) {
        g->src[k] = e[k].s;
        g->dst[k] = e[k].d;
        g->w[k] = e[k].w;
        g->self[e[k].d] -= e[k].w;
    }
    return CM_OK;
}

cm_status tg_digraph_from_perms(tg_digraph *g, size_t n, size_t s,
                                const size_t *perm)
{
    dedge *e = malloc((n * s + 1) * sizeof *e);
    if (!e)
        return cm_error(CM_ENOMEM, "out of memory for a directed graph");
    double w = 1.0 / (double)(s + 1);
    for (size_t p = 0; p < s; p++)
        for (size_t i = 0; i < n; i++)
            e[p * n + i] = (dedge){i, perm[p * n + i], w};
    cm_status st = from_edges(g, n, e, n * s);
    free(e);
    return st;
}

cm_status tg_digraph_random_perms(size_t n, size_t s, cm_rng *rng,
                                  size_t *perm)
{
    if (n < s + 1)
        return cm_error(CM_EINVAL, "permutations: %zu distinct peers need "
                        "at least %zu nodes (got %zu)", s, s + 1, n);
    for (size_t p = 0; p < s; p++) {
        size_t *q = perm + p * n;
        int ok = 0;
        for (int tries = 0; tries < 10000 && !ok; tries++) {
            for (size_t i = 0; i < n; i++)
                q[i] = i;
            cm_rng_shuffle_size(rng, q, n);
            ok = 1;
            for (size_t i = 0; i < n && ok; i++) {
                if (q[i] == i)
                    ok = 0;
                for (size_t r = 0; r < p && ok; r++)
                    if (perm[r * n + i] == q[i])
                        ok = 0;
            }
        }
        if (!ok)
            return cm_error(CM_EINVAL, "permutations: could not draw %zu "
                            "permutations with distinct targets on %zu "
                            "nodes", s, n);
    }
    return CM_OK;
}

cm_status tg_digraph_exp(tg_digraph *g, size_t n)
{
    if (n < 2)
        return cm_error(CM_EINVAL, "exp-directed: needs n >= 2");
    size_t k = 0;
    while (((size_t)1 << k) < n)
        k++;
    dedge *e = malloc((n * k + 1) * sizeof *e);
    if (!e)
        return cm_error(CM_ENOMEM, "out of memory for a directed graph");
    double w = 1.0 / (double)(k + 1);
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < k; b++)
            e[i * k + b] = (dedge){i, (i + ((size_t)1 << b)) % n, w};
    cm_status st = from_edges(g, n, e, n * k);
    free(e);
    return st;
}

void tg_digraph_dense(const tg_digraph *g, double *w)
{
    size_t n = g->n;
    memset(w, 0, n * n * sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i * n + i] = g->self[i];
    for (size_t k = 0; k < g->m; k++)
        w[g->dst[k] * n + g->src[k]] += g->w[k];
}

double tg_digraph_messages(const tg_digraph *g)
{
    return g->n ? (double)g->m / (double)g->n : 0.0;
}

cm_status tg_digraph_apply(void *ctx, size_t round, size_t n, size_t reps,
                           const double *x, double *y)
{
    const tg_digraph *g = ctx;
    (void)round;
    (void)n;
    for (size_t j = 0; j < g->n; j++)
        for (size_t r = 0; r < reps; r++)
            y[j * reps + r] = g->self[j] * x[j * reps + r];
    for (size_t k = 0; k < g->m; k++) {
        double *yj = y + g->dst[k] * reps;
        const double *xi = x + g->src[k] * reps;
        double w = g->w[k];
        for (size_t r = 0; r < reps; r++)
            yj[r] += w * xi[r];
    }
    return CM_OK;
}

cm_status tg_digraph_save(const tg_digraph *g, const char *path,
                          const char *comment)
{
    if (g->m == 0) { /* a header only (epidemic) */
        cm_afile f = {0};
        FILE *fp = stdout;
        if (strcmp(path, "-") != 0) {
            cm_status st = cm_atomic_open(&f, path);
            if (st != CM_OK)
                return st;
            fp = f.fp;
        }
        fprintf(fp, "%s\n", comment ? comment : "");
        if (fp == stdout)
            return fflush(stdout) != 0
                       ? cm_error(CM_EIO, "write error on standard output")
                       : CM_OK;
        if (ferror(fp))
            return cm_atomic_fail(&f);
        return cm_atomic_commit(&f);
    }
    cm_topo t;
    cm_topo_init(&t);
    cm_status st = cm_topo_from_arcs(&t, g->n, g->m, g->src, g->dst, g->w);
    if (st == CM_OK)
        st = cm_topo_save(&t, path, comment);
    cm_topo_destroy(&t);
    return st;
}

/* n_eff of (1 - t) I + t W0: g's weights set from w0, self0, then the
 * sparse series (tg_neff_series). */
static cm_status lazy_neff(tg_digraph *g, const double *w0,
                           const double *self0, double t, double gamma,
                           double *neff)
{
    for (size_t k = 0; k < g->m; k++)
        g->w[k] = t * w0[k];
    for (size_t i = 0; i < g->n; i++)
        g->self[i] = 1.0 - t * (1.0 - self0[i]);
    double ty;
    cm_status st = tg_neff_series(g->n, tg_digraph_apply, g, gamma, &ty,
                                  NULL);
    if (st == CM_OK)
        *neff = tg_neff_from_trace(g->n, gamma, 1.0 / (1.0 - gamma) + ty);
    return st;
}

cm_status tg_digraph_best_lazy(tg_digraph *g, double gamma, double *t_out,
                               double *neff_out)
{
    size_t n = g->n;
    if (n > TG_NEFF_DENSE_MAX || n == 0)
        return cm_error(CM_EINVAL, "directed weights: %zu nodes (at most %d)",
                        n, TG_NEFF_DENSE_MAX);
    if (!(gamma > 0.0 && gamma < 1.0))
        return cm_error(CM_EINVAL, "directed weights: gamma %g is not in "
                        "(0, 1)", gamma);
    double *w0 = malloc((g->m + 1) * sizeof *w0);
    double *s0 = malloc(n * sizeof *s0);
    cm_status st = CM_OK;
    if (!w0 || !s0) {
        st = cm_error(CM_ENOMEM, "directed weights: out of memory");
        goto cleanup;
    }
    memcpy(w0, g->w, g->m * sizeof *w0);
    memcpy(s0, g->self, n * sizeof *s0);
    double smin = 1.0;
    for (size_t i = 0; i < n; i++)
        smin = s0[i] < smin ? s0[i] : smin;
    double lo = 1e-3, hi = smin < 1.0 ? 1.0 / (1.0 - smin) : 1.0;
    const double phi = 0.6180339887498949;
    double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo), f1, f2;
    if ((st = lazy_neff(g, w0, s0, x1, gamma, &f1)) != CM_OK ||
        (st = lazy_neff(g, w0, s0, x2, gamma, &f2)) != CM_OK)
        goto restore;
    for (int it = 0; it < 25; it++) { /* maximise; interval 1e-5 */
        if (f1 >= f2) {
            hi = x2, x2 = x1, f2 = f1, x1 = hi - phi * (hi - lo);
            st = lazy_neff(g, w0, s0, x1, gamma, &f1);
        } else {
            lo = x1, x1 = x2, f1 = f2, x2 = lo + phi * (hi - lo);
            st = lazy_neff(g, w0, s0, x2, gamma, &f2);
        }
        if (st != CM_OK)
            goto restore;
    }
    double t = f1 >= f2 ? x1 : x2;
    for (size_t k = 0; k < g->m; k++)
        g->w[k] = t * w0[k];
    for (size_t i = 0; i < n; i++)
        g->self[i] = 1.0 - t * (1.0 - s0[i]);
    *t_out = t;
    *neff_out = f1 >= f2 ? f1 : f2;
    goto cleanup;
restore: /* on error g is unchanged */
    memcpy(g->w, w0, g->m * sizeof *w0);
    memcpy(g->self, s0, n * sizeof *s0);
cleanup:
    free(w0);
    free(s0);
    return st;
}
