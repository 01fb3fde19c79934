/* dt_metrics: what a D-PSGD run measures about itself, over all ranks.
 *
 * The average model xbar = mean_i x_i is formed only here (a double
 * allreduce): the test accuracy of xbar on the whole test set (each rank
 * its contiguous slice), the mean accuracy of the workers' own models on
 * the first --local-eval test images, the consensus distance
 * mean_i ||x_i - xbar||^2, the mean training loss since the last
 * evaluation (each worker on its own shard), the global training loss
 * (xbar on the first DT_TRAIN_LOSS_EVAL training images, each rank its
 * contiguous slice) and the gossip bytes sent per rank. Evaluation is the only
 * place floating-point sums cross ranks; it never feeds back into
 * training, so it cannot make a trajectory depend on P. Also here: the
 * final hashes that prove two runs equal.
 */
#ifndef DT_METRICS_H
#define DT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_comm.h"
#include "dt_data.h"
#include "dt_net.h"
#include "dt_workers.h"

/* One rank's sums; every field is a double so that the ranks add the
 * whole struct with one allreduce (dt_metrics_reduce), field by field. */
typedef struct {
    double consensus_sq;  /* sum over workers of ||x_i - xbar||^2 */
    double correct_avg;   /* test images the average model got right */
    double correct_local; /* local-eval images right, summed over workers */
    double loss_sum;      /* minibatch losses since the last evaluation */
    double loss_n;        /* number of those minibatches */
    double bytes_sent;    /* gossip bytes sent so far (summed over ranks) */
    double t_mpi;         /* s in MPI gossip calls in this process so far
                             (summed over ranks; for --net's model_s) */
    double test_loss_sum; /* the average model's test loss, summed over
                             the test images */
    double global_loss;   /* sum over the training-loss images of xbar's
                             cross-entropy */
} dt_metrics;

/* What evaluation reads besides the workers; owned test sets, scratch. */
typedef struct {
    const dt_comm *comm;  /* borrowed: the run's communicator */
    dt_net *net;          /* borrowed: runs the forward passes */
    size_t n;             /* workers in the run (all ranks) */
    size_t n_test;        /* test images of the whole run */
    size_t n_train_eval;  /* training-loss images of the whole run */
    dt_data test_slice;   /* this rank's slice of the test set (owned) */
    dt_data test_local;   /* the first local-eval images (owned; empty in
                             all-reduce mode) */
    dt_data train_slice;  /* this rank's slice of the training-loss
                             images (owned) */
    float *xbar;          /* [len] the average model */
    double *dsum;         /* [len] its double accumulator */
} dt_evaluator;

/* Zeroes ev (then dt_evaluator_destroy is safe). */
void dt_evaluator_init(dt_evaluator *ev);

/* Allocates the [len] scratch arrays. CM_ENOMEM. */
cm_status dt_evaluator_alloc(dt_evaluator *ev, size_t len);

/* Frees the test sets and scratch; accepts a zeroed ev. */
void dt_evaluator_destroy(dt_evaluator *ev);

/* Loads rank `rank` of P's evaluation images from src, normalized by
 * norm (ev->n_test set by the caller): its contiguous slice of the first
 * n_test test images (test_slice), the first min(local_eval, n_test) test
 * images for the workers' own models (test_local; local_eval 0: none, as
 * in all-reduce mode), and its slice of the first min(DT_TRAIN_LOSS_EVAL,
 * n_train) training images for the global training loss (train_slice;
 * sets n_train_eval). CM_ENOMEM, or the status of dt_data_load. O(images
 * loaded). */
cm_status dt_evaluator_load(dt_evaluator *ev, const dt_source *src,
                            const dt_norm *norm, size_t rank, size_t P,
                            size_t local_eval, size_t n_train);

/* Collective. Adds m over the ranks of comm, field by field, in place on
 * every rank (one allreduce of sizeof m / sizeof(double) doubles). */
cm_status dt_metrics_reduce(const dt_comm *comm, dt_metrics *m);

/* Collective. Forms xbar from the workers w of every rank (in all-reduce
 * mode xbar = the shared x, no communication) and fills m with the
 * metrics summed over ranks; loss_sum, loss_n and bytes_sent are taken
 * from *m on entry as this rank's values. Costs an allreduce of len
 * doubles (gossip mode), the forward passes of the test slice, of the
 * training-loss slice and of every local worker on the local-eval
 * images, and dt_metrics_reduce. */
cm_status dt_metrics_eval(dt_evaluator *ev, const dt_workers *w,
                          dt_metrics *m);

/* Collective. The FNV-1a hash of the final average model's bytes
 * (*mean_hash) and the workers' hash (*workers_hash): each worker's
 * FNV-1a cut to 48 bits (exact in a double) is summed into slot i of an
 * otherwise-zero array of n, then the slots are hashed in worker order on
 * every rank, so the value does not depend on P. CM_ENOMEM, CM_EMPI. */
cm_status dt_metrics_final_hashes(dt_evaluator *ev, const dt_workers *w,
                                  uint64_t *mean_hash,
                                  uint64_t *workers_hash);

#endif
