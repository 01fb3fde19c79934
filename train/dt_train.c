/* dt_train.c: the single-worker loop (minibatch SGD, Robbins & Monro; with
 * momentum and the schedule of dt_optim). Data are shuffled each epoch
 * with a Fisher-Yates permutation from stream 1 of the seed; parameters are
 * initialized from stream 0. The last partial minibatch of an epoch is
 * kept (PyTorch's drop_last=False). Each minibatch is gathered into one
 * contiguous buffer so that the network sees NCHW batches.
 */
#include "dt_train.h"

#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "cm_time.h"
#include "dt_log.h"
#include "dt_net.h"
#include "dt_optim.h"

void dt_batch_gather(const dt_data *d, const size_t *order, size_t off,
                     size_t b, float *x, uint8_t *y)
{
    const size_t img = d->c * d->h * d->w;
    for (size_t k = 0; k < b; k++) {
        size_t i = order[off + k];
        memcpy(x + k * img, d->x + i * img, img * sizeof *x);
        y[k] = d->y[i];
    }
}

uint64_t dt_hash_floats(const float *x, size_t n)
{
    const unsigned char *p = (const unsigned char *)x;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n * sizeof *x; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* First `limit` indices of a split (limit 0 or beyond the split: all). */
static cm_status load_split(const dt_source *src, dt_split sp, size_t limit,
                            const dt_norm *norm, dt_data *out)
{
    dt_shape sh;
    cm_status s = dt_source_shape(src, sp, &sh);
    if (s != CM_OK)
        return s;
    if (!limit || limit >= sh.n)
        return dt_data_load(src, sp, NULL, 0, norm, out);
    size_t *idx = malloc(limit * sizeof *idx);
    if (!idx)
        return cm_error(CM_ENOMEM, "out of memory");
    for (size_t i = 0; i < limit; i++)
        idx[i] = i;
    s = dt_data_load(src, sp, idx, limit, norm, out);
    free(idx);
    return s;
}

cm_status dt_train_load(const dt_config *cfg, dt_data *train, dt_data *test)
{
    dt_source src;
    dt_norm norm;
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    cm_status s = dt_source_init(&src, cfg->dataset,
                                 cfg->data_dir[0] ? cfg->data_dir : NULL,
                                 cfg->seed);
    if (s != CM_OK)
        goto cleanup;
    src.synth_n[DT_SPLIT_TRAIN] = cfg->synth_train;
    src.synth_n[DT_SPLIT_TEST] = cfg->synth_test;
    if ((s = dt_data_stats(&src, &norm)) != CM_OK ||
        (s = load_split(&src, DT_SPLIT_TRAIN, cfg->train_limit, &norm,
                        train)) != CM_OK ||
        (s = load_split(&src, DT_SPLIT_TEST, cfg->test_limit, &norm,
                        test)) != CM_OK)
        goto cleanup;
    if (train->c != test->c || train->h != test->h || train->w != test->w)
        s = cm_error(CM_EFORMAT, "training images are %zux%zux%zu but test "
                     "images %zux%zux%zu", train->c, train->h, train->w,
                     test->c, test->h, test->w);
cleanup:
    if (s != CM_OK) {
        dt_data_destroy(test);
        dt_data_destroy(train);
    }
    dt_source_destroy(&src);
    return s;
}

cm_status dt_train_single(const dt_config *cfg, dt_epoch_fn on_epoch,
                          void *ctx, dt_train_result *res)
{
    dt_data train = {0}, test = {0};
    dt_net *net = NULL;
    dt_log lg = {0};
    float *v = NULL, *xb = NULL;
    uint8_t *yb = NULL;
    size_t *order = NULL;
    memset(res, 0, sizeof *res);
    openblas_set_num_threads(1); /* threads are the engine's (--threads) */
    cm_status s = dt_log_open(&lg, cfg->log_path);
    if (s != CM_OK)
        goto cleanup;
    if ((s = dt_train_load(cfg, &train, &test)) != CM_OK)
        goto cleanup;
    const size_t img = train.c * train.h * train.w;
    const size_t B = cfg->batch < train.n ? cfg->batch : train.n;
    if ((s = dt_net_new(cfg->model, train.c, train.h, train.w, train.classes,
                        B > 256 ? B : 256, &net)) != CM_OK ||
        (s = dt_net_set_threads(net, (size_t)cfg->threads)) != CM_OK)
        goto cleanup;
    v = calloc(net->n_params, sizeof *v);
    xb = malloc(B * img * sizeof *xb);
    yb = malloc(B);
    order = malloc(train.n * sizeof *order);
    if (!v || !xb || !yb || !order) {
        s = cm_error(CM_ENOMEM, "out of memory for training buffers");
        goto cleanup;
    }
    cm_rng init_rng, shuf_rng;
    cm_rng_seed(&init_rng, cfg->seed, 0);
    cm_rng_seed(&shuf_rng, cfg->seed, 1);
    dt_net_init(net, net->params, &init_rng);
    for (size_t i = 0; i < train.n; i++)
        order[i] = i;
    dt_sched sched = {.kind = cfg->schedule, .lr = cfg->lr,
                      .warmup = cfg->warmup, .total = (double)cfg->epochs,
                      .step_epochs = cfg->step_epochs, .gamma = cfg->gamma};
    const size_t steps_per_epoch = (train.n + B - 1) / B;
    double t_start = cm_time_now(), train_s = 0.0;
    size_t step = 0;
    for (size_t ep = 0; ep < cfg->epochs; ep++) {
        double t0 = cm_time_now(), loss_sum = 0.0, lr = 0.0;
        cm_rng_shuffle_size(&shuf_rng, order, train.n);
        for (size_t k = 0; k < steps_per_epoch; k++, step++) {
            size_t off = k * B, b = train.n - off < B ? train.n - off : B;
            double loss;
            dt_batch_gather(&train, order, off, b, xb, yb);
            if ((s = dt_net_grad(net, net->params, net->grads, xb, yb, b,
                                 &loss)) != CM_OK)
                goto cleanup;
            loss_sum += loss;
            lr = dt_sched_lr(&sched, (double)ep +
                                         (double)k / (double)steps_per_epoch);
            dt_sgd_velocity(v, net->grads, net->params, net->n_params,
                            (float)cfg->momentum, (float)cfg->weight_decay);
            dt_sgd_apply(net->params, v, net->n_params, (float)lr);
        }
        double ep_s = cm_time_now() - t0;
        train_s += ep_s;
        dt_epoch_stats e = {.epoch = ep + 1, .epochs = cfg->epochs,
                            .step = step, .lr = lr,
                            .train_loss = loss_sum / (double)steps_per_epoch,
                            .epoch_s = ep_s,
                            .images_per_s = (double)train.n / ep_s};
        size_t correct = 0;
        dt_net_eval(net, net->params, test.x, test.y, test.n, &correct,
                    &e.test_loss);
        e.test_acc = (double)correct / (double)test.n;
        e.wall_s = cm_time_now() - t_start;
        dt_log_row row = {.epoch = (double)e.epoch, .step = step,
                          .wall_s = e.wall_s,
                          .train_loss = e.train_loss, .test_acc = e.test_acc,
                          .test_acc_local_mean = e.test_acc};
        if ((s = dt_log_append(&lg, &row)) != CM_OK)
            goto cleanup;
        if (on_epoch)
            on_epoch(ctx, &e);
        res->test_acc = e.test_acc;
        res->test_loss = e.test_loss;
        res->train_loss = e.train_loss;
    }
    res->steps = step;
    res->images_per_s = (double)(train.n * cfg->epochs) / train_s;
    res->n_train = train.n;
    res->n_test = test.n;
    res->n_params = net->n_params;
    res->param_hash = dt_hash_floats(net->params, net->n_params);
cleanup:
    free(order);
    free(yb);
    free(xb);
    free(v);
    dt_net_free(net);
    dt_data_destroy(&test);
    dt_data_destroy(&train);
    dt_log_close(&lg);
    return s;
}
