/* dt_summary: one JSON object describing a finished run (--summary), for
 * notebooks and scripts: the program version, every setting, the final
 * metrics, timings, bytes and hashes.
 *
 * Written atomically (temporary file + rename) through jansson. Keys are
 * stable (new ones are added, none renamed); numbers are plain JSON
 * numbers (hashes as 16-digit hex strings, since they do not fit a
 * double), strings JSON-escaped. Settings hold every flag that changes
 * the result (algorithm, d2_mixing, placement, net, keep, timeout, ...)
 * and "data", the folder the data set was read from.
 */
#ifndef DT_SUMMARY_H
#define DT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_config.h"

/* dpsgd-train's version, in --summary files and --version (1.2: the
 * FNV-1a basis corrected, so every hash it prints changed). */
#define DT_TRAIN_VERSION "1.2"

/* The accuracies of result.steps_to_target (dt_summary). */
#define DT_N_TARGETS 7
extern const double dt_targets[DT_N_TARGETS];

typedef struct {
    const char *mode;        /* "single", "allreduce", or the update rule
                                of a gossip run ("dpsgd", "d2", "gt",
                                "qgm") */
    size_t workers, ranks;   /* 1, 1 for a single worker */
    size_t steps;            /* optimizer steps per worker */
    size_t n_params;         /* model size (floats) */
    size_t n_train, n_test;  /* images (single runs; 0 when unknown) */
    double test_acc;         /* final, of the (average) model */
    double test_loss;        /* final, of the (average) model */
    double train_loss;       /* last mean minibatch loss */
    double local_acc;        /* mean accuracy of the workers' models */
    double consensus;        /* mean_i ||x_i - xbar||^2 */
    double lr;               /* learning rate of the last row (its first
                                step's, as in the CSV) */
    double epoch;            /* epochs done (the last CSV row's epoch) */
    double wall_s;           /* the last CSV row's wall_s */
    double model_s;          /* the last row's model_s (--net; else NaN) */
    double train_loss_global; /* last row: loss of the (average) model on
                                the first 1000 training images */
    double slem;             /* SLEM of W (distributed gossip runs) */
    double d2_mixing;        /* d2: the C of its (1-C) I + C W (else NaN) */
    double images_per_s;     /* training throughput */
    double t_total;          /* seconds, whole run */
    double t_compute, t_gossip_mem, t_gossip_mpi, t_eval; /* per rank */
    uint64_t bytes_per_step; /* gossip bytes per step per rank */
    uint64_t bytes_sent;     /* gossip bytes per rank, whole run */
    uint64_t param_hash;     /* final (average) model */
    uint64_t workers_hash;   /* every worker (distributed), else 0 */
    const char *placed_by;   /* gossip runs: which partitioner placed the
                                workers (cm_place_how_describe: "METIS
                                k-way", "own bisection", "block", "" for
                                one rank); NULL otherwise (JSON null) */
    const char *dropped;     /* --drop-workers: the lost workers (LIST of
                                the run before the drop); NULL: none (JSON
                                "dropped": null) */
    size_t dropped_count;    /* how many */
    size_t workers_before_drop; /* workers before the drop */
    uint64_t dropped_epoch;  /* the epoch the run continued without them */
    /* issue 31: communications of the whole run by kind (result.
     * communications), and for each dt_targets[k] the step of the first
     * evaluation whose test_acc is at or above it (-1: never; nothing
     * interpolated; result.steps_to_target, keys "0.50" ... "0.90") */
    uint64_t comm_gossip, comm_exact, comm_clique, comm_grad_allreduce;
    uint64_t comm_frag;     /* of comm_exact: one fragment's averages */
    int has_comms;          /* distributed: write result.communications */
    long long steps_to[DT_N_TARGETS];
    int has_steps_to;       /* write result.steps_to_target */
} dt_summary;

/* Writes {"version":..., "settings":{...every flag...}, "result":{...}}
 * to path, atomically. CM_EIO naming the path. */
cm_status dt_summary_write(const char *path, const dt_config *cfg,
                           const dt_summary *s);

#endif
