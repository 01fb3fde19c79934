/* tg_neff_search.c: the n_eff energy hook (see tg_neff_search.h): exact
 * traces of the resolvents G_k = (I -+ sW)^-1 kept up to date by
 * Woodbury's identity, or the stochastic estimate beyond the update
 * path's memory limit. */
#include "tg_neff_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tg_neff.h"
#include "cm_lapack.h"


typedef struct {
    const tg_neff_hook_cfg *cfg;
    size_t n, d;
    int estimate;
    double s, alpha;
    double *g[2], *q[2]; /* [n*n] G_k and G_k^2 */
    double tr[2];        /* tr G_k of the current state */
    size_t accepts;      /* since the last recomputation */
    /* the last proposal: its edges and, per k, M^-1, U^T G^2 U, tr */
    size_t ep[4], eq[4];
    double minv[2][16], b[2][16], trp[2];
    double *w4, *z4, *v4, *p4; /* [4n] scratch of accept */
    double *l12, *r12;         /* [12n] the rank-12 update of G^2 */
} hws;

static void ws_free(void *p)
{
    hws *w = p;
    if (!w)
        return;
    for (int k = 0; k < 2; k++) {
        free(w->g[k]);
        free(w->q[k]);
    }
    free(w->w4);
    free(w->z4);
    free(w->v4);
    free(w->p4);
    free(w->l12);
    free(w->r12);
    free(w);
}

static void *ws_new(const void *cfg, size_t n, size_t d)
{
    hws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cfg = cfg;
    w->n = n;
    w->d = d;
    w->estimate = w->cfg->estimate < 0 ? n > TG_NEFF_UPDATE_MAX
                                       : w->cfg->estimate;
    w->s = sqrt(w->cfg->gamma);
    w->alpha = 1.0 / (double)(d + 1);
    if (w->estimate)
        return w;
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        w->g[k] = malloc(n * n * sizeof *w->g[k]);
        w->q[k] = malloc(n * n * sizeof *w->q[k]);
        ok = ok && w->g[k] && w->q[k];
    }
    w->w4 = malloc(4 * n * sizeof *w->w4);
    w->z4 = malloc(4 * n * sizeof *w->z4);
    w->v4 = malloc(4 * n * sizeof *w->v4);
    w->p4 = malloc(4 * n * sizeof *w->p4);
    w->l12 = malloc(12 * n * sizeof *w->l12);
    w->r12 = malloc(12 * n * sizeof *w->r12);
    if (!ok || !w->w4 || !w->z4 || !w->v4 || !w->p4 || !w->l12 || !w->r12) {
        ws_free(w);
        return NULL;
    }
    return w;
}

static double energy_of(const hws *w, double tr1, double tr2)
{
    double gm = w->cfg->gamma, n = (double)w->n;
    double trf = (tr1 + tr2) / (2.0 * gm) - n / gm;
    return 1.0 - tg_neff_from_trace(w->n, gm, trf) / n;
}

/* G_k, G_k^2 and tr G_k of g from scratch. */
static cm_status full(hws *w, const tg_graph *g)
{
    size_t n = w->n;
    int in = (int)n, info = 0;
    for (int k = 0; k < 2; k++) {
        double sign = k == 0 ? 1.0 : -1.0, *a = w->g[k];
        double c = sign * w->s * w->alpha; /* X = (1 -+ s) I +- s alpha L */
        memset(a, 0, n * n * sizeof *a);
        for (size_t i = 0; i < n; i++) {
            a[i * n + i] = 1.0 - sign * w->s + c * (double)tg_graph_degree(g, i);
            for (size_t p = g->off[i]; p < g->off[i + 1]; p++)
                a[i * n + g->nb[p]] -= c;
        }
        LAPACK_dpotrf("L", &in, a, &in, &info);
        if (info == 0)
            LAPACK_dpotri("L", &in, a, &in, &info);
        if (info != 0)
            return cm_error(CM_ENUMERIC, "n_eff search: factorisation "
                            "failed (info %d)", info);
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++)
                a[j * n + i] = a[i * n + j];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, in, in,
                    1.0, a, in, a, in, 0.0, w->q[k], in);
        double t = 0.0;
        for (size_t i = 0; i < n; i++)
            t += a[i * n + i];
        w->tr[k] = t;
    }
    w->accepts = 0;
    return CM_OK;
}

static inline double quad(const double *g, size_t n, size_t p, size_t q,
                          size_t r, size_t s)
{
    return g[p * n + r] - g[p * n + s] - g[q * n + r] + g[q * n + s];
}

/* Inverse of the 4 x 4 a (row-major) into inv by Gauss-Jordan with
 * partial pivoting; 1 when singular. */
static int inv4(const double *a, double *inv)
{
    double m[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++)
            m[i][j] = j < 4 ? a[i * 4 + j] : (double)(j - 4 == i);
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(m[r][c]) > fabs(m[piv][c]))
                piv = r;
        if (!(fabs(m[piv][c]) > 1e-300))
            return 1;
        if (piv != c)
            for (int j = 0; j < 8; j++) {
                double t = m[c][j];
                m[c][j] = m[piv][j];
                m[piv][j] = t;
            }
        double d = m[c][c];
        for (int j = 0; j < 8; j++)
            m[c][j] /= d;
        for (int r = 0; r < 4; r++)
            if (r != c && m[r][c] != 0.0) {
                double f = m[r][c];
                for (int j = 0; j < 8; j++)
                    m[r][j] -= f * m[c][j];
            }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            inv[i * 4 + j] = m[i][j + 4];
    return 0;
}

/* The proposal's traces by Woodbury (see the header). */
static cm_status propose(hws *w, const size_t *sw, double *e)
{
    size_t n = w->n, a = sw[0], b = sw[1], x = sw[2], y = sw[3];
    /* added (a,x), (b,y); removed (a,b), (x,y) */
    const size_t ep[4] = {a, b, a, x}, eq[4] = {x, y, b, y};
    static const double sig[4] = {1.0, 1.0, -1.0, -1.0};
    memcpy(w->ep, ep, sizeof ep);
    memcpy(w->eq, eq, sizeof eq);
    for (int k = 0; k < 2; k++) {
        double c = (k == 0 ? 1.0 : -1.0) * w->s * w->alpha, m[16];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                m[i * 4 + j] = quad(w->g[k], n, ep[i], eq[i], ep[j], eq[j]) +
                               (i == j ? sig[i] / c : 0.0);
                w->b[k][i * 4 + j] = quad(w->q[k], n, ep[i], eq[i], ep[j],
                                          eq[j]);
            }
        if (inv4(m, w->minv[k]))
            return cm_error(CM_ENUMERIC, "n_eff search: singular update");
        double t = 0.0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                t += w->minv[k][i * 4 + j] * w->b[k][j * 4 + i];
        w->trp[k] = w->tr[k] - t;
    }
    *e = energy_of(w, w->trp[0], w->trp[1]);
    return CM_OK;
}

/* G' = G - V W^T, (G')^2 = Q - P W^T - W P^T + V B V^T with W = G U,
 * Z = G^2 U, V = W M^-1, P = Z M^-1, B = U^T G^2 U (n x 4 row-major). */
static void update(hws *w, int k)
{
    size_t n = w->n;
    int in = (int)n;
    double *g = w->g[k], *q = w->q[k], *W = w->w4, *Z = w->z4, *V = w->v4,
           *P = w->p4;
    const double *mi = w->minv[k], *B = w->b[k];
    for (size_t r = 0; r < n; r++)
        for (int j = 0; j < 4; j++) {
            W[r * 4 + j] = g[r * n + w->ep[j]] - g[r * n + w->eq[j]];
            Z[r * 4 + j] = q[r * n + w->ep[j]] - q[r * n + w->eq[j]];
        }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, 4, 4, 1.0, W,
                4, mi, 4, 0.0, V, 4);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, 4, 4, 1.0, Z,
                4, mi, 4, 0.0, P, 4);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, in, in, 4, -1.0, V,
                4, W, 4, 1.0, g, in);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in, 4, 4, 1.0, V,
                4, B, 4, 0.0, Z, 4); /* Z <- V B */
    /* one pass over Q: Q += [-P | -W | V B] [W | P | V]^T */
    double *L = w->l12, *R = w->r12;
    for (size_t r = 0; r < n; r++)
        for (int j = 0; j < 4; j++) {
            L[r * 12 + j] = -P[r * 4 + j];
            L[r * 12 + 4 + j] = -W[r * 4 + j];
            L[r * 12 + 8 + j] = Z[r * 4 + j];
            R[r * 12 + j] = W[r * 4 + j];
            R[r * 12 + 4 + j] = P[r * 4 + j];
            R[r * 12 + 8 + j] = V[r * 4 + j];
        }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, in, in, 12, 1.0, L,
                12, R, 12, 1.0, q, in);
    w->tr[k] = w->trp[k];
}

/* y = (I - alpha L) x over g's neighbour lists (tg_neff_apply). */
typedef struct {
    const tg_graph *g;
    double a;
} mh_ctx;

static cm_status apply_mh(void *ctx, size_t round, size_t n, size_t reps,
                          const double *x, double *y)
{
    const mh_ctx *c = ctx;
    const tg_graph *g = c->g;
    (void)round;
    for (size_t i = 0; i < n; i++) {
        double self = 1.0 - c->a * (double)tg_graph_degree(g, i);
        double *yi = y + i * reps;
        const double *xi = x + i * reps;
        for (size_t r = 0; r < reps; r++)
            yi[r] = self * xi[r];
        for (size_t p = g->off[i]; p < g->off[i + 1]; p++) {
            const double *xj = x + g->nb[p] * reps;
            for (size_t r = 0; r < reps; r++)
                yi[r] += c->a * xj[r];
        }
    }
    return CM_OK;
}

static cm_status energy(void *p, const tg_graph *g, const size_t *swap,
                        double *e)
{
    hws *w = p;
    if (w->estimate) {
        mh_ctx c = {g, w->alpha};
        double ty, gm = w->cfg->gamma;
        cm_status st = tg_neff_estimate(g->n, apply_mh, &c, gm,
                                        w->cfg->probes, 2000, w->cfg->seed,
                                        &ty, NULL);
        if (st == CM_OK)
            *e = 1.0 - tg_neff_from_trace(g->n, gm, 1.0 / (1.0 - gm) + ty) /
                           (double)g->n;
        return st;
    }
    if (!swap) {
        cm_status st = full(w, g);
        if (st == CM_OK)
            *e = energy_of(w, w->tr[0], w->tr[1]);
        return st;
    }
    return propose(w, swap, e);
}

static cm_status accept(void *p, const tg_graph *g)
{
    hws *w = p;
    if (w->estimate)
        return CM_OK;
    if (++w->accepts >= TG_NEFF_REFRESH)
        return full(w, g);
    update(w, 0);
    update(w, 1);
    return CM_OK;
}

void tg_neff_hook(tg_energy_hook *h, const tg_neff_hook_cfg *cfg)
{
    h->ws_new = ws_new;
    h->ws_free = ws_free;
    h->energy = energy;
    h->accept = accept;
    h->cfg = cfg;
}
