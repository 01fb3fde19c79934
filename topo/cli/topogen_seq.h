/* topogen_seq: the time-varying half of topogen's main (topo/cli/topogen.c):
 * report on a sequence file (building one is topogen_make.c). Like topogen.c it prints and returns exit statuses; it
 * is linked into topogen only (the Makefile's topo/cli/ rule). The
 * JSON printers are shared with topogen_eval.c.
 */
#ifndef TOPOGEN_SEQ_H
#define TOPOGEN_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

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
    const cm_net *netm; /* --net parsed with the flags (borrowed; NULL:
                           parsed from net here) */
    int platform;      /* net is --platform P.xml's file (messages name
                          that flag) */
    size_t ranks;      /* --net: ranks (0: one per node) */
    size_t hosts;      /* --net: hosts (0: one per rank) */
    double array_bytes; /* --net: bytes of one worker array */
    cm_net_ar_alg allreduce; /* --allreduce: the algorithm that prices
                                all-reduce (default auto) */
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

/* --net's all-reduce report: every algorithm on P ranks on H hosts, and
 * the one --allreduce picks (auto and best resolved). */
typedef struct {
    cm_net_ar alg[CM_AR_COUNT]; /* each algorithm (auto, best resolved) */
    cm_net_ar_alg pick;         /* --allreduce as given */
    size_t P, H;
    size_t G;                   /* sites in use (three levels), else 0 */
} topogen_ar;

/* Fills *a; CM_EINVAL / CM_ENOMEM from cm_net_allreduce_model. O(P log P)
 * per algorithm. */
cm_status topogen_allreduce_eval(const cm_net *net, size_t P, size_t H,
                                 double bytes, cm_net_ar_alg pick,
                                 topogen_ar *a);

/* The report as text lines ("  allreduce   ...") on stdout. */
void topogen_allreduce_print(const topogen_ar *a);

/* The same as members of a JSON object: allreduce_ring_s (as before),
 * allreduce_priced_by (--allreduce), allreduce_alg (what it resolved
 * to), allreduce_s, allreduce_best, allreduce_best_s and allreduce_by_alg
 * {name: seconds}. */
void topogen_allreduce_json(const topogen_ar *a, json_t *o, int *bad);

#endif
