/* topogen_config: the settings of one topogen invocation or library call
 * (topogen_config), the table of topology kinds and the rows of the
 * search objectives. Part of topo/make/, the layer under both faces of
 * topogen: topo/cli/ fills a config from argv, topo/api/ fills it
 * directly; neither the config nor the tables print anything.
 *
 * A new kind is one row of KINDS (topogen_kinds.c): its name, its
 * family, the builder's code, its checks and its maker. A new objective
 * is one row of OBJECTIVES (topogen_config.c).
 */
#ifndef TOPOGEN_CONFIG_H
#define TOPOGEN_CONFIG_H

#include <stddef.h>

#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_search.h"
#include "tg_seq.h"

/* The program version, written into every file header. Bump it when a
 * change alters the graph or the bytes that given settings produce. */
#define TOPOGEN_VERSION "2.1"

/* --params's default: the floats of one LeNet (train/nn), the array eval
 * --net and plan price when none is given; written here once. */
#define TOPOGEN_DEFAULT_PARAMS 61706
/* the floats of dpsgd-train's --model cnn (the bandwidth-bound workload;
 * tests/cli/plan.sh checks it against the trainer's summary) */
#define TOPOGEN_CNN_PARAMS 329962

/* What an invocation does (the command line's first word). */
typedef enum {
    TOPOGEN_GENERATE, /* topogen [FLAGS]: build or learn, write a file */
    TOPOGEN_EVAL,     /* topogen eval FILE */
    TOPOGEN_COMPARE,  /* topogen compare */
    TOPOGEN_PLAN      /* topogen plan */
} topogen_command;

/* How a kind is made: the families of the kind table. */
typedef enum {
    TOPOGEN_FAM_LEARNED,  /* the annealing search (tg_search) */
    TOPOGEN_FAM_STATIC,   /* a construction (tg_kind_build) */
    TOPOGEN_FAM_SEQ,      /* a time-varying sequence (tg_seq_build) */
    TOPOGEN_FAM_DIRECTED, /* a directed or randomised graph (tg_digraph) */
    TOPOGEN_FAM_DATA      /* built from --labels (STL-FW, D-Cliques) */
} topogen_family;

/* The builders' codes of the directed and data families (the static and
 * learned ones use tg_kind, the sequences tg_seq_kind). */
enum { TOPOGEN_D_PERM = 1, TOPOGEN_D_EXP, TOPOGEN_D_EPIDEMIC,
       TOPOGEN_D_LEARNED };
enum { TOPOGEN_DK_STLFW = 1, TOPOGEN_DK_DCLIQUES };

/* --weights beyond the cm_ rules (the `fdla` field). */
enum { TOPOGEN_W_RULE, TOPOGEN_W_FDLA, TOPOGEN_W_NEFF, TOPOGEN_W_NEFF_ALPHA };

struct topogen_config;
struct topogen_made;

/* One row of the kind table. */
typedef struct {
    const char *name;      /* the --kind value and the header's kind= */
    topogen_family family; /* how it is made */
    int code;              /* tg_kind, tg_seq_kind, TOPOGEN_D_* or
                              TOPOGEN_DK_* of its family */
    int hidden;            /* 1: not a --kind value (learned --directed) */
    int old_name;          /* 1: a name kept for old command lines (a
                              notice names the new one) */
    /* the kind's own checks of the settings, after the common ones: CM_OK
     * or CM_EINVAL with the message the command line prints */
    cm_status (*check)(const struct topogen_config *c);
    /* builds (or learns) the kind into m (topogen_make.h) */
    cm_status (*make)(struct topogen_config *c, struct topogen_made *m);
} topogen_kind;

/* One row of the objective table (the search's tg_objective). */
typedef struct {
    tg_objective obj;  /* the search's code */
    int neff;          /* 1: n_eff of the MH W (the n_eff hook, :GAMMA,
                          --directed's objectives, dense below 4096) */
    int directed;      /* 1: --directed searches for it */
} topogen_objective;

/* One invocation's settings; every field as parsed from its flag. */
typedef struct topogen_config {
    topogen_command command; /* generate, eval, compare, plan */
    const char *file;        /* eval: the file to read */
    int json;                /* eval: one JSON object */
    size_t simulate;         /* eval: rounds to simulate (0: none) */
    int one_based;           /* eval: node ids start at 1 */
    int weights_given;       /* --weights was given */
    const topogen_kind *kind; /* what to build (a row of topogen_kinds) */
    cm_weight_rule weights;  /* mixing weights (unless fdla) */
    int fdla;                /* --weights: TOPOGEN_W_* (0: the rule) */
    cm_topo_format format;   /* output format (eval: input format) */
    tg_search_opts search;   /* n, d, objective, seed, iters, ... */
    const char *out;         /* -o FILE or "-" */
    int out_given;           /* -o was given (eval: writes) */
    int quiet;               /* no progress on stderr */
    int help, version;       /* --help, --version */
    const char *net;         /* eval: --net NET (NULL: no network model) */
    cm_net netm;             /* --net parsed, once, where the flag is read */
    int platform;            /* net came from --platform P.xml (not --net) */
    size_t params;           /* eval: --params, floats per worker array */
    size_t ranks, hosts;     /* eval: --ranks, --hosts (0: one per worker) */
    cm_net_ar_alg allreduce; /* eval, plan: --allreduce (default auto) */
    int allreduce_given;     /* --allreduce was given */
    const char *gamma;       /* --gamma list (NULL: 0.951) */
    int directed;            /* --directed: learned over permutations */
    int local;               /* --local: epidemic EL-Local */
    const char *results;     /* plan --results DIR[,DIR...] (NULL: the
                                committed data/results* of the tree) */
    double target;           /* plan --target: test accuracy (0.85) */
    const char *partition;   /* plan --partition (NULL: dirichlet:0.1) */
    size_t batch;            /* plan --batch: images per worker per step
                                (0: the committed schedule's 1024 / N) */
    double epochs;           /* plan --epochs: the budget (0: 12) */
    size_t eval_every;       /* plan --eval-every: the runs' evaluation
                                interval (0: dpsgd-train's, epoch ends) */
    const char *compress;    /* plan --compress C (NULL: none added) */
    const char *fragments;   /* plan --fragments P[:T] (NULL: none) */
    int extrapolate;         /* plan --extrapolate: rank extrapolated rows
                                with the predicted ones */
    int obj_given;           /* --objective was given */
    int n_given, d_given;    /* -n, -d were given as flags (the library's
                                typed fields do not count) */
    int hetero_given;        /* --hetero-weight was given */
    /* data-aware: the counts file of dpsgd-train --write-partition and
     * what is built from it */
    const char *labels;      /* --labels COUNTS (NULL: none) */
    double lambda;           /* --lambda: STL-FW's ||W - J||^2 weight */
    int symmetric;           /* --symmetric: undirected STL-FW */
    int inter;               /* --inter: D-Cliques' inter-clique links */
    int clique_equal;        /* --clique-weights equal (0: mh) */
} topogen_config;

/* The defaults: learned kind, Laplacian weights, edge list on stdout, the
 * search's defaults (tg_search_opts_default). */
void topogen_config_default(topogen_config *c);

/* The kind named s (hidden rows excluded), or NULL. */
const topogen_kind *topogen_kind_find(const char *s);

/* The row of a family and code (hidden rows included), never NULL for a
 * pair of the table. */
const topogen_kind *topogen_kind_of(topogen_family family, int code);

/* The row of the search objective obj (never NULL). */
const topogen_objective *topogen_objective_row(tg_objective obj);

/* The --kind as written in headers ("exponential-sym", "perm", ...). */
const char *topogen_kind_name(const topogen_config *c);

/* 1 when c's kind fixes its own degree from n (ring, torus, hypercube,
 * exponential-sym, complete, one-peer-exp, exp-directed): -d is refused
 * unless it is that degree, and the settings line leaves it out. */
int topogen_kind_fixes_degree(const topogen_config *c);

/* "fdla", "neff", "neff-alpha", or the rule's name. A static string. */
const char *topogen_weights_name(int fdla, cm_weight_rule rule);

/* "stl-fw" / "dcliques" links: "ring", "small-world", "fractal". */
const char *topogen_inter_name(int inter);

#endif
