/* dt_loop.c: the training-loop driver shared by the single-worker and the
 * distributed modes (see dt_loop.h). The learning rate is a function of
 * the step alone, so a resumed run continues the same schedule, and the
 * rate an evaluation reports (the first step's of the steps since the
 * previous evaluation) is a function of the step alone too.
 */
#include "dt_loop.h"

void dt_loop_plan_init(dt_loop_plan *p, const dt_config *cfg, size_t S)
{
    p->steps_per_epoch = S ? S : 1;
    p->epochs = cfg->epochs;
    p->eval_every = cfg->eval_every;
    p->stop_after = cfg->stop_after;
    p->sched = (dt_sched){.kind = cfg->schedule, .lr = cfg->lr,
                          .warmup = cfg->warmup,
                          .total = (double)cfg->epochs,
                          .step_epochs = cfg->step_epochs,
                          .gamma = cfg->gamma};
}

cm_status dt_loop_run(const dt_loop_plan *p, const dt_loop_body *b,
                      size_t *step)
{
    const size_t S = p->steps_per_epoch, T = S * p->epochs;
    cm_status s = CM_OK;
    for (; *step < T; ++*step) {
        const size_t t = *step;
        double lr = dt_sched_lr(&p->sched, (double)t / (double)S);
        if ((s = b->step(b->ctx, t, lr)) != CM_OK)
            return s;
        int epoch_end = (t + 1) % S == 0;
        if (!epoch_end && !(p->eval_every && (t + 1) % p->eval_every == 0))
            continue;
        /* the row's rate: the first step's since the previous row */
        size_t first = t - t % S;
        if (p->eval_every && t - t % p->eval_every > first)
            first = t - t % p->eval_every;
        const double lr_row = dt_sched_lr(&p->sched,
                                          (double)first / (double)S);
        if ((s = b->evaluate(b->ctx, t + 1, lr_row, epoch_end)) != CM_OK)
            return s;
        if (epoch_end && p->stop_after && (t + 1) / S >= p->stop_after) {
            ++*step;
            break;
        }
    }
    return CM_OK;
}

cm_status dt_loop_local_step(dt_net *net, const float *x, float *v,
                             const float *xb, const uint8_t *yb,
                             size_t batch, float mu, float wd, double *loss)
{
    cm_status s = dt_net_grad(net, x, net->grads, xb, yb, batch, loss);
    dt_sgd_velocity(v, net->grads, x, net->n_params, mu, wd);
    return s;
}
