/* dt_log: the per-epoch CSV log shared by single and multi-worker runs.
 *
 * Columns: epoch,step,wall_s,train_loss,test_acc,test_acc_local_mean,
 * consensus,bytes_sent,lr,test_loss,train_loss_global (test accuracies as
 * fractions in 0..1; lr the learning rate of the row's
 * first step (the rate its epoch ran at); test_loss
 * the mean cross-entropy of the (averaged) model on the test set; a value
 * that was not measured, NaN, is an empty field), with model_s after
 * wall_s when the log is opened with a network model (dpsgd-train --net:
 * the modelled wall clock, cm_net). A D-PSGD run's first row is epoch 0:
 * the initial model, before any step. Rows are
 * kept in memory and the whole file is rewritten atomically (temporary
 * file + rename) after each row, so a crash leaves either the previous
 * complete log or the new one, never half a line.
 */
#ifndef DT_LOG_H
#define DT_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "cm_lock.h"
#include "cm_status.h"

#define DT_LOG_HEADER "epoch,step,wall_s,train_loss,test_acc," \
                      "test_acc_local_mean,consensus,bytes_sent,lr," \
                      "test_loss,train_loss_global"
#define DT_LOG_HEADER_MODEL DT_LOG_HEADER ",model_s" /* new columns last */

/* The global training loss (column train_loss_global) is the loss of the
 * model (in D-PSGD the average model xbar) on the first min(this, n_train)
 * training images in their file order, the same images whatever the
 * partition: the objective all workers share, not each worker's loss on
 * its own (possibly label-skewed) shard. */
#define DT_TRAIN_LOSS_EVAL 1000

typedef struct {
    double epoch;               /* epochs done (1, 2, ...; fractional when
                                   evaluating every K steps) */
    size_t step;                /* optimizer steps so far (per worker) */
    double wall_s;              /* seconds since training started */
    double train_loss;          /* mean minibatch loss of the workers, each
                                   on its own shard, since the last row (NaN
                                   in the epoch-0 row: no minibatch yet) */
    double test_acc;            /* accuracy of the (averaged) model, 0..1 */
    double test_acc_local_mean; /* mean accuracy of the workers' models;
                                   NaN when not measured (--local-eval 0):
                                   the CSV field is then empty */
    double consensus;           /* mean_i ||x_i - xbar||^2 (0: one worker) */
    uint64_t bytes_sent;        /* gossip bytes sent per rank so far */
    double lr;                  /* learning rate of the row's first step
                                   since the previous row (the rate the
                                   epoch ran at; the epoch-0 row: the
                                   initial rate); NaN:
                                   an empty field */
    double test_loss;           /* test loss of the (averaged) model */
    double train_loss_global;   /* loss of the (averaged) model on the first
                                   DT_TRAIN_LOSS_EVAL training images: the
                                   global objective; NaN: not measured */
    double model_s;             /* modelled training seconds (--net) */
} dt_log_row;

typedef struct {
    char *path;  /* target file (owned); NULL: logging off */
    char *buf;   /* CSV text so far, header included (owned) */
    int model;   /* 1: the model_s column is written */
    size_t len, cap;
    cm_lock lock; /* "PATH.lock", held from open to close */
} dt_log;

/* Prepares a log for path (NULL or "": logging off). Checks now that the
 * file can be created there (CM_EIO "--log: cannot write PATH: ...") and
 * locks "PATH.lock" (cm_lock: CM_EIO "--log PATH is in use by another
 * run" when another process logs to the same file) but writes nothing to
 * PATH yet. */
cm_status dt_log_open(dt_log *lg, const char *path);

/* dt_log_open with the model_s column (DT_LOG_HEADER_MODEL) when model
 * is non-zero. */
cm_status dt_log_open_model(dt_log *lg, const char *path, int model);

/* Appends one row and rewrites the file atomically. CM_EIO naming the
 * file on a write error. O(size of the log). */
cm_status dt_log_append(dt_log *lg, const dt_log_row *row);

/* Frees the log and releases its lock (the file stays as last written);
 * accepts a zeroed one. */
void dt_log_close(dt_log *lg);

#endif
