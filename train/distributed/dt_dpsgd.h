/* dt_dpsgd: decentralized parallel SGD (D-PSGD, Lian et al. 2017) and its
 * centralized all-reduce baseline (C-PSGD), over the ranks of a dt_comm.
 *
 * n workers (the nodes of the topology, or --workers for all-reduce) live
 * on the P ranks, b_r = floor(n/P) (+1 on the first n mod P ranks) on rank
 * r: in contiguous blocks for all-reduce, placed by dt_placement
 * (--placement graph|block) for gossip. Worker i holds its parameters x_i,
 * its momentum v_i, its generator (stream 2 + i of the seed, so nothing
 * depends on P) and a shard of the training set (dt_partition). One step
 * of worker i, all workers in lock step:
 *     g_i = grad f_i(x_i; minibatch)                  (local compute)
 *     v_i <- mu v_i + g_i + wd x_i                    (dt_sgd_velocity)
 *     x_i <- sum_j W_ij x_j - lr_t v_i                (gossip, then update)
 * The gossip exchange of x_j is started before the gradient computation
 * and finished after it (dt_gossip_start / _finish), so communication
 * overlaps computation. That is cfg->algorithm = DT_ALGO_DPSGD; d2, gt
 * and qgm replace the two update lines with their rules (dt_algo.h), on
 * the same gossip. All-reduce mode instead averages the n gradients
 * (in-rank sum, then one MPI allreduce) and applies the same update to the
 * one shared x.
 *
 * Evaluation (every epoch, or every --eval-every steps) is the only place
 * the average model xbar = mean_i x_i is formed (a double allreduce): the
 * test accuracy of xbar on the whole test set (split over the ranks), the
 * mean accuracy of the workers' own models on the first --local-eval test
 * images, the consensus distance mean_i ||x_i - xbar||^2, the mean
 * training loss since the last evaluation, and the gossip bytes sent per
 * rank. Rank 0 writes the CSV row and calls the progress callback.
 */
#ifndef DT_DPSGD_H
#define DT_DPSGD_H

#include <stddef.h>
#include <stdint.h>

#include "cm_place.h"
#include "cm_status.h"
#include "dt_algo.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_summary.h"

typedef struct {
    int start;             /* 1: the one call at start-up, before training,
                              when the placement is known (gossip mode; the
                              result's placement fields are set; nothing
                              else here is) */
    double epoch;          /* epochs done (fractional with --eval-every) */
    size_t epochs;         /* epochs planned */
    size_t step;           /* steps done by every worker */
    double lr;             /* learning rate the row's steps ran at: the
                              first step's since the previous row */
    double test_loss;      /* the average model's test loss */
    double train_loss;     /* mean minibatch loss since the last report,
                              each worker on its own shard (NaN at epoch
                              0: no step yet) */
    double train_loss_global; /* loss of the average model on the first
                              DT_TRAIN_LOSS_EVAL training images */
    double test_acc;       /* accuracy of the average model, 0..1 */
    double test_acc_local_mean; /* mean accuracy of the workers' models */
    double consensus;      /* mean_i ||x_i - xbar||^2 */
    uint64_t bytes_sent;   /* gossip bytes sent per rank so far (mean) */
    double wall_s;         /* training seconds so far (no evaluation) */
    double images_per_s;   /* training images per second since the start */
    double model_s;        /* --net: wall_s with the measured MPI gossip
                              time replaced by rounds x the modelled round
                              (0 without --net) */
} dt_dpsgd_progress;

/* Called on rank 0 after each evaluation (e.g. to print a line). */
typedef void (*dt_dpsgd_fn)(void *ctx, const dt_dpsgd_progress *p);

typedef struct {
    size_t n_workers;      /* workers in the run */
    size_t n_ranks;        /* P */
    size_t n_params;       /* model size (floats) */
    size_t n_train, n_test;/* training images partitioned among the
                              workers (after --train-limit), test images
                              the average model is evaluated on */
    size_t steps;          /* steps done by every worker */
    size_t start_step;     /* steps restored from a checkpoint (0: fresh) */
    uint64_t ckpt_adopted; /* --resume without DIR/latest: the complete
                              epoch adopted as the checkpoint (0: none) */
    char dropped[DT_PATH_MAX]; /* --drop-workers: the lost workers (canonical
                              LIST of the run before), "" when none */
    size_t dropped_count;  /* how many */
    uint64_t dropped_epoch;/* the epoch they were dropped at */
    size_t workers_before_drop; /* workers of the run before the drop */
    int drop_now;          /* 1: this invocation dropped them (its
                              checkpoint was of the run before) */
    size_t added_count;    /* --add-workers: the new workers (0: none) */
    uint64_t added_epoch;  /* the epoch they joined at */
    int add_now;           /* 1: this invocation added them */
    char lost[DT_PATH_MAX]; /* after a --timeout that named silent ranks
                              (gossip, --checkpoint, no --drop-workers
                              yet): their workers as a LIST ("" else), for
                              the commands that continue without them;
                              "" also when the LIST does not fit (then
                              lost_too_long is 1) */
    int lost_too_long;     /* DIR/placement lists them instead */
    size_t ranks_left;     /* ranks that still answer */
    double slem;           /* SLEM of W (0 for all-reduce; -1 when above
                              the dense eigensolver's limit); for a
                              time-varying topology the norm of its
                              period's product minus 11^T/n */
    size_t period;         /* rounds of the topology (1: static; 0 for
                              all-reduce) */
    int topo_kind;         /* 0 undirected, 1 directed, 2 epidemic
                              (placed for its round 0's graph) */
    int topo_one_based;    /* the topology file had no node 0 and no n=:
                              read as 1-based (worker i is its node i+1) */
    int topo_weights_replaced; /* --weights replaced the weights of a
                              weighted static undirected file */
    char topo_labels[256]; /* the file's `# labels:` identity (the
                              partition it was learned for), "" when none */
    dt_algo_kind algorithm;/* the update rule (dpsgd for all-reduce) */
    double mix_c;          /* d2: its mixing matrix is (1-c) I + c W */
    double mix_slem;       /* d2: the SLEM of that matrix (else 0) */
    dt_dpsgd_progress last;/* the last evaluation */
    double t_compute;      /* s per rank: gradients and updates (mean) */
    double t_gossip_mem;   /* s per rank: in-memory mixing (mean) */
    double t_gossip_mpi;   /* s per rank: MPI start + wait (mean), or the
                              gradient allreduce in all-reduce mode */
    double t_eval;         /* s per rank: evaluation (mean) */
    double t_total;        /* s: the whole run on rank 0, setup included */
    double t_setup;        /* s on rank 0: dt_dpsgd_run's start to the first
                              step (topology, placement, data, arrays,
                              plans), part of t_total */
    double cpu_setup;      /* CPU s of rank 0's process up to its first
                              step (cm_time_cpu: start-up without the time
                              it waited for a core) */
    uint64_t bytes_per_step; /* gossip bytes per step per rank (mean) */
    uint64_t mem_bytes_per_step; /* bytes the in-memory gossip streams per
                              step per rank (mean; dt_gossip_plan_mem_bytes;
                              0 in all-reduce mode) */
    double rss_max, rss_mean; /* bytes: peak resident set of a rank's
                              process at the summary (max, mean over ranks;
                              0 where getrusage cannot tell) */
    uint64_t mean_hash;    /* FNV-1a of the final average model's bytes */
    uint64_t workers_hash; /* hash of every worker's final parameters, in
                              worker order: equal runs have equal hashes */
    /* gossip mode: the placement (set before the start-up callback) */
    cm_place_kind placement; /* --placement */
    cm_place_how place_how;  /* which partitioner placed it */
    cm_place_stats place;  /* its costs per round, in arrays (time-varying
                              topology: placed by, and the costs of, the
                              union of the rounds' edges) */
    double array_bytes;    /* bytes of one worker's parameter array */
    uint64_t comm_gossip, comm_exact, comm_clique, comm_grad_allreduce;
                           /* communications of the whole run by kind
                              (dt_run_count_comms; issue 31) */
    uint64_t comm_frag;    /* of comm_exact: --fragments' averages of one
                              fragment each */
    double frag_model_s;   /* --net, --fragments: modelled seconds of one
                              fragment's all-reduce */
    double frag_bytes;     /* bytes of one fragment's (compressed) array */
    long long steps_to[DT_N_TARGETS]; /* rank 0: the step of the first
                              evaluation at or above dt_targets[k] (-1:
                              never), over every CSV row of the run */
    double round_model_s;  /* --net: modelled seconds per round (else 0;
                              time-varying: the mean over the rounds, each
                              under the placement; --mode allreduce: one
                              all-reduce as --allreduce prices it) */
    size_t net_hosts;      /* --net: hosts of the modelled deployment
                              (--net-hosts, else this run's) */
} dt_dpsgd_result;

/* Runs decentralized (cfg->mode gossip, cfg->topology required) or
 * all-reduce training over the ranks of comm. Collective: every rank calls
 * it with the same cfg. Validates everything (topology file, ranks <=
 * workers, data files, checkpoint) before training; the ranks agree on
 * every failure, so all return the same status and the same last-error
 * message (rank 0 prints it). The CSV log is written by rank 0,
 * atomically. With cfg->ckpt_dir a checkpoint is saved after every epoch
 * and cfg->resume continues from the last complete one, bit-identically.
 * on_progress (may be NULL) is called on rank 0 only: once at start-up
 * with p->start = 1 (gossip mode, res's placement fields set), then after
 * every evaluation. */
cm_status dt_dpsgd_run(const dt_config *cfg, const dt_comm *comm,
                       dt_dpsgd_fn on_progress, void *ctx,
                       dt_dpsgd_result *res);

#endif
