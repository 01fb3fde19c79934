/* tg_hetero.c: H = (1/n) ||(W - J) Pi||_F^2, row by row: the row
 * (W Pi)_i - pibar is accumulated in a K-vector, so memory is O(K) beyond
 * the inputs. */
#include "tg_hetero.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cm_status tg_hetero_pi(const cm_labels *l, double **pi, double **pibar)
{
    *pi = malloc(l->n * l->k * sizeof **pi);
    *pibar = calloc(l->k, sizeof **pibar);
    if (!*pi || !*pibar) {
        free(*pi);
        free(*pibar);
        *pi = *pibar = NULL;
        return cm_error(CM_ENOMEM, "out of memory for the class "
                        "proportions");
    }
    cm_labels_proportions(l, *pi);
    for (size_t i = 0; i < l->n; i++)
        for (size_t c = 0; c < l->k; c++)
            (*pibar)[c] += (*pi)[i * l->k + c];
    for (size_t c = 0; c < l->k; c++)
        (*pibar)[c] /= (double)l->n;
    return CM_OK;
}

/* Adds row i's distance (r = (W Pi)_i, overwritten) to out. */
static void add_row(size_t i, size_t k, double *r, const double *pibar,
                    tg_hetero *out)
{
    double sq = 0.0, l1 = 0.0;
    for (size_t c = 0; c < k; c++) {
        double d = r[c] - pibar[c];
        sq += d * d;
        l1 += fabs(d);
    }
    out->h += sq;
    if (i == 0 || sq > out->worst) {
        out->worst = sq;
        out->worst_node = i;
    }
    if (0.5 * l1 > out->worst_tv)
        out->worst_tv = 0.5 * l1;
}

void tg_hetero_rows(size_t n, size_t k, const size_t *off, const size_t *col,
                    const double *w, const double *pi, const double *pibar,
                    tg_hetero *out)
{
    memset(out, 0, sizeof *out);
    double r[CM_LABELS_MAX_CLASSES];
    for (size_t i = 0; i < n; i++) {
        memset(r, 0, k * sizeof *r);
        for (size_t e = off[i]; e < off[i + 1]; e++)
            for (size_t c = 0; c < k; c++)
                r[c] += w[e] * pi[col[e] * k + c];
        add_row(i, k, r, pibar, out);
    }
    if (n)
        out->h /= (double)n;
}

cm_status tg_hetero_topo(const cm_topo *t, const cm_labels *l,
                         tg_hetero *out)
{
    if (!t->ew || !t->self)
        return cm_error(CM_EINVAL, "the topology has no weights");
    if (t->n != l->n)
        return cm_error(CM_EINVAL, "the topology has %zu nodes, the counts "
                        "file %zu workers", t->n, l->n);
    double *pi, *pibar;
    cm_status s = tg_hetero_pi(l, &pi, &pibar);
    if (s != CM_OK)
        return s;
    memset(out, 0, sizeof *out);
    size_t k = l->k;
    double r[CM_LABELS_MAX_CLASSES];
    for (size_t i = 0; i < t->n; i++) {
        for (size_t c = 0; c < k; c++)
            r[c] = t->self[i] * pi[i * k + c];
        for (size_t e = t->off[i]; e < t->off[i + 1]; e++)
            for (size_t c = 0; c < k; c++)
                r[c] += t->adj_w[e] * pi[t->adj[e] * k + c];
        add_row(i, k, r, pibar, out);
    }
    out->h /= (double)t->n;
    free(pi);
    free(pibar);
    return CM_OK;
}

void tg_hetero_dense(size_t n, size_t k, const double *W, const double *pi,
                     const double *pibar, tg_hetero *out)
{
    memset(out, 0, sizeof *out);
    double r[CM_LABELS_MAX_CLASSES];
    for (size_t i = 0; i < n; i++) {
        memset(r, 0, k * sizeof *r);
        for (size_t j = 0; j < n; j++) {
            double w = W[i * n + j];
            if (w != 0.0)
                for (size_t c = 0; c < k; c++)
                    r[c] += w * pi[j * k + c];
        }
        add_row(i, k, r, pibar, out);
    }
    if (n)
        out->h /= (double)n;
}
