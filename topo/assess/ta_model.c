/* ta_model.c: the convergence model (see ta_model.h for the formula and
 * its sources). The fit is GSL's trust-region nonlinear least squares
 * with a finite-difference Jacobian (5 parameters, a few hundred runs);
 * the covariance comes from gsl_multifit_nlinear_covar and the interval's
 * quantile from gsl_cdf_tdist_Pinv. Runs that never reached the target
 * are lower bounds (a one-sided residual, below); a schedule that failed
 * in runs at its settings is still ranked by its measurement (ta_plan.c).
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

double ta_model_gossip(ta_alg alg)
{
    return alg == TA_ALG_DPSGD || alg == TA_ALG_D2 || alg == TA_ALG_GT ||
                   alg == TA_ALG_OTHER
               ? 1.0
               : 0.0;
}

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
    /* compression slows gossip's mixing (CHOCO); an exact average of
     * compressed pseudo-gradients with error feedback (local SGD,
     * DiLoCo) still mixes at once */
    if (s->alg > TA_ALG_DILOCO)
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

/* one observation's features: c, u, zeta, log(nb/1024), gossip,
 * log(lr/0.05), gossip u zeta */
typedef struct {
    double x[7];
    double y;  /* log E; a run that never reached the target: log of the
                  epochs it ran (a lower bound) */
    int bound; /* 1: y is a lower bound (a censored run) */
} obs;

static double model(const double *phi, const double *x)
{
    return phi[0] + log1p(exp(phi[1]) * x[0] * (1 + exp(phi[2]) * x[1] *
                                                       x[2])) +
           phi[3] * x[3] + phi[4] * x[4] + phi[5] * x[5] + phi[6] * x[6];
}

/* The residual of one observation. A censored run (never reached the
 * target in E_run epochs) says log E > log E_run: no residual when the
 * model agrees, the shortfall when it predicts the target sooner (a
 * one-sided, Tobit-like hinge: least squares still, piecewise smooth). */
static double residual(const double *phi, const obs *o)
{
    double r = model(phi, o->x) - o->y;
    return o->bound && r > 0 ? 0.0 : r;
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
        gsl_vector_set(f, i, residual(phi, &d->o[i]));
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
    o->x[4] = ta_model_gossip(s->alg);
    o->x[5] = log(s->lr / 0.05);
    o->x[6] = o->x[4] * u * z;
    o->bound = 0;
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
    size_t n = 0, reached = 0;
    for (size_t k = 0; k < r->n; k++) {
        const ta_run *x = &r->v[k];
        if (x->diverged) {
            m->diverged++;
            continue;
        }
        if (!obs_of(&x->s, &o[n])) {
            m->no_slem++;
            continue;
        }
        double spe = x->steps_per_epoch > 0
                         ? x->steps_per_epoch
                         : 60000.0 / ((double)x->s.n * (double)x->s.batch);
        if (x->steps < 0) {
            /* never: at least the epochs it ran */
            double ran = x->steps_run > 0 ? x->steps_run / spe : x->s.epochs;
            if (!(ran > 0)) {
                m->no_slem++;
                continue;
            }
            o[n].y = log(ran);
            o[n].bound = 1;
            m->censored++;
            n++;
            continue;
        }
        /* the step where the accuracy crosses the target, interpolated
         * between evaluations: at least one step */
        double st = x->steps_fit >= 0 ? x->steps_fit : x->steps;
        o[n].y = log(fmax(st, 1.0) / spe);
        widen(&m->range[x->s.alg], &o[n], &x->s);
        n++;
        reached++;
    }
    m->runs = reached;
    if (reached < 2 * TA_NPAR) {
        free(o);
        return CM_OK;
    }
    double ybar = 0;
    for (size_t i = 0; i < n; i++)
        ybar += o[i].bound ? 0 : o[i].y / (double)reached;
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
    /* The model is not convex in phi1, phi2 (a consensus penalty can hide
     * behind a large heterogeneity factor and the reverse): start from a
     * few points over their range and keep the smallest residual. */
    static const double START[][2] = {{-2.3, 0.0}, {-4.6, 2.0}, {-1.0, -2.0},
                                      {-6.9, 4.0}, {0.0, 0.0}, {-3.0, 3.0}};
    double best = INFINITY, bestphi[TA_NPAR];
    int rc = GSL_SUCCESS;
    for (size_t t = 0; t < sizeof START / sizeof START[0]; t++) {
        const double init[TA_NPAR] = {ybar, START[t][0], START[t][1], 0.0,
                                      0.0, 0.0, 0.0};
        for (size_t k = 0; k < TA_NPAR; k++)
            gsl_vector_set(x0, k, init[k]);
        int info;
        rc = gsl_multifit_nlinear_init(x0, &fdf, w);
        if (rc == GSL_SUCCESS)
            rc = gsl_multifit_nlinear_driver(500, 1e-10, 1e-10, 1e-10, NULL,
                                             NULL, &info, w);
        if (rc != GSL_SUCCESS && rc != GSL_EMAXITER)
            continue;
        double ssr;
        gsl_blas_ddot(gsl_multifit_nlinear_residual(w),
                      gsl_multifit_nlinear_residual(w), &ssr);
        if (ssr < best) {
            best = ssr;
            for (size_t k = 0; k < TA_NPAR; k++)
                bestphi[k] = gsl_vector_get(
                    gsl_multifit_nlinear_position(w), k);
        }
    }
    if (!isfinite(best)) {
        st = cm_error(CM_ENUMERIC, "the convergence model's fit failed: %s",
                      gsl_strerror(rc));
        goto done;
    }
    /* the Jacobian and residual at the best start */
    for (size_t k = 0; k < TA_NPAR; k++)
        gsl_vector_set(x0, k, bestphi[k]);
    gsl_multifit_nlinear_init(x0, &fdf, w);
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    gsl_multifit_nlinear_covar(J, 1e-12, cov);
    double ssr = best;
    for (size_t k = 0; k < TA_NPAR; k++) {
        m->phi[k] = bestphi[k];
        for (size_t j = 0; j < TA_NPAR; j++)
            m->cov[k][j] = gsl_matrix_get(cov, k, j);
    }
    /* the bounds a fit satisfies add nothing to the residual: the degrees
     * of freedom are those of the runs that reached the target */
    m->dof = reached - TA_NPAR;
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
