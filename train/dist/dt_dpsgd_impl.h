/* dt_dpsgd_impl: the state one rank holds during dt_dpsgd_run, shared by
 * the two files of the trainer: dt_dpsgd.c (setup, steps, the loop) and
 * dt_dpsgd_eval.c (evaluation, final hashes, checkpoints). Internal: not
 * for other modules.
 */
#ifndef DT_DPSGD_IMPL_H
#define DT_DPSGD_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "cm_rng.h"
#include "cm_topo.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_data.h"
#include "dt_dpsgd.h"
#include "dt_dpsgd_state.h"
#include "dt_gossip.h"
#include "dt_net.h"

/* Everything one rank holds (one per dt_dpsgd_run call). */
typedef struct {
    const dt_config *cfg;
    const dt_comm *comm;
    size_t rank, P;
    int allreduce;          /* 1: C-PSGD, one shared x */
    size_t n;               /* workers */
    size_t first, count;    /* this rank's workers */
    cm_topo topo;           /* gossip mode: the weighted topology */
    double slem;
    dt_gossip *g;
    dt_net *net;
    size_t len;             /* parameters per worker */
    size_t B;               /* batch */
    size_t steps_per_epoch;
    dt_data train;          /* this rank's shards, worker after worker */
    size_t *shard_off;      /* [count+1] worker i's images in train */
    dt_data test_slice;     /* this rank's part of the test set */
    dt_data test_local;     /* the first local_eval test images */
    size_t n_test;          /* images in the whole test set used */
    float **x, **xn, **v;   /* [count] worker arrays (all-reduce: 1 each) */
    float *gsum;            /* all-reduce: sum of the gradients */
    float *xbar;            /* evaluation: the average model */
    double *dsum;           /* evaluation: double accumulator */
    cm_rng *rng;            /* [count] generators (current state) */
    cm_rng *rng_pass;       /* [count] state at the start of the pass */
    size_t **order;         /* [count] batch order of the current pass */
    size_t *cursor;         /* [count] next position in order */
    float *xb;              /* a batch of images */
    uint8_t *yb;            /* its labels */
    uint64_t fingerprint;   /* settings a checkpoint must match */
    /* accumulators */
    double loss_sum;        /* sum of minibatch losses since the report */
    size_t loss_n;
    double t_compute, t_allreduce, t_eval;
    double train_base;      /* training seconds before a resume */
    uint64_t bytes_base;    /* bytes per rank before a resume */
    double t_train_start;
} dt_run;

/* FNV-1a 64 of n bytes, continuing from h. */
uint64_t dt_run_fnv(uint64_t h, const void *p, size_t n);

/* Starts a new pass of local worker i over its shard: the sorted shard,
 * shuffled by the worker's generator (whose state before the shuffle is
 * kept in rng_pass[i] for checkpoints); cursor 0. O(shard). */
void dt_run_new_pass(dt_run *r, size_t i);

/* Collective. Fills p on every rank with the metrics after `step` steps
 * (see dt_dpsgd.h) and resets the loss accumulators. Costs one allreduce
 * of len doubles, the forward passes of the test slice and of every local
 * worker on the local-eval subset. */
cm_status dt_run_evaluate(dt_run *r, size_t step, double lr,
                          dt_dpsgd_progress *p);

/* Collective. The final average model's hash and the workers' hash. */
cm_status dt_run_final_hashes(dt_run *r, dt_dpsgd_result *res);

/* Hash of the settings a checkpoint must match (flags, worker count,
 * model size, topology weights). */
uint64_t dt_run_fingerprint(const dt_run *r);

/* Collective. Saves epoch's checkpoint (every rank its workers; rank 0 the
 * run state rs and the marker). Errors agreed, prefixed "--checkpoint". */
cm_status dt_run_ckpt_save(dt_run *r, uint64_t epoch, size_t step,
                           const dt_run_state *rs);

/* Collective. Restores every local worker from the last complete
 * checkpoint; rank 0 also reads the run state into rs. *step is the step
 * to continue from. Errors agreed, prefixed "--resume". */
cm_status dt_run_ckpt_restore(dt_run *r, size_t *step, dt_run_state *rs);

#endif
