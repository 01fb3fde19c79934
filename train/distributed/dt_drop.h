/* dt_drop: what --drop-workers needs before the data is loaded: the lost
 * workers and the neighbour lists of the run before the loss (read from
 * the checkpoint's DIR/neighbours on rank 0 and broadcast), so every rank
 * hands the lost shards over alike (dt_handoff); and the neighbour lists
 * a run writes into its checkpoint for a later loss.
 */
#ifndef DT_DROP_H
#define DT_DROP_H

#include <stddef.h>
#include <stdint.h>

#include "cm_status.h"
#include "cm_topo.h"
#include "cm_topo_seq.h"
#include "dt_comm.h"
#include "dt_config.h"

typedef struct {
    size_t *lost;    /* [k] ids of the run before the drop, ascending */
    size_t k;        /* lost workers */
    size_t n0;       /* workers before the drop */
    size_t *off;     /* [n0+1] neighbour lists of the run before ... */
    size_t *nb;      /* [off[n0]] ... (undirected) */
    char list[DT_PATH_MAX]; /* the canonical LIST (cm_idlist_format; never
                               longer than the --drop-workers given) */
} dt_drop_plan;

/* Zeroes p. */
void dt_drop_plan_init(dt_drop_plan *p);

/* Frees what p owns; accepts a zeroed p. */
void dt_drop_plan_destroy(dt_drop_plan *p);

/* Collective. cfg->drop_workers LIST over the checkpoint in
 * cfg->ckpt_dir, for a --topology of n workers (the survivors): rank 0
 * reads DIR/neighbours, checks that LIST names workers of that run
 * (CM_EINVAL "--drop-workers LIST: worker 70 is not among the 64 workers
 * of the run in DIR"), does not remove them all, and leaves exactly n
 * (else CM_EINVAL naming both counts and `topogen repair`), and, when
 * the topology records the nodes it was repaired without
 * (dt_drop_recorded), that they are LIST's of n0 (CM_EINVAL naming both
 * lists); a LIST whose canonical form does not fit p->list is refused
 * (CM_EINVAL), never cut; every rank
 * gets the plan. Errors agreed. O(n0 + edges). */
cm_status dt_drop_load(const dt_comm *comm, const dt_config *cfg, size_t n,
                       dt_drop_plan *p);

/* The removed nodes a topology written by `topogen repair` records in
 * its header ("# repaired: FILE without nodes LIST (of N)"): 1 with *list
 * (malloc'd, the caller frees) and *n0 = N; 0 (*list NULL) when path has
 * no such line or cannot be read. O(header). */
int dt_drop_recorded(const char *path, char **list, size_t *n0);

/* The undirected union of the rounds of seq (in- and out-neighbours of a
 * directed round) into u (initialized; unweighted): the neighbour lists
 * DIR/neighbours records. CM_ENOMEM. O(rounds * m log m). */
cm_status dt_drop_union(const cm_topo_seq *seq, cm_topo *u);

#endif
