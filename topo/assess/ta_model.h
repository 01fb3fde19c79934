/* ta_model: the convergence model of `topogen plan`: epochs to a target
 * accuracy as a function of the schedule, fitted by nonlinear least
 * squares (GSL's gsl_multifit_nlinear, trust region with
 * Levenberg-Marquardt steps) to the committed runs that reached the
 * target; docs/topo/plan-model.md.
 *
 * The form follows the decentralized SGD bounds (Koloskova et al., "A
 * unified theory of decentralized SGD", ICML 2020; Lian et al. 2017;
 * Tang et al., D^2, ICML 2018): the steps to an accuracy are those of
 * exact averaging times a consensus penalty that grows as 1/p, with p the
 * rate at which the schedule mixes, plus a heterogeneity term that D^2
 * and gradient tracking remove:
 *
 *   log E = phi0 + log(1 + e^phi1 c (1 + e^phi2 u zeta))
 *           + phi3 log(n b / 1024) + phi4 g + phi5 log(lr / 0.05)
 *           + phi6 g u zeta
 *   c = (1 - p) / p
 *   p = 1 (all-reduce every step); 1/H (local SGD, DiLoCo);
 *       (1 - slem) / H for gossip (one-peer exponential: 1 / log2 n);
 *       max(p, 1/(K H)) with an exact average every K communications;
 *       p / (1 + tau) with staleness tau; p w when a fraction w is sent
 *   u = 1 for D-PSGD and local SGD (heterogeneity not corrected), 0 for
 *       D^2 and GT; zeta = ta_partition_zeta (iid 0, dirichlet:0.1 0.91)
 *   g = 1 for the gossip family (D-PSGD, D^2, GT, other rules), 0 for
 *       exact averages (all-reduce, local SGD, DiLoCo): the algorithm
 *       family as the issue lists it. The bounds are for the average of
 *       the models; a gossip run is evaluated on a worker's model (or
 *       an average of models never exactly mixed), a constant factor
 *       the spectral gap alone does not carry.
 *   phi5: SGD's steps to an accuracy scale as 1/lr at small steps
 *       (phi5 near -1); phi6: the drift of D-PSGD's local models on
 *       non-iid data that does not shrink with the spectral gap (the
 *       committed runs: D-PSGD on dirichlet:0.1 took 2-3x the epochs of
 *       all-reduce for c from 0.8 to 6 alike).
 *
 * n b is the global batch (workers x images per worker). The learning
 * rate also bounds the fitted range, so an lr outside it is an
 * extrapolation.
 * E in epochs (steps / steps per epoch), at the step where the test
 * accuracy crosses the target, linear between the two evaluations that
 * bracket it; residuals on log E (errors are multiplicative). A run that
 * never reached the target in E_run epochs is a lower bound: its
 * residual is min(0, model - log E_run) (one-sided, so the fit stays
 * least squares). Intervals are 95% prediction intervals for one run:
 * log E +- t_{0.975, dof} s sqrt(1 + g' (J'J)^-1 g), g = d log E / d phi
 * (gsl_cdf_tdist_Pinv; s^2 = SSR / dof).
 */
#ifndef TA_MODEL_H
#define TA_MODEL_H

#include <stddef.h>

#include "cm_status.h"
#include "ta_runs.h"

#define TA_NPAR 7

/* The range of the fitted data, per algorithm (a prediction outside it
 * is an extrapolation). */
typedef struct {
    size_t runs;              /* runs of this algorithm in the fit */
    double c_min, c_max;      /* consensus penalty c */
    double z_min, z_max;      /* heterogeneity zeta */
    double n_min, n_max;      /* workers */
    double lr_min, lr_max;    /* learning rate */
} ta_range;

typedef struct {
    double phi[TA_NPAR];      /* fitted parameters */
    double cov[TA_NPAR][TA_NPAR]; /* (J'J)^-1 */
    double s2;                /* residual variance of log E */
    size_t runs, dof;         /* runs fitted, degrees of freedom */
    size_t censored;          /* never reached the target: fitted as
                                 lower bounds */
    size_t diverged;          /* runs left out: diverged */
    size_t no_slem;           /* runs left out: graph's SLEM unknown */
    double rmse;              /* sqrt(s2): typical factor e^rmse */
    ta_range range[TA_ALG_COUNT];
    int fitted;               /* 0: too few runs (every row measured or
                                 extrapolated) */
} ta_model;

/* The model's features of a schedule: c, u and zeta (above); CM_EINVAL
 * when the schedule's SLEM is unknown (NAN) for a gossip rule. */
cm_status ta_model_features(const ta_sched *s, double *c, double *u,
                            double *zeta);

/* 1 for the gossip family (D-PSGD, D^2, GT, other rules), else 0. */
double ta_model_gossip(ta_alg alg);

/* Fits m to the runs of r with known features: those that reached the
 * target, and those that never did as lower bounds (diverged runs left
 * out). Fewer than 2 TA_NPAR runs that reached it leave m->fitted = 0
 * (CM_OK).
 * CM_ENUMERIC when GSL fails. Cost: a few hundred model evaluations per
 * run. */
cm_status ta_model_fit(ta_model *m, const ta_runs *r);

/* Predicted epochs to the target for s: *e the point, [*lo, *hi] the 95%
 * prediction interval; *inside 1 when s lies inside the fitted range of
 * its algorithm. CM_EINVAL when not fitted or the features are
 * unknown. */
cm_status ta_model_predict(const ta_model *m, const ta_sched *s, double *e,
                           double *lo, double *hi, int *inside);

#endif
