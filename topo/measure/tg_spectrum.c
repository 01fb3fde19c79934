/* tg_spectrum.c: Laplacian extremes for the search: the dense solver of
 * cm_eigen (small n) and warm-started Lanczos through cm_lanczos (large
 * n), both in a fixed order of operations, so the search's decisions are
 * the same on every CPU (docs/topo/portable-bits.md).
 *
 * Dense alternatives measured or considered (docs/topo/search.md): GSL's
 * gsl_eigen_symm (1.2x to 3x slower for n = 32..256 here, ~10x at 1,024),
 * dsyevr with an index range (same O(n^3) reduction, a second bisection
 * call for the other end). Lanczos copes with the repeated extreme
 * eigenvalues of optimised regular graphs because it reorthogonalises in
 * full and keeps 8 Ritz vectors per end over restarts below 256 nodes
 * (above, the three-term recurrence's Ritz vectors are cleaned by
 * Rayleigh-Ritz; cm_lanczos.h); it overtakes the
 * dense O(n^3) solve from about 96 nodes (TG_SEARCH_SPARSE_FROM).
 */
#include "tg_spectrum.h"

#include "cm_eigen.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


void tg_spec_init(tg_spec *s)
{
    memset(s, 0, sizeof *s);
}

/* Frees the dense workspace only. */
static void free_dense(tg_spec *s)
{
    cm_lanczos lz = s->lz;
    free(s->a);
    free(s->w);
    free(s->work);
    free(s->z);
    free(s->zw);
    free(s->zwork);
    free(s->ziwork);
    tg_spec_init(s);
    s->lz = lz;
}

void tg_spec_destroy(tg_spec *s)
{
    if (!s)
        return;
    free_dense(s);
    cm_lanczos_destroy(&s->lz);
}

cm_status tg_spec_reserve(tg_spec *s, size_t n)
{
    if (n == s->n && s->a)
        return CM_OK;
    if (n == 0 || n > CM_EIGEN_MAX_ORDER)
        return cm_error(CM_EINVAL, "dense eigensolver: %zu nodes (1 to %d: "
                        "LAPACK indexes the n x n matrix with a 32-bit int)",
                        n, CM_EIGEN_MAX_ORDER);
    free_dense(s);
    s->a = malloc(n * n * sizeof *s->a);
    s->w = malloc(n * sizeof *s->w);
    if (!s->a || !s->w) {
        free_dense(s);
        return cm_error(CM_ENOMEM, "out of memory for a %zu-node spectrum", n);
    }
    size_t lwork = cm_eigen_lwork(n, CM_EIGEN_VALUES);
    s->work = malloc(lwork * sizeof *s->work);
    if (!s->work) {
        free_dense(s);
        return cm_error(CM_ENOMEM, "out of memory for a %zu-node spectrum", n);
    }
    s->lwork = (int)lwork;
    s->n = n;
    return CM_OK;
}

/* Fills the dense n x n Laplacian of g into a: the one Laplacian fill,
 * shared with src/cm_mixing.c. */
static void fill_laplacian(double *a, const tg_graph *g)
{
    cm_topo_csr_laplacian(g->n, g->off, g->nb, a);
}

cm_status tg_spec_laplacian(tg_spec *s, const tg_graph *g)
{
    size_t n = g->n;
    cm_status st = tg_spec_reserve(s, n);
    if (st != CM_OK)
        return st;
    fill_laplacian(s->a, g);
    return cm_eigen_sym_work(CM_EIGEN_VALUES, n, s->a, s->w, s->work,
                             (size_t)s->lwork);
}

cm_status tg_spec_extremes(tg_spec *s, const tg_graph *g, double *l2,
                           double *ln)
{
    *l2 = *ln = 0.0;
    if (g->n <= 1)
        return CM_OK;
    cm_status st = tg_spec_laplacian(s, g);
    if (st != CM_OK)
        return st;
    *l2 = s->w[1];
    *ln = s->w[g->n - 1];
    return CM_OK;
}

cm_status tg_spec_vectors(tg_spec *s, const tg_graph *g)
{
    size_t n = g->n;
    cm_status st = tg_spec_reserve(s, n);
    if (st != CM_OK)
        return st;
    if (!s->z) {
        s->zlwork = (int)cm_eigen_symd_lwork(n);
        s->zliwork = (int)cm_eigen_symd_liwork(n);
        s->z = malloc(n * n * sizeof *s->z);
        s->zw = malloc(n * sizeof *s->zw);
        s->zwork = malloc((size_t)s->zlwork * sizeof *s->zwork);
        s->ziwork = malloc((size_t)s->zliwork * sizeof *s->ziwork);
        if (!s->z || !s->zw || !s->zwork || !s->ziwork) {
            free_dense(s);
            return cm_error(CM_ENOMEM, "out of memory for %zu eigenvectors",
                            n);
        }
    }
    fill_laplacian(s->z, g);
    return cm_eigen_symd(n, s->z, s->zw, s->zwork, (size_t)s->zlwork,
                         s->ziwork, (size_t)s->zliwork);
}

static void graph_laplacian_mv(const void *ctx, const double *x, double *y)
{
    const tg_graph *g = ctx;
    for (size_t i = 0; i < g->n; i++) {
        const size_t *p = g->nb + g->off[i], *end = g->nb + g->off[i + 1];
        double sum = (double)(end - p) * x[i];
        for (; p < end; p++)
            sum -= x[*p];
        y[i] = sum;
    }
}

cm_status tg_spec_sparse(tg_spec *s, const tg_graph *g, const double *x0,
                         double *l2, double *ln)
{
    size_t n = g->n;
    *l2 = *ln = 0.0;
    if (n < 3)
        return cm_error(CM_EINVAL, "sparse spectrum needs n >= 3");
    size_t basis = n - 1 < TG_SPEC_BASIS ? n - 1 : TG_SPEC_BASIS;
    size_t keep = TG_SPEC_KEEP;
    if (basis < 2 * keep + 4) { /* tiny n (tests): fewer vectors */
        basis = 2 * ((n - 1) / 2 > 2 ? (n - 1) / 2 : 2) + 4;
        keep = (basis - 4) / 2;
    }
    cm_status st = cm_lanczos_reserve(&s->lz, n, basis, keep);
    if (st != CM_OK)
        return st;
    size_t dmax = 0;
    for (size_t i = 0; i < n; i++)
        dmax = tg_graph_degree(g, i) > dmax ? tg_graph_degree(g, i) : dmax;
    s->lz.deflate_ones = 1;
    s->lz.scale = 2.0 * (double)dmax;
    if (s->max_matvec)
        s->lz.max_matvec = s->max_matvec;
    st = cm_lanczos_run(&s->lz, graph_laplacian_mv, g, x0);
    if (st != CM_OK)
        return st;
    *l2 = s->lz.lo;
    *ln = s->lz.hi;
    return CM_OK;
}

cm_status tg_small_sym_extremes(double *m, size_t k, double *lo, double *hi)
{
    enum { KMAX = 64, LW = 34 * KMAX };
    double w[KMAX], work[LW];
    if (k == 0 || k > KMAX)
        return cm_error(CM_EINVAL, "small eigensolve of order %zu", k);
    cm_status st = cm_eigen_sym_work(CM_EIGEN_VALUES, k, m, w, work, LW);
    if (st != CM_OK)
        return st;
    *lo = w[0];
    *hi = w[k - 1];
    return CM_OK;
}
