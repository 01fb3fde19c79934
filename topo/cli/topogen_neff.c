/* topogen_neff.c: n_eff in topogen's reports (see topogen_neff.h). The
 * JSON members come from topogen_neff_json alone, so a change of the JSON
 * writer touches one function. */
#include "topogen_neff.h"

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

void topogen_neff_print(const topogen_neff *v)
{
    for (size_t g = 0; g < v->k; g++) {
        char err[48] = "";
        if (v->err[g] > 0.0)
            snprintf(err, sizeof err, " +- %.2f", v->err[g]);
        printf("neff          %.4f%s  (gamma %g, %s; %.4f per message, "
               "%.4g sent per node per round)\n", v->neff[g], err,
               v->gamma[g], v->how,
               v->msgs > 0.0 ? v->neff[g] / v->msgs : NAN, v->msgs);
    }
}

/* One member: a number for one gamma, else an object keyed by gamma. */
static void member(json_t *o, const char *key, const topogen_neff *v,
                   int per_msg, int err, int *bad)
{
    double x[TG_NEFF_MAX_GAMMAS];
    for (size_t g = 0; g < v->k; g++)
        x[g] = err ? v->err[g]
               : per_msg ? (v->msgs > 0.0 ? v->neff[g] / v->msgs : NAN)
                         : v->neff[g];
    if (v->k == 1) {
        topogen_json_num(o, key, x[0], bad);
        return;
    }
    json_t *m = json_object();
    for (size_t g = 0; g < v->k; g++) {
        char k[32];
        snprintf(k, sizeof k, "%g", v->gamma[g]);
        topogen_json_num(m, k, x[g], bad);
    }
    topogen_json_set(o, key, m, bad);
}

void topogen_neff_json(const topogen_neff *v, json_t *o, int *bad)
{
    if (!v->k)
        return;
    member(o, "neff", v, 0, 0, bad);
    member(o, "neff_per_message", v, 1, 0, bad);
    int mc = 0;
    for (size_t g = 0; g < v->k; g++)
        mc |= v->err[g] > 0.0;
    if (mc)
        member(o, "neff_error", v, 0, 1, bad);
}
