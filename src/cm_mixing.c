/* cm_mixing.c: mixing matrices on a topology and their spectra.
 *
 * Weight rules (Xiao & Boyd 2004, "Fast linear iterations for distributed
 * averaging"): constant Laplacian weights W = I - alpha L with the optimal
 * alpha = 2/(lambda_2 + lambda_n), which gives
 * SLEM = (lambda_n - lambda_2)/(lambda_n + lambda_2); Metropolis-Hastings
 * W_ij = 1/(1 + max(d_i, d_j)); max-degree alpha = 1/(d_max + 1).
 * Spectra: up to CM_SPARSE_FROM nodes dense (LAPACK dsyev from OpenBLAS,
 * eigenvalues only, O(n^3): the project's one dense path; GSL's
 * gsl_eigen_symm measured 1.5-2.4x slower at n = 256 and ~10x at 1,024 on
 * this machine), above that the sparse Lanczos of cm_lanczos (both ends
 * only, O(n) memory), falling back to dense up to CM_DENSE_MAX nodes when
 * it does not converge (long rings).
 */
#include "cm_topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_lanczos.h"

/* Dense below this many nodes, sparse from it (cm_lanczos.h). */
#define CM_SPARSE_FROM 2048
/* Largest n the dense fallback handles (n^2 doubles, O(n^3) time). */
#define CM_DENSE_MAX 4096

extern void dsyev_(const char *jobz, const char *uplo, const int *n,
                   double *a, const int *lda, double *w, double *work,
                   const int *lwork, int *info, size_t jobz_len,
                   size_t uplo_len);

/* Eigenvalues of the symmetric n x n matrix a (destroyed) into w,
 * ascending (LAPACK dsyev). */
static cm_status sym_eigenvalues(double *a, size_t n, double *w)
{
    if (n > CM_DENSE_MAX)
        return cm_error(CM_EINVAL, "dense eigensolve of order %zu (at most "
                        "%d)", n, CM_DENSE_MAX);
    int in = (int)n, lwork = -1, info = 0;
    double q = 0.0;
    dsyev_("N", "L", &in, a, &in, w, &q, &lwork, &info, 1, 1);
    lwork = info == 0 && q > 3.0 * (double)n ? (int)q : 3 * in;
    double *work = malloc((size_t)lwork * sizeof *work);
    if (!work)
        return cm_error(CM_ENOMEM, "out of memory for an eigensolve");
    dsyev_("N", "L", &in, a, &in, w, work, &lwork, &info, 1, 1);
    free(work);
    if (info != 0)
        return cm_error(CM_ENUMERIC, "LAPACK dsyev failed (info = %d) on "
                        "order %zu", info, n);
    return CM_OK;
}

/* 1 when the sparse solver should be tried first. */
static int use_sparse(size_t n)
{
    return n >= CM_SPARSE_FROM;
}

cm_status cm_topo_laplacian_extremes(const cm_topo *t, double *l2,
                                     double *ln)
{
    size_t n = t->n;
    *l2 = *ln = 0.0;
    if (n <= 1)
        return CM_OK;
    if (use_sparse(n)) {
        cm_status st = cm_topo_sparse_extremes(t, l2, ln);
        if (st != CM_ENUMERIC || n > CM_DENSE_MAX)
            return st;
    }
    double *a = calloc(n * n, sizeof *a), *ev = malloc(n * sizeof *ev);
    cm_status st = CM_OK;
    if (!a || !ev) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node Laplacian", n);
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] = (double)cm_topo_degree(t, i);
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            a[i * n + t->adj[p]] = -1.0;
    }
    st = sym_eigenvalues(a, n, ev);
    if (st == CM_OK) {
        *l2 = ev[1];
        *ln = ev[n - 1];
    }
cleanup:
    free(ev);
    free(a);
    return st;
}

cm_status cm_topo_slem(const cm_topo *t, double *slem)
{
    size_t n = t->n;
    *slem = 0.0;
    if (!t->self)
        return cm_error(CM_EINVAL, "SLEM of an unweighted topology");
    if (n <= 1)
        return CM_OK;
    if (use_sparse(n)) {
        cm_status st = cm_topo_sparse_slem(t, slem);
        if (st != CM_ENUMERIC || n > CM_DENSE_MAX)
            return st;
    }
    double *a = malloc(n * n * sizeof *a), *ev = malloc(n * sizeof *ev);
    cm_status st = CM_OK;
    if (!a || !ev) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node matrix", n);
        goto cleanup;
    }
    /* W - 11^T/n: its spectral norm is the SLEM of a symmetric stochastic W */
    for (size_t k = 0; k < n * n; k++)
        a[k] = -1.0 / (double)n;
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] += t->self[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            a[i * n + t->adj[p]] += t->adj_w[p];
    }
    st = sym_eigenvalues(a, n, ev);
    if (st == CM_OK)
        *slem = fmax(fabs(ev[0]), fabs(ev[n - 1]));
cleanup:
    free(ev);
    free(a);
    return st;
}

cm_status cm_weight_rule_parse(const char *s, cm_weight_rule *rule)
{
    static const struct { const char *name; cm_weight_rule r; } tab[] = {
        {"laplacian", CM_WEIGHTS_LAPLACIAN},
        {"mh", CM_WEIGHTS_MH},
        {"maxdeg", CM_WEIGHTS_MAXDEG},
    };
    for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
        if (strcmp(s, tab[k].name) == 0) {
            *rule = tab[k].r;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "unknown weight rule '%s' (expected "
                    "laplacian, mh or maxdeg)", s);
}

const char *cm_weight_rule_name(cm_weight_rule rule)
{
    switch (rule) {
    case CM_WEIGHTS_LAPLACIAN: return "laplacian";
    case CM_WEIGHTS_MH: return "mh";
    case CM_WEIGHTS_MAXDEG: return "maxdeg";
    }
    return "?";
}

cm_status cm_topo_set_weights(cm_topo *t, cm_weight_rule rule)
{
    size_t n = t->n, m = t->m;
    cm_status st = cm_topo_check_connected(t, "topology");
    if (st != CM_OK)
        return st;
    double *ew = malloc((m + 1) * sizeof *ew);
    double *self = malloc((n + 1) * sizeof *self);
    double *adj_w = malloc((2 * m + 1) * sizeof *adj_w);
    if (!ew || !self || !adj_w) {
        st = cm_error(CM_ENOMEM, "out of memory for weights");
        goto fail;
    }
    double alpha = 0.0;
    if (rule == CM_WEIGHTS_LAPLACIAN) {
        double l2, ln;
        st = cm_topo_laplacian_extremes(t, &l2, &ln);
        if (st != CM_OK)
            goto fail;
        alpha = n > 1 ? 2.0 / (l2 + ln) : 0.0;
    } else if (rule == CM_WEIGHTS_MAXDEG) {
        size_t dmin, dmax;
        cm_topo_degree_range(t, &dmin, &dmax);
        alpha = 1.0 / (double)(dmax + 1);
    }
    for (size_t k = 0; k < m; k++) {
        if (rule == CM_WEIGHTS_MH) {
            size_t di = cm_topo_degree(t, t->ei[k]);
            size_t dj = cm_topo_degree(t, t->ej[k]);
            ew[k] = 1.0 / (double)(1 + (di > dj ? di : dj));
        } else {
            ew[k] = alpha;
        }
    }
    /* adj_w in CSR order, and self weight = 1 - row sum of off-diagonal */
    for (size_t i = 0; i < n; i++) {
        double row = 0.0;
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            size_t j = t->adj[p];
            double w;
            if (rule == CM_WEIGHTS_MH) {
                size_t di = cm_topo_degree(t, i), dj = cm_topo_degree(t, j);
                w = 1.0 / (double)(1 + (di > dj ? di : dj));
            } else {
                w = alpha;
            }
            adj_w[p] = w;
            row += w;
        }
        self[i] = 1.0 - row;
    }
    free(t->ew);
    free(t->self);
    free(t->adj_w);
    t->ew = ew;
    t->self = self;
    t->adj_w = adj_w;
    return CM_OK;
fail:
    free(ew);
    free(self);
    free(adj_w);
    return st;
}

cm_status cm_topo_validate(const cm_topo *t, const char *path)
{
    return cm_topo_validate_slem(t, path, NULL);
}

cm_status cm_topo_validate_slem(const cm_topo *t, const char *path,
                                double *slem_out)
{
    if (slem_out)
        *slem_out = -1.0;
    cm_status st = cm_topo_check_connected(t, path);
    if (st != CM_OK || !t->self)
        return st;
    for (size_t i = 0; i < t->n; i++) {
        /* compensated sum, so that a file written with %.17g passes */
        double s = t->self[i], c = 0.0;
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            double y = t->adj_w[p] - c, u = s + y;
            c = (u - s) - y;
            s = u;
        }
        if (!(fabs(s - 1.0) <= CM_TOPO_ROW_TOL))
            return cm_error(CM_ETOPO, "%s: row %zu of W sums to %.12g, not 1 "
                            "(within %g): W must be stochastic%s", path, i, s,
                            CM_TOPO_ROW_TOL,
                            t->self[i] == 0.0 ? "; is the self-weight line "
                            "`i i w` missing?" : "");
    }
    double slem;
    st = cm_topo_slem(t, &slem);
    if (st != CM_OK)
        return cm_error_prefix(st, "%s", path);
    if (!(slem < 1.0 - 1e-12))
        return cm_error(CM_ETOPO, "%s: W does not mix: its second-largest "
                        "eigenvalue modulus is %.6g (must be below 1)", path,
                        slem);
    if (slem_out)
        *slem_out = slem;
    return CM_OK;
}
