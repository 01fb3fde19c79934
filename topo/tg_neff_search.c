/* tg_neff_search.c: n_eff energy hook for the search (see
 * tg_neff_search.h). The exact path reuses tg_spectrum's dense Laplacian
 * eigensolve; the estimate applies W = I - L/(d+1) through the state's
 * neighbour lists, so a move costs no dense matrix. */
#include "tg_neff_search.h"

#include <stdlib.h>

#include "tg_neff.h"
#include "tg_spectrum.h"

typedef struct {
    const tg_neff_hook_cfg *cfg;
    size_t n, d;
    int estimate;
    tg_spec spec;
    double *mu; /* [n] */
} hws;

static void *ws_new(const void *cfg, size_t n, size_t d)
{
    hws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cfg = cfg;
    w->n = n;
    w->d = d;
    w->estimate = w->cfg->estimate < 0 ? n >= TG_NEFF_ESTIMATE_FROM
                                       : w->cfg->estimate;
    tg_spec_init(&w->spec);
    w->mu = malloc((n + 1) * sizeof *w->mu);
    if (!w->mu) {
        free(w);
        return NULL;
    }
    return w;
}

static void ws_free(void *p)
{
    hws *w = p;
    if (!w)
        return;
    tg_spec_destroy(&w->spec);
    free(w->mu);
    free(w);
}

/* y = (I - L/(d+1)) x over g's neighbour lists (tg_neff_apply). */
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

static cm_status exact(hws *w, const tg_graph *g, double *neff)
{
    cm_status st = tg_spec_laplacian(&w->spec, g);
    if (st != CM_OK)
        return st;
    double a = 1.0 / (double)(w->d + 1);
    for (size_t k = 0; k < g->n; k++)
        w->mu[k] = 1.0 - a * w->spec.w[k];
    *neff = tg_neff_eigs(w->mu, g->n, w->cfg->gamma);
    return CM_OK;
}

static cm_status energy(void *p, const tg_graph *g, size_t epoch, double *e)
{
    hws *w = p;
    double neff;
    cm_status st;
    if (!w->estimate) {
        st = exact(w, g, &neff);
    } else {
        mh_ctx c = {g, 1.0 / (double)(w->d + 1)};
        double ty, gm = w->cfg->gamma;
        st = tg_neff_estimate(g->n, apply_mh, &c, gm, w->cfg->probes, 2000,
                              w->cfg->seed + epoch, &ty, NULL);
        neff = tg_neff_from_trace(g->n, gm, 1.0 / (1.0 - gm) + ty);
    }
    if (st == CM_OK)
        *e = 1.0 - neff / (double)g->n;
    return st;
}

void tg_neff_hook(tg_energy_hook *h, const tg_neff_hook_cfg *cfg)
{
    h->ws_new = ws_new;
    h->ws_free = ws_free;
    h->energy = energy;
    h->cfg = cfg;
}

cm_status tg_neff_graph_mh(const tg_graph *g, double gamma, double *neff)
{
    tg_neff_hook_cfg cfg = {gamma, 1, 0, 0};
    size_t d = g->n ? tg_graph_degree(g, 0) : 0;
    hws *w = ws_new(&cfg, g->n, d);
    if (!w)
        return cm_error(CM_ENOMEM, "out of memory");
    cm_status st = exact(w, g, neff);
    ws_free(w);
    return st;
}
