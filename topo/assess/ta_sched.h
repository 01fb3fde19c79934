/* ta_sched: one schedule (what a dpsgd-train command line fixes) and the
 * readers that find it in the files an experiment leaves: the summary
 * JSON (settings.*), KEY="VALUE" files (NAME.settings, grid.env), the
 * trainer's log ("final: ALG  workers N ... partition P ... slem S"), the
 * run's name (the experiment scripts' grammar: allreduce|local|diloco|
 * d2|dpsgd|gt|qgm, then GRAPH, HH, lrLR, pgaK, nesterov) and a topology
 * file's header (kind=, --labels, --groups, slem=). Part of topo/assess/.
 * Each reader sets what its file says and leaves the other fields.
 */
#ifndef TA_SCHED_H
#define TA_SCHED_H

#include <stddef.h>

#include "cm_status.h"

/* The algorithm of a schedule (what the convergence model tells apart). */
typedef enum {
    TA_ALG_ALLREDUCE, /* all-reduce of the gradients every step */
    TA_ALG_LOCAL,     /* local SGD: parameters averaged every H steps */
    TA_ALG_DILOCO,    /* local SGD with an outer Nesterov step */
    TA_ALG_DPSGD,     /* gossip, D-PSGD */
    TA_ALG_D2,        /* gossip, D^2 */
    TA_ALG_GT,        /* gossip, gradient tracking */
    TA_ALG_OTHER,     /* gossip with another rule (qgm, ...) */
    TA_ALG_COUNT
} ta_alg;

/* One schedule: what a dpsgd-train command line fixes. */
typedef struct {
    ta_alg alg;
    char graph[24];     /* "aware", "learned", "random", "rrl", "opexp",
                           "hosts", ...; "-" for all-reduce modes */
    char weights[16];   /* "laplacian", "mh", "own"; "-" for all-reduce */
    size_t n;           /* workers */
    size_t batch;       /* images per worker per step */
    char partition[32]; /* "dirichlet:0.1", "iid", "shards:2" */
    double lr;          /* peak learning rate */
    size_t H;           /* steps between communications (1: every step) */
    size_t local_after; /* every-step communications first (warm-up) */
    size_t global_every;/* every K-th communication an exact average (0) */
    double staleness;   /* steps of delay of the gossip (0: none) */
    double compress;    /* fraction of the array sent (1: none;
                           TA_COMPRESS_INT8 / _INT4: --compress int8 / int4) */
    size_t frag_p;      /* --fragments P (Streaming DiLoCo; 0 or 1: none) */
    size_t frag_t;      /* --fragments P:T, the overlap T in steps */
    double epochs;      /* the run's epochs (its budget) */
    /* the learning rate's schedule (dpsgd-train --warmup, --schedule,
     * --step-epochs): warmup NAN and sched "" when unknown (a run without
     * a summary JSON), which matches any; plan's grid: the experiments'
     * 1, "step", 3.5 */
    double warmup;      /* epochs of linear warm-up */
    char sched[12];     /* "step", "cosine", ... */
    double step_epochs; /* step: epochs per decay */
    double slem;        /* the gossip W's SLEM (NAN: unknown; 0 exact) */
    size_t params;      /* the model's parameters, floats per worker array
                           (the summary JSON's result.params; 0: unknown,
                           read as LeNet's: every run before that key was
                           LeNet's; ta_sched_params) */
} ta_sched;

/* The model's parameters of s: s->params, LeNet's
 * (TOPOGEN_DEFAULT_PARAMS) when unknown. */
size_t ta_sched_params(const ta_sched *s);

/* dpsgd-train's --model of that many parameters: "lenet" (61,706),
 * "cnn" (TOPOGEN_CNN_PARAMS, 329,962); NULL for any other count (a model
 * the trainer does not have). */
const char *ta_model_name(size_t params);

/* --compress int8 / int4 as the fraction of LeNet's bytes each sends
 * (a float's 4 bytes -> 1 or 1/2 byte and a scale per block:
 * train/README.md's 0.254x and 0.129x) */
#define TA_COMPRESS_INT8 0.254
#define TA_COMPRESS_INT4 0.129

/* The bytes of one message of an array of `floats` floats as dpsgd-train
 * counts them in bytes_sent (train/core/dt_compress.c,
 * dt_compress_bytes; DT_COMPRESS_BLOCK = 256 values per float scale):
 * none 4n; int8 n + 4 ceil(n/256); int4 ceil(n/2) + 4 ceil(n/256);
 * topk:F 8 ceil(F n) (value and 32-bit index). O(1). */
double ta_sched_msg_bytes(const ta_sched *s, double floats);

/* The floats of the longest of P fragments of `floats` floats
 * (dt_frag_range: fragment p = [p n / P, (p + 1) n / P)), what a
 * fragment's all-reduce sends: ceil(n / P); n when s has no fragments. */
double ta_sched_frag_floats(const ta_sched *s, double floats);

/* 1 when s runs Streaming DiLoCo's fragments (P > 1 or an overlap). */
int ta_sched_has_frags(const ta_sched *s);

/* --compress C (none, int8, int4, topk:F) as ta_sched.compress (1 for
 * none); CM_EINVAL in the trainer's words (dt_compress_parse) else. */
cm_status ta_sched_parse_compress(const char *v, double *out);

/* --fragments P or P:T (P in [1, 256], T in [0, 1e6]) into *p, *t;
 * CM_EINVAL in the trainer's words (dt_frag_parse) else. */
cm_status ta_sched_parse_frags(const char *v, size_t *p, size_t *t);

/* "int8", "int4", "topk:F" or "none" into buf (cap bytes); returns buf. */
char *ta_sched_compress_str(const ta_sched *s, char *buf, size_t cap);

/* 0 when dpsgd-train accepts schedule s; else 1 with the trainer's refusal
 * (train/distributed/dt_dpsgd.c, its words) in why: --compress on d2, gt
 * or qgm, on the all-reduce every step, with --global-every or
 * --staleness, on a time-varying graph (one-peer exponential);
 * --fragments without DiLoCo, with P > H or T P > H. */
int ta_sched_refused(const ta_sched *s, char *why, size_t cap);

/* 1 when two schedules are the same command line (the model's features,
 * lr, H, warm-up, K, staleness, compression, fragments, epochs, and the
 * learning rate's schedule where both know it). */
int ta_sched_same(const ta_sched *a, const ta_sched *b);

/* The partition's heterogeneity as the model uses it (a proxy in [0, 1]):
 * iid 0, dirichlet:A 1/(1 + A), shards:K 1 - K/10; -1 when unknown. */
double ta_partition_zeta(const char *partition);

/* "all-reduce", "local SGD", "DiLoCo", "D-PSGD", "D^2", "GT", "other";
 * and the dpsgd-train --algorithm of a gossip rule ("dpsgd", "d2", "gt"). */
const char *ta_alg_name(ta_alg a);
const char *ta_alg_flag(ta_alg a);

/* 1 when p is a directory / a regular file. */
int ta_is_dir(const char *p);
int ta_is_file(const char *p);

/* VALUE of KEY="VALUE" (or KEY=VALUE) in the shell env file at path into
 * buf (cap bytes); 0 when the file or the key is absent. */
int ta_env_value(const char *path, const char *key, char *buf, size_t cap);

/* s from the header of the topology file at path: the graph name from
 * kind= ("one-peer-exp" -> "opexp"; a learned graph with --labels ->
 * "aware", with --groups -> "hosts") when s->graph is "?", and slem=. */
void ta_sched_from_topology(const char *path, ta_sched *s);

/* The topology file `named` by a run, found in exp/topo/, exp/ or as
 * named (experiments are moved after they run), read as above. */
void ta_sched_topology_of(const char *exp, const char *named, ta_sched *s);

/* s from a run's name (the grammar above); *known = 1 when it parses. */
void ta_sched_from_name(const char *name, ta_sched *s, int *known);

/* s and *seed from a --summary JSON; 1 when it was read. */
int ta_sched_from_json(const char *path, const char *exp, ta_sched *s,
                       unsigned *seed);

/* s and *seed from a KEY="VALUE" file (WORKERS, BATCH, LR, EPOCHS, SEED,
 * PARTITION, TRAIN_ARGS, SETTING, TOPOLOGY); *known = 1 with SETTING. */
void ta_sched_from_env(const char *path, const char *exp, ta_sched *s,
                       unsigned *seed, int *known);

/* s from the trainer's log at path ("final: ..." line). */
void ta_sched_from_log(const char *path, ta_sched *s, int *known);

/* snprintf into buf, truncating silently (paths and names are bounded by
 * the buffers they come from; a wrapper, so that gcc's truncation
 * warnings do not fire on those bounded writes) */
int ta_fmt(char *buf, size_t cap, const char *f, ...)
    __attribute__((format(printf, 3, 4)));

#endif
