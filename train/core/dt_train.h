/* dt_train: the single-worker mode and pieces both modes use.
 *
 * dt_train_single runs: load data (normalized by the training set's mean
 * and std), build the network, initialize from the seed, then the shared
 * loop (dt_loop) with one worker: per epoch shuffle (from the seed), step
 * through minibatches with SGD + momentum + weight decay and the
 * learning-rate schedule, evaluate on the test set, report through a
 * callback and append a CSV row. Same config and seed, bit-identical
 * result (with a fixed number of BLAS threads, set by the caller).
 */
#ifndef DT_TRAIN_H
#define DT_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "cm_rng.h"
#include "cm_status.h"
#include "dt_config.h"
#include "dt_model_io.h"
#include "dt_data.h"

typedef struct {
    size_t epoch;        /* 1-based */
    size_t epochs;       /* total */
    size_t step;         /* optimizer steps so far */
    double lr;           /* learning rate the epoch ran at: its first
                            step's (dt_loop_body) */
    double train_loss;   /* mean minibatch loss over the epoch */
    double test_loss;    /* mean test cross-entropy */
    double test_acc;     /* test accuracy, 0..1 */
    double images_per_s; /* training throughput of this epoch */
    double epoch_s;      /* training seconds of this epoch (no eval) */
    double wall_s;       /* seconds since training started */
} dt_epoch_stats;

/* Called after each epoch (e.g. by main to print a progress line). */
typedef void (*dt_epoch_fn)(void *ctx, const dt_epoch_stats *e);

typedef struct {
    double test_acc;     /* after the last epoch, 0..1 */
    double test_loss;    /* after the last epoch */
    double train_loss;   /* last epoch's mean */
    double images_per_s; /* training images / training seconds, all epochs */
    size_t steps;        /* optimizer steps */
    size_t n_train, n_test; /* images used */
    size_t n_params;     /* model size */
    uint64_t param_hash; /* FNV-1a of the final parameter bytes */
    double lr;           /* learning rate of the last epoch's first step */
    double train_loss_global; /* last epoch: the model's loss on the first
                            DT_TRAIN_LOSS_EVAL training images */
    double wall_s;       /* seconds from the start of training to the last
                            row (the CSV's wall_s) */
    size_t epochs_done;  /* epochs trained */
    double train_s;      /* training seconds, all epochs (no evaluation) */
} dt_train_result;

/* Copies images order[off .. off+b) of d into x (b x c h w) and y. */
void dt_batch_gather(const dt_data *d, const size_t *order, size_t off,
                     size_t b, float *x, uint8_t *y);

/* Loads the configured data set: stats of the training split (into norm
 * when not NULL), then the training images (the first cfg->train_limit,
 * or all) into train and the test images into test. Errors name the file
 * or flag. */
cm_status dt_train_load(const dt_config *cfg, dt_data *train, dt_data *test,
                        dt_norm *norm);

/* The "__metadata__" of a model file this run writes: cfg's data set and
 * the normalisation norm (architecture and input shape come from the
 * network when the file is written). */
void dt_train_model_meta(const dt_config *cfg, const dt_norm *norm,
                         dt_model_meta *meta);

/* --eval-model: what the model file's "__metadata__" says decides the
 * model and the data set (cfg->model, cfg->dataset) unless --model or
 * --dataset were given: then they must agree with it. CM_EFORMAT (the
 * file is bad for those flags, exit 1 as for --init-model) naming the
 * flag and the file; the model file's own errors as
 * dt_model_read_meta. A file without metadata leaves cfg as it is. */
cm_status dt_train_apply_model_meta(dt_config *cfg);

/* FNV-1a 64-bit hash of n floats' bytes (to compare runs bit for bit). */
uint64_t dt_hash_floats(const float *x, size_t n);

/* Trains one worker as configured. on_epoch may be NULL. Writes the CSV
 * log when cfg->log_path is set (checked writable before any training).
 * On error returns its status with a message; no log is left half written.
 */
cm_status dt_train_single(const dt_config *cfg, dt_epoch_fn on_epoch,
                          void *ctx, dt_train_result *res);

/* --eval-model: loads cfg->eval_model (dt_model_load; model and data set
 * from cfg: dt_train_apply_model_meta first) and evaluates it on the test set, normalized with the training
 * set's statistics as in training: res->test_acc, test_loss, n_test,
 * n_params, param_hash. Errors as for dt_train_load and dt_model_load. */
cm_status dt_train_eval_model(const dt_config *cfg, dt_train_result *res);

#endif
