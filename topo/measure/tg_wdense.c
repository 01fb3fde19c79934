/* tg_wdense.c: dense W measures (LAPACK dgesvd for the norm, Smith
 * doubling with cblas_dgemm for n_eff) and the dense <-> cm_topo
 * conversions of the data-aware kinds. */
#include "tg_wdense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_lapack.h"
cm_status tg_wdense_norm(size_t n, const double *W, double *norm)
{
    if (n <= 1) {
        *norm = 0.0;
        return CM_OK;
    }
    int in = (int)n, lwork = -1, info = 0, one = 1;
    double *a = malloc(n * n * sizeof *a), *sv = malloc(n * sizeof *sv);
    double q = 0.0, dummy = 0.0;
    cm_status s = CM_OK;
    if (!a || !sv) {
        s = cm_error(CM_ENOMEM, "out of memory for ||W - J|| (n = %zu)", n);
        goto done;
    }
    for (size_t e = 0; e < n * n; e++)
        a[e] = W[e] - 1.0 / (double)n;
    LAPACK_dgesvd("N", "N", &in, &in, a, &in, sv, &dummy, &one, &dummy, &one,
                  &q, &lwork, &info);
    lwork = (int)q;
    double *work = malloc((size_t)(lwork > 1 ? lwork : 1) * sizeof *work);
    if (!work) {
        s = cm_error(CM_ENOMEM, "out of memory for ||W - J||");
        goto done;
    }
    LAPACK_dgesvd("N", "N", &in, &in, a, &in, sv, &dummy, &one, &dummy, &one,
                  work, &lwork, &info);
    free(work);
    if (info != 0)
        s = cm_error(CM_ENUMERIC, "LAPACK dgesvd failed (info = %d)", info);
    else
        *norm = sv[0];
done:
    free(sv);
    free(a);
    return s;
}

cm_status tg_wdense_neff(size_t n, const double *W, double gamma,
                         double *neff)
{
    if (!(gamma >= 0.0 && gamma < 1.0))
        return cm_error(CM_EINVAL, "n_eff: gamma must be in [0, 1)");
    double *X = malloc(n * n * sizeof *X), *A = malloc(n * n * sizeof *A);
    double *T = malloc(n * n * sizeof *T), *A2 = malloc(n * n * sizeof *A2);
    if (!X || !A || !T || !A2) {
        free(X), free(A), free(T), free(A2);
        return cm_error(CM_ENOMEM, "out of memory for n_eff (n = %zu)", n);
    }
    int N = (int)n;
    /* X = W W^T, A = sqrt(gamma) W */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, N, 1.0, W, N,
                W, N, 0.0, X, N);
    for (size_t e = 0; e < n * n; e++)
        A[e] = sqrt(gamma) * W[e];
    for (int it = 0; it < 64; it++) {
        /* T = A X, then A X A^T added into X */
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0,
                    A, N, X, N, 0.0, T, N);
        double tr_old = 0.0, tr_add = 0.0;
        for (size_t i = 0; i < n; i++)
            tr_old += X[i * n + i];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, N, 1.0, T,
                    N, A, N, 1.0, X, N);
        for (size_t i = 0; i < n; i++)
            tr_add += X[i * n + i];
        tr_add -= tr_old;
        if (tr_add <= 1e-13 * tr_old)
            break;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0,
                    A, N, A, N, 0.0, A2, N);
        double *sw = A;
        A = A2;
        A2 = sw;
    }
    double tr = 0.0;
    for (size_t i = 0; i < n; i++)
        tr += X[i * n + i];
    *neff = 1.0 / ((1.0 - gamma) * tr / (double)n);
    free(X), free(A), free(T), free(A2);
    return CM_OK;
}

cm_status tg_wdense_from_topo(const cm_topo *t, double **W)
{
    if (!t->ew || !t->self)
        return cm_error(CM_EINVAL, "the topology has no weights");
    if (t->n > 8192)
        return cm_error(CM_EINVAL, "dense W: at most 8192 nodes (got %zu)",
                        t->n);
    size_t n = t->n;
    *W = calloc(n * n, sizeof **W);
    if (!*W)
        return cm_error(CM_ENOMEM, "out of memory for the dense W");
    for (size_t i = 0; i < n; i++) {
        (*W)[i * n + i] = t->self[i];
        for (size_t e = t->off[i]; e < t->off[i + 1]; e++)
            (*W)[i * n + t->adj[e]] = t->adj_w[e];
    }
    return CM_OK;
}

cm_status tg_wdense_to_topo(size_t n, const double *W, cm_topo *t)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (W[i * n + j] != W[j * n + i])
                return cm_error(CM_EINVAL, "W is not symmetric at (%zu, %zu)",
                                i, j);
            m += W[i * n + j] > 0.0;
        }
    size_t *ei = malloc((m + 1) * sizeof *ei), *ej = malloc((m + 1) * sizeof *ej);
    if (!ei || !ej) {
        free(ei), free(ej);
        return cm_error(CM_ENOMEM, "out of memory for the topology");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (W[i * n + j] > 0.0) {
                ei[k] = i;
                ej[k++] = j;
            }
    cm_status s = cm_topo_from_edges(t, n, m, ei, ej);
    free(ei), free(ej);
    if (s != CM_OK)
        return s;
    t->ew = malloc((m + 1) * sizeof *t->ew);
    t->self = malloc((n + 1) * sizeof *t->self);
    t->adj_w = malloc((2 * m + 1) * sizeof *t->adj_w);
    if (!t->ew || !t->self || !t->adj_w) {
        cm_topo_destroy(t);
        return cm_error(CM_ENOMEM, "out of memory for the weights");
    }
    for (size_t e = 0; e < m; e++)
        t->ew[e] = W[t->ei[e] * n + t->ej[e]];
    for (size_t i = 0; i < n; i++) {
        double row = 0.0;
        for (size_t e = t->off[i]; e < t->off[i + 1]; e++) {
            t->adj_w[e] = W[i * n + t->adj[e]];
            row += t->adj_w[e];
        }
        t->self[i] = 1.0 - row; /* as the writer and readers recompute it */
    }
    return CM_OK;
}
