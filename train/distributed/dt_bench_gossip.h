/* dt_bench_gossip: what one gossip round costs on the network at hand,
 * measured alone (no gradients, nothing to overlap), next to what the
 * network model (cm_net) predicts for the same placement.
 *
 * `dpsgd-train --topology FILE --bench-gossip R [--bench-floats N]
 * [--placement P] [--net NET]` places the workers as a training run would,
 * runs 3 warm-up rounds and then R timed rounds of the real exchange
 * (dt_gossip_round on arrays of N floats, default the model's parameter
 * count), each started after a barrier; a round's time is the slowest
 * rank's, as in the model ("worst rank decides"); the median over rounds
 * is reported.
 */
#ifndef DT_BENCH_GOSSIP_H
#define DT_BENCH_GOSSIP_H

#include <stddef.h>

#include "cm_status.h"
#include "dt_comm.h"
#include "dt_config.h"
#include "dt_placement.h"

typedef struct {
    size_t n;            /* workers */
    size_t P, hosts;     /* ranks, distinct hosts */
    size_t rounds;       /* timed rounds */
    size_t len;          /* floats per array */
    double median_s;     /* median over rounds of the slowest rank's time
                            (robust to a loaded machine's hiccups) */
    double min_s;        /* fastest round */
    double model_s;      /* cm_net_round_time of the placement */
    size_t model_rank;   /* the rank that decides in the model */
    cm_place_stats st;   /* the placement's costs, in arrays per round */
    cm_place_kind kind;  /* the placement used */
    cm_place_how how;    /* which partitioner made it */
} dt_gossip_bench;

/* Runs the benchmark on cfg->topology over the ranks of comm (collective;
 * the ranks agree on failure: bad topology, P > n, out of memory, MPI
 * errors). O(R) rounds plus one placement. */
cm_status dt_bench_gossip(const dt_config *cfg, const dt_comm *comm,
                          dt_gossip_bench *res);

#endif
