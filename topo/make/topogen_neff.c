/* topogen_neff.c: n_eff at the --gamma values (see topogen_neff.h); the
 * report's text and JSON are topo/cli/topogen_neff_print.c. */
#include "topogen_neff.h"

#include "cm_eigen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

cm_status topogen_neff_gammas(const char *s, topogen_neff *v)
{
    if (!s) {
        v->k = 1;
        v->gamma[0] = TG_NEFF_GAMMA;
        return CM_OK;
    }
    return tg_neff_parse_gammas(s, "--gamma", v->gamma, &v->k);
}

cm_status topogen_neff_topo(const cm_topo *t, topogen_neff *v)
{
    v->msgs = tg_neff_messages_topo(t);
    v->how = t->directed ? "Lyapunov" : "closed form";
    for (size_t g = 0; g < v->k; g++)
        v->err[g] = 0.0;
    return tg_neff_topo(t, v->gamma, v->k, v->neff);
}

/* n_eff of `period` dense matrices at v's gammas. */
static cm_status dense_all(const double *const *w, size_t period, size_t n,
                           topogen_neff *v)
{
    v->how = "Lyapunov";
    for (size_t g = 0; g < v->k; g++) {
        v->err[g] = 0.0;
        cm_status st = tg_neff_dense(w, period, n, v->gamma[g], &v->neff[g]);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

cm_status topogen_neff_seq(const cm_topo_seq *s, topogen_neff *v)
{
    size_t n = s->n, P = s->period;
    if (n > TG_NEFF_DENSE_MAX)
        return cm_error(CM_EINVAL, "n_eff: %zu nodes is too many (at most "
                        "%d)", n, TG_NEFF_DENSE_MAX);
    double *w = malloc((P * n * n + 1) * sizeof *w);
    const double **ws = malloc((P + 1) * sizeof *ws);
    cm_status st = CM_OK;
    if (!w || !ws) {
        st = cm_error(CM_ENOMEM, "n_eff: out of memory");
        goto cleanup;
    }
    v->msgs = 0.0;
    for (size_t p = 0; p < P; p++) {
        tg_neff_fill_dense(&s->round[p], w + p * n * n);
        ws[p] = w + p * n * n;
        v->msgs += tg_neff_messages_topo(&s->round[p]) / (double)P;
    }
    st = dense_all(ws, P, n, v);
cleanup:
    free(w);
    free(ws);
    return st;
}

cm_status topogen_neff_digraph(const tg_digraph *g, topogen_neff *v)
{
    /* the sparse Neumann series: exact, O(terms S n^2) instead of O(n^3) */
    v->msgs = tg_digraph_messages(g);
    v->how = "Lyapunov";
    for (size_t k = 0; k < v->k; k++) {
        double ty;
        cm_status st = tg_neff_series(g->n, tg_digraph_apply, (void *)g,
                                      v->gamma[k], &ty, NULL);
        if (st != CM_OK)
            return st;
        v->err[k] = 0.0;
        v->neff[k] = tg_neff_from_trace(g->n, v->gamma[k],
                                        1.0 / (1.0 - v->gamma[k]) + ty);
    }
    return CM_OK;
}

/* ||W - J||_2 of a dense n x n W, from the eigenvalues of
 * (W - J)^T (W - J). O(n^3). */
cm_status topogen_norm_wj(const double *w, size_t n, double *out)
{
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    double *ev = malloc(n * sizeof *ev), *work = malloc(3 * n * sizeof *work);
    cm_status st = CM_OK;
    if (!a || !b || !ev || !work) {
        st = cm_error(CM_ENOMEM, "out of memory");
        goto cleanup;
    }
    double jn = 1.0 / (double)n;
    for (size_t k = 0; k < n * n; k++)
        a[k] = w[k] - jn;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j <= i; j++) {
            double s = 0.0;
            for (size_t k = 0; k < n; k++)
                s += a[k * n + i] * a[k * n + j];
            b[i * n + j] = b[j * n + i] = s;
        }
    if ((st = cm_eigen_sym_work(CM_EIGEN_VALUES, n, b, ev, work, 3 * n)) !=
        CM_OK)
        goto cleanup;
    *out = sqrt(fmax(ev[n - 1], 0.0));
cleanup:
    free(a);
    free(b);
    free(ev);
    free(work);
    return st;
}

cm_status topogen_digraph_norm(const tg_digraph *g, double *out)
{
    double *w = malloc(g->n * g->n * sizeof *w);
    if (!w)
        return cm_error(CM_ENOMEM, "out of memory");
    tg_digraph_dense(g, w);
    cm_status st = topogen_norm_wj(w, g->n, out);
    free(w);
    return st;
}
