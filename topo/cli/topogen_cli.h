/* topogen_cli: topogen's command line: the settings of one invocation
 * (topogen_config), parsed and checked from argv by one flag table that
 * also prints the usage text and writes the header's settings line (part
 * of topogen's main, linked into topogen only: it prints usage errors on
 * stderr and returns exit statuses).
 */
#ifndef TOPOGEN_CLI_H
#define TOPOGEN_CLI_H

#include <stddef.h>

#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_topo.h"
#include "tg_graph.h"
#include "tg_search.h"
#include "tg_seq.h"

/* The program version, written into every file header. Bump it when a
 * change alters the graph or the bytes that given settings produce. */
#define TOPOGEN_VERSION "2.1"

/* Exit status of a usage error (1: a runtime failure). */
#define EXIT_USAGE 2

/* One invocation's settings; every field as parsed from its flag. */
typedef struct {
    int eval;                /* `topogen eval FILE` mode */
    const char *file;        /* eval: the file to read */
    int json;                /* eval: one JSON object */
    size_t simulate;         /* eval: rounds to simulate (0: none) */
    int one_based;           /* eval: node ids start at 1 */
    int weights_given;       /* --weights was on the command line */
    tg_kind kind;            /* what to build */
    int seq;                 /* --kind is time-varying: seq_kind */
    tg_seq_kind seq_kind;    /* one-peer-exp or base */
    cm_weight_rule weights;  /* mixing weights (unless fdla) */
    int fdla;                /* --weights fdla: tg_fdla instead of a rule */
    cm_topo_format format;   /* output format (eval: input format) */
    tg_search_opts search;   /* n, d, objective, seed, iters, ... */
    const char *out;         /* -o FILE or "-" */
    int out_given;           /* -o on the command line (eval: writes) */
    int quiet;               /* no progress on stderr */
    int help, version;       /* --help, --version */
    const char *net;         /* eval: --net NET (NULL: no network model) */
    size_t params;           /* eval: --params, floats per worker array */
    size_t ranks, hosts;     /* eval: --ranks, --hosts (0: one per worker) */
    cm_net_ar_alg allreduce; /* eval, plan: --allreduce (default auto) */
    int allreduce_given;     /* --allreduce was on the command line */
    const char *gamma;       /* --gamma list (NULL: 0.951) */
    int exp_sym;             /* --kind exponential-sym (1) or the old name
                                exponential (2: a notice) */
    int dkind;               /* directed kinds: TOPOGEN_D_* (0: none) */
    int directed;            /* --directed: learned over permutations */
    int local;               /* --local: epidemic EL-Local */
    int compare;             /* `topogen compare` mode */
    int plan;                /* `topogen plan` mode (topogen_plan.c) */
    const char *results;     /* plan --results DIR (NULL: none) */
    double target;           /* plan --target: test accuracy (0.85) */
    int obj_given;           /* --objective was on the command line */
    /* data-aware (topogen_data.c): the counts file of dpsgd-train
     * --write-partition and what is built from it */
    int datakind;            /* TOPOGEN_DK_*: stl-fw or dcliques (0: none) */
    const char *labels;      /* --labels COUNTS (NULL: none) */
    double lambda;           /* --lambda: STL-FW's ||W - J||^2 weight */
    int symmetric;           /* --symmetric: undirected STL-FW */
    int inter;               /* --inter: D-Cliques' inter-clique links */
    int clique_equal;        /* --clique-weights equal (0: mh) */
} topogen_config;

/* Data-aware kinds (topogen_data.c): datakind. */
enum { TOPOGEN_DK_NONE, TOPOGEN_DK_STLFW, TOPOGEN_DK_DCLIQUES };

/* Directed and randomised kinds (topogen_directed.c). */
enum { TOPOGEN_D_NONE, TOPOGEN_D_PERM, TOPOGEN_D_EXP, TOPOGEN_D_EPIDEMIC,
       TOPOGEN_D_LEARNED };

/* The --kind as written in headers ("exponential-sym", "perm", ...). */
const char *topogen_kind_name(const topogen_config *c);

/* The defaults: learned kind, Laplacian weights, edge list on stdout, the
 * search's defaults (tg_search_opts_default). */
void topogen_config_default(topogen_config *c);

/* Parses argv (`topogen [FLAGS]` or `topogen eval FILE [FLAGS]`) into c,
 * which holds the defaults. Returns -1 to go on; else the exit status to
 * return: 0 after printing --help or --version on stdout, EXIT_USAGE after
 * one message naming the flag on stderr. The strings in c point into
 * argv. */
int topogen_parse_args(int argc, char **argv, topogen_config *c);

/* topogen_parse_args for the library (topo/api): the flags of a
 * generation as command-line words ("-n", "16", "--kind", "ring",
 * "--directed", ...; words[0] is a flag, not the program name) applied to
 * c (which holds the defaults), with every check topogen_parse_args
 * makes, printing nothing: CM_EINVAL with the message the command line
 * would print. The flags that steer the program rather than the graph
 * (eval, compare, -o, --format, --quiet, --help, --version) are refused.
 * The strings in c point into words. */
cm_status topogen_config_words(topogen_config *c, size_t count,
                               const char *const *words);

/* The settings that change the graph as one command line into buf (cap
 * bytes, truncated): "-n 64 -d 4 --kind learned ...", every value
 * resolved, so that `topogen SETTINGS` re-creates the file byte for byte.
 * Call after the search's defaults are resolved. */
void topogen_settings_line(const topogen_config *c, char *buf, size_t cap);

#endif
