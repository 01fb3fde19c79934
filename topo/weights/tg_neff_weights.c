/* tg_neff_weights.c: n_eff-optimal weights by Newton's method with a dual
 * certificate, and the one-parameter alpha scan (see tg_neff_weights.h).
 *
 * With X1 = I - sW = (1 - s) I + s L(w), X2 = I + sW = (1 + s) I - s L(w),
 * G_k = X_k^-1, a_e = e_p - e_q for edge e = {p, q}:
 *
 *   F          = (tr G1 + tr G2) / (2 gamma) - n / gamma
 *   dF/dw_e    = (s / (2 gamma)) (a_e^T G2^2 a_e - a_e^T G1^2 a_e)
 *   d2F/dwe dwf = (a_e^T G1 a_f)(a_e^T G1^2 a_f) + (a_e^T G2 a_f)(a_e^T G2^2 a_f)
 *
 * (d tr X^-1 = -tr(G dX G), d2 = 2 tr(G dX G dX' G); s^2 = gamma), so a
 * step costs what an FDLA step does: two O(n^3) inversions, two products
 * G^2, an O(m^2) fill with the quad() of tg_fdla.c, one Cholesky solve.
 * The certificate is FDLA's construction on Z_k = G_k^2 (the maximisers
 * of 2 tr Z^(1/2) - tr(Z X_k) at the current point): the edge residual
 * c_e = a_e^T (Z1 - Z2) a_e (zero exactly at the optimum) is removed by
 * K delta = -c, K_ef = (a_e^T a_f)^2, adding delta^+ to Z1 and delta^- to
 * Z2, and the bound is then optimised over a common scale of (Z1, Z2).
 */
#include "tg_neff_weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_eigen.h"
#include "cm_mixing.h"
#include "cm_time.h"
#include "tg_neff.h"
#include "cm_lapack.h"


#define MAX_NEWTON 100

typedef struct {
    size_t n, m;
    const size_t *ei, *ej;
    double gamma, s;
    double *g1, *g2, *q1, *q2; /* [n*n] G1, G2 and their squares */
    double *h, *k;             /* [m*m] Newton matrix; K (certificate) */
    double *grad, *dx, *x, *xt, *c; /* [m] */
    double *ev, *work;         /* [n], [lwork] for dsyev */
    int lwork;
} ws;

static void ws_free(ws *a)
{
    free(a->g1);
    free(a->g2);
    free(a->q1);
    free(a->q2);
    free(a->h);
    free(a->k);
    free(a->grad);
    free(a->dx);
    free(a->x);
    free(a->xt);
    free(a->c);
    free(a->ev);
    free(a->work);
}

/* X = c0 I + sign s L(w) into f (n x n). */
static void fill_x(const ws *a, const double *w, double c0, double sign,
                   double *f)
{
    size_t n = a->n;
    memset(f, 0, n * n * sizeof *f);
    for (size_t i = 0; i < n; i++)
        f[i * n + i] = c0;
    for (size_t e = 0; e < a->m; e++) {
        size_t p = a->ei[e], q = a->ej[e];
        double v = sign * a->s * w[e];
        f[p * n + p] += v;
        f[q * n + q] += v;
        f[p * n + q] -= v;
        f[q * n + p] -= v;
    }
}

/* g = X^-1 (full) for X1 (k = 1) or X2 at w; 1 when X is not PD. */
static int inverse(const ws *a, const double *w, int k, double *g)
{
    size_t n = a->n;
    int in = (int)n, info = 0;
    fill_x(a, w, k == 1 ? 1.0 - a->s : 1.0 + a->s, k == 1 ? 1.0 : -1.0, g);
    LAPACK_dpotrf("L", &in, g, &in, &info);
    if (info != 0)
        return 1;
    LAPACK_dpotri("L", &in, g, &in, &info);
    if (info != 0)
        return 1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            g[j * n + i] = g[i * n + j];
    return 0;
}

static double trace(const double *g, size_t n)
{
    double t = 0.0;
    for (size_t i = 0; i < n; i++)
        t += g[i * n + i];
    return t;
}

/* F(w) with G1, G2 left in g1, g2; 1 when w is outside the domain. */
static int objective(ws *a, const double *w, double *f)
{
    if (inverse(a, w, 1, a->g1) || inverse(a, w, 2, a->g2))
        return 1;
    *f = (trace(a->g1, a->n) + trace(a->g2, a->n)) / (2.0 * a->gamma) -
         (double)a->n / a->gamma;
    return !isfinite(*f);
}

static inline double quad(const double *g, size_t n, size_t p, size_t q,
                          size_t r, size_t s)
{
    return g[p * n + r] - g[p * n + s] - g[q * n + r] + g[q * n + s];
}

static void squares(ws *a)
{
    int in = (int)a->n;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in, 1.0,
                a->g1, in, a->g1, in, 0.0, a->q1, in);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in, 1.0,
                a->g2, in, a->g2, in, 0.0, a->q2, in);
}

/* Gradient and Hessian at the point whose G1, G2 are in g1, g2. */
static void newton_system(ws *a)
{
    size_t n = a->n, m = a->m;
    squares(a);
    double cg = a->s / (2.0 * a->gamma);
    for (size_t e = 0; e < m; e++) {
        size_t p = a->ei[e], q = a->ej[e];
        a->grad[e] = cg * (quad(a->q2, n, p, q, p, q) -
                           quad(a->q1, n, p, q, p, q));
        for (size_t f = 0; f <= e; f++) {
            size_t r = a->ei[f], s = a->ej[f];
            double v = quad(a->g1, n, p, q, r, s) * quad(a->q1, n, p, q, r, s) +
                       quad(a->g2, n, p, q, r, s) * quad(a->q2, n, p, q, r, s);
            a->h[e * m + f] = a->h[f * m + e] = v;
        }
    }
}

static int chol(double *h, size_t m)
{
    int im = (int)m, info = 0;
    LAPACK_dpotrf("L", &im, h, &im, &info);
    return info;
}

/* tr Z^(1/2) of the PSD z (destroyed); negative eigenvalues (rounding)
 * count as 0. */
static cm_status trace_sqrt(ws *a, double *z, double *out)
{
    cm_status st = cm_eigen_sym_work(CM_EIGEN_VALUES, a->n, z, a->ev, a->work,
                                     (size_t)a->lwork);
    if (st != CM_OK)
        return cm_error_prefix(st, "n_eff weights");
    double s = 0.0;
    for (size_t i = 0; i < a->n; i++)
        s += a->ev[i] > 0.0 ? sqrt(a->ev[i]) : 0.0;
    *out = s;
    return CM_OK;
}

/* The certified lower bound on min F from q1 = G1^2, q2 = G2^2 (both
 * destroyed). */
static cm_status dual_bound(ws *a, double *lb)
{
    size_t n = a->n, m = a->m;
    for (size_t e = 0; e < m; e++) {
        size_t p = a->ei[e], q = a->ej[e];
        a->c[e] = -(quad(a->q1, n, p, q, p, q) - quad(a->q2, n, p, q, p, q));
    }
    if (m > 0) {
        int im = (int)m, one = 1, info = 0;
        LAPACK_dpotrs("L", &im, &one, a->k, &im, a->c, &im, &info);
        if (info != 0)
            return cm_error(CM_ENUMERIC, "n_eff weights: certificate solve "
                            "failed");
    }
    for (size_t e = 0; e < m; e++) { /* Z += delta a_e a_e^T */
        size_t p = a->ei[e], q = a->ej[e];
        double d = a->c[e];
        double *z = d > 0.0 ? a->q1 : a->q2;
        double v = fabs(d);
        z[p * n + p] += v;
        z[q * n + q] += v;
        z[p * n + q] -= v;
        z[q * n + p] -= v;
    }
    double t1 = trace(a->q1, n), t2 = trace(a->q2, n), r1, r2;
    cm_status st = trace_sqrt(a, a->q1, &r1);
    if (st == CM_OK)
        st = trace_sqrt(a, a->q2, &r2);
    if (st != CM_OK)
        return st;
    double den = (1.0 - a->s) * t1 + (1.0 + a->s) * t2;
    double trg = den > 0.0 ? (r1 + r2) * (r1 + r2) / den : 0.0;
    *lb = trg / (2.0 * a->gamma) - (double)n / a->gamma;
    return CM_OK;
}

/* Installs edge weights w (self weights 1 - row sum, in CSR order). */
static cm_status install(cm_topo *t, const double *w)
{
    return cm_topo_install_weights(t, w);
}

static cm_status check_args(const cm_topo *t, double gamma)
{
    if (!(gamma > 0.0 && gamma < 1.0))
        return cm_error(CM_EINVAL, "n_eff weights: gamma %g is not in "
                        "(0, 1)", gamma);
    if (t->n > TG_NEFF_DENSE_MAX)
        return cm_error(CM_EINVAL, "n_eff weights: %zu nodes is too many "
                        "(at most %d)", t->n, TG_NEFF_DENSE_MAX);
    return CM_OK;
}

/* Finishes res from the installed weights. */
static cm_status finish(cm_topo *t, tg_neff_weights_result *r, double start)
{
    cm_status st = tg_neff_topo(t, &r->gamma, 1, &r->neff);
    if (st != CM_OK)
        return st;
    r->min_weight = t->m ? INFINITY : 0.0;
    for (size_t e = 0; e < t->m; e++) {
        r->min_weight = fmin(r->min_weight, t->ew[e]);
        r->negative += t->ew[e] < 0.0;
    }
    r->seconds = cm_time_now() - start;
    return CM_OK;
}

cm_status tg_neff_weights(cm_topo *t, double gamma,
                          tg_neff_weights_result *res)
{
    tg_neff_weights_result dummy;
    tg_neff_weights_result *r = res ? res : &dummy;
    memset(r, 0, sizeof *r);
    r->gamma = gamma;
    double start = cm_time_now();
    cm_status st = check_args(t, gamma);
    if (st != CM_OK)
        return st;
    size_t n = t->n, m = t->m;
    if (m > TG_NEFF_MAX_EDGES)
        return cm_error(CM_EINVAL, "n_eff weights: %zu edges is too many "
                        "for the Newton solve (at most %d; --weights "
                        "neff-alpha scans W = I - alpha L)", m,
                        TG_NEFF_MAX_EDGES);
    ws a;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.m = m;
    a.ei = t->ei;
    a.ej = t->ej;
    a.gamma = gamma;
    a.s = sqrt(gamma);
    size_t nn = n * n + 1, mm = m * m + 1;
    a.g1 = malloc(nn * sizeof *a.g1);
    a.g2 = malloc(nn * sizeof *a.g2);
    a.q1 = malloc(nn * sizeof *a.q1);
    a.q2 = malloc(nn * sizeof *a.q2);
    a.h = malloc(mm * sizeof *a.h);
    a.k = malloc(mm * sizeof *a.k);
    a.grad = malloc((m + 1) * sizeof *a.grad);
    a.dx = malloc((m + 1) * sizeof *a.dx);
    a.x = malloc((m + 1) * sizeof *a.x);
    a.xt = malloc((m + 1) * sizeof *a.xt);
    a.c = malloc((m + 1) * sizeof *a.c);
    a.ev = malloc((n + 1) * sizeof *a.ev);
    a.lwork = 3 * (int)n + 1;
    a.work = malloc((size_t)a.lwork * sizeof *a.work);
    if (!a.g1 || !a.g2 || !a.q1 || !a.q2 || !a.h || !a.k || !a.grad ||
        !a.dx || !a.x || !a.xt || !a.c || !a.ev || !a.work) {
        st = cm_error(CM_ENOMEM, "n_eff weights: out of memory for %zu "
                      "edges", m);
        goto cleanup;
    }
    if (n == 0)
        goto done;
    /* start: Metropolis-Hastings, spectrum in (-1, 1] inside the domain */
    for (size_t e = 0; e < m; e++) {
        size_t dp = cm_topo_degree(t, t->ei[e]), dq = cm_topo_degree(t, t->ej[e]);
        a.x[e] = 1.0 / (1.0 + (double)(dp > dq ? dp : dq));
    }
    double f;
    if (objective(&a, a.x, &f)) {
        st = cm_error(CM_ENUMERIC, "n_eff weights: the start is infeasible");
        goto cleanup;
    }
    r->neff_start = tg_neff_from_trace(n, gamma, f);
    for (size_t it = 0; it < MAX_NEWTON && m > 0; it++) {
        newton_system(&a); /* g1, g2 are those of a.x */
        if (chol(a.h, m) != 0)
            break; /* singular: at the optimum to rounding */
        int im = (int)m, one = 1, info = 0;
        for (size_t e = 0; e < m; e++)
            a.dx[e] = -a.grad[e];
        LAPACK_dpotrs("L", &im, &one, a.h, &im, a.dx, &im, &info);
        if (info != 0)
            break;
        double slope = 0.0;
        for (size_t e = 0; e < m; e++)
            slope += a.grad[e] * a.dx[e];
        r->newton++;
        if (!(slope < 0.0) || -slope / 2.0 <= 1e-13 * f)
            break;
        double step = 1.0, ft = f;
        while (step >= 1e-12) {
            for (size_t e = 0; e < m; e++)
                a.xt[e] = a.x[e] + step * a.dx[e];
            if (!objective(&a, a.xt, &ft) && ft <= f + 0.25 * step * slope)
                break;
            step *= 0.5;
        }
        if (step < 1e-12)
            break;
        memcpy(a.x, a.xt, m * sizeof *a.x);
        f = ft;
    }
    /* certificate at the final point */
    if (objective(&a, a.x, &f)) {
        st = cm_error(CM_ENUMERIC, "n_eff weights: left the domain");
        goto cleanup;
    }
    squares(&a);
    for (size_t e = 0; e < m; e++)
        for (size_t g = 0; g < m; g++) {
            size_t sh = (a.ei[e] == a.ei[g]) + (a.ei[e] == a.ej[g]) +
                        (a.ej[e] == a.ei[g]) + (a.ej[e] == a.ej[g]);
            a.k[e * m + g] = e == g ? 4.0 : (double)sh;
        }
    if (m > 0 && chol(a.k, m) != 0) {
        st = cm_error(CM_ENUMERIC, "n_eff weights: certificate matrix is "
                      "singular");
        goto cleanup;
    }
    double lb = 0.0;
    if ((st = dual_bound(&a, &lb)) != CM_OK)
        goto cleanup;
    r->neff_upper = lb > 0.0 ? tg_neff_from_trace(n, gamma, lb) : INFINITY;
done:
    st = install(t, a.x);
    if (st == CM_OK)
        st = finish(t, r, start);
    if (st == CM_OK && r->neff_upper < r->neff) /* rounding at the optimum */
        r->neff_upper = r->neff;
    if (n == 0)
        r->neff_upper = r->neff;
cleanup:
    ws_free(&a);
    return st;
}

/* F(alpha) = sum_k f(1 - alpha lambda_k) over the Laplacian spectrum. */
static double f_alpha(const double *lam, size_t n, double gamma, double al)
{
    double tr = 0.0;
    for (size_t k = 0; k < n; k++) {
        double mu = 1.0 - al * lam[k], den = 1.0 - gamma * mu * mu;
        if (!(den > 0.0))
            return INFINITY;
        tr += mu * mu / den;
    }
    return tr;
}

cm_status tg_neff_alpha(cm_topo *t, double gamma, tg_neff_weights_result *res)
{
    tg_neff_weights_result dummy;
    tg_neff_weights_result *r = res ? res : &dummy;
    memset(r, 0, sizeof *r);
    r->gamma = gamma;
    double start = cm_time_now();
    cm_status st = check_args(t, gamma);
    if (st != CM_OK)
        return st;
    size_t n = t->n, m = t->m;
    double *lap = malloc((n * n + 1) * sizeof *lap);
    double *lam = malloc((n + 1) * sizeof *lam);
    double *w = malloc((m + 1) * sizeof *w);
    double *work = NULL;
    if (!lap || !lam || !w) {
        st = cm_error(CM_ENOMEM, "n_eff weights: out of memory");
        goto cleanup;
    }
    double al = 0.0;
    if (n > 1) {
        cm_topo_csr_laplacian(n, t->off, t->adj, lap);
        work = malloc(3 * n * sizeof *work);
        if (!work) {
            st = cm_error(CM_ENOMEM, "n_eff weights: out of memory");
            goto cleanup;
        }
        if ((st = cm_eigen_sym_work(CM_EIGEN_VALUES, n, lap, lam, work,
                                    3 * n)) != CM_OK) {
            cm_error_prefix(st, "n_eff weights");
            goto cleanup;
        }
        size_t dmin, dmax;
        cm_topo_degree_range(t, &dmin, &dmax);
        r->neff_start = tg_neff_from_trace(
            n, gamma, f_alpha(lam, n, gamma, 1.0 / (double)(dmax + 1)));
        double ln = lam[n - 1];
        double lo = 0.0, hi = ln > 0.0 ? (1.0 + 1.0 / sqrt(gamma)) / ln : 1.0;
        hi *= 1.0 - 1e-12;
        const double phi = 0.6180339887498949;
        double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
        double f1 = f_alpha(lam, n, gamma, x1), f2 = f_alpha(lam, n, gamma, x2);
        for (int it = 0; it < 200 && hi - lo > 1e-14 * hi; it++) {
            if (f1 <= f2) {
                hi = x2;
                x2 = x1;
                f2 = f1;
                x1 = hi - phi * (hi - lo);
                f1 = f_alpha(lam, n, gamma, x1);
            } else {
                lo = x1;
                x1 = x2;
                f1 = f2;
                x2 = lo + phi * (hi - lo);
                f2 = f_alpha(lam, n, gamma, x2);
            }
        }
        al = f1 <= f2 ? x1 : x2;
    }
    for (size_t e = 0; e < m; e++)
        w[e] = al;
    r->alpha = al;
    st = install(t, w);
    if (st == CM_OK)
        st = finish(t, r, start);
cleanup:
    free(work);
    free(lap);
    free(lam);
    free(w);
    return st;
}
