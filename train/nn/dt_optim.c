/* dt_optim.c: SGD with momentum (PyTorch convention, v <- mu v + g, no
 * dampening), L2 weight decay folded into the gradient, and a warm-up +
 * step/cosine learning-rate schedule (Goyal et al. 2017 warm-up;
 * Loshchilov & Hutter 2017 cosine, without restarts). */
#include "dt_optim.h"

#include <math.h>
#include <string.h>

cm_status dt_sched_parse(const char *name, dt_sched_kind *k)
{
    static const char *names[] = {"const", "step", "cosine"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *k = (dt_sched_kind)i;
            return CM_OK;
        }
    return cm_error(CM_EINVAL, "unknown schedule '%s' (expected const, step "
                    "or cosine)", name ? name : "");
}

const char *dt_sched_name(dt_sched_kind k)
{
    return k == DT_SCHED_STEP ? "step" : k == DT_SCHED_COSINE ? "cosine"
                                                              : "const";
}

double dt_sched_lr(const dt_sched *s, double t)
{
    if (t < s->warmup)
        return s->lr * (0.1 + 0.9 * t / s->warmup);
    double u = t - s->warmup;
    switch (s->kind) {
    case DT_SCHED_STEP:
        if (s->step_epochs > 0)
            return s->lr * pow(s->gamma, floor(u / s->step_epochs));
        return s->lr;
    case DT_SCHED_COSINE: {
        double span = s->total - s->warmup;
        if (span <= 0)
            return s->lr;
        double f = u / span;
        if (f > 1.0)
            f = 1.0;
        return s->lr * 0.5 * (1.0 + cos(M_PI * f));
    }
    case DT_SCHED_CONST:
        break;
    }
    return s->lr;
}

void dt_sgd_velocity(float *v, const float *g, const float *x, size_t n,
                     float mu, float wd)
{
    for (size_t i = 0; i < n; i++)
        v[i] = mu * v[i] + (g[i] + wd * x[i]);
}

void dt_sgd_apply(float *x, const float *v, size_t n, float lr)
{
    for (size_t i = 0; i < n; i++)
        x[i] -= lr * v[i];
}

cm_status dt_check_finite(double loss, const float *x, size_t n,
                          size_t epoch, size_t step, double lr)
{
    const char *what = NULL;
    float bad = 0.0f;
    if (!isfinite(loss)) {
        what = "the training loss is";
        bad = (float)loss;
    } else {
        /* sum first: a finite sum proves every term finite (no branch per
         * element on the common path); only then look for the culprit */
        float acc = 0.0f;
        for (size_t i = 0; i < n; i++)
            acc += x[i] * 0.0f;
        if (acc != 0.0f) {
            for (size_t i = 0; i < n; i++)
                if (!isfinite(x[i])) {
                    bad = x[i];
                    break;
                }
            what = "the parameters hold";
        }
    }
    if (!what)
        return CM_OK;
    return cm_error(CM_ENUMERIC, "training diverged at epoch %zu (step %zu): "
                    "%s %s (learning rate %g); lower --lr", epoch, step, what,
                    isnan(bad) ? "NaN" : "infinite", lr);
}
