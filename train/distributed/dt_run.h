/* dt_run: the state one rank holds during one dt_dpsgd_run call, shared
 * by the two halves of the D-PSGD loop: dt_dpsgd.c (setup, one step,
 * the run with its checkpoints) and dt_dpsgd_report.c (evaluation, the
 * CSV row and callback, the final summary). Internal to train/distributed: the
 * public API is dt_dpsgd.h.
 */
#ifndef DT_RUN_H
#define DT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_header.h"
#include "cm_topo_seq.h"
#include "dt_algo.h"
#include "dt_allreduce.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_dpsgd.h"
#include "dt_gossip.h"
#include "dt_log.h"
#include "dt_metrics.h"
#include "dt_net.h"
#include "dt_model_io.h"
#include "dt_placement.h"
#include "dt_run_ckpt.h"
#include "dt_workers.h"

/* Everything one rank holds during one dt_dpsgd_run call. */
typedef struct {
    const dt_config *cfg;
    const dt_comm *comm;
    size_t rank, P;
    int allreduce;          /* 1: C-PSGD, one shared x */
    size_t n;               /* workers in the run */
    cm_topo_seq seq;        /* gossip mode: the weighted round(s) */
    cm_topo_header hdr;     /* gossip mode: the file's `#` header, read
                               with the graph (cliques, labels) */
    cm_topo *topo;          /* seq's round 0: the topology when static */
    size_t period;          /* rounds of seq (1: a static topology) */
    size_t cur;             /* the round of the step in progress */
    double slem;            /* SLEM, or the period product's norm */
    int one_based;          /* the topology file was read as 1-based */
    double mix_c;           /* d2: weight of W in its mixing matrix */
    double mix_slem;        /* d2: SLEM of (1 - mix_c) I + mix_c W */
    float **ca, **ce, **cq, **cp; /* --compress: per worker the last
                               average (anchor), the error feedback, the
                               sent q, scratch p (local all-reduce) */
    void *cslab[4];         /* their arrays, one block each */
    double t_ar_full;       /* --net: an uncompressed all-reduce (the
                               warm-up's momentum average) */
    float ***sring;         /* --staleness S: [S + 1][count] the models
                               sent at the last S + 1 communications */
    void **sslab;           /* their arrays, one block per slot */
    float **smix;           /* [count] scratch: the mixed stale models */
    void *smix_slab;
    dt_gossip **sg;         /* --staleness S: [S + 1] one gossip per round
                               in flight, round c on sg[c mod (S + 1)]
                               with slot sring[c mod (S + 1)] */
    uint64_t stale_end;     /* --staleness: the run's communications; a
                               round finished at or after it is not
                               started */
    double x0_sq;           /* ||x_0||^2 of the initial model (the scale
                               of dt_diverge's consensus rule) */
    dt_gossip **g;          /* [period] one gossip plan per round */
    int epidemic;           /* the topology is drawn afresh every step */
    cm_topo epi;            /* epidemic: the graph of the current step */
    dt_gossip *gc;          /* clique-avg: exact averaging in each clique */
    float **gbuf, **gavg;   /* clique-avg: [count] gradients, their clique
                               means (arrays of len floats, in gmem) */
    float *gmem;
    dt_algo *algo;          /* gossip mode: the update rule and its state */
    dt_net *net;
    dt_model_meta meta;     /* "__metadata__" of the model files written */
    size_t B;               /* batch */
    size_t steps_per_epoch;
    dt_workers w;           /* this rank's workers */
    dt_placement pl;        /* gossip mode: which rank holds which worker */
    double t_round;         /* --net: modelled seconds of a gossip round */
    double model_base, wall_base; /* model_s, wall_s of the last row
                                     restored by --resume (0: fresh) */
    size_t step_base;       /* its step */
    dt_evaluator ev;        /* test sets and scratch of the evaluation */
    size_t n_train;         /* training images partitioned (after
                               --train-limit) */
    float *gsum;            /* all-reduce: sum of the gradients */
    dt_allreduce *ar;       /* all-reduce: --allreduce's run of it */
    double loss_sum;        /* sum of minibatch losses since the report */
    size_t loss_n;
    double t_compute, t_allreduce, t_eval;
    uint64_t ar_bytes;      /* all-reduce: gradient bytes handed to
                               MPI_Allreduce by this rank so far */
    double train_base;      /* training seconds before a resume */
    uint64_t bytes_base;    /* bytes per rank before a resume */
    double t_train_start;
    /* communicating less (issue 31; dt_local.h) */
    int local;              /* all-reduce with --average-every > 1 or an
                               outer step: one x (and v) per worker, the
                               parameters averaged at each communication
                               (local SGD), driven through a dpsgd dt_algo
                               whose steps are all local */
    dt_gossip *gg;          /* the exact average of all workers (complete
                               graph, W = 11^T/n; bit-identical for any P):
                               --global-every, local all-reduce */
    dt_gossip *gq;          /* --compress int8/int4, local all-reduce: the
                               pseudo-gradients' average, re-quantized
                               (dt_gossip_new_average_q; gg stays exact
                               for the warm-up's momentum); NULL else */
    int comm_now;           /* the step in progress communicates */
    int global_now;         /* ... by an exact average */
    float **oa, **ob;       /* --outer: [count] anchor (the parameters
                               after the last communication), Nesterov
                               buffer */
    void *oslab[2];         /* own oa's and ob's arrays */
    size_t *host_of_rank;   /* --net in all-reduce mode: host labels */
    double t_ar;            /* --net: modelled seconds of one all-reduce
                               of a worker's gossip array (x, gt: x and y)
                               over the ranks */
    double t_clique;        /* --net, clique-avg: modelled seconds of one
                               clique-gradient round */
    /* --fragments P[:T] (Streaming DiLoCo; dt_frag.h) */
    int frag;               /* the fragment schedule runs (P > 1 or T > 0) */
    dt_gossip **fg;         /* [P] the exact average of fragment p
                               (re-quantized under --compress int8/int4) */
    float **fsrc, **fdst;   /* [count] the fragment's arrays to average */
    size_t fpend;           /* the fragment in flight (P: none) */
    uint64_t fdue;          /* the step at whose end it is merged */
    double t_frag;          /* --net: an all-reduce of one fragment */
    size_t steps_start;     /* the step this invocation started from */
    size_t steps_done;      /* steps done so far */
    cm_status pend;         /* this rank's first step failure not yet
                               agreed (loop_step, dt_dpsgd.c) */
    char pend_msg[1024];    /* ... and its message */
} dt_run;

/* Communications of the steps [0, t) of r's schedule (dt_local.h) by kind:
 * gossip rounds, exact averages (--global-every, or every one of a local
 * all-reduce run), clique-gradient rounds (clique-avg), gradient
 * all-reduces (all-reduce at H = 1). O(1). */
typedef struct {
    uint64_t gossip, global, clique, grad_allreduce;
    uint64_t warm_v; /* of global: the warm-up's momentum averages */
    uint64_t frag;   /* of global: --fragments' fragment averages */
} dt_run_comms;
void dt_run_count_comms(const dt_run *r, uint64_t t, dt_run_comms *c);

/* Collective. The progress after `step` steps (lr: the rate of the
 * epoch) into *p, the same on every rank: the metrics of dt_metrics_eval,
 * the bytes sent per rank, the training seconds (evaluation excluded) and,
 * with --net, the modelled seconds. Resets the loss accumulators. O(the
 * evaluation's forward passes + n_params). */
cm_status dt_run_evaluate(dt_run *r, size_t step, double lr,
                          dt_dpsgd_progress *p);

/* Collective. The run's figures into res (sizes, SLEM, algorithm, the
 * per-rank times and bytes per step averaged over the ranks, the final
 * hashes), forming the average model ev.xbar on every rank. */
cm_status dt_run_summarize(dt_run *r, dt_dpsgd_result *res);

/* The progress a resumed run reports before its first evaluation: its
 * last restored CSV row. */
dt_dpsgd_progress dt_run_progress_of_row(const dt_log_row *row);

/* Collective. On rank 0: p as a CSV row of lg, a row of the run state rs
 * (for the checkpoint), and on_progress(ctx, p) if given; the status is
 * agreed. */
cm_status dt_run_record(const dt_run *r, const dt_dpsgd_progress *p,
                        dt_log *lg, dt_run_state *rs, dt_dpsgd_fn on_progress,
                        void *ctx);

#endif
