/* tg_fdla.c: FDLA weights by a barrier interior-point method, with a
 * dual certificate.
 *
 * Method (Boyd & Vandenberghe, Convex Optimization, ch. 11; the FDLA SDP
 * of Xiao & Boyd 2004). Variables x = (w, s), w one weight per edge. With
 * F1 = s I - M(w) = (s-1) I + J + L(w) and F2 = s I + M(w) =
 * (s+1) I - J - L(w), minimise phi_t = t s - log det F1 - log det F2 for
 * t = t0, mu t0, mu^2 t0, ... by damped Newton steps. Because each
 * dF/dw_e = +-a_e a_e^T is rank one, with G_k = F_k^{-1}:
 *
 *   dphi/dw_e        = -a_e^T G1 a_e + a_e^T G2 a_e
 *   dphi/ds          = t - tr G1 - tr G2
 *   d2phi/dw_e dw_f  = (a_e^T G1 a_f)^2 + (a_e^T G2 a_f)^2
 *   d2phi/dw_e ds    = |G1 a_e|^2 - |G2 a_e|^2
 *   d2phi/ds2        = |G1|_F^2 + |G2|_F^2
 *
 * and a_e^T G a_f = G_pr - G_ps - G_qr + G_qs for e = {p,q}, f = {r,s}: the
 * Hessian costs O(m^2) after two O(n^3) inversions; the step is one dense
 * (m+1) x (m+1) Cholesky solve. Interior-point methods reach the optimum
 * in a few dozen steps where projected subgradient needs thousands, and
 * give the certificate below for free; the price is the O(m^3) solve,
 * hence TG_FDLA_MAX_EDGES.
 *
 * Certificate (weak duality). For PSD Z1, Z2 with tr Z1 + tr Z2 = 1 and
 * a_e^T (Z1 - Z2) a_e = 0 on every edge, every feasible W has
 * ||M(w)|| >= tr(Z1 M) - tr(Z2 M) = tr((Z1 - Z2)(I - J)). The inverses
 * G1, G2 of the last Newton step are PSD and nearly satisfy the edge
 * conditions (exactly on the central path); the residual c_e =
 * a_e^T (G1 - G2) a_e is removed by adding delta_e^+ a_e a_e^T to G1 and
 * delta_e^- a_e a_e^T to G2, where K delta = -c and K_ef = (a_e^T a_f)^2
 * (4 on the diagonal, 1 for edges sharing a node, SPD). Scaling to unit
 * trace gives the bound `lower`. The stopping rule s - lower <= tol then
 * certifies the gap, since s >= ||M(w)||.
 */
#include "tg_fdla.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_dlin.h"
#include "cm_eigen.h"
#include "cm_lapack.h"
#include "cm_mixing.h"
#include "cm_time.h"


#define MU 8.0             /* barrier parameter growth per stage */
#define MAX_STAGES 40      /* t grows by MU^40: far beyond double range */
#define MAX_CENTRING 60    /* Newton steps per stage */
#define CENTRED 1e-10      /* stop centring when lambda^2 / 2 is below */

typedef struct {
    size_t n, m;
    const size_t *ei, *ej; /* borrowed edge endpoints of the topology */
    double *f;             /* [n*n] scratch: F1 or F2, then its factor */
    double *g1, *g2;       /* [n*n] inverses of F1 and F2 at the last step */
    double *h;             /* [(m+1)^2] Newton matrix, then its factor */
    double *k;             /* [m*m] Cholesky factor of K (certificate) */
    double *grad, *dx;     /* [m+1] gradient and Newton step */
    double *x, *xt;        /* [m+1] iterate (w, s) and line-search trial */
    double *c;             /* [m] certificate residual, then delta */
    double *best;          /* [m] weights with the smallest ||M(w)|| */
    double *ev, *ework;    /* [n], [3n] eigenvalues of M, dsyev workspace */
} ws;

static void ws_free(ws *a)
{
    free(a->f);
    free(a->g1);
    free(a->g2);
    free(a->h);
    free(a->k);
    free(a->grad);
    free(a->dx);
    free(a->x);
    free(a->xt);
    free(a->c);
    free(a->best);
    free(a->ev);
    free(a->ework);
}

/* Orders up to which the factorisations run in cm_dlin's fixed order
 * (the same bits on every CPU: docs/topo/portable-bits.md; at 64 nodes
 * the Newton matrix has order 129), above which LAPACK's (OpenBLAS's
 * kernels, 10-20 times faster at 2,049). */
#define OWN_MAX 600

/* Cholesky of the symmetric n x n a in place (lower); 0 when PD. */
static int chol(double *a, size_t n)
{
    if (n <= OWN_MAX)
        return cm_dlin_potrf(n, a);
    int in = (int)n, info = 0;
    LAPACK_dpotrf("L", &in, a, &in, &info);
    return info;
}

/* Solves with chol's factor l (order n) in place; 0 on success. */
static int chol_solve(const double *l, size_t n, double *b)
{
    if (n <= OWN_MAX) {
        cm_dlin_potrs(n, l, b);
        return 0;
    }
    int in = (int)n, one = 1, info = 0;
    LAPACK_dpotrs("L", &in, &one, l, &in, b, &in, &info);
    return info;
}

/* F = (s - sign) I + sign (J + L(w)), sign = +1 for F1, -1 for F2. */
static void fill_f(const ws *a, const double *x, double sign, double *f)
{
    size_t n = a->n;
    double s = x[a->m], jn = sign / (double)n;
    for (size_t k = 0; k < n * n; k++)
        f[k] = jn;
    for (size_t i = 0; i < n; i++)
        f[i * n + i] += s - sign;
    for (size_t e = 0; e < a->m; e++) {
        size_t p = a->ei[e], q = a->ej[e];
        double v = sign * x[e];
        f[p * n + p] += v;
        f[q * n + q] += v;
        f[p * n + q] -= v;
        f[q * n + p] -= v;
    }
}

/* log det F from its Cholesky factor. */
static double logdet(const double *f, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += log(f[i * n + i]);
    return 2.0 * s;
}

/* phi_t(x) into *phi; 0 when x is strictly feasible, else 1. */
static int barrier(ws *a, const double *x, double t, double *phi)
{
    size_t n = a->n;
    fill_f(a, x, 1.0, a->f);
    if (chol(a->f, n) != 0)
        return 1;
    double v = t * x[a->m] - logdet(a->f, n);
    fill_f(a, x, -1.0, a->f);
    if (chol(a->f, n) != 0)
        return 1;
    *phi = v - logdet(a->f, n);
    return 0;
}

/* G = F^{-1} (full symmetric) for F = F1 (sign +1) or F2 at x. */
static cm_status inverse(ws *a, const double *x, double sign, double *g)
{
    size_t n = a->n;
    int in = (int)n, info = 0;
    fill_f(a, x, sign, g);
    if (chol(g, n) != 0)
        return cm_error(CM_ENUMERIC, "FDLA: iterate left the feasible set");
    if (n <= OWN_MAX)
        cm_dlin_potri(n, g, a->f); /* f: free scratch here */
    else
        LAPACK_dpotri("L", &in, g, &in, &info);
    if (info != 0)
        return cm_error(CM_ENUMERIC, "FDLA: matrix inversion failed");
    /* LAPACK filled the lower triangle in column-major order, i.e. the
     * upper triangle of our row-major array; mirror it. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            g[j * n + i] = g[i * n + j];
    return CM_OK;
}

/* a_e^T G a_f for e = {p,q}, f = {r,s}. */
static inline double quad(const double *g, size_t n, size_t p, size_t q,
                          size_t r, size_t s)
{
    return g[p * n + r] - g[p * n + s] - g[q * n + r] + g[q * n + s];
}

/* Gradient and Hessian of phi_t at a->x (inverses into g1, g2). */
static cm_status newton_system(ws *a, double t)
{
    size_t n = a->n, m = a->m, d = m + 1;
    cm_status st = inverse(a, a->x, 1.0, a->g1);
    if (st == CM_OK)
        st = inverse(a, a->x, -1.0, a->g2);
    if (st != CM_OK)
        return st;
    const double *g1 = a->g1, *g2 = a->g2;
    double tr1 = 0, tr2 = 0, fro = 0;
    for (size_t i = 0; i < n; i++) {
        tr1 += g1[i * n + i];
        tr2 += g2[i * n + i];
    }
    for (size_t k = 0; k < n * n; k++)
        fro += g1[k] * g1[k] + g2[k] * g2[k];
    for (size_t e = 0; e < m; e++) {
        size_t p = a->ei[e], q = a->ej[e];
        a->grad[e] = -quad(g1, n, p, q, p, q) + quad(g2, n, p, q, p, q);
        for (size_t f = 0; f <= e; f++) {
            size_t r = a->ei[f], s = a->ej[f];
            double u = quad(g1, n, p, q, r, s), v = quad(g2, n, p, q, r, s);
            a->h[e * d + f] = a->h[f * d + e] = u * u + v * v;
        }
        double n1 = 0, n2 = 0;
        for (size_t i = 0; i < n; i++) {
            double u = g1[i * n + p] - g1[i * n + q];
            double v = g2[i * n + p] - g2[i * n + q];
            n1 += u * u;
            n2 += v * v;
        }
        a->h[e * d + m] = a->h[m * d + e] = n1 - n2;
    }
    a->grad[m] = t - tr1 - tr2;
    a->h[m * d + m] = fro;
    return CM_OK;
}

/* Solves H dx = -grad (H factored in place). */
static cm_status newton_step(ws *a)
{
    size_t d = a->m + 1;
    double diag = 0.0;
    for (size_t i = 0; i < d; i++)
        diag = fmax(diag, a->h[i * d + i]);
    if (chol(a->h, d) != 0)
        return cm_error(CM_ENUMERIC, "FDLA: the Newton system is not "
                        "positive definite (largest diagonal %g)", diag);
    for (size_t i = 0; i < d; i++)
        a->dx[i] = -a->grad[i];
    if (chol_solve(a->h, d, a->dx) != 0)
        return cm_error(CM_ENUMERIC, "FDLA: Newton solve failed");
    return CM_OK;
}

/* K_ef = (a_e^T a_f)^2, factored once. */
static cm_status factor_k(ws *a)
{
    size_t m = a->m;
    for (size_t e = 0; e < m; e++)
        for (size_t f = 0; f < m; f++) {
            size_t shared = (a->ei[e] == a->ei[f]) + (a->ei[e] == a->ej[f]) +
                            (a->ej[e] == a->ei[f]) + (a->ej[e] == a->ej[f]);
            a->k[e * m + f] = e == f ? 4.0 : (double)shared;
        }
    if (m > 0 && chol(a->k, m) != 0)
        return cm_error(CM_ENUMERIC, "FDLA: certificate matrix is singular");
    return CM_OK;
}

/* The dual lower bound from g1, g2 (see the top of the file). */
static double dual_bound(ws *a)
{
    size_t n = a->n, m = a->m;
    const double *g1 = a->g1, *g2 = a->g2;
    for (size_t e = 0; e < m; e++) {
        size_t p = a->ei[e], q = a->ej[e];
        a->c[e] = -(quad(g1, n, p, q, p, q) - quad(g2, n, p, q, p, q));
    }
    if (m > 0 && chol_solve(a->k, m, a->c) != 0)
        return 0.0;
    double tr1 = 0, tr2 = 0, sum1 = 0, sum2 = 0, dsum = 0, dabs = 0;
    for (size_t i = 0; i < n; i++) {
        tr1 += g1[i * n + i];
        tr2 += g2[i * n + i];
    }
    for (size_t k = 0; k < n * n; k++) {
        sum1 += g1[k];
        sum2 += g2[k];
    }
    for (size_t e = 0; e < m; e++) {
        dsum += a->c[e];
        dabs += fabs(a->c[e]);
    }
    double num = (tr1 - sum1 / (double)n) - (tr2 - sum2 / (double)n) +
                 2.0 * dsum;
    double den = tr1 + tr2 + 2.0 * dabs;
    double lb = den > 0.0 ? num / den : 0.0;
    return isfinite(lb) && lb > 0.0 ? lb : 0.0;
}

/* Writes weights w into t (self weights 1 - row sum). */
static cm_status install(cm_topo *t, const double *w)
{
    return cm_topo_install_weights(t, w);
}

/* ||M(w)||_2 = SLEM of W = I - L(w), by a dense eigensolve of M. */
static cm_status primal_slem(ws *a, const double *x, double *slem)
{
    memcpy(a->xt, x, a->m * sizeof *x);
    a->xt[a->m] = 0.0;
    fill_f(a, a->xt, -1.0, a->f); /* F2 at s = 0 is M(w) */
    cm_status st = cm_eigen_sym_work(CM_EIGEN_VALUES, a->n, a->f, a->ev,
                                     a->ework, 3 * a->n);
    if (st != CM_OK)
        return cm_error_prefix(st, "FDLA");
    *slem = fmax(fabs(a->ev[0]), fabs(a->ev[a->n - 1]));
    return CM_OK;
}

/* The barrier method proper: x = (w, s) strictly feasible on entry; on
 * return x[0..m) holds the best weights seen (smallest ||M(w)||). Stops
 * when the certified gap is below tol, or when round-off stalls the
 * centring (a stage that does not centre, or a failed Newton system after
 * the first stage): the bound is valid either way. */
static cm_status solve(ws *a, double tol, tg_fdla_result *r)
{
    size_t n = a->n, m = a->m, d = m + 1;
    cm_status st = factor_k(a);
    if (st != CM_OK)
        return st;
    double t = 2.0 * (double)n / fmax(a->x[m], 1e-3), best = INFINITY;
    r->lower = 0.0;
    for (size_t stage = 0; stage < MAX_STAGES; stage++) {
        r->stages++;
        int centred = 0, failed = 0;
        for (size_t it = 0; it < MAX_CENTRING; it++) {
            double phi;
            if (barrier(a, a->x, t, &phi) != 0)
                return cm_error(CM_ENUMERIC, "FDLA: iterate left the "
                                "feasible set");
            if ((st = newton_system(a, t)) != CM_OK)
                return st;
            if ((st = newton_step(a)) != CM_OK) {
                if (stage == 0)
                    return st;
                failed = 1; /* ill-conditioned near the optimum */
                break;
            }
            r->newton++;
            double slope = 0.0;
            for (size_t i = 0; i < d; i++)
                slope += a->grad[i] * a->dx[i];
            if (!(slope < 0.0) || -slope / 2.0 <= CENTRED) {
                centred = 1;
                break;
            }
            double alpha = 1.0, phit = 0.0;
            while (alpha >= 1e-14) {
                for (size_t i = 0; i < d; i++)
                    a->xt[i] = a->x[i] + alpha * a->dx[i];
                if (barrier(a, a->xt, t, &phit) == 0 &&
                    phit <= phi + 0.25 * alpha * slope)
                    break;
                alpha *= 0.5;
            }
            if (alpha < 1e-14) { /* round-off: no descent left */
                failed = 1;
                break;
            }
            memcpy(a->x, a->xt, d * sizeof *a->x);
        }
        double lb = dual_bound(a), p = INFINITY;
        if (lb > r->lower)
            r->lower = lb;
        if ((st = primal_slem(a, a->x, &p)) != CM_OK)
            return st;
        if (p < best) {
            best = p;
            memcpy(a->best, a->x, m * sizeof *a->x);
        }
        if (best - r->lower <= tol || failed || !centred)
            break;
        t *= MU;
    }
    memcpy(a->x, a->best, m * sizeof *a->x);
    return CM_OK;
}

cm_status tg_fdla_weights(cm_topo *t, double tol, tg_fdla_result *res)
{
    tg_fdla_result dummy;
    tg_fdla_result *r = res ? res : &dummy;
    memset(r, 0, sizeof *r);
    double start = cm_time_now();
    size_t n = t->n, m = t->m;
    if (!(tol > 0.0))
        return cm_error(CM_EINVAL, "FDLA: tolerance must be positive");
    if (m > TG_FDLA_MAX_EDGES)
        return cm_error(CM_EINVAL, "FDLA: %zu edges is too many (at most %d: "
                        "the interior-point solve is dense in the edges)", m,
                        TG_FDLA_MAX_EDGES);
    if (n > 46000)
        return cm_error(CM_EINVAL, "FDLA: %zu nodes is too many", n);
    cm_status st = cm_topo_check_connected(t, "FDLA");
    if (st != CM_OK)
        return st;
    double l2 = 0, ln = 0;
    st = cm_topo_laplacian_extremes(t, &l2, &ln);
    if (st != CM_OK)
        return st;
    double alpha = n > 1 ? 2.0 / (l2 + ln) : 0.0;
    r->slem_start = n > 1 ? (ln - l2) / (ln + l2) : 0.0;
    ws a;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.m = m;
    a.ei = t->ei;
    a.ej = t->ej;
    size_t d = m + 1;
    a.f = malloc((n * n + 1) * sizeof *a.f);
    a.g1 = malloc((n * n + 1) * sizeof *a.g1);
    a.g2 = malloc((n * n + 1) * sizeof *a.g2);
    a.h = malloc(d * d * sizeof *a.h);
    a.k = malloc((m * m + 1) * sizeof *a.k);
    a.grad = malloc(d * sizeof *a.grad);
    a.dx = malloc(d * sizeof *a.dx);
    a.x = malloc(d * sizeof *a.x);
    a.xt = malloc(d * sizeof *a.xt);
    a.c = malloc(d * sizeof *a.c);
    a.best = malloc(d * sizeof *a.best);
    a.ev = malloc((n + 1) * sizeof *a.ev);
    a.ework = malloc((3 * n + 1) * sizeof *a.ework);
    if (!a.f || !a.g1 || !a.g2 || !a.h || !a.k || !a.grad || !a.dx || !a.x ||
        !a.xt || !a.c || !a.best || !a.ev || !a.ework) {
        st = cm_error(CM_ENOMEM, "FDLA: out of memory for %zu edges", m);
        goto cleanup;
    }
    for (size_t e = 0; e < m; e++)
        a.x[e] = alpha;
    /* s strictly above the starting SLEM: F1, F2 positive definite */
    a.x[m] = r->slem_start + 0.05 * (1.0 - r->slem_start) + 0.01;
    if (n > 1) {
        st = solve(&a, tol, r);
        if (st != CM_OK)
            goto cleanup;
    }
    st = install(t, a.x);
    if (st != CM_OK)
        goto cleanup;
    st = cm_topo_slem(t, &r->slem);
    if (st != CM_OK)
        goto cleanup;
    r->min_weight = m ? INFINITY : 0.0;
    for (size_t e = 0; e < m; e++) {
        r->min_weight = fmin(r->min_weight, a.x[e]);
        r->negative += a.x[e] < 0.0;
    }
    if (r->lower > r->slem) /* round-off at an exact optimum */
        r->lower = r->slem;
    r->seconds = cm_time_now() - start;
cleanup:
    ws_free(&a);
    return st;
}
