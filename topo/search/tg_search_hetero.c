/* tg_search_hetero.c: incremental neighbourhood heterogeneity for the
 * annealer (see the header for the algebra). */
#include "tg_search_hetero.h"

#include <stdlib.h>
#include <string.h>

void tg_search_hetero_init(tg_search_hetero *h)
{
    memset(h, 0, sizeof *h);
}

void tg_search_hetero_destroy(tg_search_hetero *h)
{
    if (!h)
        return;
    free(h->s);
    tg_search_hetero_init(h);
}

static double row_sq(const tg_search_hetero *h, const double *s)
{
    double q = 0.0;
    for (size_t c = 0; c < h->k; c++) {
        double d = s[c] * h->scale - h->pibar[c];
        q += d * d;
    }
    return q;
}

cm_status tg_search_hetero_start(tg_search_hetero *h, const tg_graph *g,
                                 size_t d, const double *pi,
                                 const double *pibar, size_t k, double mu)
{
    size_t n = g->n;
    if (!h->s || h->n != n || h->k != k) {
        free(h->s);
        h->s = malloc(n * k * sizeof *h->s);
        if (!h->s)
            return cm_error(CM_ENOMEM, "out of memory for the heterogeneity "
                            "term");
    }
    h->n = n;
    h->k = k;
    h->scale = 1.0 / (double)(d + 1);
    h->mu = mu;
    h->pi = pi;
    h->pibar = pibar;
    h->sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        double *s = h->s + i * k;
        memcpy(s, pi + i * k, k * sizeof *s);
        for (size_t e = g->off[i]; e < g->off[i + 1]; e++)
            for (size_t c = 0; c < k; c++)
                s[c] += pi[g->nb[e] * k + c];
        h->sum += row_sq(h, s);
    }
    return CM_OK;
}

double tg_search_hetero_value(const tg_search_hetero *h)
{
    return h->n ? h->sum / (double)h->n : 0.0;
}

double tg_search_hetero_energy(const tg_search_hetero *h)
{
    return h->mu * tg_search_hetero_value(h);
}

/* Row r's squared distance after S_r += Pi_p - Pi_m, minus before. */
static double row_change(const tg_search_hetero *h, size_t r, size_t p,
                         size_t m)
{
    const double *s = h->s + r * h->k, *pp = h->pi + p * h->k,
                 *pm = h->pi + m * h->k;
    double before = 0.0, after = 0.0;
    for (size_t c = 0; c < h->k; c++) {
        double d0 = s[c] * h->scale - h->pibar[c];
        double d1 = (s[c] + pp[c] - pm[c]) * h->scale - h->pibar[c];
        before += d0 * d0;
        after += d1 * d1;
    }
    return after - before;
}

double tg_search_hetero_delta(const tg_search_hetero *h, size_t a, size_t b,
                              size_t x, size_t y)
{
    double d = row_change(h, a, x, b) + row_change(h, b, y, a) +
               row_change(h, x, a, y) + row_change(h, y, b, x);
    return h->mu * d / (double)h->n;
}

static void row_apply(tg_search_hetero *h, size_t r, size_t p, size_t m)
{
    double *s = h->s + r * h->k;
    const double *pp = h->pi + p * h->k, *pm = h->pi + m * h->k;
    h->sum -= row_sq(h, s);
    for (size_t c = 0; c < h->k; c++)
        s[c] += pp[c] - pm[c];
    h->sum += row_sq(h, s);
}

void tg_search_hetero_apply(tg_search_hetero *h, size_t a, size_t b,
                            size_t x, size_t y)
{
    row_apply(h, a, x, b);
    row_apply(h, b, y, a);
    row_apply(h, x, a, y);
    row_apply(h, y, b, x);
}
