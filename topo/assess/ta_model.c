/* ta_model.c: the convergence model (see ta_model.h for the formula and
 * its sources). The fit is GSL's trust-region nonlinear least squares
 * with a finite-difference Jacobian (5 parameters, a few hundred runs);
 * the covariance comes from gsl_multifit_nlinear_covar and the interval's
 * quantile from gsl_cdf_tdist_Pinv. Trade-off: runs that never reached
 * the target are left out of the fit (censored, counted) rather than
 * modelled as bounds; a schedule that failed in runs at its settings is
 * ranked by its measurement instead (ta_plan.c).
 */
#include "ta_model.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

cm_status ta_model_features(const ta_sched *s, double *c, double *u,
                            double *zeta)
{
    double H = s->H ? (double)s->H : 1.0, p;
    switch (s->alg) {
    case TA_ALG_ALLREDUCE:
        p = 1.0;
        break;
    case TA_ALG_LOCAL:
    case TA_ALG_DILOCO:
        p = 1.0 / H;
        break;
    default:
        if (!strcmp(s->graph, "opexp"))
            p = s->n > 1 ? 1.0 / log2((double)s->n) : 1.0;
        else if (isnan(s->slem))
            return cm_error(CM_EINVAL, "the SLEM of graph '%s' is unknown",
                            s->graph);
        else
            p = 1.0 - s->slem;
        p /= H;
        break;
    }
    if (s->global_every && p < 1.0 / ((double)s->global_every * H))
        p = 1.0 / ((double)s->global_every * H);
    p /= 1.0 + (s->staleness > 0 ? s->staleness : 0);
    p *= s->compress > 0 && s->compress < 1 ? s->compress : 1;
    if (!(p > 1e-9))
        p = 1e-9;
    if (p > 1)
        p = 1; /* a W with SLEM < 0 (directed files): mixes at once */
    *c = (1.0 - p) / p;
    *u = s->alg == TA_ALG_D2 || s->alg == TA_ALG_GT ? 0.0 : 1.0;
    *zeta = ta_partition_zeta(s->partition);
    if (*zeta < 0)
        return cm_error(CM_EINVAL, "partition '%s' is not iid, "
                        "dirichlet:A or shards:K", s->partition);
    return CM_OK;
}

/* one observation's features: c, u, zeta, log(nb/1024) */
typedef struct {
    double x[4];
    double y; /* log E */
} obs;

static double model(const double *phi, const double *x)
{
    return phi[0] + log1p(exp(phi[1]) * x[0] * (1 + exp(phi[2]) * x[1] *
                                                       x[2])) +
           phi[3] * x[3];
}

typedef struct {
    const obs *o;
    size_t n;
} data;

static int resid(const gsl_vector *v, void *params, gsl_vector *f)
{
    const data *d = params;
    double phi[TA_NPAR];
    for (size_t k = 0; k < TA_NPAR; k++)
        phi[k] = gsl_vector_get(v, k);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, model(phi, d->o[i].x) - d->o[i].y);
    return GSL_SUCCESS;
}

static int obs_of(const ta_sched *s, obs *o)
{
    double c, u, z;
    if (ta_model_features(s, &c, &u, &z) != CM_OK || !(s->lr > 0) ||
        !s->n || !s->batch)
        return 0;
    o->x[0] = c;
    o->x[1] = u;
    o->x[2] = z;
    o->x[3] = log((double)s->n * (double)s->batch / 1024.0);
    return 1;
}

static void widen(ta_range *g, const obs *o, const ta_sched *s)
{
    double n = (double)s->n;
    if (!g->runs++) {
        g->c_min = g->c_max = o->x[0];
        g->z_min = g->z_max = o->x[2];
        g->n_min = g->n_max = n;
        g->lr_min = g->lr_max = s->lr;
        return;
    }
    g->c_min = fmin(g->c_min, o->x[0]);
    g->c_max = fmax(g->c_max, o->x[0]);
    g->z_min = fmin(g->z_min, o->x[2]);
    g->z_max = fmax(g->z_max, o->x[2]);
    g->n_min = fmin(g->n_min, n);
    g->n_max = fmax(g->n_max, n);
    g->lr_min = fmin(g->lr_min, s->lr);
    g->lr_max = fmax(g->lr_max, s->lr);
}

cm_status ta_model_fit(ta_model *m, const ta_runs *r)
{
    memset(m, 0, sizeof *m);
    obs *o = calloc(r->n + 1, sizeof *o);
    if (!o)
        return cm_error(CM_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t k = 0; k < r->n; k++) {
        const ta_run *x = &r->v[k];
        if (x->steps < 0 || x->diverged) {
            m->censored++;
            continue;
        }
        if (!obs_of(&x->s, &o[n])) {
            m->no_slem++;
            continue;
        }
        double spe = x->steps_per_epoch > 0
                         ? x->steps_per_epoch
                         : 60000.0 / ((double)x->s.n * (double)x->s.batch);
        /* the first evaluation at or above the target: at least one step */
        o[n].y = log(fmax(x->steps, 1.0) / spe);
        widen(&m->range[x->s.alg], &o[n], &x->s);
        n++;
    }
    m->runs = n;
    if (n < 2 * TA_NPAR) {
        free(o);
        return CM_OK;
    }
    double ybar = 0;
    for (size_t i = 0; i < n; i++)
        ybar += o[i].y / (double)n;
    data d = {o, n};
    gsl_multifit_nlinear_fdf fdf;
    memset(&fdf, 0, sizeof fdf);
    fdf.f = resid;
    fdf.n = n;
    fdf.p = TA_NPAR;
    fdf.params = &d;
    gsl_multifit_nlinear_parameters par =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n,
                                   TA_NPAR);
    gsl_vector *x0 = gsl_vector_alloc(TA_NPAR);
    gsl_matrix *cov = gsl_matrix_alloc(TA_NPAR, TA_NPAR);
    cm_status st = CM_OK;
    if (!w || !x0 || !cov) {
        st = cm_error(CM_ENOMEM, "out of memory");
        goto done;
    }
    const double init[TA_NPAR] = {ybar, log(0.1), 0.0, 0.0};
    for (size_t k = 0; k < TA_NPAR; k++)
        gsl_vector_set(x0, k, init[k]);
    int info, rc = gsl_multifit_nlinear_init(x0, &fdf, w);
    if (rc == GSL_SUCCESS)
        rc = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 1e-10, NULL,
                                         NULL, &info, w);
    if (rc != GSL_SUCCESS && rc != GSL_EMAXITER) {
        st = cm_error(CM_ENUMERIC, "the convergence model's fit failed: %s",
                      gsl_strerror(rc));
        goto done;
    }
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    gsl_multifit_nlinear_covar(J, 1e-12, cov);
    double ssr;
    gsl_blas_ddot(gsl_multifit_nlinear_residual(w),
                  gsl_multifit_nlinear_residual(w), &ssr);
    const gsl_vector *phi = gsl_multifit_nlinear_position(w);
    for (size_t k = 0; k < TA_NPAR; k++) {
        m->phi[k] = gsl_vector_get(phi, k);
        for (size_t j = 0; j < TA_NPAR; j++)
            m->cov[k][j] = gsl_matrix_get(cov, k, j);
    }
    m->dof = n - TA_NPAR;
    m->s2 = ssr / (double)m->dof;
    m->rmse = sqrt(m->s2);
    m->fitted = isfinite(m->s2);
done:
    gsl_matrix_free(cov);
    gsl_vector_free(x0);
    if (w)
        gsl_multifit_nlinear_free(w);
    free(o);
    return st;
}

cm_status ta_model_predict(const ta_model *m, const ta_sched *s, double *e,
                           double *lo, double *hi, int *inside)
{
    obs o;
    if (!m->fitted)
        return cm_error(CM_EINVAL, "no convergence model (fewer than %d "
                        "runs reached the target)", 2 * TA_NPAR);
    if (!obs_of(s, &o))
        return cm_error(CM_EINVAL, "the schedule's features are unknown");
    double f = model(m->phi, o.x), g[TA_NPAR];
    for (size_t k = 0; k < TA_NPAR; k++) {
        double phi[TA_NPAR], h = 1e-6 * fmax(1.0, fabs(m->phi[k]));
        memcpy(phi, m->phi, sizeof phi);
        phi[k] += h;
        g[k] = (model(phi, o.x) - f) / h;
    }
    double q = 0;
    for (size_t k = 0; k < TA_NPAR; k++)
        for (size_t j = 0; j < TA_NPAR; j++)
            q += g[k] * m->cov[k][j] * g[j];
    double t = gsl_cdf_tdist_Pinv(0.975, (double)m->dof);
    double half = t * sqrt(m->s2 * (1.0 + q));
    *e = exp(f);
    *lo = exp(f - half);
    *hi = exp(f + half);
    const ta_range *g2 = &m->range[s->alg];
    double eps = 1e-9;
    *inside = g2->runs > 0 && o.x[0] >= g2->c_min - eps &&
              o.x[0] <= g2->c_max * (1 + eps) + eps &&
              o.x[2] >= g2->z_min - eps && o.x[2] <= g2->z_max + eps &&
              (double)s->n >= g2->n_min && (double)s->n <= g2->n_max &&
              s->lr >= g2->lr_min * (1 - eps) &&
              s->lr <= g2->lr_max * (1 + eps);
    return CM_OK;
}
