/* ta_plan: `topogen plan` computed: every schedule a user could run with
 * dpsgd-train on N workers (one per rank) on S hosts, ranked by its time
 * to a target test accuracy = steps to the target x time per step
 * (topo/assess/, under topo/cli/ which prints the result;
 * docs/topo/plan-model.md).
 *
 * Steps to the target: measured (the committed runs at these settings:
 * the mean over their seeds), else predicted by the convergence model
 * (ta_model.h) fitted to every run read, with a 95% interval. Time per
 * step: the measured compute of one step (the experiments' benches) plus
 * the modelled communications up to the target (src/place/cm_net.h:
 * gossip rounds on graphs built here with the seed of the row's topogen
 * command, all-reduce with the cheapest algorithm, warm-up and local
 * steps counted as dpsgd-train schedules them) plus the trainer's own
 * failure agreements (an all-reduce of one int every TA_AGREE_EVERY
 * steps, before and after each evaluation, and between the two averages
 * of a local-SGD / DiLoCo warm-up step), priced by the same model as
 * the all-reduce Open MPI runs for them (its latencies).
 *
 * Ranking: measured rows that reached the target in every seed and
 * predicted rows inside the fitted range, by time, except that a row
 * measured on one seed (a pilot's, not confirmed) comes after every row
 * measured on two or more; a predicted row goes above a measured one
 * only when its interval's upper end is below the measured time. Then extrapolated rows (outside the fitted range, or
 * predicted beyond the epoch budget; with the predicted ones under
 * `extrapolate`), then the schedules that failed to reach the target in
 * runs at their settings (never above one that reached it).
 */
#ifndef TA_PLAN_H
#define TA_PLAN_H

#include <stddef.h>

#include "cm_labels.h"
#include "cm_net.h"
#include "cm_status.h"
#include "ta_model.h"
#include "ta_runs.h"

typedef enum {
    TA_BASIS_MEASURED,     /* runs at these settings reached the target */
    TA_BASIS_PREDICTED,    /* the model, inside its data */
    TA_BASIS_EXTRAPOLATED, /* the model, outside its data or budget */
    TA_BASIS_FAILED,       /* runs at these settings did not reach it */
    TA_BASIS_NONE          /* neither runs nor a model: not ranked */
} ta_basis;

/* "measured", "predicted", "extrapolated", "failed", "none" */
const char *ta_basis_name(ta_basis b);

typedef struct {
    ta_sched s;            /* the schedule */
    char name[80];         /* "D^2, aware graph", "local SGD H=2" */
    ta_basis basis;
    char setting[96];      /* measured: the experiment's name for it */
    char exp[256];         /* measured: the experiment directory */
    size_t seeds, reached; /* runs at these settings; reached the target */
    double steps;          /* steps to the target (mean, or predicted) */
    double steps_lo, steps_hi; /* measured: min and max over the seeds;
                              predicted: the 95% interval */
    double final_acc;      /* measured: mean final test accuracy (NAN) */
    double t_compute;      /* seconds of compute per step */
    double t_comm;         /* seconds of one communication (gossip round
                              or all-reduce) of msg_bytes */
    double msg_bytes;      /* one message's array as dpsgd-train counts
                              it in bytes_sent (--compress: the codes and
                              their scales; ta_sched_msg_bytes) */
    double t_full;         /* seconds of one uncompressed all-reduce (the
                              momentum average of a warm-up step) */
    double frag_bytes;     /* --fragments: one fragment's message (the
                              longest fragment, compressed); 0 without */
    double t_frag;         /* its all-reduce, seconds (before the overlap
                              credit max(0, t_frag - T t_compute)) */
    double agreements;     /* failure agreements up to the target (mean
                              over the seeds, or at the predicted steps) */
    double seconds;        /* time to the target (NAN: never) */
    double lo, hi;         /* its interval (measured: over the seeds) */
    cm_net_ar_alg ar;      /* the all-reduce algorithm priced (all-reduce
                              modes and exact averages) */
    char train[900];       /* the dpsgd-train command (mpirun and MCA) */
    char topogen[600];     /* the command(s) that make its graph, or "" */
    char note[240];        /* how it was priced or why it ranks where */
} ta_row;

/* What the plan is asked (filled by the command line from its config). */
typedef struct {
    size_t n, d;           /* workers, gossip degree */
    size_t hosts;          /* hosts (0: one per worker) */
    size_t params;         /* floats per array (0: LeNet, 61706) */
    size_t batch;          /* images per worker per step (0: 1024 / n) */
    double epochs;         /* budget (0: 12) */
    double target;         /* test accuracy */
    const char *partition; /* NULL: dirichlet:0.1 */
    const cm_net *net;     /* the parsed --net (borrowed) */
    const char *net_arg;   /* --net as given, for the commands */
    int net_platform;      /* net_arg came from --platform P.xml */
    unsigned long long seed; /* the graphs' seed */
    const cm_labels *labels; /* --labels (NULL: none) */
    const char *labels_path;
    const char *results;   /* DIR[,DIR...]; NULL or "default": defaults */
    const char *default_root; /* the tree whose data/results* are the
                              defaults (the checkout or install prefix) */
    size_t eval_every;     /* dpsgd-train --eval-every of the runs planned
                              (0: the trainer's default, epoch ends only) */
    const char *compress;  /* --compress C: the grid's compressed forms too
                              (NULL: none) */
    const char *fragments; /* --fragments P[:T]: the grid's DiLoCo as
                              Streaming DiLoCo too (NULL: none) */
    int extrapolate;
} ta_plan_opts;

typedef struct {
    ta_row *rows;          /* ranked */
    size_t nrows;
    size_t n, S, batch;
    double epochs, target, bytes;
    size_t eval_every;     /* the runs' --eval-every (0: epoch ends) */
    size_t steps_per_epoch;/* of the cell (its evaluations) */
    double t_agree;        /* seconds of one failure agreement */
    cm_net_ar_alg agree_alg; /* the all-reduce Open MPI runs for it */
    double rate;           /* images per second of the compute bench (0:
                              unknown, times are communication only) */
    int rate_committed;    /* 1: no bench under --results; rate is the
                              committed experiments' */
    char partition[32];
    char results[2048];    /* the directories read, comma-separated */
    ta_runs runs;          /* every run read */
    ta_model model;        /* fitted to them */
    size_t cell_runs;      /* runs at this cell (n, batch, partition) */
    char skipped[1024];    /* schedules not ranked, and why */
} ta_plan;

void ta_plan_init(ta_plan *p);
void ta_plan_destroy(ta_plan *p);

/* Reads the experiments, fits the model, prices and ranks every schedule
 * into p. CM_EINVAL for options that do not fit (hosts > n, labels of
 * another n); CM_EIO / CM_EFORMAT from the reader (naming the file).
 * Cost: the graphs' builds (a learned search when S < n: seconds at
 * n = 256) plus reading the runs. */
cm_status ta_plan_make(ta_plan *p, const ta_plan_opts *o);

/* The communications up to step `steps` (exclusive) of schedule s, as
 * dpsgd-train schedules them (train/core/dt_local.h): step t < L or
 * (t - L + 1) % H == 0 communicates; communication c is an exact average
 * when (c + 1) % K == 0. *comm the gossip rounds or all-reduces, *exact
 * the exact averages. O(1) (closed form: a predicted interval's end can
 * be huge or infinite, and the loop it replaced then ran for ever).
 * *comm = msg + full + frag of ta_plan_comm_counts. */
void ta_plan_comms(const ta_sched *s, double steps, double *comm,
                   double *exact);

/* The communications up to step `steps` by price: `msg` of the row's
 * message (gossip rounds; local SGD / DiLoCo averages, compressed under
 * --compress, the warm-up's parameter averages included), `full` of the
 * uncompressed array (the warm-up's momentum averages), `exact` exact
 * averages (--global-every), `frag` fragment all-reduces (--fragments:
 * after the warm-up, dt_frag_syncs' count: fragment p at the steps u
 * after the warm-up with (u + 1) % H == ((p + 1) H / P) % H). O(P). */
typedef struct {
    double msg, full, exact, frag;
} ta_comms;
void ta_plan_comm_counts(const ta_sched *s, double steps, ta_comms *c);

/* dpsgd-train's failure agreement (train/distributed/dt_dpsgd.c,
 * DT_AGREE_EVERY): an MPI_Iallreduce of one int after every 16th step */
#define TA_AGREE_EVERY 16

/* The failure agreements of schedule s up to step `steps` as dpsgd-train
 * makes them (train/distributed/dt_dpsgd.c): one after every
 * TA_AGREE_EVERY-th step, one before each evaluation at a step <= steps
 * and one after each at a step < steps (the evaluations: the initial one
 * at step 0, every epoch's end, S steps, and every eval_every steps when
 * not 0), and for local
 * SGD and DiLoCo one between the parameters' and the momentum's average
 * of each warm-up step. The count smpi-retime.py uses. O(1); INFINITY
 * for infinite steps. */
double ta_plan_agreements(const ta_sched *s, double steps, size_t eval_every,
                          size_t S);

#endif
