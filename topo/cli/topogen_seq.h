/* topogen_seq: the time-varying half of topogen's main (topo/cli/topogen.c):
 * report on a sequence file (building one is topogen_make.c). Like topogen.c it prints and returns exit statuses; it
 * is linked into topogen only (the Makefile's topo/cli/ rule). The
 * JSON printers are shared with topogen_eval.c.
 */
#ifndef TOPOGEN_SEQ_H
#define TOPOGEN_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "cm_net.h"
#include "cm_topo_seq.h"
#include "tg_seq.h"

typedef struct {
    const char *file;  /* the file s was read from (messages, report) */
    int json;          /* one JSON object instead of the text report */
    size_t simulate;   /* rounds to simulate instead (0: none) */
    uint64_t seed;     /* of the simulation's random vectors */
    int weights_given; /* --weights was given: refused for a sequence */
    int out_given;     /* -o was given: refused for a sequence */
    const char *net;   /* --net NET (NULL: no network model) */
    size_t ranks;      /* --net: ranks (0: one per node) */
    size_t hosts;      /* --net: hosts (0: one per rank) */
    double array_bytes; /* --net: bytes of one worker array */
    const char *gamma; /* --gamma list for n_eff (NULL: 0.951) */
    const char *extra; /* more report (--labels: topogen_data_eval's text
                          or JSON members), or NULL */
} topogen_seq_eval_job;

/* `topogen eval FILE` for a sequence s of period > 1 read from it:
 * refuses --weights and -o (a sequence carries its own weights), validates
 * s (cm_topo_seq_validate), then prints the text report, one JSON object,
 * or the disagreement per round over `simulate` rounds. With net, each
 * round is modelled on its own (cm_net_eval_placement, block placement:
 * the trainer places a sequence once, so a per-round graph placement
 * would flatter it) and the report adds every round's T_round, their
 * mean (the time per step averaged over a period) and the ring
 * all-reduce of the same workers for comparison. Exit status (1
 * with one message on stderr on failure). */
int topogen_seq_evaluate(const topogen_seq_eval_job *job,
                         const cm_topo_seq *s);

/* The ring all-reduce of n workers' arrays of `bytes` on P ranks on H
 * hosts, two levels: a ring over the ranks of the largest host (intra
 * links), then a ring over the H hosts (inter links); workers of one rank
 * add up in memory for free. With every worker on its own host (P = H =
 * n): the plain ring over n, cm_net_allreduce_time(net, n, 1, bytes). */
double topogen_allreduce_time(const cm_net *net, size_t P, size_t H,
                              double bytes);

#endif
