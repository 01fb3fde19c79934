/* topogen_eval: `topogen eval FILE`, the report on a topology file (part
 * of topogen's main: like topo/cli/topogen.c it prints and returns exit
 * statuses; linked into topogen only, by the Makefile's topo/cli/ rule
 * rule). topogen_cli.c parses and validates the flags, topogen.c hands
 * them over as a topogen_eval_job; this module reads the file, weights it, and prints
 * the text report, one JSON object or the gossip simulation, with the
 * --net model and the --groups cut, and writes the weighted graph (-o).
 * A time-varying file goes on to topogen_seq.c. The --weights dispatch
 * it shares with generation is topo/make/topogen_weights.c.
 */
#ifndef TOPOGEN_EVAL_H
#define TOPOGEN_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "cm_mixing.h"
#include "cm_net.h"
#include "cm_status.h"
#include "cm_topo.h"

typedef struct {
    const char *file;       /* the file to read */
    cm_topo_format format;  /* its format (CM_FORMAT_AUTO: detect) */
    int one_based;          /* --one-based: node ids start at 1 */
    int json;               /* --json: one JSON object */
    size_t simulate;        /* --simulate: rounds to simulate (0: none) */
    uint64_t seed;          /* --seed: of the simulation's vectors */
    size_t groups;          /* --groups: print the cut in G groups (0: no) */
    cm_weight_rule weights; /* --weights rule (unless fdla) */
    int fdla;               /* --weights: TOPOGEN_W_* (0: the rule) */
    const char *gamma;      /* --gamma list (NULL: 0.951); weights neff
                               optimise for the first */
    int weights_given;      /* --weights was on the command line */
    const char *out;        /* -o FILE: the weighted graph (if out_given) */
    int out_given;          /* -o was on the command line */
    int quiet;              /* no notices on stderr */
    const char *net;        /* --net NET (NULL: no network model) */
    const cm_net *netm;     /* --net as parsed with the flags (borrowed;
                               NULL: parsed from net here) */
    int platform;           /* net is --platform P.xml's file (messages
                               name that flag) */
    size_t params;          /* --params: floats per worker array (0: LeNet) */
    size_t ranks, hosts;    /* --ranks, --hosts (0: one per worker) */
    cm_net_ar_alg allreduce; /* --allreduce: prices all-reduce (auto) */
    const char *version;    /* topogen's version string, for -o's header */
    const char *labels;     /* --labels COUNTS: print H (NULL: no) */
} topogen_eval_job;

/* `topogen eval FILE` for the job c: reads c->file (one round, or a
 * sequence handed to topogen_seq_evaluate), checks it, sets the weights
 * when the file has none or --weights was given, and prints the report
 * on stdout (notices on stderr unless quiet). Returns an exit status:
 * 0, or 1 with one message on stderr. O(n^3) for the dense eigensolve of
 * tg_eval_topo, plus O(simulate * m) for a simulation. */
int topogen_evaluate(const topogen_eval_job *c);

#endif
