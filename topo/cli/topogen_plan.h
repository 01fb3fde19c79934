/* topogen_plan: `topogen plan -n N --net NET ...`, "what should I run on
 * my network?" as one ranked table (part of topogen's main, linked into
 * topogen only; like topogen.c it prints and returns exit statuses).
 * Every schedule a user could run with dpsgd-train on N workers, one per
 * rank, on S hosts: all-reduce by algorithm (src/cm_net.h; hierarchical
 * for 1 < S < N) and gossip on the learned, data-aware (--labels), random
 * regular, ring lattice, one-peer exponential, host-aware (1 < S < N) and
 * D-Cliques (--labels) graphs, each with its messages and bytes per
 * worker per communication, the modelled time of one communication, the
 * per-step cost with H local steps between communications (H = 1, 4,
 * 16), the dpsgd-train flags and the topogen command that run it. With
 * --results DIR: the experiments in DIR with N workers, their measured
 * steps to --target repriced with the model (modelled.tsv's measured
 * compute per step plus the modelled communication).
 */
#ifndef TOPOGEN_PLAN_H
#define TOPOGEN_PLAN_H

#include "topogen_cli.h"
#include "topogen_config.h"

/* Runs the plan of c (command TOPOGEN_PLAN, flags checked by
 * topogen_parse_args): prints the text table or, with --json, one JSON
 * object on stdout.
 * Returns 0, 1 with one message on stderr (a file that cannot be read),
 * or EXIT_USAGE (2) for a flag that does not fit (--labels of another n,
 * --results without experiments of N workers). Builds the graphs it
 * prices (a learned search when S < N: seconds at N = 256). */
int topogen_plan(topogen_config *c);

#endif
