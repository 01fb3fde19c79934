/* cm_mixing.c: mixing matrices on a topology and their spectra (see
 * cm_mixing.h).
 *
 * Weight rules (Xiao & Boyd 2004, "Fast linear iterations for distributed
 * averaging"): constant Laplacian weights W = I - alpha L with the optimal
 * alpha = 2/(lambda_2 + lambda_n), which gives
 * SLEM = (lambda_n - lambda_2)/(lambda_n + lambda_2); Metropolis-Hastings
 * W_ij = 1/(1 + max(d_i, d_j)); max-degree alpha = 1/(d_max + 1).
 * Spectra: below CM_SPARSE_FROM nodes dense (cm_eigen: LAPACK dsyev,
 * eigenvalues only, O(n^3): the project's one dense path; GSL's
 * gsl_eigen_symm measured 1.5-2.4x slower at n = 256 and ~10x at 1,024 on
 * this machine), from there cm_shiftinv (the Lanczos engine of
 * cm_lanczos holding two vectors, and shift-and-invert where it is slow:
 * both ends only, O(n + m) memory), falling back to dense up to CM_MIXING_DENSE_MAX
 * nodes when it does not converge (long rings). dense_check is the one
 * place that decides whether a graph is small enough for the dense path.
 */
#include "cm_mixing.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_dlin.h"
#include "cm_eigen.h"
#include "cm_lapack.h"
#include "cm_lanczos.h"
#include "cm_shiftinv.h"

/* Eigenvalues of the symmetric n x n matrix a (destroyed) into w,
 * ascending (cm_eigen: LAPACK dsyev with its optimal workspace). */
static cm_status sym_eigenvalues(double *a, size_t n, double *w)
{
    return cm_eigen_sym(CM_EIGEN_VALUES, n, a, w);
}

/* 1 when the sparse solver runs first (it falls back to dense when it
 * does not converge and n <= CM_MIXING_DENSE_MAX). */
static int use_sparse(size_t n)
{
    return n >= CM_SPARSE_FROM;
}

/* A W mixes when ||W - 11^T/n||_2 is below this: 1 less a margin for
 * the eigensolver's rounding (an exact SLEM of 1, a disconnected or
 * bipartite graph, computes to 1 +- ~1e-15). */
#define SLEM_MIXES (1.0 - 1e-12)

/* Refuses graphs the dense spectra cannot hold, before allocating. */
static cm_status dense_check(size_t n, const char *what)
{
    if (n > CM_MIXING_DENSE_MAX)
        return cm_error(CM_EINVAL, "%s of a %zu-node graph: the dense "
                        "eigensolver is limited to %d nodes (O(n^2) memory, "
                        "O(n^3) time)", what, n, CM_MIXING_DENSE_MAX);
    return CM_OK;
}

cm_status cm_topo_laplacian_extremes(const cm_topo *t, double *l2,
                                     double *ln)
{
    size_t n = t->n;
    *l2 = *ln = 0.0;
    if (n <= 1)
        return CM_OK;
    if (t->lap_known) { /* this graph's, computed before */
        *l2 = t->lap_l2;
        *ln = t->lap_ln;
        return CM_OK;
    }
    if (use_sparse(n)) {
        cm_status st = cm_shiftinv_ends(t, 0, l2, ln, NULL);
        if (st != CM_ENUMERIC || n > CM_MIXING_DENSE_MAX)
            return st;
    }
    cm_status st = dense_check(n, "Laplacian spectrum");
    if (st != CM_OK)
        return st;
    double *a = malloc(n * n * sizeof *a), *ev = malloc(n * sizeof *ev);
    if (!a || !ev) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node Laplacian", n);
        goto cleanup;
    }
    cm_topo_csr_laplacian(n, t->off, t->adj, a);
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

/* 1 with *a when t's W = I - a L: every edge weight equal to a and
 * every W_ii = 1 - d_i a within rounding (|1 - W_ii - d_i a| <= 8 eps,
 * far below what the spectra resolve). */
static int w_is_scaled_laplacian(const cm_topo *t, double *a)
{
    if (!t->self || !t->adj_w || t->directed || t->m == 0)
        return 0;
    double w = t->adj_w[0];
    for (size_t p = 0; p < 2 * t->m; p++)
        if (t->adj_w[p] != w)
            return 0;
    for (size_t i = 0; i < t->n; i++) {
        double d = (double)(t->off[i + 1] - t->off[i]);
        if (!(fabs(1.0 - t->self[i] - d * w) <= 8.0 * DBL_EPSILON))
            return 0;
    }
    *a = w;
    return 1;
}

cm_status cm_topo_spectra(const cm_topo *t, double *l2, double *ln,
                          double *slem)
{
    *slem = 0.0;
    cm_status st = cm_topo_laplacian_extremes(t, l2, ln);
    if (st != CM_OK)
        return st;
    double a;
    if (use_sparse(t->n) && w_is_scaled_laplacian(t, &a)) {
        *slem = fmax(fabs(1.0 - a * *l2), fabs(1.0 - a * *ln));
        return CM_OK;
    }
    return cm_topo_slem(t, slem);
}

/* ||W - 11^T/n||_2 of a directed W: the square root of the largest
 * eigenvalue of A A^T, A = W - J (fixed-order dot products, cm_eigen). Dense,
 * O(n^3). */
static cm_status dir_slem(const cm_topo *t, double *slem)
{
    size_t n = t->n;
    cm_status st = dense_check(n, "||W - J||_2 of a directed W");
    if (st != CM_OK)
        return st;
    double *a = malloc(n * n * sizeof *a), *b = calloc(n * n, sizeof *b);
    double *ev = malloc(n * sizeof *ev);
    if (!a || !b || !ev) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node matrix", n);
        goto cleanup;
    }
    /* a holds W - 11^T/n by columns (column j contiguous: W_ij - 1/n
     * for all i), and B = (W - J/n)^T (W - J/n) is made of their dot
     * products in a fixed order (cm_dlin; dsyrk's kernels summed in the
     * CPU's order: docs/topo/portable-bits.md), lower triangle only */
    for (size_t k = 0; k < n * n; k++)
        a[k] = -1.0 / (double)n;
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] += t->self[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            a[t->adj[p] * n + i] += t->adj_w[p];
    }
    for (size_t j = 0; j < n; j++)
        for (size_t i = j; i < n; i++)
            b[j * n + i] = cm_dlin_dot(n, a + i * n, a + j * n);
    st = sym_eigenvalues(b, n, ev);
    if (st == CM_OK)
        *slem = sqrt(fmax(ev[n - 1], 0.0));
cleanup:
    free(ev);
    free(b);
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
    if (t->directed)
        return dir_slem(t, slem);
    if (use_sparse(n)) {
        double m2, mmax; /* of M = I - W: mu = 1 - lambda */
        cm_status st = cm_shiftinv_ends(t, 1, &m2, &mmax, NULL);
        *slem = fmax(fabs(1.0 - m2), fabs(1.0 - mmax));
        if (st != CM_ENUMERIC || n > CM_MIXING_DENSE_MAX)
            return st;
    }
    cm_status st = dense_check(n, "SLEM");
    if (st != CM_OK)
        return st;
    double *a = malloc(n * n * sizeof *a), *ev = malloc(n * sizeof *ev);
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

/* The weight rules: name, and the off-diagonal W_ij of edge i~j given
 * alpha (computed once per graph by the rule's `alpha` hook, or 0). */
typedef struct {
    const char *name;
    cm_weight_rule rule;
    cm_status (*alpha)(cm_topo *t, double *alpha); /* or NULL */
    double (*weight)(const cm_topo *t, size_t i, size_t j, double alpha);
} rule_spec;

static cm_status alpha_laplacian(cm_topo *t, double *alpha)
{
    double l2, ln;
    *alpha = 0.0;
    cm_status st = cm_topo_laplacian_extremes(t, &l2, &ln);
    if (st == CM_OK) { /* for the figures asked next (cm_topo_spectra) */
        t->lap_known = 1;
        t->lap_l2 = l2;
        t->lap_ln = ln;
    }
    *alpha = st == CM_OK && l2 + ln > 0.0 ? 2.0 / (l2 + ln) : 0.0;
    if (st == CM_ENUMERIC && t->n > CM_MIXING_DENSE_MAX) {
        char why[200]; /* cm_error reuses the buffer cm_last_error reads */
        snprintf(why, sizeof why, "%s", cm_last_error());
        return cm_error(CM_EINVAL, "laplacian weights of a %zu-node graph "
                        "need its Laplacian spectrum, which the sparse "
                        "eigensolver could not find (%s; above %d nodes "
                        "there is no dense fallback): use mh or maxdeg "
                        "weights", t->n, why, CM_MIXING_DENSE_MAX);
    }
    return st;
}

static cm_status alpha_maxdeg(cm_topo *t, double *alpha)
{
    size_t dmin, dmax;
    cm_topo_degree_range(t, &dmin, &dmax);
    *alpha = 1.0 / (double)(dmax + 1);
    return CM_OK;
}

static double w_constant(const cm_topo *t, size_t i, size_t j, double alpha)
{
    (void)t, (void)i, (void)j;
    return alpha;
}

static double w_mh(const cm_topo *t, size_t i, size_t j, double alpha)
{
    (void)alpha;
    size_t di = cm_topo_degree(t, i), dj = cm_topo_degree(t, j);
    return 1.0 / (double)(1 + (di > dj ? di : dj));
}

static const rule_spec RULES[] = {
    {"laplacian", CM_WEIGHTS_LAPLACIAN, alpha_laplacian, w_constant},
    {"mh", CM_WEIGHTS_MH, NULL, w_mh},
    {"maxdeg", CM_WEIGHTS_MAXDEG, alpha_maxdeg, w_constant},
};
#define N_RULES (sizeof RULES / sizeof RULES[0])

const char *cm_weight_rule_list(void)
{
    static char buf[256];
    if (!buf[0])
        for (size_t k = 0; k < N_RULES; k++) {
            size_t len = strlen(buf);
            snprintf(buf + len, sizeof buf - len, "%s%s", k ? ", " : "",
                     RULES[k].name);
        }
    return buf;
}

cm_status cm_weight_rule_parse(const char *s, cm_weight_rule *rule)
{
    for (size_t k = 0; k < N_RULES; k++)
        if (strcmp(s, RULES[k].name) == 0) {
            *rule = RULES[k].rule;
            return CM_OK;
        }
    if (strcmp(s, "fdla") == 0) /* topogen handles it (topo/tg_fdla.c) */
        return cm_error(CM_EINVAL, "fdla weights come from an SDP solve in "
                        "topogen: write them into the file with `topogen "
                        "--weights fdla` (here: %s)", cm_weight_rule_list());
    return cm_error(CM_EINVAL, "unknown weight rule '%s' (expected %s)", s,
                    cm_weight_rule_list());
}

const char *cm_weight_rule_name(cm_weight_rule rule)
{
    for (size_t k = 0; k < N_RULES; k++)
        if (RULES[k].rule == rule)
            return RULES[k].name;
    return "?";
}

cm_status cm_topo_set_weights(cm_topo *t, cm_weight_rule rule)
{
    size_t n = t->n, m = t->m;
    const rule_spec *r = NULL;
    for (size_t k = 0; k < N_RULES; k++)
        if (RULES[k].rule == rule)
            r = &RULES[k];
    if (!r)
        return cm_error(CM_EINVAL, "unknown weight rule %d", (int)rule);
    cm_status st = CM_OK;
    double alpha = 0.0;
    if (r->alpha && (st = r->alpha(t, &alpha)) != CM_OK)
        return st;
    if ((st = cm_topo_alloc_weights(t)) != CM_OK)
        return st;
    for (size_t k = 0; k < m; k++)
        t->ew[k] = r->weight(t, t->ei[k], t->ej[k], alpha);
    /* adj_w in CSR order, and self weight = 1 - row sum of off-diagonal,
     * summed in CSR order: the reader recomputes it the same way */
    for (size_t i = 0; i < n; i++) {
        double row = 0.0;
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            t->adj_w[p] = r->weight(t, i, t->adj[p], alpha);
            row += t->adj_w[p];
        }
        t->self[i] = 1.0 - row;
    }
    return CM_OK;
}

cm_status cm_topo_install_weights(cm_topo *t, const double *ew)
{
    double *w = malloc((t->m + 1) * sizeof *w); /* ew may be t->ew */
    if (!w)
        return cm_error(CM_ENOMEM, "out of memory for weights");
    memcpy(w, ew, t->m * sizeof *w);
    cm_status st = cm_topo_alloc_weights(t);
    if (st != CM_OK) {
        free(w);
        return st;
    }
    memcpy(t->ew, w, t->m * sizeof *w);
    for (size_t i = 0; i < t->n; i++) {
        double row = 0.0;
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++) {
            size_t j = t->adj[p];
            t->adj_w[p] = w[i < j ? cm_topo_edge_index(t, i, j)
                              : cm_topo_edge_index(t, j, i)];
            row += t->adj_w[p];
        }
        t->self[i] = 1.0 - row;
    }
    free(w);
    return CM_OK;
}

cm_status cm_topo_validate(const cm_topo *t, const char *path)
{
    return cm_topo_validate_slem(t, path, NULL);
}

cm_status cm_topo_check_stochastic(const cm_topo *t, const char *path)
{
    if (t->directed)
        return cm_topo_check_doubly(t, path);
    if (!t->self)
        return CM_OK;
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
                            "(within %g): W 1 = 1 is required", path, i, s,
                            CM_TOPO_ROW_TOL);
    }
    return CM_OK;
}

/* cm_topo_validate_slem of a directed t: W doubly stochastic and
 * strongly connected (every node reached along arcs and against them from
 * node 0); nonnegative with a positive W_ii somewhere then mixes
 * (primitive, Perron-Frobenius), anything else needs ||W - J||_2 < 1.
 * *slem_out gets ||W - J||_2 up to CM_MIXING_DENSE_MAX nodes. An epidemic
 * t (drawn per round) passes as is. */
static cm_status validate_directed(const cm_topo *t, const char *path,
                                   double *slem_out)
{
    if (cm_topo_is_epidemic(t) || t->n <= 1)
        return CM_OK;
    cm_status st = cm_topo_check_doubly(t, path);
    for (int dir = 0; dir < 2 && st == CM_OK; dir++) {
        size_t count = 0, *comp = malloc(t->n * sizeof *comp);
        if (!comp)
            return cm_error(CM_ENOMEM, "%s: out of memory", path);
        /* components of a doubly stochastic W's digraph are strongly
         * connected, so one search per direction settles it */
        st = cm_topo_csr_components(t->n, dir ? t->out_off : t->off,
                                    dir ? t->out_adj : t->adj, comp, &count);
        size_t miss = 0;
        for (size_t i = 0; i < t->n && st == CM_OK; i++)
            if (comp[i] != 0) {
                miss = i;
                break;
            }
        free(comp);
        if (st == CM_OK && count > 1)
            return cm_error(CM_ETOPO, "%s: the directed graph is not strongly "
                            "connected (node %zu is not reached %s node 0)",
                            path, miss, dir ? "from" : "by arcs into");
    }
    if (st != CM_OK)
        return st;
    int nonneg = 1, diag = 0;
    for (size_t i = 0; i < t->n; i++)
        diag |= t->self[i] > 0.0;
    for (size_t k = 0; k < t->m; k++)
        nonneg &= t->ew[k] >= 0.0;
    if (nonneg && diag && t->n > CM_MIXING_DENSE_MAX)
        return CM_OK;
    double slem = 1.0;
    st = cm_topo_slem(t, &slem);
    if (st != CM_OK)
        return cm_error_prefix(st, "%s", path);
    if (!(nonneg && diag) && !(slem < SLEM_MIXES))
        return cm_error(CM_ETOPO, "%s: W does not mix: ||W - 11^T/n||_2 is "
                        "%.6g (must be below 1 when W has negative weights "
                        "or no positive self weight)", path, slem);
    if (slem_out)
        *slem_out = slem;
    return CM_OK;
}

cm_status cm_topo_validate_slem(const cm_topo *t, const char *path,
                                double *slem_out)
{
    if (slem_out)
        *slem_out = -1.0;
    if (t->directed)
        return validate_directed(t, path, slem_out);
    cm_status st = cm_topo_check_connected(t, path);
    if (st != CM_OK || !t->self)
        return st;
    st = cm_topo_check_stochastic(t, path);
    if (st != CM_OK)
        return st;
    double slem;
    st = cm_topo_slem(t, &slem);
    if (st == CM_ENUMERIC && t->n > CM_MIXING_DENSE_MAX) {
        /* No spectrum (large fill and no convergence). A connected
         * symmetric stochastic W with nonnegative weights and positive
         * diagonal mixes (Perron-Frobenius: 1 is a simple eigenvalue, -1
         * is not one), so such a W is accepted without it; anything else
         * is refused. */
        char why[256];
        snprintf(why, sizeof why, "%s", cm_last_error());
        for (size_t i = 0; i < t->n; i++) {
            int ok = t->self[i] > 0.0;
            for (size_t p = t->off[i]; ok && p < t->off[i + 1]; p++)
                ok = t->adj_w[p] >= 0.0;
            if (!ok)
                return cm_error(CM_ETOPO, "%s: row %zu of W has a negative "
                                "weight or no positive self weight, and the "
                                "SLEM that would show W still mixes could "
                                "not be computed (%s)", path, i, why);
        }
        return CM_OK;
    }
    if (st != CM_OK)
        return cm_error_prefix(st, "%s", path);
    if (!(slem < SLEM_MIXES)) {
        /* negative weights are fine while W still mixes; say so when they
         * are the likely cause */
        size_t neg = 0;
        for (size_t k = 0; k < t->m; k++)
            neg += t->ew[k] < 0.0;
        return cm_error(CM_ETOPO, "%s: W does not mix: its second-largest "
                        "eigenvalue modulus ||W - 11^T/n||_2 is %.6g (must "
                        "be below 1)%s", path, slem, neg ? "; W has negative "
                        "edge weights, which are allowed only while it "
                        "mixes" : "");
    }
    if (slem_out)
        *slem_out = slem;
    return CM_OK;
}

/* Every eigenvalue of the weighted t's symmetric W, ascending, into a new
 * array *ev_out[n] (the caller frees): dense fill and dsyev, refused above
 * CM_MIXING_DENSE_MAX before allocating. */
static cm_status w_dense_spectrum(const cm_topo *t, double **ev_out)
{
    size_t n = t->n;
    *ev_out = NULL;
    cm_status st = dense_check(n, "the spectrum of W");
    if (st != CM_OK)
        return st;
    double *a = calloc(n * n, sizeof *a), *ev = malloc(n * sizeof *ev);
    if (!a || !ev) {
        st = cm_error(CM_ENOMEM, "out of memory for a %zu-node matrix", n);
        goto cleanup;
    }
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] = t->self[i];
        for (size_t p = t->off[i]; p < t->off[i + 1]; p++)
            a[i * n + t->adj[p]] = t->adj_w[p];
    }
    st = sym_eigenvalues(a, n, ev);
    if (st == CM_OK) {
        *ev_out = ev;
        ev = NULL;
    }
cleanup:
    free(ev);
    free(a);
    return st;
}

cm_status cm_topo_w_extremes(const cm_topo *t, double *l2, double *lmin)
{
    size_t n = t->n;
    *l2 = *lmin = 1.0;
    if (!t->self)
        return cm_error(CM_EINVAL, "spectrum of an unweighted topology");
    if (n <= 1)
        return CM_OK;
    if (use_sparse(n)) {
        double m2, mmax;
        cm_status st = cm_shiftinv_ends(t, 1, &m2, &mmax, NULL);
        *l2 = 1.0 - m2;
        *lmin = 1.0 - mmax;
        if (st != CM_ENUMERIC || n > CM_MIXING_DENSE_MAX)
            return st;
    }
    double *ev;
    cm_status st = w_dense_spectrum(t, &ev);
    if (st == CM_OK) {
        *l2 = ev[n - 2];
        *lmin = ev[0];
    }
    free(ev);
    return st;
}

cm_status cm_topo_w_range(const cm_topo *t, double *lo, double *hi)
{
    if (!t->self) {
        *lo = *hi = 1.0;
        return cm_error(CM_EINVAL, "spectrum of an unweighted topology");
    }
    *lo = *hi = t->n ? t->self[0] : 1.0;
    if (t->n <= 1)
        return CM_OK;
    double *ev;
    cm_status st = w_dense_spectrum(t, &ev);
    if (st == CM_OK) {
        *lo = ev[0];
        *hi = ev[t->n - 1];
    }
    free(ev);
    return st;
}
