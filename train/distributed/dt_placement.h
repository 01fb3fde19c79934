/* dt_placement: where a distributed run's workers live, decided once at
 * start-up by every rank together.
 *
 * The hosts are found from the ranks' host names (gethostname; ranks that
 * report the same name share a host, which is how mpirun's hostfile names
 * them too); rank 0 computes the placement (cm_place_workers, --placement)
 * and broadcasts it, so every rank holds the same worker -> rank map
 * whatever its floating-point library does; the costs (cm_place_eval) are
 * integer counts every rank computes alike. The placement changes which
 * rank runs a worker, never the arithmetic of a round.
 */
#ifndef DT_PLACEMENT_H
#define DT_PLACEMENT_H

#include <stddef.h>

#include "cm_place.h"
#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_comm.h"

typedef struct {
    size_t P;              /* ranks */
    size_t *host_of_rank;  /* [P] host label of each rank: the lowest rank
                              on the same host */
    size_t *rank_of;       /* [n] rank of each worker */
    cm_place_kind kind;    /* how rank_of was chosen */
    cm_place_how how;      /* which partitioner made it (rank 0's,
                              broadcast) */
    cm_place_stats st;     /* its costs per round, in arrays */
    cm_place_load *load;   /* [P] each rank's share */
} dt_placement;

/* Host labels of all ranks of c into host_of_rank[0..P): the lowest rank
 * whose host name equals the rank's own. Collective. CM_EMPI. O(P) memory,
 * one allreduce of P doubles. */
cm_status dt_comm_host_ids(const dt_comm *c, size_t *host_of_rank);

/* Fills pl for topology t over the ranks of c: host labels, rank_of from
 * rank 0 (cm_place_workers_how with kind; broadcast with its how), and
 * its costs.
 * Collective; the ranks agree on failure. pl is zeroed first; free with
 * dt_placement_destroy. Cost: cm_place_workers on rank 0 plus O(n d). */
cm_status dt_placement_init(dt_placement *pl, const dt_comm *c,
                            const cm_topo *t, cm_place_kind kind);

/* dt_placement_init for a time-varying topology s: rank 0 places by
 * cm_place_workers_seq (the cheapest over the period of the placements of
 * the rounds' union, of each round, and block); the costs in pl (st,
 * load) are those of the union of the rounds (cm_topo_seq_union, built
 * on every rank). Period 1: exactly dt_placement_init on its round.
 * Collective; the ranks agree on failure. Cost: period + 1 placements on
 * rank 0 plus O(M log M) for the union of M edges. */
cm_status dt_placement_init_seq(dt_placement *pl, const dt_comm *c,
                                const cm_topo_seq *s, cm_place_kind kind);

/* Frees what pl owns and zeroes it. Accepts NULL. */
void dt_placement_destroy(dt_placement *pl);

/* The workers of rank r in ascending order into out (room for all n);
 * returns their number. */
size_t dt_placement_workers(const dt_placement *pl, size_t n, size_t r,
                            size_t *out);

#endif
