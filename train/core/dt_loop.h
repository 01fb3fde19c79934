/* dt_loop: the one training loop of dpsgd-train, run by both modes.
 *
 * A run is T = steps_per_epoch * epochs steps. Step t (0-based) uses the
 * learning rate of the schedule at time t / steps_per_epoch epochs; after
 * the step an evaluation is due when it closes an epoch, or when
 * eval_every divides the steps done; a run stops early after the
 * evaluation that closes epoch stop_after. What a step and an evaluation
 * do is the caller's (dt_loop_body): the single worker (dt_train_single)
 * steps one network through its shuffled training set; D-PSGD
 * (dt_dpsgd_run) steps every worker of the rank, gossips, and agrees on
 * failures across ranks. Both share this driver and dt_loop_local_step,
 * the gradient-and-momentum half of an SGD step.
 */
#ifndef DT_LOOP_H
#define DT_LOOP_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_config.h"
#include "dt_net.h"
#include "dt_optim.h"

/* The shape of a run. */
typedef struct {
    size_t steps_per_epoch; /* S >= 1 */
    size_t epochs;          /* T = S * epochs steps */
    size_t eval_every;      /* also evaluate every this many steps (0: only
                               at the end of each epoch) */
    size_t stop_after;      /* stop after this epoch (0: run to T) */
    dt_sched sched;         /* learning rate against epochs */
} dt_loop_plan;

/* What a run does at each step and evaluation. */
typedef struct {
    /* One step at learning rate lr; `step` steps are done before it. */
    cm_status (*step)(void *ctx, size_t step, double lr);
    /* Evaluation after `done` steps; epoch_end is 1 when the step closed
     * an epoch. lr: the rate the row reports, that of the FIRST step since
     * the previous evaluation (the epoch's first step when evaluations
     * come at epoch ends only: the rate the epoch was trained at, as
     * PyTorch's per-epoch schedulers report it), never the rate after. */
    cm_status (*evaluate)(void *ctx, size_t done, double lr, int epoch_end);
    void *ctx;              /* passed to both */
} dt_loop_body;

/* The plan of cfg's schedule, epochs, --eval-every and --stop-after for S
 * steps per epoch (S >= 1). */
void dt_loop_plan_init(dt_loop_plan *p, const dt_config *cfg, size_t S);

/* Runs steps *step .. T-1 of plan p (*step: the step to start from, 0 or
 * a resumed one), calling b->step and, when due, b->evaluate; stops at
 * the first failure and returns it. *step: the steps done on return. */
cm_status dt_loop_run(const dt_loop_plan *p, const dt_loop_body *b,
                      size_t *step);

/* The local half of an SGD step at parameters x (len = net->n_params):
 * the gradient of the mean loss of the minibatch (xb, yb, batch images)
 * into net->grads, then v <- mu v + (g + wd x). *loss: the minibatch's
 * mean loss. The caller applies x <- x' - lr v (x' = x, or the gossip
 * average). CM_EINVAL as dt_net_grad. */
cm_status dt_loop_local_step(dt_net *net, const float *x, float *v,
                             const float *xb, const uint8_t *yb,
                             size_t batch, float mu, float wd, double *loss);

#endif
