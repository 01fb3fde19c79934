/* dt_optim: SGD with momentum and weight decay, and the learning-rate
 * schedule (linear warm-up, then constant, step or cosine decay).
 *
 * The update is split in two so that decentralized SGD can reuse it:
 *   dt_sgd_velocity:  v <- mu v + (g + wd x)
 *   dt_sgd_apply:     x <- x - lr v
 * Single-worker SGD calls both; D-PSGD computes x_i <- sum_j W_ij x_j -
 * lr v_i with the gossip average in place of x. All on flat (n, x) arrays.
 */
#ifndef DT_OPTIM_H
#define DT_OPTIM_H

#include <stddef.h>

#include "cm_status.h"

typedef enum {
    DT_SCHED_CONST,  /* lr after warm-up */
    DT_SCHED_STEP,   /* lr * gamma^floor((t - warmup) / step_epochs) */
    DT_SCHED_COSINE  /* lr * (1 + cos(pi (t - warmup)/(T - warmup))) / 2 */
} dt_sched_kind;

typedef struct {
    dt_sched_kind kind; /* decay after warm-up */
    double lr;          /* base (peak) learning rate */
    double warmup;      /* warm-up length in epochs (linear from lr/10) */
    double total;       /* total training length in epochs (cosine) */
    double step_epochs; /* step: epochs between decays */
    double gamma;       /* step: decay factor */
} dt_sched;

/* Parses "const", "step" or "cosine"; CM_EINVAL naming the value. */
cm_status dt_sched_parse(const char *name, dt_sched_kind *k);

/* The schedule's name. */
const char *dt_sched_name(dt_sched_kind k);

/* Learning rate at training time t, in (fractional) epochs since the start:
 * during warm-up (t < warmup) lr (0.1 + 0.9 t / warmup); then the decay of
 * `kind`. O(1). */
double dt_sched_lr(const dt_sched *s, double t);

/* v <- mu v + (g + wd x) over n floats (the momentum buffer update with L2
 * weight decay, PyTorch's SGD convention). O(n). */
void dt_sgd_velocity(float *v, const float *g, const float *x, size_t n,
                     float mu, float wd);

/* x <- x - lr v over n floats. O(n). */
void dt_sgd_apply(float *x, const float *v, size_t n, float lr);

/* Divergence guard (issue 10 item 7): returns CM_OK when loss and every
 * x[0..n) are finite, else CM_ENUMERIC with "training diverged at epoch E
 * (step S): the loss is nan|inf / the parameters hold nan|inf (learning
 * rate LR); lower --lr". A run must not report a result from NaN
 * parameters as if it were one. O(n). */
cm_status dt_check_finite(double loss, const float *x, size_t n,
                          size_t epoch, size_t step, double lr);

#endif
