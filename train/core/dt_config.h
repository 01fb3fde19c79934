/* dt_config: the trainer's settings and their command-line parsing.
 *
 * A plain struct of values (no pointers into argv, so it can be copied or
 * broadcast as bytes) filled with defaults by dt_config_default and from
 * argv by dt_config_parse. No MPI here: the MPI trainer adds its flags to
 * the same table. Flags take "--flag VALUE" or "--flag=VALUE".
 */
#ifndef DT_CONFIG_H
#define DT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "dt_algo.h"
#include "dt_compress.h"
#include "dt_frag.h"
#include "dt_data.h"
#include "dt_local.h"
#include "dt_net.h"
#include "dt_optim.h"
#include "dt_partition.h"
#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_place.h"

#define DT_PATH_MAX 4096

/* Which flags of dt_config.c's table were given: bit k for row k. Room
 * for DT_FLAGS_MAX rows (dt_config.c asserts its table fits), so a new
 * flag is a new row; past that, a larger DT_FLAGS_MAX (a multiple of 64). */
#define DT_FLAGS_MAX 256
typedef struct {
    uint64_t w[DT_FLAGS_MAX / 64]; /* bit k % 64 of w[k / 64] */
} dt_flag_set;

/* Bit k of s (k < DT_FLAGS_MAX): dt_flag_set_add sets it,
 * dt_flag_set_has reads it (0 or 1). O(1). */
static inline void dt_flag_set_add(dt_flag_set *s, size_t k)
{
    s->w[k / 64] |= (uint64_t)1 << (k % 64);
}
static inline int dt_flag_set_has(const dt_flag_set *s, size_t k)
{
    return (int)((s->w[k / 64] >> (k % 64)) & 1);
}

typedef enum {
    DT_MODE_GOSSIP,    /* D-PSGD on --topology (default) */
    DT_MODE_ALLREDUCE  /* C-PSGD: gradients averaged by MPI_Allreduce */
} dt_mode;

typedef struct {
    dt_dataset dataset;        /* --dataset (fashion-mnist) */
    char data_dir[DT_PATH_MAX];/* --data; "" = the data set's default */
    dt_model model;            /* --model (lenet) */
    size_t epochs;             /* --epochs, > 0 (0 only with
                                  --write-partition: write, no training) */
    size_t batch;              /* --batch, per step, > 0 */
    double lr;                 /* --lr, base learning rate, >= 0 */
    double momentum;           /* --momentum, in [0, 1) */
    double weight_decay;       /* --weight-decay, >= 0 */
    dt_sched_kind schedule;    /* --schedule const|step|cosine */
    double warmup;             /* --warmup, epochs of linear warm-up */
    double step_epochs;        /* --step-epochs (step schedule) */
    double gamma;              /* --gamma (step schedule) */
    uint64_t seed;             /* --seed: init, shuffling, synthetic data */
    char log_path[DT_PATH_MAX];/* --log FILE.csv; "" = no log */
    int quiet;                 /* --quiet: no per-epoch lines */
    int threads;               /* --threads: engine threads per process
                                  (1; dt_net_set_threads); OpenBLAS stays
                                  at one thread (set by main) */
    int own_kernels;           /* use the own kernels where the CPU has
                                  them (1): AVX-512, else AVX2; main sets
                                  0 (OpenBLAS, NCHW) when the environment
                                  has DPSGD_NO_AVX512 */
    size_t train_limit;        /* --train-limit N: first N train images */
    size_t test_limit;         /* --test-limit N: first N test images */
    size_t synth_train;        /* --synthetic-train N (synthetic set) */
    size_t synth_test;         /* --synthetic-test N */
    int bench;                 /* --bench: measure speed, do not train */
    size_t bench_steps;        /* --bench-steps: steps per timed run (50) */
    size_t bench_repeat;       /* --bench-repeat: timed runs, best kept (3) */
    int help;                  /* --help, -h was given */
    int version;               /* --version was given */
    /* decentralized training (dt_dpsgd) */
    char topology[DT_PATH_MAX];/* --topology FILE; "" = none */
    cm_weight_rule weights;    /* --weights (laplacian); on a weighted file
                                  only when given (weights_set) */
    int weights_set;           /* --weights was given explicitly */
    dt_mode mode;              /* --mode gossip|allreduce (gossip) */
    size_t workers;            /* --workers N (allreduce; 0 = one per rank) */
    dt_part_spec partition;    /* --partition iid|dirichlet:ALPHA (iid) */
    dt_algo_kind algorithm;    /* --algorithm dpsgd|d2|gt|qgm (dpsgd) */
    int clique_avg;            /* --algorithm clique-avg: dpsgd with each
                                  gradient averaged over its D-Cliques
                                  clique (the file's `# cliques:` line) */
    double d2_mix;             /* --d2-mixing: weight C of W in d2's
                                  (1-C) I + C W; 0 = auto */
    size_t eval_every;         /* --eval-every K steps; 0 = every epoch */
    size_t local_eval;         /* --local-eval N: test images for the
                                  workers' own models (1000) */
    char ckpt_dir[DT_PATH_MAX];/* --checkpoint DIR; "" = none */
    int resume;                /* --resume from the last checkpoint (none
                                  yet: start from scratch) */
    size_t keep;               /* --keep K: checkpoint generations kept (2) */
    double timeout;            /* --timeout SEC: end the job when no
                                  message arrives for SEC s (600; 0 off) */
    double timeout_floor;      /* --timeout-floor SEC: without --timeout,
                                  the least adaptive deadline (30 s) */
    size_t stop_after;         /* --stop-after E: end after E epochs as if
                                  interrupted (to test --resume); 0 = off */
    size_t add_workers;        /* --add-workers K: with --resume, the
                                  checkpoint's run continues with K new
                                  workers (ids n0..n0+K-1 of --topology),
                                  each from its neighbours' average; 0 =
                                  none */
    char drop_workers[DT_PATH_MAX]; /* --drop-workers LIST: with --resume,
                                  continue the checkpoint's run without
                                  these workers (cm_idlist ids of the run
                                  that wrote it); "" = none */
    /* model files (safetensors, dt_model_io) */
    char save_model[DT_PATH_MAX]; /* --save-model FILE: the final (average)
                                  model; "" = none */
    size_t save_model_every;   /* --save-model-every K: also after every
                                  K-th epoch (0 = only at the end) */
    char init_model[DT_PATH_MAX]; /* --init-model FILE: start from it */
    char eval_model[DT_PATH_MAX]; /* --eval-model FILE: only evaluate it on
                                  the test set */
    /* across hosts (cm_place, cm_net) */
    cm_place_kind placement;   /* --placement block|graph (graph) */
    cm_net net;                /* --net: the network model */
    int net_given;             /* --net or --platform was given */
    int net_platform;          /* it was --platform P.xml */
    cm_net_ar_alg net_allreduce; /* --allreduce ALG: prices --mode
                                  allreduce's all-reduce (auto) */
    int allreduce_han;         /* --allreduce han: the blocking
                                  MPI_Allreduce (Open MPI's coll/han serves
                                  it), priced as hierarchical */
    size_t net_hosts;          /* --net-hosts S: model the n workers on S
                                  hosts, one per rank (0: this run's
                                  ranks and hosts) */
    int model_given;           /* --model was given */
    int dataset_given;         /* --dataset was given */
    size_t bench_gossip;       /* --bench-gossip R: time R gossip rounds
                                  alone (no training); 0 = off */
    size_t bench_floats;       /* --bench-floats N: array length for
                                  --bench-gossip (0 = the model's) */
    char summary[DT_PATH_MAX]; /* --summary FILE.json: settings, results,
                                  timings, hashes of the run; "" = none */
    dt_flag_set given;         /* bit k: the k-th flag of the table was
                                  given (dt_config_given) */
    char write_partition[DT_PATH_MAX]; /* --write-partition FILE: the
                                  partition's per-worker class counts
                                  (dt_partition_file.h); "" = none */
    /* communicating less (issue 31; dt_local.h) */
    size_t average_every;      /* --average-every H: local steps per
                                  communication (1: every step) */
    size_t local_after;        /* --local-after S: communicate every step
                                  for the first S steps, then every H */
    size_t global_every;       /* --global-every K: every K-th
                                  communication is an exact average
                                  (gossip; 0 = never) */
    dt_outer outer;            /* --outer none|sgd:LR|nesterov:LR,MOM */
    dt_compress compress;      /* --compress none|int8|int4|topk:F */
    double consensus_step;     /* --consensus-step G: CHOCO-SGD's gamma in
                                  (0, 1] (gossip with --compress; 1), or
                                  --staleness's (dt_stale_gamma) */
    size_t staleness;          /* --staleness S: gossip rounds in flight
                                  (dpsgd; 0 = none) */
    dt_frag fragments;         /* --fragments P[:T]: Streaming DiLoCo
                                  (dt_frag.h; {1, 0}: off) */
} dt_config;

/* The defaults (see dt_config_usage for their values). */
void dt_config_default(dt_config *cfg);

/* Parses argv[1..argc) over cfg (which should hold defaults) with
 * cm_flags (its wording, and a "did you mean" on a near-miss). Unknown
 * flag, missing or bad value: CM_EINVAL with one message naming the flag.
 * "--help" (-h) and "--version" set cfg->help / cfg->version and stop
 * parsing; -q is --quiet. */
cm_status dt_config_parse(dt_config *cfg, int argc, char **argv);

/* 1 when flag (e.g. "--partition") was on the command line. */
int dt_config_given(const dt_config *cfg, const char *flag);

/* For a run of one worker in one process (no --topology, not under
 * mpirun with --mode allreduce): CM_EINVAL naming the first flag given
 * that only a distributed run uses (--algorithm, --d2-mixing,
 * --partition, --workers, --placement, --net, --weights, --local-eval,
 * --timeout, --average-every, --local-after, --global-every, --outer), so
 * none is silently ignored. */
cm_status dt_config_check_single(const dt_config *cfg);

/* The usage text (static storage), listing every flag and its default. */
const char *dt_config_usage(void);

#endif
