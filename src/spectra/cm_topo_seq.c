/* cm_topo_seq.c: the spectral rules of a periodic sequence of weighted
 * graphs (cm_topo_seq.h): each round's eigenvalues in [-1, 1] and the
 * period's product contracting. Dense below CM_MIXING_DENSE_MAX nodes
 * (cm_eigen's LAPACK dsyev, the product A^T A by cblas_dgemm): the products
 * of sparse rounds are formed row by row in O(n (n + m)), the norm of the
 * non-symmetric A = product - 11^T/n is sqrt(lambda_max(A^T A)); above,
 * Lanczos on the operator P^T P (cm_shiftinv_op_max).
 */
#define _POSIX_C_SOURCE 200809L
#include "cm_topo_seq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_eigen.h"
#include "cm_lapack.h"
#include "cm_mixing.h"
#include "cm_shiftinv.h"

/* x -> P^T P x for P = W_{r-1} ... W_0 (each W symmetric), on the
 * complement of 1 that every symmetric stochastic W keeps. */
typedef struct {
    const cm_topo_seq *s;
    size_t rounds;
    double *tmp; /* [n] */
} prod_ctx;

static void w_apply(const cm_topo *t, const double *x, double *y)
{
    for (size_t i = 0; i < t->n; i++) {
        double v = t->self[i] * x[i];
        for (size_t k = t->off[i]; k < t->off[i + 1]; k++)
            v += t->adj_w[k] * x[t->adj[k]];
        y[i] = v;
    }
}

static void center(double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        x[i] -= m;
}

static void prod_apply(const void *ctx, const double *x, double *y)
{
    const prod_ctx *c = ctx;
    size_t n = c->s->n, P = c->s->period;
    double *a = y, *b = c->tmp;
    memcpy(a, x, n * sizeof *a);
    /* P keeps 1 (eigenvalue 1) and may kill the rest (exact averaging):
     * rounding's 1-component of x would then be all of P^T P x */
    center(a, n);
    for (size_t r = 0; r < 2 * c->rounds; r++) { /* P x, then P^T (P x) */
        size_t k = r < c->rounds ? r : 2 * c->rounds - 1 - r;
        w_apply(&c->s->round[k % P], a, b);
        double *t = a;
        a = b;
        b = t;
    }
    if (a != y)
        memcpy(y, a, n * sizeof *y);
    center(y, n);
}

/* The norm by Lanczos on P^T P (above CM_MIXING_DENSE_MAX nodes):
 * O(rounds (n + m)) per product, O(n) memory. */
static cm_status seq_norm_sparse(const cm_topo_seq *s, size_t rounds,
                                 double *norm)
{
    prod_ctx c = {s, rounds, malloc(s->n * sizeof(double))};
    if (!c.tmp)
        return cm_error(CM_ENOMEM, "out of memory for %zu-node products",
                        s->n);
    double mx = 0.0;
    cm_status st = cm_shiftinv_op_max(s->n, prod_apply, &c, 1.0, 3000, &mx);
    free(c.tmp);
    if (st == CM_OK)
        *norm = sqrt(mx);
    return st;
}

cm_status cm_topo_seq_norm(const cm_topo_seq *s, size_t rounds, double *norm)
{
    size_t n = s->n;
    *norm = 1.0;
    for (size_t r = 0; r < s->period; r++)
        if (!s->round[r].self)
            return cm_error(CM_EINVAL, "round %zu has no weights", r);
    if (n <= 1) {
        *norm = 0.0;
        return CM_OK;
    }
    if (n > CM_MIXING_DENSE_MAX)
        return seq_norm_sparse(s, rounds, norm);
    /* row-major n x n products */
    double *p = malloc(n * n * sizeof *p), *q = malloc(n * n * sizeof *q);
    double *b = malloc(n * n * sizeof *b);
    double *ev = malloc(n * sizeof *ev);
    cm_status st = CM_OK;
    if (!p || !q || !b || !ev) {
        st = cm_error(CM_ENOMEM, "out of memory for %zu-node products", n);
        goto cleanup;
    }
    for (size_t k = 0; k < n * n; k++)
        p[k] = k % (n + 1) == 0 ? 1.0 : 0.0;
    for (size_t r = 0; r < rounds; r++) {
        const cm_topo *t = &s->round[r % s->period];
        /* q = W_t p, row by row over the sparse W_t */
        for (size_t i = 0; i < n; i++) {
            double *qi = q + i * n;
            const double *pi = p + i * n;
            for (size_t j = 0; j < n; j++)
                qi[j] = t->self[i] * pi[j];
            for (size_t k = t->off[i]; k < t->off[i + 1]; k++) {
                const double *pj = p + t->adj[k] * n;
                double wk = t->adj_w[k];
                for (size_t j = 0; j < n; j++)
                    qi[j] += wk * pj[j];
            }
        }
        double *tmp = p;
        p = q;
        q = tmp;
    }
    /* A = product - 11^T/n (in p); ||A||_2^2 = lambda_max(A^T A) */
    for (size_t k = 0; k < n * n; k++)
        p[k] += -1.0 / (double)n;
    int in = (int)n; /* n <= CM_MIXING_DENSE_MAX */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, in, in, in, 1.0, p,
                in, p, in, 0.0, b, in);
    /* b is symmetric: LAPACK reads it as it is */
    if ((st = cm_eigen_sym(CM_EIGEN_VALUES, n, b, ev)) != CM_OK)
        goto cleanup;
    *norm = sqrt(fmax(ev[n - 1], 0.0));
cleanup:
    free(ev);
    free(b);
    free(q);
    free(p);
    return st;
}

cm_status cm_topo_seq_validate(const cm_topo_seq *s, const char *path,
                               double *norm)
{
    if (norm)
        *norm = -1.0;
    if (s->period == 0)
        return cm_error(CM_ETOPO, "%s: no rounds", path);
    if (s->period == 1)
        return cm_topo_validate_slem(&s->round[0], path, norm);
    char name[512];
    for (size_t r = 0; r < s->period; r++) {
        const cm_topo *t = &s->round[r];
        snprintf(name, sizeof name, "%s: round %zu (line %zu)", path, r,
                 s->line[r]);
        cm_status st = cm_topo_check_stochastic(t, name);
        if (st != CM_OK)
            return st;
        double lo, hi;
        if (t->n > CM_MIXING_DENSE_MAX) { /* sparse: W's ends on 1^perp */
            st = cm_topo_w_extremes(t, &hi, &lo);
            hi = fmax(hi, 1.0);
            lo = fmin(lo, 1.0);
        } else {
            st = cm_topo_w_range(t, &lo, &hi);
        }
        if (st != CM_OK)
            return cm_error_prefix(st, "%s", name);
        if (hi > 1.0 + CM_TOPO_SEQ_EIG_TOL || lo < -1.0 - CM_TOPO_SEQ_EIG_TOL)
            return cm_error(CM_ETOPO, "%s: W has the eigenvalue %.6g, outside "
                            "[-1, 1] (gossip with it would amplify "
                            "disagreement)", name,
                            hi > 1.0 + CM_TOPO_SEQ_EIG_TOL ? hi : lo);
    }
    double pn;
    cm_status st = cm_topo_seq_norm(s, s->period, &pn);
    if (st != CM_OK)
        return cm_error_prefix(st, "%s", path);
    if (!(pn < 1.0 - CM_TOPO_SEQ_EIG_TOL))
        return cm_error(CM_ETOPO, "%s: the sequence does not mix: the "
                        "product of its %zu rounds has ||W_%zu ... W_0 - "
                        "11^T/n||_2 = %.6g (must be below 1; is the union of "
                        "the rounds' graphs connected?)", path, s->period,
                        s->period - 1, pn);
    if (norm)
        *norm = pn;
    return CM_OK;
}

cm_status cm_topo_seq_load(cm_topo_seq *s, const char *path, double *norm)
{
    cm_status st = cm_topo_seq_read(s, path);
    if (st == CM_OK)
        st = cm_topo_seq_validate(s, path, norm);
    if (st != CM_OK)
        cm_topo_seq_destroy(s);
    return st;
}
