/* dt_handoff: the shards of lost workers handed to the survivors
 * (dpsgd-train --resume --drop-workers LIST).
 *
 * The rule (docs/train/checkpoints-and-failures.md): the recipients of lost
 * worker L are the surviving workers nearest to L in the run's topology
 * before the loss (its surviving former neighbours; when none survives,
 * the survivors at the smallest hop distance), in ascending id order. L's
 * images, in its shard's order (ascending image index), go round-robin:
 * image k to recipient k mod r. A survivor's new shard is its own images
 * plus those handed to it, ascending. Survivors are renumbered in order
 * (old id i becomes its rank among the survivors, as topogen repair
 * numbers them). No randomness and no rank count in it: every rank
 * computes the same partition.
 */
#ifndef DT_HANDOFF_H
#define DT_HANDOFF_H

#include <stddef.h>

#include "cm_status.h"
#include "dt_partition.h"

/* Replaces part (n0 = part->n_workers shards) by the n0 - k shards of the
 * survivors of lost[0..k) (ascending, distinct, < n0), the lost shards
 * handed over as above over the neighbour lists nb[off[i] .. off[i+1]) of
 * the n0 workers (undirected: j in i's list iff i in j's). CM_EINVAL when
 * a lost worker reaches no survivor, or k >= n0; CM_ENOMEM (part
 * unchanged on error). O(n0 + images + k * (n0 + edges)) at worst; a
 * lost worker with a surviving neighbour costs O(its degree). */
cm_status dt_handoff_apply(dt_partition *part, const size_t *lost, size_t k,
                           const size_t *off, const size_t *nb);

#endif
