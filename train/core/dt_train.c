/* dt_train.c: the single-worker loop (minibatch SGD, Robbins & Monro; with
 * momentum and the schedule of dt_optim). Data are shuffled each epoch
 * with a Fisher-Yates permutation from stream 1 of the seed; parameters are
 * initialized from stream 0. The last partial minibatch of an epoch is
 * kept (PyTorch's drop_last=False). Each minibatch is gathered into one
 * contiguous buffer so that the network sees NCHW batches.
 */
#include "dt_train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cm_hash.h"
#include "cm_time.h"
#include "dt_log.h"
#include "dt_loop.h"
#include "dt_model_io.h"
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
    return cm_hash_fnv1a(CM_HASH_FNV_OFFSET, x, n * sizeof *x);
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

cm_status dt_train_load(const dt_config *cfg, dt_data *train, dt_data *test,
                        dt_norm *norm_out)
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
    if (norm_out)
        *norm_out = norm;
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

void dt_train_model_meta(const dt_config *cfg, const dt_norm *norm,
                         dt_model_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    snprintf(meta->dataset, sizeof meta->dataset, "%s",
             dt_dataset_name(cfg->dataset));
    if (norm && norm->c >= 1 && norm->c <= 3) {
        meta->channels = norm->c;
        for (size_t k = 0; k < norm->c; k++) {
            meta->mean[k] = norm->mean[k];
            meta->std[k] = norm->std[k];
        }
    }
}

cm_status dt_train_apply_model_meta(dt_config *cfg)
{
    dt_model_meta m;
    cm_status s = dt_model_read_meta(cfg->eval_model, &m);
    if (s != CM_OK)
        return cm_error_prefix(s, "--eval-model");
    if (m.model[0]) {
        dt_model mm;
        if (dt_model_parse(m.model, &mm) != CM_OK)
            return cm_error(CM_EFORMAT, "model file %s: __metadata__ names "
                            "the unknown model '%s'", cfg->eval_model,
                            m.model);
        if (cfg->model_given && mm != cfg->model)
            return cm_error(CM_EFORMAT, "--model %s: %s holds a %s model (its "
                            "__metadata__); drop --model or give --model %s",
                            dt_model_name(cfg->model), cfg->eval_model,
                            m.model, m.model);
        cfg->model = mm;
    }
    if (m.dataset[0]) {
        dt_dataset d;
        if (dt_dataset_parse(m.dataset, &d) != CM_OK)
            return cm_error(CM_EFORMAT, "model file %s: __metadata__ names "
                            "the unknown data set '%s'", cfg->eval_model,
                            m.dataset);
        if (cfg->dataset_given && d != cfg->dataset)
            return cm_error(CM_EFORMAT, "--dataset %s: %s was trained on %s "
                            "(its __metadata__); drop --dataset or give "
                            "--dataset %s", dt_dataset_name(cfg->dataset),
                            cfg->eval_model, m.dataset, m.dataset);
        cfg->dataset = d;
    }
    return CM_OK;
}

/* One worker's run: what the loop's callbacks need. */
typedef struct {
    const dt_config *cfg;
    dt_data train, test;
    dt_net *net;
    dt_log lg;
    float *v, *xb;          /* momentum; the gathered minibatch */
    uint8_t *yb;
    size_t *order;          /* the epoch's order of the training images */
    cm_rng shuf_rng;        /* stream 1 of the seed: the shuffles */
    size_t B, S;            /* batch, steps per epoch */
    double t_start, t_epoch, train_s, loss_sum;
    dt_epoch_fn on_epoch;
    void *ctx;
    dt_train_result *res;
    dt_model_meta meta;     /* of the model files written */
} single_run;

/* dt_loop step: minibatch k of the epoch (the last may be short; the
 * first reshuffles the previous epoch's order), SGD with momentum. */
static cm_status single_step(void *ctx, size_t step, double lr)
{
    single_run *u = ctx;
    const size_t n = u->train.n, k = step % u->S;
    if (k == 0) {
        u->t_epoch = cm_time_now();
        u->loss_sum = 0.0;
        cm_rng_shuffle_size(&u->shuf_rng, u->order, n);
    }
    size_t off = k * u->B, b = n - off < u->B ? n - off : u->B;
    double loss;
    dt_batch_gather(&u->train, u->order, off, b, u->xb, u->yb);
    cm_status s = dt_loop_local_step(u->net, u->net->params, u->v, u->xb,
                                     u->yb, b, (float)u->cfg->momentum,
                                     (float)u->cfg->weight_decay, &loss);
    if (s != CM_OK)
        return s;
    if (!isfinite(loss)) /* divergence: stop, never report it as a result */
        return dt_check_finite(loss, NULL, 0, step / u->S + 1, step + 1, lr);
    u->loss_sum += loss;
    dt_sgd_apply(u->net->params, u->v, u->net->n_params, (float)lr);
    return CM_OK;
}

/* dt_loop evaluation (epoch ends only): test set, CSV row, callback. */
static cm_status single_evaluate(void *ctx, size_t done, double lr,
                                 int epoch_end)
{
    single_run *u = ctx;
    (void)epoch_end;
    cm_status s = dt_check_finite(0.0, u->net->params, u->net->n_params,
                                  done / u->S, done, lr);
    if (s != CM_OK)
        return s;
    double ep_s = cm_time_now() - u->t_epoch;
    u->train_s += ep_s;
    dt_epoch_stats e = {.epoch = done / u->S, .epochs = u->cfg->epochs,
                        .step = done, .lr = lr,
                        .train_loss = u->loss_sum / (double)u->S,
                        .epoch_s = ep_s,
                        .images_per_s = (double)u->train.n / ep_s};
    size_t correct = 0;
    const size_t ng = u->train.n < DT_TRAIN_LOSS_EVAL ? u->train.n
                                                      : DT_TRAIN_LOSS_EVAL;
    double global = NAN;
    if ((s = dt_net_eval(u->net, u->net->params, u->test.x, u->test.y,
                         u->test.n, &correct, &e.test_loss)) != CM_OK ||
        (s = dt_net_eval(u->net, u->net->params, u->train.x, u->train.y, ng,
                         NULL, &global)) != CM_OK)
        return s;
    e.test_acc = (double)correct / (double)u->test.n;
    e.wall_s = cm_time_now() - u->t_start;
    dt_log_row row = {.epoch = (double)e.epoch, .step = done,
                      .wall_s = e.wall_s, .train_loss = e.train_loss,
                      .test_acc = e.test_acc,
                      .test_acc_local_mean = e.test_acc, .lr = e.lr,
                      .test_loss = e.test_loss,
                      .train_loss_global = global};
    if ((s = dt_log_append(&u->lg, &row)) != CM_OK)
        return s;
    const size_t K = u->cfg->save_model_every;
    if (u->cfg->save_model[0] && K && e.epoch % K == 0 &&
        (s = dt_model_save(u->net, u->net->params, &u->meta,
                           u->cfg->save_model)) !=
            CM_OK)
        return s;
    if (u->on_epoch)
        u->on_epoch(u->ctx, &e);
    u->res->test_acc = e.test_acc;
    u->res->test_loss = e.test_loss;
    u->res->lr = lr;
    u->res->train_loss = e.train_loss;
    u->res->train_loss_global = global;
    u->res->wall_s = e.wall_s;
    u->res->epochs_done = e.epoch;
    return CM_OK;
}

cm_status dt_train_single(const dt_config *cfg, dt_epoch_fn on_epoch,
                          void *ctx, dt_train_result *res)
{
    single_run u;
    memset(&u, 0, sizeof u);
    memset(res, 0, sizeof *res);
    u.cfg = cfg;
    u.on_epoch = on_epoch;
    u.ctx = ctx;
    u.res = res;
    /* the outputs checked before any work, each message naming its flag */
    cm_status s = dt_log_open(&u.lg, cfg->log_path);
    if (s != CM_OK)
        goto cleanup;
    if (cfg->save_model[0] &&
        (s = dt_model_check_path(cfg->save_model)) != CM_OK) {
        cm_error_prefix(s, "--save-model");
        goto cleanup;
    }
    dt_norm norm;
    if ((s = dt_train_load(cfg, &u.train, &u.test, &norm)) != CM_OK)
        goto cleanup;
    dt_train_model_meta(cfg, &norm, &u.meta);
    const size_t img = u.train.c * u.train.h * u.train.w;
    u.B = cfg->batch < u.train.n ? cfg->batch : u.train.n;
    if ((s = dt_net_new(cfg->model, u.train.c, u.train.h, u.train.w,
                        u.train.classes, dt_net_eval_batch(u.B), cfg->own_kernels,
                        &u.net)) != CM_OK ||
        (s = dt_net_set_threads(u.net, (size_t)cfg->threads)) != CM_OK)
        goto cleanup;
    u.v = calloc(u.net->n_params, sizeof *u.v);
    u.xb = malloc(u.B * img * sizeof *u.xb);
    u.yb = malloc(u.B);
    u.order = malloc(u.train.n * sizeof *u.order);
    if (!u.v || !u.xb || !u.yb || !u.order) {
        s = cm_error(CM_ENOMEM, "out of memory for training buffers");
        goto cleanup;
    }
    cm_rng init_rng;
    cm_rng_seed(&init_rng, cfg->seed, 0);
    cm_rng_seed(&u.shuf_rng, cfg->seed, 1);
    dt_net_init(u.net, u.net->params, &init_rng);
    if (cfg->init_model[0] &&
        (s = dt_model_load(u.net, cfg->init_model, u.net->params)) != CM_OK) {
        cm_error_prefix(s, "--init-model");
        goto cleanup;
    }
    for (size_t i = 0; i < u.train.n; i++)
        u.order[i] = i;
    /* Every image once per epoch, the last minibatch possibly short;
     * evaluation at epoch ends only (--eval-every and --stop-after are
     * for distributed runs). */
    u.S = (u.train.n + u.B - 1) / u.B;
    dt_loop_plan plan;
    dt_loop_plan_init(&plan, cfg, u.S);
    plan.eval_every = 0;
    plan.stop_after = 0;
    const dt_loop_body body = {.step = single_step,
                               .evaluate = single_evaluate, .ctx = &u};
    size_t step = 0;
    u.t_start = cm_time_now();
    if ((s = dt_loop_run(&plan, &body, &step)) != CM_OK)
        goto cleanup;
    res->steps = step;
    res->images_per_s = (double)(u.train.n * cfg->epochs) / u.train_s;
    res->train_s = u.train_s;
    res->n_train = u.train.n;
    res->n_test = u.test.n;
    res->n_params = u.net->n_params;
    res->param_hash = dt_hash_floats(u.net->params, u.net->n_params);
    if (cfg->save_model[0])
        s = dt_model_save(u.net, u.net->params, &u.meta, cfg->save_model);
cleanup:
    free(u.order);
    free(u.yb);
    free(u.xb);
    free(u.v);
    dt_net_free(u.net);
    dt_data_destroy(&u.test);
    dt_data_destroy(&u.train);
    dt_log_close(&u.lg);
    return s;
}

cm_status dt_train_eval_model(const dt_config *cfg, dt_train_result *res)
{
    dt_data train = {0}, test = {0};
    dt_net *net = NULL;
    memset(res, 0, sizeof *res);
    /* the training set too: its statistics normalize the test set */
    cm_status s = dt_train_load(cfg, &train, &test, NULL);
    if (s != CM_OK)
        goto cleanup;
    size_t correct = 0;
    if ((s = dt_net_new(cfg->model, test.c, test.h, test.w, test.classes,
                        dt_net_eval_batch(cfg->batch), cfg->own_kernels, &net)) !=
            CM_OK ||
        (s = dt_net_set_threads(net, (size_t)cfg->threads)) != CM_OK)
        goto cleanup;
    if ((s = dt_model_load(net, cfg->eval_model, net->params)) != CM_OK) {
        cm_error_prefix(s, "--eval-model");
        goto cleanup;
    }
    if ((s = dt_net_eval(net, net->params, test.x, test.y, test.n, &correct,
                         &res->test_loss)) != CM_OK)
        goto cleanup;
    res->test_acc = (double)correct / (double)test.n;
    res->n_test = test.n;
    res->n_train = train.n;
    res->n_params = net->n_params;
    res->param_hash = dt_hash_floats(net->params, net->n_params);
cleanup:
    dt_net_free(net);
    dt_data_destroy(&test);
    dt_data_destroy(&train);
    return s;
}
