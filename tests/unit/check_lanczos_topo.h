/* check_lanczos_topo.h: cm_lanczos on graphs, for the tests only: both
 * ends of a graph's Laplacian or of its W on the complement of 1 by the
 * thick-restart run (cm_lanczos_run with max_stored = 0: full
 * reorthogonalisation, another path than the three-term recurrence the
 * programs use), as an independent check on the programs' spectra
 * (cm_shiftinv, tg_spectrum). Moved here from
 * src/spectra/cm_lanczos.c, where nothing but the tests called them.
 * Static definitions: include from one test file. */
#ifndef CHECK_LANCZOS_TOPO_H
#define CHECK_LANCZOS_TOPO_H

#include <math.h>

#include "cm_lanczos.h"
#include "cm_topo.h"

static void laplacian_mv(const void *ctx, const double *x, double *y)
{
    const cm_topo *t = ctx;
    for (size_t i = 0; i < t->n; i++) {
        double sum = (double)(t->off[i + 1] - t->off[i]) * x[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            sum -= x[t->adj[p]];
        y[i] = sum;
    }
}

static void mixing_mv(const void *ctx, const double *x, double *y)
{
    const cm_topo *t = ctx;
    for (size_t i = 0; i < t->n; i++) {
        double sum = t->self[i] * x[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            sum += t->adj_w[p] * x[t->adj[p]];
        y[i] = sum;
    }
}

/* Accuracy of the cm_topo spectra: TOPO_TOL relative to the operator's
 * scale within about 1e9 flops, else TOPO_TOL_ACCEPT relative to each
 * end's own size within 4 times that (100,000-node expanders), else no
 * answer (long rings). */
#define TOPO_TOL 1e-10
#define TOPO_TOL_ACCEPT 1e-6

/* Both ends of f on the complement of 1 for t's n nodes. */
static cm_status topo_ends(const cm_topo *t, cm_matvec_fn f, double scale,
                           double *lo, double *hi)
{
    cm_lanczos lz;
    cm_lanczos_init(&lz);
    /* 64 vectors; 24 above 100,000 nodes (reorthogonalisation is
     * O(n basis) per product) */
    size_t basis = t->n - 1 < 64 ? (t->n - 1 < 6 ? 6 : t->n - 1)
                   : t->n > 100000 ? 24 : 64;
    size_t keep = basis >= 20 ? 8 : 1;
    cm_status st = cm_lanczos_reserve(&lz, t->n, basis, keep);
    if (st == CM_OK) {
        lz.deflate_ones = 1;
        lz.scale = scale;
        lz.tol = TOPO_TOL;
        lz.tol_accept = TOPO_TOL_ACCEPT;
        lz.max_stored = 0;
        /* about 1e9 flops of reorthogonalisation (at least 50 products)
         * for the full accuracy, 4 times that (at least 100 products) for
         * the loose one */
        double cap = 1e9 / ((double)t->n * (double)basis * 4.0 + 1.0);
        lz.accept_after = cap < 50 ? 50 : cap > 5000 ? 5000 : (size_t)cap;
        lz.max_matvec = cap < 25 ? 100 : cap > 5000 ? 20000 : 4 * (size_t)cap;
        lz.max_matvec = lz.max_matvec < lz.accept_after ? lz.accept_after
                                                        : lz.max_matvec;
        st = cm_lanczos_run(&lz, f, t, NULL);
    }
    if (st == CM_OK) {
        *lo = lz.lo;
        *hi = lz.hi;
    } else {
        cm_error_prefix(st, "spectrum of a %zu-node graph", t->n);
    }
    cm_lanczos_destroy(&lz);
    return st;
}

/* lambda_2 and lambda_n of the Laplacian L = D - A of t's graph (weights
 * ignored), n >= 1, by the thick restart on the complement of 1. Accuracy
 * 1e-10 * 2 d_max (absolute) when that fits a budget of about 1e9
 * flops (at least 100 products), else 1e-6 relative to each of lambda_2
 * and lambda_n within 4 times that (large expanders: n = 100,000 in
 * seconds). A disconnected t
 * gets lambda_2 = 0 exactly. CM_ENUMERIC when neither is reached (long
 * rings and paths: lambda_2/lambda_n below ~1e-5). Memory O(n + m) + 64 n doubles; time O(k (n + m) + 64 k n) for k
 * products (k ~ a few hundred for expanders of any size). */
static cm_status cm_topo_sparse_extremes(const cm_topo *t, double *l2,
                                         double *ln)
{
    *l2 = *ln = 0.0;
    if (t->n < 2)
        return t->n == 1 ? CM_OK
                         : cm_error(CM_EINVAL, "spectrum of an empty graph");
    size_t dmin, dmax;
    cm_topo_degree_range(t, &dmin, &dmax);
    double lo;
    cm_status st = topo_ends(t, laplacian_mv, 2.0 * (double)dmax, &lo, ln);
    /* disconnected: lambda_2 = 0 exactly (the Ritz value is ~1e-16) */
    size_t count = 1;
    if (st == CM_OK)
        st = cm_topo_components(t, NULL, &count);
    if (st == CM_OK)
        *l2 = count == 1 ? lo : 0.0;
    return st;
}

/* The SLEM of the weighted t's W (W_ij on edges, W_ii = self):
 * max(|mu_2|, |mu_n|) over the eigenvalues of W on the complement of 1,
 * same method, accuracy and limits as cm_topo_sparse_extremes. CM_EINVAL
 * when t is unweighted. */
static cm_status cm_topo_sparse_slem(const cm_topo *t, double *slem)
{
    *slem = 0.0;
    if (!t->adj_w || !t->self)
        return cm_error(CM_EINVAL, "SLEM of an unweighted topology");
    if (t->n < 2)
        return CM_OK;
    double lo, hi;
    cm_status st = topo_ends(t, mixing_mv, 1.0, &lo, &hi);
    if (st == CM_OK)
        *slem = fmax(fabs(lo), fabs(hi));
    return st;
}

/* The largest eigenvalue l2 of the weighted t's W on the complement of 1
 * (lambda_2(W)) and its smallest lmin, same method, accuracy and limits
 * (1, 1 for n = 1). CM_EINVAL when t is unweighted. */
static cm_status cm_topo_sparse_w_extremes(const cm_topo *t, double *l2,
                                    double *lmin)
{
    *l2 = *lmin = 1.0;
    if (!t->adj_w || !t->self)
        return cm_error(CM_EINVAL, "spectrum of an unweighted topology");
    if (t->n < 2)
        return CM_OK;
    return topo_ends(t, mixing_mv, 1.0, lmin, l2);
}

#endif
